"""How long one request may take and how large its answer may be, whatever the target does.

A socket timeout bounds each read, not the request: a target sending its answer one byte a
second keeps every read short and the run waiting forever. So every request has a total
deadline (connect, send, status line, headers and the whole body) and a cap on its answer's
size, and a run may have an end (`--max-duration`) that cuts the request in flight.

This module holds the bounds (`Bounds`, each request's `Deadline`) and the errors of an answer
that broke one; `bounded_session.py` holds them on the wire (a watchdog thread, from
`deadline_watch.py`, cuts a request at its deadline whatever phase it is in; the body is read in
chunks and given up past the cap).
"""

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from livecert.adapters.rate import RateGate, RequestRate

MIB = 1024 * 1024
DEFAULT_REQUEST_DEADLINE = 30.0  # seconds for a whole request (connect, send, the whole answer)
DEFAULT_MAX_ANSWER_BYTES = 16 * MIB
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(|B|KB|KiB|K|MB|MiB|M|GB|GiB|G)\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "kib": 1024, "kb": 1000, "m": MIB, "mib": MIB, "mb": 10**6}
_UNITS |= {"g": 1024 * MIB, "gib": 1024 * MIB, "gb": 10**9}


def parse_size(text: str) -> int:
    """Bytes from a size a lab writes: 16777216, 16MiB, 64KiB, 20MB (ValueError otherwise)."""
    found = _SIZE.match(str(text))
    if not found or float(found.group(1)) <= 0:
        raise ValueError(
            f"{text!r} is not a size; expected bytes or a number with a unit, e.g. 16MiB, 64KiB"
        )
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


