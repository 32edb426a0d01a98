"""The target as the steps see it: plain values with exact money, whatever the wire format."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

LIMIT_NAMES = ("min_bet", "max_bet", "min_slip", "max_slip")


@dataclass(frozen=True)
class TableLimits:
    """The stakes a game's table declares it takes (REG-LIMIT-01): per bet and per slip, each
    bound optional. A target that declares none is in no breach: no rule demands limits."""

    min_bet: Decimal | None = None
    max_bet: Decimal | None = None
    min_slip: Decimal | None = None
    max_slip: Decimal | None = None

    def declared(self) -> dict[str, Decimal]:
        return {n: getattr(self, n) for n in LIMIT_NAMES if getattr(self, n) is not None}

    def at_a_bound(self, stakes: Sequence[Decimal]) -> str | None:
        """The declared bound a slip of `stakes` lies exactly at (a bet at `min_bet` or
        `max_bet`, the slip's total at `min_slip` or `max_slip`), if any: a stake at a limit
        must be taken (REG-LIMIT-01), so its refusal is that clause's."""
        total = sum(stakes, Decimal(0))
        for name, value in self.declared().items():
            if (total == value) if name.endswith("_slip") else (value in stakes):
                return f"{name} {value}"
        return None

    def problem(self) -> str | None:
        """What makes the declaration impossible to honour, if anything."""
        bounds = self.declared()
        if any(v <= 0 for v in bounds.values()):
            return "every limit must be a positive amount"
        for low, high in (
            ("min_bet", "max_bet"),
            ("min_slip", "max_slip"),
            ("min_bet", "max_slip"),
        ):
            if low in bounds and high in bounds and bounds[low] > bounds[high]:
                return f"{low} {bounds[low]} is above {high} {bounds[high]}"
        return None


def limits_from(raw: dict | None) -> dict[str, TableLimits]:
    """Declared limits, `{game: {min_bet: "0.01", ...}}` (decimal strings, as /v1/info and a
    mapping's `declares.limits` write them), read exactly."""
    return {
        game: TableLimits(**{n: Decimal(str(v)) for n, v in bounds.items() if n in LIMIT_NAMES})
        for game, bounds in (raw or {}).items()
    }


@dataclass(frozen=True)
class TargetInfo:
    """What an implementation declares about itself (GET /v1/info)."""

    name: str
    version: str
    contract_version: str
    games: tuple[str, ...]
    currency: str
    minor_unit: int
    rounding: str
    max_rtp: dict[str, Decimal]
    capabilities: tuple[str, ...]
    limits: dict[str, TableLimits] = field(default_factory=dict)  # per game, where declared
    instance: str | None = None  # the running server process, new each start (a restart seen)


@dataclass(frozen=True)
class PlayerHandle:
    """A test player and the credential that acts for them."""

    player_id: str
    token: str = field(repr=False)


@dataclass(frozen=True)
class BetView:
    """One bet as the target reports it."""

    bet_id: str
    round_id: str
    player_id: str
    selection: str
    stake: Decimal
    status: str
    outcome: str | None
    win: Decimal | None
    returned: Decimal | None
    # False where the target did not say the outcome and the adapter inferred it from the
    # amounts: a win that rounds to nothing returns the stake like a refund, so only the
    # amounts are judged then
    outcome_read: bool = True
    # the win a target's multiple of the stake gives ("Won x0.96"), unrounded, where it falls
    # between minor units: the text says the odds, not the rounding, so only the odds are
    # judged on this bet (its win and return are the declared rounding's; the balance shows
    # what the target paid)
    exact_win: Decimal | None = None

    @property
    def settlement_unshown(self) -> bool:
        """The target showed nothing of how the bet settled (a live table pushes it only to a
        connected player): no status, outcome or return to judge."""
        return (self.status, self.outcome, self.returned) == (None, None, None)


@dataclass(frozen=True)
class RoundView:
    """A round as the target reports it."""

    round_id: str
    table_id: str
    game: str
    state: str
    result: dict | None
    bets: tuple[BetView, ...]
    events: tuple[dict, ...] | None = ()  # None: the target does not report them
    # the round as the harness assembled it from a live table's stream: its id and its bets
    # are the ones asked and acknowledged, not an answer naming them (nothing to compare)
    echoed: bool = False
    opened_at: str | None = None  # ISO 8601 times as the target wrote them
    betting_ends_at: str | None = None

    def bet(self, bet_id: str) -> BetView:
        for bet in self.bets:
            if bet.bet_id == bet_id:
                return bet
        raise KeyError(f"bet_id={bet_id!r} is not in round {self.round_id}")


@dataclass(frozen=True)
class RecordRound:
    """One round of a player's bet record: what was at stake and the balance around it."""

    round_id: str
    game: str
    state: str
    result: dict | None
    staked: Decimal
    returned: Decimal | None
    balance_before: Decimal
    balance_after: Decimal | None


@dataclass(frozen=True)
class BetRecord:
    """A player's bet record (TBL-DISC-03, REG-RECALL-01)."""

    player_id: str
    bets: tuple[BetView, ...]
    rounds: tuple[RecordRound, ...]

    def round(self, round_id: str) -> RecordRound | None:
        return next((r for r in self.rounds if r.round_id == round_id), None)


@dataclass(frozen=True)
class HistoryRound:
    """One finished round of a table's history as the target reports it: the outcomes the
    fairness battery tests (REG-FAIR-01, REG-FAIR-02)."""

    round_id: str
    state: str  # as the contract names it: settled, void or cancelled
    result: dict | None  # as in RoundView: {"dice": [...]} or {"tokens": [...]}; None if none
    time: str | None  # ISO 8601, when the result was entered, as the target wrote it
    shaker: str | None = None  # the dice set, shaker or bowl in use, where the target says
    dealer: str | None = None
    in_order: bool = False  # the dice in the order thrown, the tokens by their position


@dataclass(frozen=True)
class HistoryPage:
    """One page of a table's round history, oldest first, and the cursor of the next."""

    rounds: tuple[HistoryRound, ...]
    next: str | None  # None: this is the last page
