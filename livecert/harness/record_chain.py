"""A player's bet record read over many rounds, each row judged against the one before.

REG-RECALL-01 asks the record of a round to show "the balance before and after". Checked only
for the round just played, a record wrong on an earlier round (or only on rounds above some
stake) passes; so the harness reads the record once over every round a player played and judges
each row: its stake, its return, its balance before the balance after of the round before
(chained), and, where the balance is set rather than lent (read_balances.py), both balances
the oracle's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from livecert.adapters.model import BetRecord


@dataclass(frozen=True)
class PlayedRound:
    """What one player staked in one round and, by the oracle, got back; their balance before
    it (before their first bet in it). `finished` is False where the round was left open."""

    round_id: str
    before: Decimal
    staked: Decimal
    returned: Decimal
    finished: bool = True

    @property
    def after(self) -> Decimal:
        return self.before - self.staked + self.returned


def chain_problems(
    record: BetRecord, played: list[PlayedRound], exact: bool
) -> Iterator[tuple[PlayedRound, list[str]]]:
    """Per round played (in the order played), what its record row gets wrong (empty: right).
    `exact`: the balances are compared with the oracle's too, not only with each other."""
    after_shown: Decimal | None = None
    for each in played:
        row = record.round(each.round_id)
        if row is None:
            yield each, ["the record has no row for it"]
            after_shown = None
            continue
        problems = []
        if row.staked != each.staked:
            problems.append(f"staked {row.staked}, expected {each.staked}")
        if each.finished and row.returned is not None and row.returned != each.returned:
            problems.append(f"returned {row.returned}, expected {each.returned}")
        if after_shown is not None and row.balance_before != after_shown:
            problems.append(
                f"balance before {row.balance_before}, but the round before ended at {after_shown}"
            )
        if exact and row.balance_before != each.before:
            problems.append(f"balance before {row.balance_before}, expected {each.before}")
        shown_after = row.balance_after if each.finished else None
        if exact and shown_after is not None and shown_after != each.after:
            problems.append(f"balance after {shown_after}, expected {each.after}")
        yield each, problems
        after_shown = shown_after
