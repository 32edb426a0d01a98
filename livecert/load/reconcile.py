"""Every player of a load run reconciled to the cent through the bet record (REG-MONEY-01 under
load: no bet lost, none settled twice, no money created).

While the load runs, the harness books what it knows: each player's starting balance, every bet
the target accepted (its id and stake), every slip that got no answer (its bets may or may not
have been taken), and the result the dealer entered for each round. After the last round is
settled it reads each player's bet record and balance, and checks:

- every accepted bet is in the record, once;
- the record holds no bet the player never placed (a slip without an answer may have been
  taken: then its bets are allowed, and counted);
- every bet of a round the dealer settled is settled as the paytable says for that result, to
  the minor unit under the declared rounding rule;
- the balance is the start, minus every stake in the record, plus every return.

Money is Decimal throughout. A player whose record or balance could not be read is not
reconciled, and the verdict is `incomplete`, never `compliant`.
"""

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from livecert.adapters.model import BetRecord
from livecert.rules import load_paytable
from livecert.rules.conditions import Outcome
from livecert.rules.settlement import expected_settlement

MONEY = "REG-MONEY-01"
PROBLEMS_KEPT = 50


@dataclass
class PlayerBook:
    """What the harness knows of one player's money while the load runs."""

    player_id: str
    start: Decimal
    accepted: dict[str, Decimal] = field(default_factory=dict)  # bet id -> stake
    unanswered_slips: int = 0  # slips whose answer never came: their bets may be taken
    refusals: list[str] = field(default_factory=list)  # refused slips: status and code


@dataclass
class Reconciliation:
    """The reconciliation's outcome: counts, the problems found, and the verdict."""

    players: int = 0
    reconciled: int = 0
    bets_checked: int = 0
    money_in: Decimal = Decimal(0)  # every stake in the records
    money_out: Decimal = Decimal(0)  # every return in the records
    problems: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # players whose record did not read
    unsettled: int = 0  # bets in rounds the dealer could not settle (the target's error)
    harness_errors: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.harness_errors:
            return "incomplete"  # the harness's own defect: nothing it found is certain
        if self.problems:
            return "non-compliant"
        if self.unreadable or self.reconciled < self.players or not self.bets_checked:
            return "incomplete"
        return "incomplete" if self.unsettled else "compliant"

    def as_dict(self) -> dict[str, Any]:
        return {
            "clause": MONEY,
            "verdict": self.verdict,
            "players": self.players,
            "reconciled": self.reconciled,
            "bets_checked": self.bets_checked,
            "money_in": str(self.money_in),
            "money_out": str(self.money_out),
            "problems": self.problems[:PROBLEMS_KEPT],
            "problem_count": len(self.problems),
            "unreadable": self.unreadable[:PROBLEMS_KEPT],
            "unsettled": self.unsettled,
            "harness_errors": self.harness_errors[:PROBLEMS_KEPT],
        }


def reconcile_player(
    book: PlayerBook,
    record: BetRecord,
    balance: Decimal,
    results: dict[str, Outcome],
    abandoned: set[str],
    game: str,
    minor_unit: int,
    rounding: str,
) -> tuple[list[str], int, Decimal, Decimal, int]:
    """One player's problems, the bets checked, the stakes and returns in their record, and
    their bets left open in rounds the dealer could not settle (their stakes still counted)."""
    problems = []
    who = f"player {book.player_id}"
    counts = Counter(bet.bet_id for bet in record.bets)
    for bet_id, times in counts.items():
        if times > 1:
            problems.append(f"{who}: bet {bet_id} is in the record {times} times")
    for bet_id in book.accepted:
        if bet_id not in counts:
            problems.append(f"{who}: accepted bet {bet_id} is missing from the bet record")
    unknown = [bet.bet_id for bet in record.bets if bet.bet_id not in book.accepted]
    if unknown and not book.unanswered_slips:
        refused = (
            f" (its refused slips: {', '.join(sorted(set(book.refusals)))})"
            if (book.refusals)
            else ""
        )
        problems.append(
            f"{who}: the record holds bets never placed: {', '.join(unknown[:5])}{refused}"
        )
    paytable = load_paytable(game)
    money_in = money_out = Decimal(0)
    unsettled = 0
    for bet in {b.bet_id: b for b in record.bets}.values():
        money_in += bet.stake
        if bet.round_id in abandoned and bet.status == "open":
            unsettled += 1  # the dealer's close or result failed: not judged, not passed
            continue
        stake = book.accepted.get(bet.bet_id)
        if stake is not None and bet.stake != stake:
            problems.append(f"{who}: bet {bet.bet_id} was placed at {stake}, recorded {bet.stake}")
        outcome = results.get(bet.round_id)
        if outcome is None:
            problems.append(f"{who}: bet {bet.bet_id} is in round {bet.round_id}, never settled")
            continue
        expected = expected_settlement(
            paytable, bet.selection, outcome, bet.stake, minor_unit, rounding
        )
        if bet.status != "settled" or bet.returned != expected.returned:
            problems.append(
                f"{who}: bet {bet.bet_id} ({bet.selection} {bet.stake}) on {list(outcome)} is "
                f"{bet.status} returning {bet.returned}, expected {expected.returned}"
            )
        money_out += bet.returned or Decimal(0)
    expected_balance = book.start - money_in + money_out
    if balance != expected_balance:
        problems.append(
            f"{who}: balance {balance}, expected {expected_balance} (start {book.start} minus "
            f"stakes {money_in} plus returns {money_out})"
        )
    return problems, len(counts), money_in, money_out, unsettled