def show_size(size: int) -> str:
    """A size as a lab reads it back (16 MiB, 64 KiB, 1000 bytes)."""
    for unit, name in ((MIB, "MiB"), (1024, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"


@dataclass(frozen=True)
class Bounds:
    """The bounds of every request an adapter sends: its total deadline in seconds, the largest
    answer it reads, and the run's end (seconds since the epoch, so a subprocess can be told
    it; None: the run may take as long as it takes) with the --max-duration it came from."""

    request_deadline: float = DEFAULT_REQUEST_DEADLINE
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    run_ends_at: float | None = None
    max_duration: float | None = None
    rate: RateGate | None = field(default=None, compare=False)  # --rate-limit, the run's one

    @classmethod
    def for_run(
        cls,
        request_deadline: float = DEFAULT_REQUEST_DEADLINE,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        max_duration: float | None = None,
        ends_at: float | None = None,
        rate_limit: RequestRate | None = None,
        rate_shared_by: Path | None = None,
    ) -> "Bounds":
        """The bounds of a run starting now: it ends `max_duration` seconds from now, or at
        `ends_at` when the process that started it says when (it counts the time before); its
        requests keep to `rate_limit`, counted in the file `rate_shared_by` when several
        processes of the run send them."""
        if max_duration is not None and ends_at is None:
            ends_at = time.time() + max_duration
        gate = RateGate(rate_limit, rate_shared_by) if rate_limit is not None else None
        return cls(request_deadline, max_answer_bytes, ends_at, max_duration, gate)

    def run_left(self) -> float | None:
        """Seconds until the run's end (None: no end)."""
        return None if self.run_ends_at is None else self.run_ends_at - time.time()

    def deadline(self, timeout: tuple[float, float]) -> "Deadline":
        """The deadline of a request starting now: its own, or the run's end if that is sooner.
        Under --rate-limit the request first waits its turn (its own deadline starts after)."""
        if self.rate is not None and not self.rate.wait(self.run_left()):
            # the run ended before the turn came: a deadline already past, by the run's end
            return Deadline(time.monotonic(), timeout, self.max_answer_bytes, True, self)
        allowed, by_run = self.request_deadline, False
        run_left = self.run_left()
        if run_left is not None and run_left < allowed:
            allowed, by_run = run_left, True
        return Deadline(time.monotonic() + allowed, timeout, self.max_answer_bytes, by_run, self)


DEFAULT_BOUNDS = Bounds()


@dataclass(frozen=True)
class Deadline:
    """One request's bounds, passed to requests as its `timeout` (BoundedTransport reads it):
    the monotonic instant it ends, the socket timeouts, the answer cap, and whether the run's
    end (not the request's own deadline) set it."""

    at: float
    timeout: tuple[float, float]
    max_answer_bytes: int
    by_run: bool
    bounds: Bounds

    def left(self) -> float:
        return self.at - time.monotonic()

    def why(self) -> str:
        """What ran out, and how to change it, in a lab's words."""
        if self.by_run:
            return f"no whole answer before the run's end: {self.limit()}"
        return f"no whole answer within {self.limit()}"

    def limit(self) -> str:
        """The bound that set this deadline, and how to change it."""
        if self.by_run:
            duration = self.bounds.max_duration
            return "the run was cut by --max-duration" + (
                f" ({duration:g} s)" if duration is not None else ""
            )
        return f"{self.bounds.request_deadline:g} s (total deadline; --request-deadline to change)"


def _bytes(count: int) -> str:
    return f"{count} byte{'' if count == 1 else 's'}"


class DeadlinePassed(requests.Timeout):
    """The request's total deadline (or the run's end) passed before its whole answer came;
    `partial` is what of its body came (kept as the exchange's evidence)."""

    def __init__(
        self,
        deadline: Deadline,
        status: int | None,
        partial: bytes = b"",
        sent: bool = True,
    ) -> None:
        said = ""
        if status is not None:
            said = f"; it answered {status}, and {_bytes(len(partial))} of its body came"
        super().__init__(deadline.why() + said if sent else f"not sent: {deadline.limit()}")
        self.deadline, self.status, self.partial = deadline, status, partial


class AnswerCutShort(requests.exceptions.ChunkedEncodingError):
    """The target closed the connection before its answer's end: fewer bytes than its
    Content-Length declared, or a chunked body without its last chunk. `partial` is what came
    (decoded), `sent` how many bytes of the body came on the wire."""

    def __init__(self, status: int, partial: bytes, sent: int, declared: int | None) -> None:
        end = (
            f"after {sent} of the {_bytes(declared)} its Content-Length declared"
            if declared is not None
            else f"after {_bytes(sent)} of its body, before the body's end"
        )
        super().__init__(f"answered {status} and closed the connection {end}")
        self.status, self.partial = status, partial


class AnswerStalled(requests.ConnectionError):
    """The target began its answer, then sent nothing for a whole read timeout (--timeout)."""

    def __init__(self, status: int, partial: bytes, sent: int, read: float) -> None:
        super().__init__(
            f"answered {status}, then sent nothing for {read:g} s after {_bytes(sent)} of its "
            "body (--timeout bounds each read)"
        )
        self.status, self.partial = status, partial


class AnswerTooLarge(requests.RequestException):
    """The answer is larger than the cap on an answer's size: it was not read further."""

    def __init__(self, cap: int, status: int, declared: int | None) -> None:
        size = f"declared {declared} bytes" if declared is not None else "it went on past it"
        super().__init__(
            f"answered {status} with a body larger than {show_size(cap)} ({size}; the cap on an "
            "answer's size; --max-answer-size to change)"
        )
        self.cap, self.status = cap, status


class RedirectElsewhere(requests.RequestException):
    """A redirect to another origin (scheme, host or port) than the request's: not followed.
    The run's credentials go to the target it was given only (requests drops Authorization on
    such a redirect, and the other host's 401 would read as the target refusing the token)."""

    def __init__(self, response: requests.Response, to: str) -> None:
        super().__init__(
            f"answered {response.status_code}, a redirect to another host ({to}): not "
            "followed, since the run sends its credentials to the target it was given only; "
            "if that is the target, give its URL as --target-url",
            response=response,
        )
        self.status = response.status_code
