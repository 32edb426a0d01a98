"""Compare what a target credited with what the oracle says it must credit."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from livecert.adapters.model import BetView
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure, HarnessError
from livecert.harness.forced_result import forcing_failed
from livecert.rules import (
    ROUNDING_MODES,
    ExpectedSettlement,
    Paytable,
    expected_settlement,
    round_to_minor,
)
from livecert.rules.conditions import Outcome

# RULES.md F: "Bets are settled according to the published rules"; the rounding rule is the one
# the implementation publishes (RULES.md D, money: "every settlement is checked against the
# exact amount under that rule"), so a win rounded by another rule breaks this duty alone
SETTLE_DUTY = "REG-SETTLE-01"


def rounded_otherwise(
    expected: ExpectedSettlement,
    win: Decimal | None,
    returned: Decimal | None,
    minor_unit: int,
    declared: str,
) -> str | None:
    """The rounding rules, other than the `declared` one, that explain a win differing from the
    expected one exactly (the exact win rounded by them to the minor unit, and returned with the
    stake: "'up' or 'half-up'"), or None. Such a difference is the rounding duty's
    (REG-SETTLE-01) alone: the row's odds gave the exact amount. Any other difference is not
    explained by rounding."""
    if expected.outcome != "win" or win is None or win == expected.win:
        return None
    if returned != expected.stake + win:
        return None
    modes = [
        repr(mode)
        for mode in ROUNDING_MODES
        if mode != declared and round_to_minor(expected.exact_win, minor_unit, mode) == win
    ]
    return " or ".join(modes) or None


def settled_clauses(
    expected: ExpectedSettlement, bet: BetView, minor_unit: int, declared: str
) -> tuple[str, ...]:
    """The clauses a settlement of `bet` is judged on: its paytable row's and REG-SETTLE-01;
    only REG-SETTLE-01 where it is settled as expected but for the rounding direction (a win
    the oracle cannot tell from the row's at these amounts judges the row neither way)."""
    outcome_right = not bet.outcome_read or bet.outcome == expected.outcome
    rounded = rounded_otherwise(expected, bet.win, bet.returned, minor_unit, declared)
    if bet.status == "settled" and outcome_right and rounded:
        return (SETTLE_DUTY,)
    return (*expected.clauses, SETTLE_DUTY)


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
    minor_unit: int = 2  # the target's declared minor unit and rounding rule
    rounding: str = "down"
    exact_win: Decimal | None = None  # a multiple's unrounded win: the odds alone judged

    @property
    def matches(self) -> bool:
        e = self.expected
        if self.exact_win is not None:  # the target wrote the odds, not the rounded amount
            return (
                self.actual_status == "settled"
                and (not self.outcome_judged or self.actual_outcome == e.outcome)
                and Fraction(self.exact_win) == e.exact_win
            )
        return (
            self.actual_status == "settled"
            and (not self.outcome_judged or self.actual_outcome == e.outcome)
            and self.actual_win == e.win
            and self.actual_returned == e.returned
        )

    @property
    def rounded_as(self) -> str | None:
        """The other rounding rule the target settled this bet by, if that is its only fault
        (none where the target wrote odds, not an amount)."""
        if self.actual_status != "settled" or self.exact_win is not None:
            return None
        if self.outcome_judged and self.actual_outcome != self.expected.outcome:
            return None
        return rounded_otherwise(
            self.expected, self.actual_win, self.actual_returned, self.minor_unit, self.rounding
        )

    @property
    def clauses(self) -> tuple[str, ...]:
        """The clauses this bet is evidence for or against: its row's and REG-SETTLE-01, or
        REG-SETTLE-01 alone where it differs only by the rounding direction."""
        if not self.matches and self.rounded_as:
            return (SETTLE_DUTY,)
        return (*self.expected.clauses, SETTLE_DUTY)

    def describe(self) -> str:
        e = self.expected
        text = (
            f"{self.code} stake {self.stake}: expected {e.outcome}, paid {e.win}, returned "
            f"{e.returned}; target said {self.actual_status}/{self.actual_outcome}"
            f"{'' if self.outcome_judged else ' (not said: from the amounts)'}, paid "
            f"{self.actual_win}, returned {self.actual_returned}"
        )
        if self.exact_win is not None:
            text += (
                f" (its text gives the odds: an exact win of {self.exact_win}, whose rounding "
                "only the balance shows; the odds judged)"
            )
        mode = None if self.matches or self.exact_win is not None else self.rounded_as
        if mode:
            text += (
                f" (the exact win {_exact(e)} rounded {mode}, not by the declared rule "
                f"{self.rounding!r})"
            )
        return text


def _exact(expected: ExpectedSettlement) -> str:
    """The exact win as a decimal (a win is a stake times odds of a few decimals: it ends)."""
    exact = expected.exact_win
    return str(Decimal(exact.numerator) / Decimal(exact.denominator))


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
        minor_unit,
        rounding,
        bet.exact_win,
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
