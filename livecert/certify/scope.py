"""What this version of the harness certifies: the clauses its features prove, per game.

A clause in scope must be proven by at least one scenario of the run, or the verdict is
`incomplete`. A clause of the catalogue outside the scope is listed in the certificate as not
tested, with the reason, and does not count towards the verdict: the certificate says plainly
what was and was not certified. tests/test_scope.py keeps this list and the feature tags in step.
"""

from livecert.contract import CONTRACT_CLAUSES

SICBO_PAYOUTS = tuple(f"SB-PAY-{n:02d}" for n in range(1, 17))
XOCDIA_PAYOUTS = tuple(f"XD-PAY-{n:02d}" for n in range(1, 11))
XOCDIA_ROUNDS = ("XD-RND-01", "XD-RND-02", "XD-RND-03", "XD-RND-04", "XD-VOID-01", "XD-VOID-02")

SICBO_ROUNDS = (*(f"SB-RND-{n:02d}" for n in range(1, 7)), "SB-STAT-01")
TABLE = ("TBL-DISC-01", "TBL-DISC-02", "TBL-DISC-03", "TBL-MAL-01", "TBL-MAL-02", "TBL-MAL-03")
DUTIES = (
    "REG-SETTLE-01",
    "REG-RTP-01",
    "REG-COMMIT-01",
    "REG-RECALL-01",
    "REG-IDEMP-01",
    "REG-ACCESS-01",
    "REG-INPUT-01",
    "REG-BAL-01",
    "REG-MONEY-01",
    "REG-LIMIT-01",
    "REG-INTR-01",
)

IN_SCOPE: dict[str, tuple[str, ...]] = {
    "sicbo": ("SB-GEN-01", *SICBO_ROUNDS, *SICBO_PAYOUTS, "SB-RTP-01", *TABLE, *DUTIES),
    "xocdia": ("XD-GEN-01", *XOCDIA_ROUNDS, *XOCDIA_PAYOUTS, "XD-RTP-01", *TABLE, *DUTIES),
}

GAME_SECTIONS = {"sicbo": ("A",), "xocdia": ("B",)}
SHARED_SECTIONS = ("C", "F")
GAMES = tuple(IN_SCOPE)
OUT_OF_SCOPE_REASON = "not covered by this harness version (no scenario proves it yet)"
# Clauses of the catalogue this version does not test yet, with the work that will test them.
NOT_YET_COVERED: dict[str, str] = {}
# The duties judged from a table's outcome history (livecert/fairness), not from scenarios: in
# scope for every game, and not applicable where no history was given (--history).
OUTCOME_DUTIES = ("REG-FAIR-01", "REG-FAIR-02")
NO_HISTORY_REASON = (
    "not applicable: no outcome history given (--history FILE or --history-from-target TABLE): "
    "randomness was not assessed"
)
NOT_CERTIFIABLE = {
    "DOC-LANG-01": "about the documents themselves, not the implementation",
}


def clauses_in_scope(
    games: tuple[str, ...], contract: bool = True, outcomes: bool = True
) -> list[str]:
    """The game's rule clauses (those needing the lab's restart hook too: a run without one
    leaves them not tested, `incomplete`), the duties of the outcome history (`outcomes`; no
    scenario proves them), then the contract clauses every scenario's exchanges prove (only
    when the run spoke the contract: the canonical adapter)."""
    rules = (c for g in games for c in IN_SCOPE[g])
    fair = OUTCOME_DUTIES if outcomes else ()
    return list(dict.fromkeys([*rules, *fair, *(CONTRACT_CLAUSES if contract else ())]))


def is_contract_clause(clause: str) -> bool:
    return clause in CONTRACT_CLAUSES


def sections_for(games: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(s for g in games for s in GAME_SECTIONS[g]) + SHARED_SECTIONS


# Clauses that apply only to what a target declares: with nothing declared there is nothing to
# keep, and the clause is "not applicable" (it neither passes nor leaves the verdict incomplete).
DECLARED_ONLY = {
    "REG-LIMIT-01": "not applicable: the target declares no table limits for {games} (no rule "
    "demands them; the duty applies to the limits a table declares)",
}
