"""`--rate-limit`: at most so many requests to the target per second (or minute), for a server
that limits its callers. Every request of the run waits its turn before its own deadline starts,
so a wait for the limit is never mistaken for a slow answer; the run's end bounds the wait.

pyrate-limiter counts the requests (a sliding window), rather than a sleep loop of our own. A run
spread over several processes (`--workers`) counts them in one SQLite file under a file lock
(pyrate-limiter's SQLiteBucket), so the rate holds for the run, not for each process.
"""

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from pyrate_limiter import Duration, Limiter, Rate, SQLiteBucket

_RATE = re.compile(r"\s*(\d+)\s*/\s*(s|sec|second|m|min|minute)\s*")
_PER = {"s": Duration.SECOND, "m": Duration.MINUTE}
# The count is kept over a window this much longer than the rate's: a request takes its turn a
# few milliseconds before it reaches the server, more when several processes send at once, and
# the server counts arrivals (measured at a proxy: up to 53 in a second at 50/s without it)
MARGIN_MS = {"s": 100, "m": 1000}


@dataclass(frozen=True)
class RequestRate:
    """A rate such as 20/s: `count` requests per second (`per` "s") or per minute ("m")."""

    count: int
    per: str

    def __str__(self) -> str:
        return f"{self.count}/{'s' if self.per == 's' else 'min'}"


def parse_rate(text: str) -> RequestRate:
    """`20/s`, `20/second`, `600/min`: a whole number of requests above 0 per second or minute;
    ValueError says what a rate looks like."""
    found = _RATE.fullmatch(text or "")
    if not found or int(found.group(1)) < 1:
        raise ValueError(
            f"{text!r} is not a request rate; write requests per second or minute, e.g. 20/s "
            "or 600/min"
        )
    return RequestRate(int(found.group(1)), found.group(2)[0])


@dataclass
class RateGate:
    """The run's one count of requests against its rate (shared by every adapter of the run,
    and by every process of it through the file `shared_by`)."""

    rate: RequestRate
    shared_by: Path | None = None
    _limiter: Limiter = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        per = self.rate.per
        rates = [Rate(self.rate.count, int(_PER[per]) + MARGIN_MS[per])]
        if self.shared_by is None:
            self._limiter = Limiter(rates)
            return
        bucket = SQLiteBucket.init_from_file(rates, db_path=str(self.shared_by), use_file_lock=True)
        self._limiter = Limiter(bucket)

    def wait(self, at_most: float | None) -> bool:
        """Wait for the request's turn, `at_most` seconds (None: as long as it takes); False
        when the turn did not come in that time."""
        if at_most is not None and at_most <= 0:
            return False
        ends = None if at_most is None else time.monotonic() + at_most
        # one SQLite connection per process: its threads take turns
        if not self._lock.acquire(timeout=-1 if at_most is None else at_most):
            return False
        try:
            left = -1 if ends is None else ends - time.monotonic()
            if ends is not None and left <= 0:
                return False
            return bool(self._limiter.try_acquire("target", blocking=True, timeout=left))
        finally:
            self._lock.release()
