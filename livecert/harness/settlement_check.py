"""Compare what a target credited with what the oracle says it must credit."""

from dataclasses import dataclass
from decimal import Decimal

from livecert.adapters.model import BetView
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

    @property
    def matches(self) -> bool:
        e = self.expected
        return (
            self.actual_status == "settled"
            and self.actual_outcome == e.outcome
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
            f"{e.returned}, target said {self.actual_status}/{self.actual_outcome} win "
            f"{self.actual_win} returned {self.actual_returned}"
        )


def check_bet(
    paytable: Paytable, bet: BetView, outcome: Outcome, minor_unit: int, rounding: str
) -> SettlementRow:
    expected = expected_settlement(
        paytable, bet.selection, outcome, bet.stake, minor_unit, rounding
    )
    return SettlementRow(
        bet.selection, bet.stake, expected, bet.outcome, bet.win, bet.returned, bet.status
    )


def rows_as_table(rows: list[SettlementRow]) -> str:
    """The expected/actual table attached as evidence, one line per bet."""
    header = (
        "selection | stake | expected | exp. win | exp. returned | actual | win | returned | ok"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        e = r.expected
        lines.append(
            f"{r.code} | {r.stake} | {e.outcome} | {e.win} | {e.returned} | "
            f"{r.actual_status}/{r.actual_outcome} | {r.actual_win} | {r.actual_returned} | "
            f"{'yes' if r.matches else 'NO'}"
        )
    return "\n".join(lines)
