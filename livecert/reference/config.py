"""The server's configuration: credentials, declared rounding and currency, faults, database."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from livecert.reference.faults import FaultSet
from livecert.reference.faults import check as check_faults

DEFAULT_OPERATOR_TOKEN = "operator-dev-token"
DEFAULT_DEALER_TOKEN = "dealer-dev-token"
DEFAULT_COUNTDOWN_MS = 15_000
MAX_COUNTDOWN_MS = 600_000
CAPABILITIES = (
    "idempotency",
    "batch-bets",
    "pause",
    "statistics",
    "disconnect",
    "reshake",
    "round-history",
)
NO_LIMITS = "limits"  # in `without`: the server declares (and keeps) no table limits
# the table limits both games declare, in minor units: a cent to 50,000.00 a bet, 100,000.00 a slip
TABLE_LIMITS = {"min_bet": 1, "max_bet": 5_000_000, "max_slip": 10_000_000}


def wall_clock_ms() -> int:
    """Milliseconds since the epoch, from the system clock."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class Config:
    """Everything `create_app` needs; `db_path=None` means a file in a fresh temporary directory."""

    db_path: str | None = None
    operator_token: str = DEFAULT_OPERATOR_TOKEN
    dealer_token: str = DEFAULT_DEALER_TOKEN
    rounding: str = "down"
    currency: str = "EUR"
    faults: frozenset[str] = frozenset()
    without: frozenset[str] = frozenset()  # capabilities (or limits) not declared, for tests
    table_limits: dict[str, int] = field(default_factory=lambda: dict(TABLE_LIMITS), hash=False)
    return_interrupted: bool = False  # cancel every unfinished round at start-up, stakes returned
    default_countdown_ms: int = DEFAULT_COUNTDOWN_MS
    clock: Callable[[], int] = field(default=wall_clock_ms, compare=False)
    fault_delay_ms: int = 300  # the slow step of the idempotency-key-recorded-late fault
    drawn_rounds: int = 0  # rounds of each game's drawn table (drawn.py), made at start-up
    shaker_seed: int | None = None  # the drawn tables' seed; None: the system's randomness

    def __post_init__(self) -> None:
        # faults named in a plain set (as tests give them) take their parameters' defaults
        if not isinstance(self.faults, FaultSet):
            object.__setattr__(self, "faults", check_faults(sorted(self.faults)))
