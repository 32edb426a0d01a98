"""The catalogue of seeded faults: each breaks one rule so a certification run can prove it notices.

A fault is enabled with `livecert serve --fault NAME`; the branches that apply it are marked
`# FAULT <name>` in the game modules and the service. The clause lists include the consequences a
certification run legitimately detects (settlement and RTP duties besides the broken pay clause).
"""

from __future__ import annotations

from livecert.reference.fault_ranges import RANGED
from livecert.reference.fault_values import Fault, FaultSet

__all__ = ["FAULTS", "Fault", "FaultSet", "check", "listing"]


_PAY = ("REG-SETTLE-01", "REG-RTP-01")
_PAY_RTP = ("REG-SETTLE-01", "REG-RTP-01", "SB-RTP-01")
_PAY_XD = ("REG-SETTLE-01", "REG-RTP-01", "XD-RTP-01")

_ENTRIES: tuple[Fault, ...] = (
    Fault(
        "small-wins-on-triple",
        ("SB-PAY-16", *_PAY_RTP),
        "SMALL wins 1:1 on the triples whose total is 4..10 (2-2-2, 3-3-3)",
    ),
    Fault("total-10-pays-7-to-1", ("SB-PAY-08", *_PAY_RTP), "TOTAL_10 pays 7:1 instead of 6:1"),
    Fault(
        "number-on-three-dice-pays-2-to-1",
        ("SB-PAY-05", *_PAY),
        "NUMBER_n on a triple of n pays 2:1 instead of 3:1",
    ),
    Fault(
        "two-odd-one-even-pays-1-to-1",
        ("SB-PAY-12", *_PAY),
        "TWO_ODD_ONE_EVEN pays 1:1 instead of 3:2",
    ),
    Fault(
        "four-numbers-counts-repeats",
        ("SB-PAY-15", *_PAY_RTP),
        "FOUR_NUMBERS wins whenever all three dice are in the set, repeats allowed",
    ),
    Fault("pair-loses-on-triple", ("SB-PAY-10", *_PAY), "PAIR_n loses on triple n"),
    Fault(
        "double-pays-twice",
        ("SB-PAY-09", *_PAY),
        "DOUBLE_a_b pays 10:1 (twice 5:1) when a or b shows twice (1-1-2)",
    ),
    Fault(
        "three-to-two-rounds-wrong-way",
        ("REG-SETTLE-01",),  # the rounding duty's alone: the rows' odds are right
        "3:2 wins (Sic Bo's TWO_ODD_ONE_EVEN and TWO_EVEN_ONE_ODD, Xoc Dia's 1.5:1 TWO_TWO) are "
        "rounded opposite to the declared rule (down->up, up/half-*->down)",
    ),
    Fault("small-includes-eleven", ("SB-PAY-01", *_PAY_RTP), "SMALL also wins on total 11"),
    Fault("big-includes-ten", ("SB-PAY-02", *_PAY_RTP), "BIG also wins on total 10"),
    Fault("odd-pays-2-to-1", ("SB-PAY-03", *_PAY_RTP), "ODD pays 2:1"),
    Fault("even-loses-on-total-4", ("SB-PAY-04", *_PAY), "EVEN loses on total 4"),
    Fault("specific-triple-pays-150", ("SB-PAY-06", *_PAY), "TRIPLE_n pays 150:1"),
    Fault("any-triple-pays-24", ("SB-PAY-07", *_PAY), "ANY_TRIPLE pays 24:1"),
    Fault("all-even-pays-5-to-1", ("SB-PAY-11", *_PAY), "ALL_EVEN pays 5:1"),
    Fault(
        "three-singles-ordered",
        ("SB-PAY-13", *_PAY),
        "THREE_SINGLES_a_b_c wins only when the dice were entered in ascending order",
    ),
    Fault(
        "double-single-ignores-single",
        ("SB-PAY-14", *_PAY_RTP),
        "DOUBLE_SINGLE_p_p_s wins on any roll with exactly two p's, whatever the third die",
    ),
    Fault(
        "declares-wrong-max-rtp",
        ("SB-RTP-01", "REG-RTP-01"),
        '/v1/info declares max_rtp sicbo "97.50"',
    ),
    Fault(
        "die-out-of-range-accepted",
        ("SB-GEN-01", "REG-INPUT-01"),
        "a result with a die of 0 or 7 is accepted (and settled) instead of refused",
    ),
    Fault(
        "total-misreported",
        ("SB-GEN-01",),
        "the result's total is reported off by one (sum + 1, 17 for 6-6-6); settlement correct",
    ),
    # -- Xoc Dia ------------------------------------------------------------------------------
    Fault(
        "big-loses-on-two-two",
        ("XD-PAY-09", *_PAY),
        "BIG loses (returns nothing) on 2 red 2 white instead of returning the stake",
    ),
    Fault(
        "big-paid-on-two-two",
        ("XD-PAY-09", *_PAY_XD),
        "BIG is paid 0.96:1 on 2 red 2 white instead of returning the stake",
    ),
    Fault(
        "small-loses-on-two-two",
        ("XD-PAY-10", *_PAY),
        "SMALL loses (returns nothing) on 2 red 2 white instead of returning the stake",
    ),
    Fault(
        "odd-even-pay-1-to-1",
        ("XD-PAY-07", "XD-PAY-08", *_PAY_XD),
        "ODD and EVEN pay 1:1 instead of 0.96:1",
    ),
    Fault(
        "one-white-three-red-paid-as-three-white-one-red",
        ("XD-PAY-02", "REG-SETTLE-01"),
        "ONE_WHITE_THREE_RED wins on three white one red instead of on one white three red",
    ),
    Fault(
        "four-of-a-colour-paid-on-three",
        ("XD-PAY-06", *_PAY_XD),
        "FOUR_OF_A_COLOUR also wins 6.5:1 on three of a colour (1 or 3 red)",
    ),
    Fault("four-red-pays-10-to-1", ("XD-PAY-01", *_PAY), "FOUR_RED pays 10:1 instead of 14:1"),
    Fault("two-two-pays-1-to-1", ("XD-PAY-03", *_PAY), "TWO_TWO pays 1:1 instead of 1.5:1"),
    Fault(
        "three-white-one-red-pays-2-to-1",
        ("XD-PAY-04", *_PAY),
        "THREE_WHITE_ONE_RED pays 2:1 instead of 2.8:1",
    ),
    Fault("four-white-pays-10-to-1", ("XD-PAY-05", *_PAY), "FOUR_WHITE pays 10:1 instead of 14:1"),
    Fault(
        "point-ninety-six-rounds-the-wrong-way",
        ("REG-SETTLE-01",),  # the rounding duty's alone: the rows' odds are right
        "0.96:1 wins (ODD, EVEN, BIG, SMALL) are rounded opposite to the declared rule "
        "(down->up, up/half-*->down)",
    ),
    Fault(
        "early-reveal-settled",
        ("XD-VOID-01",),
        "a Xoc Dia result entered during betting settles instead of voiding the round",
    ),
    Fault(
        "unshaken-round-settled",
        ("XD-VOID-01",),
        "a Xoc Dia round with no shake recorded settles instead of voiding",
    ),
    Fault(
        "void-keeps-stakes",
        ("XD-VOID-01",),
        'a voided Xoc Dia round marks its bets void but returns nothing (returned "0.00")',
    ),
    Fault(
        "bowl-touch-ignored",
        ("XD-VOID-02",),
        "bowl-touched-token is recorded but the round goes on and settles at its result",
    ),
    Fault(
        "rearrange-voids-round",
        ("XD-RND-02",),
        "a rearrange event voids the Xoc Dia round (bets returned) instead of changing nothing",
    ),
    Fault(
        "reshake-returns-bets",
        ("XD-RND-03", "XD-RND-04"),
        "a Xoc Dia re-shake (items-fell, standing-token) refunds the open bets (status void)",
    ),
    Fault(
        "bets-accepted-after-betting-closed",
        ("XD-RND-01", "REG-COMMIT-01"),
        "a Xoc Dia round still takes bets in state closed (after betting, re-shakes, rearranging)",
    ),
    Fault(
        "bad-token-accepted",
        ("XD-GEN-01", "REG-INPUT-01"),
        'a Xoc Dia result with a token other than "r"/"w" is accepted, the token counted as white',
    ),
    Fault(
        "declares-wrong-max-rtp-xocdia",
        ("XD-RTP-01", "REG-RTP-01"),
        '/v1/info declares max_rtp xocdia "99.00"',
    ),
    # -- the round's life, money, records and access (both games) -------------------------------
    Fault(
        "countdown-not-enforced",
        ("SB-RND-01", "XD-RND-01", "REG-COMMIT-01"),
        "bets are still accepted after the countdown ran out, until the dealer closes betting",
    ),
    Fault(
        "sicbo-bets-after-close-accepted",
        ("SB-RND-01", "SB-RND-04", "REG-COMMIT-01"),
        "a Sic Bo round takes bets in state closed (after close, during re-shakes)",
    ),
    Fault(
        "bets-after-result-accepted",
        ("SB-RND-01", "XD-RND-01", "REG-COMMIT-01"),
        "a settled round (either game) accepts bets, which stay open",
    ),
    Fault(
        "result-settles-twice",
        ("REG-MONEY-01", "REG-INPUT-01"),
        "a second result entered for a settled round (either game) is accepted (200, where "
        "REG-INPUT-01 and the contract's ROUND_STATE refuse it) and settles the round's bets "
        "again by it: every winner is credited a second time",
    ),
    Fault(
        "withdrawal-allowed",
        ("SB-RND-04",),
        "DELETE /v1/bets/{id} by its player while the round is betting cancels and refunds the bet",
    ),
    Fault(
        "withdrawal-allowed-after-close",
        ("SB-RND-04",),
        "DELETE /v1/bets/{id} while the round is closed (after close, during a re-shake) "
        "cancels and refunds the bet",
    ),
    Fault(
        "sicbo-reshake-returns-bets",
        ("SB-RND-05", "SB-RND-06", "SB-RND-04"),
        "a Sic Bo re-shake refunds the open bets (status void)",
    ),
    Fault(
        "reshake-takes-bets",
        ("SB-RND-04", "REG-COMMIT-01"),
        "a Sic Bo round that was re-shaken takes new bets until its result (accepted, debited "
        "and settled); a closed round without a re-shake still refuses them",
    ),
    Fault(
        "reshake-reopens-betting",
        ("SB-RND-04", "XD-RND-01", "REG-COMMIT-01"),
        "a re-shake after betting closed opens betting again (state betting, a fresh default "
        "countdown; new bets accepted) instead of keeping it closed, in both games",
    ),
    Fault("paused-round-takes-bets", ("TBL-MAL-01",), "a paused round accepts bets"),
    Fault(
        "paused-round-takes-result",
        ("TBL-MAL-01",),
        "a paused round accepts a result and settles",
    ),
    Fault(
        "resume-voids-bets",
        ("TBL-MAL-02",),
        "resuming a paused round refunds its open bets (status void); the round goes on empty",
    ),
    Fault(
        "resume-reopens-betting",
        ("SB-RND-01", "REG-COMMIT-01"),
        "resuming a Sic Bo round paused after betting closed opens betting again (state betting, "
        "a fresh default countdown; new bets accepted) instead of going on closed",
    ),
    Fault(
        "cancel-refunds-nothing",
        ("TBL-MAL-03",),
        'the dealer\'s cancel marks bets cancelled but credits nothing (returned "0.00")',
    ),
    Fault(
        "cancel-refunds-twice",
        ("REG-MONEY-01",),
        "the dealer's cancel credits every stake twice (returned shows the stake once)",
    ),
    Fault(
        "cancel-skips-disconnected",
        ("TBL-DISC-02", "TBL-MAL-03"),
        "the dealer's cancel refunds the bets of connected players only: a disconnected "
        "player's bets stay open in the cancelled round and their stakes are kept",
    ),
    Fault(
        "disconnect-voids-bets",
        ("TBL-DISC-02", "TBL-DISC-01"),
        "POST /v1/player/disconnect refunds the player's open bets (status void)",
    ),
    Fault(
        "disconnected-player-not-paid",
        ("TBL-DISC-02",),
        "at settlement, bets of a disconnected player are recorded as lost whatever the result",
    ),
    Fault(
        "rejoin-settles-twice",
        ("REG-MONEY-01", "TBL-DISC-02"),
        "a player who reconnects while a round they bet on is still open is credited twice for "
        "each of their bets of that round when it settles (the bet record shows one settlement)",
    ),
    Fault(
        "record-missing-stake",
        ("TBL-DISC-03", "REG-RECALL-01"),
        'the bet record shows every stake (and each round\'s staked) as "0.00"',
    ),
    Fault(
        "record-shows-other-players",
        ("REG-ACCESS-01",),
        "GET /v1/player/bets lists every player's bets (of the round asked for, or of all "
        "rounds), not only the caller's; its rounds stay the caller's",
    ),
    Fault(
        "record-balance-after-wrong",
        ("REG-RECALL-01",),
        "the bet record's balance_after of a finished round is its balance_before",
    ),
    Fault(
        "statistics-30-rounds",
        ("SB-STAT-01",),
        "the statistics chart holds 30 rounds instead of 50",
    ),
    Fault("statistics-oldest-first", ("SB-STAT-01",), "the statistics chart is oldest first"),
    Fault(
        "statistics-includes-cancelled",
        ("SB-STAT-01",),
        "cancelled and void rounds count towards the chart's 50 (49 results shown when one of "
        "the last 50 rounds was cancelled)",
    ),
    Fault(
        "idempotency-ignored",
        ("REG-IDEMP-01",),
        "a re-sent slip with the same Idempotency-Key is applied again",
    ),
    Fault(
        "idempotency-key-recorded-late",
        ("REG-IDEMP-01",),
        "a slip's Idempotency-Key is recorded only after a slow step (300 ms, Config."
        "fault_delay_ms) once the slip is placed: a re-send arriving meanwhile is placed again",
    ),
    Fault(
        "idempotency-key-forgotten-at-close",
        ("REG-IDEMP-01",),
        "a round's Idempotency-Keys are forgotten once its betting is over: a slip re-sent after "
        "betting closed is taken as a new slip (refused ROUND_STATE) instead of answered again",
    ),
    Fault(
        "player-can-deal",
        ("REG-ACCESS-01",),
        "a player token is accepted for dealer actions (open, close, result, pause, cancel, ...)",
    ),
    Fault(
        "player-sees-others-bets",
        ("REG-ACCESS-01",),
        "GET /v1/rounds/{id} with a player token shows every player's bets",
    ),
    Fault("stake-zero-accepted", ("REG-INPUT-01",), 'a stake of "0.00" (or "0") is accepted'),
    Fault(
        "partial-slip-accepted",
        ("REG-INPUT-01",),
        "a slip with unknown selections or bad stakes among good bets places the good ones (201)",
    ),
    Fault(
        "empty-or-garbled-slip-accepted",
        ("REG-INPUT-01",),
        "an empty bet slip, or one that is not valid JSON, is answered 201 with no bets",
    ),
    Fault(
        "slip-content-type-ignored",
        ("REG-INPUT-01",),
        "a bet slip sent as text/plain is parsed as JSON and placed instead of refused (415)",
    ),
    Fault(
        "stake-number-accepted",
        ("REG-INPUT-01",),
        'a stake sent as a JSON number (1.5) is taken as "1.50" instead of refused',
    ),
    Fault(
        "lax-body-reader",
        ("REG-INPUT-01",),
        "bodies are read as before the contract stated its limits: any size, the last of "
        "duplicate keys kept, UTF-16 and +json types taken",
    ),
    Fault(
        "stake-over-limit-accepted",
        ("REG-LIMIT-01",),
        "a stake above the declared table maximum (per bet and per slip) is taken",
    ),
    Fault(
        "stake-at-limit-refused",
        ("REG-LIMIT-01",),
        "a stake of exactly the declared maximum per bet is refused (an off-by-one limit)",
    ),
    Fault(
        "negative-balance-allowed",
        ("REG-BAL-01", "REG-INPUT-01"),
        "a slip above the balance is accepted and the balance goes negative",
    ),
    Fault(
        "lost-update-under-concurrency",
        ("REG-MONEY-01",),
        "a slip's debit is written 5 ms after the balance was read, outside the transaction, "
        "so concurrent slips of one player lose debits",
    ),
    Fault(
        "interrupted-round-lost",
        ("REG-INTR-01",),
        "on start-up on an existing database, unfinished rounds are deleted with their bets "
        "(stakes not returned)",
    ),
    Fault(
        "interrupted-bet-lost",
        ("REG-INTR-01",),
        "on start-up on an existing database, the last bet of each unfinished round is deleted "
        "(its stake not returned); the round and its other bets stay",
    ),
    Fault(
        "one-slip-per-round",
        ("SB-RND-02",),
        "a Sic Bo player's second slip in a round is refused (one bet slip per round)",
    ),
    Fault(
        "winnings-not-credited",
        ("SB-RND-03", "REG-MONEY-01"),
        "a Sic Bo result settles the bets but credits no winnings to the balances",
    ),
    # -- the shaker of the drawn tables (livecert/reference/shaker.py): their outcomes --------
    Fault(
        "loaded-die",
        ("REG-FAIR-01",),
        "the Sic Bo shaker's first die shows 6 with probability 0.25, each other face 0.15 (the "
        "drawn tables and the generated histories; entered results are unchanged)",
    ),
    Fault(
        "sticky-die",
        ("REG-FAIR-02",),
        "each Sic Bo die shows again its face of the shaker's previous roll with probability "
        "0.10, else a fair face: the faces stay uniform, the rolls are not independent",
    ),
    Fault(
        "red-biased-token",
        ("REG-FAIR-01",),
        "the Xoc Dia bowl's first token lands red with probability 0.6 (the other three fair)",
    ),
    # Contract violations: the answer is right but not in the contract's shape (a harness clause).
    Fault(
        "balance-as-number",
        ("CONTRACT-02",),
        "GET /v1/player answers the balance as a JSON number (100.5), not a decimal string",
    ),
    Fault(
        "record-missing-balance-after",
        ("CONTRACT-02",),
        "the bet record's rounds leave out the required balance_after field",
    ),
    Fault(
        "round-state-in-capitals",
        ("CONTRACT-02",),
        "GET /v1/rounds/{id} writes the state in capitals (BETTING), outside the contract's values",
    ),
    Fault(
        "result-answers-another-round",
        ("CONTRACT-03",),
        "the result's answer names another round id than the one settled (the round itself is "
        "settled right; its answer says it is round '<id>-x')",
    ),
    Fault(
        "open-round-answers-200",
        ("CONTRACT-01",),
        "opening a round answers 200 OK, a status the contract does not document (201 Created)",
    ),
    Fault(
        "info-money-as-numbers",
        ("CONTRACT-02",),
        "GET /v1/info sends its money (max_rtp, and limits where declared) as JSON numbers, not "
        "decimal strings",
    ),
)

