"""The harness's own clauses for the certification contract, cited like the rules' clause IDs.

The rules documents say nothing of HTTP, so conformance to the contract is a finding of its own:
a response outside the contract fails CONTRACT-01, CONTRACT-02 or CONTRACT-03 and names the
operation, not the rule whose scenario happened to meet it (that rule is then reported not
tested, with the reason).
"""

CONTRACT_STATUS = "CONTRACT-01"
CONTRACT_BODY = "CONTRACT-02"
CONTRACT_IDENTITY = "CONTRACT-03"

CONTRACT_CLAUSES: dict[str, str] = {
    CONTRACT_STATUS: (
        "Every response uses a status code the certification contract documents for its "
        "operation (a 4xx refusal is always allowed)."
    ),
    CONTRACT_BODY: (
        "Every response body matches the contract's schema for its operation and status: each "
        "required field present and of its type, money as decimal strings."
    ),
    CONTRACT_IDENTITY: (
        "Every answer names what was asked: the round, bet, player and table an answer names are "
        "the ones the request named (and a bet's id, round, player, selection and stake those of "
        "the slip that created it)."
    ),
}
