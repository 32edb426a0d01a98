"""What the casino keeps in memory: players, tables, rounds, bets and bet records, with times."""

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .money import fmt


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def stamp(ms: int | None) -> str | None:
    if ms is None:
        return None
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Player:
    id: str
    token: str
    balance: int
    name: str | None = None
    connected: bool = True


@dataclass
class Table:
    id: str
    game: str
    name: str | None
    chart: list[dict] = field(default_factory=list)  # settled results, oldest first
    current: str | None = None  # the unfinished round, if any


@dataclass
class Bet:
    id: str
    seq: int
    round_id: str
    table_id: str
    player_id: str
    game: str
    selection: str
    stake: int
    placed_at: int
    status: str = "open"
    outcome: str | None = None
    win: int | None = None
    returned: int | None = None
    settled_at: int | None = None

    def view(self) -> dict:
        return {
            "bet_id": self.id,
            "round_id": self.round_id,
            "table_id": self.table_id,
            "player_id": self.player_id,
            "game": self.game,
            "selection": self.selection,
            "stake": fmt(self.stake),
            "placed_at": stamp(self.placed_at),
            "status": self.status,
            "outcome": self.outcome,
            "win": None if self.win is None else fmt(self.win),
            "returned": None if self.returned is None else fmt(self.returned),
            "settled_at": stamp(self.settled_at),
        }


@dataclass
class Round:
    id: str
    table_id: str
    game: str
    opened_at: int
    ends_at: int
    phase: str = "betting"  # the stored state; "betting" turns "closed" once ends_at passes
    paused_from: str | None = None
    left_ms: int = 0  # countdown left when paused during betting
    shaken: bool = False
    result: dict | None = None
    reason: str | None = None
    finished_at: int | None = None
    events: list[dict] = field(default_factory=list)
    bets: list[Bet] = field(default_factory=list)

    def state(self, now: int) -> str:
        if self.phase == "betting" and now >= self.ends_at:
            self.phase = "closed"
        return self.phase

    def log(self, kind: str, at: int, reason: str | None = None) -> None:
        self.events.append({"type": kind, "reason": reason, "at": stamp(at)})


@dataclass
class Recall:
    """One round of a player's bet record."""

    seq: int
    round_id: str
    balance_before: int
    staked: int = 0
    returned: int | None = None
    balance_after: int | None = None