FAULTS: dict[str, Fault] = {fault.name: fault for fault in (*_ENTRIES, *RANGED)}


def listing() -> list[str]:
    """One line per fault, `NAME CLAUSE[,CLAUSE...]` and, for a fault with a parameter,
    ` KIND:LOW..HIGH` (its whole range), as `livecert serve --list-faults` prints."""
    lines = []
    for fault in FAULTS.values():
        line = f"{fault.name} {','.join(fault.clauses)}"
        if fault.parameter is not None:
            line += f" {fault.parameter.listed}"
        lines.append(line)
    return lines


def check(specs: list[str] | tuple[str, ...]) -> FaultSet:
    """The faults `specs` name (`NAME` or `NAME=VALUE`), each parameter checked against its
    range (a parameter left out takes its default); raise ValueError naming what is wrong."""
    names = [spec.partition("=")[0] for spec in specs]
    unknown = [name for name in names if name not in FAULTS]
    if unknown:
        raise ValueError(
            f"unknown fault(s): {', '.join(unknown)}; valid faults: {', '.join(FAULTS)}"
        )
    values: dict[str, str] = {}
    for spec in specs:
        name, given, text = spec.partition("=")
        parameter = FAULTS[name].parameter
        if given and parameter is None:
            raise ValueError(f"the fault {name} takes no parameter (give it as {name})")
        if parameter is not None:
            values[name] = parameter.parse(text) if given else parameter.default
    return FaultSet(names, values)
