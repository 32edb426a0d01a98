"""Balances that are read, not set: a target whose players are pre-provisioned accounts.

Such an adapter shows each balance less the account's surplus over what the scenario asked for
(`balance_offset`), so the scenario's amounts hold as written. Two duties need the balance the
account really holds: a stake meant to be over the balance must be over that one (or it is not
over anything), and "no balance below zero" is about the real balance, never the one shown.
"""

import re
from collections.abc import Sequence
from decimal import Decimal

from livecert.adapters.errors import Unsupported
from livecert.adapters.model import PlayerHandle, TableLimits
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure

Slip = Sequence[tuple[str, Decimal | str]]
# the most players one scenario makes (each a lent account while it runs; tests/test_accounts.py
# holds these to the features): 20 at the same moment at a live table (features/table/
# money.feature), 12 at an instant one (features/table/instant_rounds.feature)
ACCOUNTS_NEEDED = {"live": 20, "instant": 12}


def surplus(adapter: object, player: PlayerHandle) -> Decimal:
    """How much more the player's account holds than the balance shown (0 where it is set)."""
    offset = getattr(adapter, "balance_offset", None)
    return offset(player) if offset is not None else Decimal(0)


PLAIN = re.compile(r"\d+(\.\d+)?")  # a stake written as an amount ("1e3", "+10" are not)


def _amount(stake: Decimal | str) -> Decimal | None:
    """The stake as a positive amount, or None (text sent to test a refusal, zero, negative)."""
    if isinstance(stake, str) and not PLAIN.fullmatch(stake):
        return None
    value = Decimal(stake)
    return value if value.is_finite() and value > 0 else None


def plain_total(slip: Slip) -> Decimal:
    """What the slip stakes in amounts (text sent to test a refusal, zero or less: nothing):
    the one measure of whether a slip is over a balance."""
    return sum((a for _, stake in slip if (a := _amount(stake)) is not None), Decimal(0))


def over_the_balance_read(
    adapter: object,
    player: PlayerHandle,
    slip: Slip,
    shown: Decimal,
    limits: TableLimits | None = None,
) -> list[tuple[str, Decimal | str]]:
    """`slip` as sent: where its amounts are over the balance `shown` but not over what the
    account holds, its last bet raised by the surplus, so it is over the balance held by as
    much. A slip within the balance, over the balance held already, or of a player whose
    balance was set, goes as it is. Raised where the table declares no maximum, or beyond a
    declared one, it could be refused for a limit, not the balance: not testable."""
    extra = surplus(adapter, player)
    amounts = [_amount(stake) for _, stake in slip]
    total = plain_total(slip)
    if not extra or total <= shown or total > shown + extra:
        return list(slip)  # within the balance shown, or over the balance held already
    last = max(i for i, a in enumerate(amounts) if a is not None)
    code, stake = slip[last]
    raised = _amount(stake) + extra  # type: ignore[operator]
    written = raised if isinstance(stake, Decimal) else f"{raised}"
    if limits is None or (limits.max_bet is None and limits.max_slip is None):
        raise Unsupported(
            "bet over the balance",
            f"the account holds {shown + extra}, {extra} more than the scenario asked: a slip "
            "over it may be refused for a table limit the target does not declare, not for the "
            "balance (declare the table limits, or lend accounts holding what the scenarios ask)",
        )
    if (limits.max_bet is not None and raised > limits.max_bet) or (
        limits.max_slip is not None and total + extra > limits.max_slip
    ):
        raise Unsupported(
            "bet over the balance",
            f"the account holds {shown + extra}: a slip over that is beyond the table's "
            "declared limits, so its refusal would not be for the balance",
        )
    return [*slip[:last], (code, written), *slip[last + 1 :]]


def real_balance(adapter: object, player: PlayerHandle, shown: Decimal) -> Decimal:
    """The balance the account holds, from the one shown (for "no balance below zero")."""
    return shown + surplus(adapter, player)


def not_below_zero(
    checks: CheckLedger,
    clauses: Sequence[str],
    adapter: object,
    player: PlayerHandle,
    shown: Decimal,
) -> None:
    """REG-BAL-01's "no balance below zero" on the balance held: failed (raised) below zero,
    in any scenario that reads it (a balance below zero is unambiguous); held only where the
    balance was set, as a lent account's surplus makes the check hold by construction (its
    stakes never reach what it holds)."""
    held = real_balance(adapter, player, shown)
    if held < 0:
        raise checks.failed(
            clauses, f"{player.player_id}'s balance is below zero: {held}", judge_untagged=True
        )
    if not surplus(adapter, player):
        checks.held(clauses, f"{player.player_id}'s balance {held} is not below zero")


def below_zero(
    checks: CheckLedger,
    clauses: Sequence[str],
    adapter: object,
    read: Sequence[tuple[PlayerHandle, Decimal]],
) -> ClauseFailure | None:
    """`not_below_zero` on every balance read (player, balance), without raising: each one
    below zero is booked (judged in any scenario) and the first is returned, for the caller
    to raise once its own checks of the same balances are booked too."""
    first = None
    for player, shown in read:
        try:
            not_below_zero(checks, clauses, adapter, player, shown)
        except ClauseFailure as failure:
            first = first or failure
    return first
