"""Compare what a target credited with what the oracle says it must credit."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from livecert.adapters.model import BetView
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure, HarnessError
from livecert.harness.forced_result import forcing_failed
from livecert.rules import ExpectedSettlement, Paytable, expected_settlement
from livecert.rules.conditions import Outcome

SETTLE_DUTY = "REG-SETTLE-01"


@dataclass(frozen=True)
class SettlementRow:
    """One bet: expected against actual, for the evidence table."""

    code: str
    stake: Decimal
    expected: ExpectedSettlement
    actual_outcome: str | None
    actual_win: Decimal | None
    actual_returned: Decimal | None
    actual_status: str
    outcome_judged: bool = True  # False: the target did not say it (inferred from the amounts)

    @property
    def matches(self) -> bool:
        e = self.expected
        return (
            self.actual_status == "settled"
            and (not self.outcome_judged or self.actual_outcome == e.outcome)
            and self.actual_win == e.win
            and self.actual_returned == e.returned
        )

    @property
    def clauses(self) -> tuple[str, ...]:
        """The clauses a mismatch on this bet is evidence against."""
        return (*self.expected.clauses, SETTLE_DUTY)

    def describe(self) -> str:
        e = self.expected
        return (
            f"{self.code} stake {self.stake}: expected {e.outcome} win {e.win} returned "
            f"{e.returned}, target said {self.actual_status}/{self.actual_outcome}"
            f"{'' if self.outcome_judged else ' (not said: from the amounts)'} win "
            f"{self.actual_win} returned {self.actual_returned}"
        )


def check_bet(
    paytable: Paytable, bet: BetView, outcome: Outcome, minor_unit: int, rounding: str
) -> SettlementRow:
    expected = expected_settlement(
        paytable, bet.selection, outcome, bet.stake, minor_unit, rounding
    )
    return SettlementRow(
        bet.selection,
        bet.stake,
        expected,
        bet.outcome,
        bet.win,
        bet.returned,
        bet.status,
        bet.outcome_read,
    )


def judge_slip(
    checks: CheckLedger,
    paytable: Paytable,
    slip: Sequence[tuple[str, Decimal]],
    bets: Sequence[BetView],
    outcome: Outcome,
    minor_unit: int,
    rounding: str,
    reported: tuple | None = None,
) -> list[ClauseFailure]:
    """Each bet of `slip` as the settled round shows it (`bets`), judged on its paytable row
    and REG-SETTLE-01 and booked in `checks`: the failures, already booked. A bet of the slip
    the round does not show, or shows with another stake, is a settlement finding. Bets settled
    not as on `outcome` but exactly as on the result the round `reported` are the forcing's
    failure (a HarnessError, nothing booked), not findings."""
    shown = {b.selection: b for b in bets}

    def settled_as(other: Outcome) -> bool:
        return all(
            code in shown
            and shown[code].stake == stake
            and check_bet(paytable, shown[code], other, minor_unit, rounding).matches
            for code, stake in slip
        )

    problem = forcing_failed(outcome, reported, settled_as)
    if problem:
        raise HarnessError(problem)
    failures = []
    for code, stake in slip:
        bet = shown.get(code)
        if bet is None or bet.stake != stake:
            failures.append(
                checks.failed((SETTLE_DUTY,), f"the settled round does not show {stake} on {code}")
            )
            continue
        row = check_bet(paytable, bet, outcome, minor_unit, rounding)
        if row.matches:
            checks.held(row.clauses, row.describe())
        else:
            failures.append(checks.failed(row.clauses, f"{row.describe()} on {outcome}"))
    return failures


def rows_as_table(rows: list[SettlementRow]) -> str:
    """The expected/actual table attached as evidence, one line per bet: what the paytable
    expects, then the target's settlement, written `=` where it is exactly that (a settled bet
    with that outcome, win and return) and in full, marked NO, where it is not. A sweep round
    attaches one of 110 lines, 216 times a run: the same words twice were half its report."""
    header = "selection | stake | expected | win | returned | the target's settlement"
    lines = [header, "-" * len(header), "(= settled exactly as expected)"]
    for r in rows:
        e = r.expected
        if r.matches and r.actual_outcome == e.outcome:
            actual = "="
        else:
            actual = (
                f"{r.actual_status}/{r.actual_outcome} | win {r.actual_win} | returned "
                f"{r.actual_returned} | {'yes (its amounts)' if r.matches else 'NO'}"
            )
        lines.append(f"{r.code} | {r.stake} | {e.outcome} | {e.win} | {e.returned} | {actual}")
    return "\n".join(lines)
