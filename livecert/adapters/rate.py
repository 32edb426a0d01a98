"""`--rate-limit`: at most so many requests to the target per second (or minute), for a server
that limits its callers. Every request of the run waits its turn before its own deadline starts,
so a wait for the limit is never mistaken for a slow answer; the run's end bounds the wait.

pyrate-limiter counts the requests (a sliding window), rather than a sleep loop of our own.
"""

import re
from dataclasses import dataclass, field

from pyrate_limiter import Duration, Limiter, Rate

_RATE = re.compile(r"\s*(\d+)\s*/\s*(s|sec|second|m|min|minute)\s*")
_PER = {"s": Duration.SECOND, "m": Duration.MINUTE}


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
    """The run's one count of requests against its rate (shared by every adapter of the run)."""

    rate: RequestRate
    _limiter: Limiter = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._limiter = Limiter(Rate(self.rate.count, _PER[self.rate.per]))

    def wait(self, at_most: float | None) -> bool:
        """Wait for the request's turn, `at_most` seconds (None: as long as it takes); False
        when the turn did not come in that time."""
        if at_most is not None and at_most <= 0:
            return False
        timeout = -1 if at_most is None else at_most
        return bool(self._limiter.try_acquire("target", blocking=True, timeout=timeout))
