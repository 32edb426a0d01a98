"""Every request and response the harness exchanges with a target, kept as evidence.

A lab must be able to replay what the harness did. Each exchange is recorded with its method,
URL, body, status, answer and timing, and can be rendered as a curl command; credentials are
replaced by the role's environment variable so a report never leaks a token, and every secret
the run knows (livecert.adapters.secrets) is masked in an exchange when it is handed over.
"""

import contextlib
import dataclasses
import math
import shlex
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass

from livecert.adapters.secrets import SECRETS

_BODY_LIMIT = 256_000


LAB_COMMAND = "RUN"  # an exchange's method when it is a lab's command (a restart hook), no request
# an exchange's method when it is a message of a live table's stream, not a request: pushed by
# the target, emitted (or sent as a frame) by the harness, or the acknowledgement of an emit
PUSHED, EMITTED, ACKNOWLEDGED, JOINED = "PUSH", "EMIT", "ACK", "JOIN"
STREAM_METHODS = frozenset({PUSHED, EMITTED, ACKNOWLEDGED, JOINED})
# an exchange's method when it is no message at all but the harness's own alteration of an
# answer it read (a validation run's mutant, livecert.harness.mutants): what was changed
MUTATED = "MUTANT"
NOT_REQUESTS = STREAM_METHODS | {LAB_COMMAND, MUTATED}  # counted apart from the requests' latency


@dataclass
class Exchange:
    """One request to the target and what came back (or why nothing did)."""

    seq: int
    operation: str
    role: str
    method: str
    url: str
    request_body: str | None
    status: int | None
    response_body: str | None
    elapsed_ms: float
    error: str | None = None
    idempotency_key: str | None = None
    headers: dict[str, str] | None = None  # sent headers, secrets masked (mapping adapters)
    content_type: str | None = None
    started: float = dataclasses.field(default_factory=time.time)  # when it was sent (epoch s)
    # what checking the answer against the contract found (the canonical adapter): the clauses
    # it held ({"held": [...]}) or the one it broke ({"broken": clause, "problem": ...})
    contract: dict | None = None

    def as_curl(self) -> str:
        """The exchange as a curl command; the token comes from the role's variable. A lab's
        set-up command (method RUN) is shown as the command it ran."""
        if self.method in (LAB_COMMAND, MUTATED):
            return self.url
        if self.method in STREAM_METHODS:  # a stream's message: its stream, event and data
            return f"{self.method} {self.url}"
        if self.headers is not None:
            return self._curl_with_headers()
        variable = {"operator": "LIVECERT_OPERATOR_TOKEN", "dealer": "LIVECERT_DEALER_TOKEN"}.get(
            self.role, "PLAYER_TOKEN"
        )
        parts = ["curl", "-sS", "-X", self.method, shlex.quote(self.url)]
        if self.role != "anonymous":
            parts += ["-H", f'"Authorization: Bearer ${variable}"']
        if self.idempotency_key:
            parts += ["-H", shlex.quote(f"Idempotency-Key: {self.idempotency_key}")]
        if self.request_body is not None:
            parts += [
                "-H",
                "'Content-Type: application/json'",
                "--data",
                shlex.quote(self.request_body),
            ]
        return " ".join(parts)

    def _curl_with_headers(self) -> str:
        """A mapping adapter's exchange: its own headers (secrets as $VARIABLES) and body."""
        parts = ["curl", "-sS", "-X", self.method, shlex.quote(self.url)]
        for name, value in (self.headers or {}).items():
            parts += ["-H", f'"{name}: {value}"']
        if self.request_body is not None:
            parts += ["-H", shlex.quote(f"Content-Type: {self.content_type}")]
            parts += ["--data", shlex.quote(self.request_body)]
        return " ".join(parts)

    def as_dict(self) -> dict:
        return asdict(self)


def clip(text: str | None) -> str | None:
    if text is None or len(text) <= _BODY_LIMIT:
        return text
    return text[:_BODY_LIMIT] + f"... [{len(text) - _BODY_LIMIT} more characters]"


TOO_MANY_REQUESTS = 429


class ExchangeRecorder:
    """Keeps exchanges in order until a scenario takes them as its evidence."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._exchanges: list[Exchange] = []
        self.count = 0  # requests sent (a stream's messages are numbered, not counted here)
        self.messages = 0  # a stream's messages kept
        self._seq = 0
        self.elapsed_ms: dict[str, list[float]] = {}  # per operation, every request's time
        self._thread = threading.local()  # where this thread's exchanges go while captured
        self.throttled = 0  # answers 429 (too many requests): the run went faster than allowed

    def next_seq(self) -> int:
        with self._lock:
            self.count += 1
            self._seq += 1
            return self._seq

    def next_mark_seq(self) -> int:
        """The number of a mark the harness writes among the exchanges (a mutant's alteration):
        neither a request nor a message of the target's."""
        with self._lock:
            self._seq += 1
            return self._seq

    def next_message_seq(self) -> int:
        """The number of a stream's message, in the same sequence as the requests."""
        with self._lock:
            self.messages += 1
            self._seq += 1
            return self._seq

    def add(self, exchange: Exchange) -> None:
        captured = getattr(self._thread, "into", None)
        with self._lock:
            (self._exchanges if captured is None else captured).append(exchange)
            if exchange.method not in NOT_REQUESTS:  # a request, not a message or a command
                self.elapsed_ms.setdefault(exchange.operation, []).append(exchange.elapsed_ms)
                self.throttled += exchange.status == TOO_MANY_REQUESTS

    @contextlib.contextmanager
    def capturing(self) -> Iterator[list[Exchange]]:
        """This thread's exchanges kept apart while the block runs (a sweep round played in
        advance, on another thread), for the scenario they belong to: `replay` hands them on."""
        into: list[Exchange] = []
        self._thread.into = into
        try:
            yield into
        finally:
            self._thread.into = None

    def replay(self, exchanges: list[Exchange]) -> None:
        """Exchanges captured earlier, now the evidence of the scenario running (their requests
        were counted when they were made)."""
        with self._lock:
            self._exchanges.extend(exchanges)

    def latency(self) -> dict:
        """The requests the run sent and how long they took: in all and per operation, the
        count, the median and the 95th percentile in milliseconds."""
        with self._lock:
            by_operation = {op: list(times) for op, times in self.elapsed_ms.items()}
        return latency_by_operation(by_operation)

    def latency_samples(self) -> dict[str, list[float]]:
        """Each request's time in milliseconds (to 0.01 ms), by operation: what the processes
        of a run over workers add together (percentiles of parts do not make the whole's)."""
        with self._lock:
            return {op: [round(t, 2) for t in times] for op, times in self.elapsed_ms.items()}

    def snapshot(self) -> list[Exchange]:
        """The exchanges recorded so far, kept (for a failure's reproduction), secrets masked."""
        with self._lock:
            return [masked(ex) for ex in self._exchanges]

    def drain(self) -> list[Exchange]:
        """Hand over the exchanges recorded so far and forget them (one scenario's worth),
        secrets masked: a player's token, read from the answer that created the player, is
        known by then."""
        with self._lock:
            taken, self._exchanges = self._exchanges, []
        return [masked(ex) for ex in taken]


def latency_by_operation(by_operation: dict[str, list[float]]) -> dict:
    """Count, median and 95th percentile in all and per operation."""
    every = [t for times in by_operation.values() for t in times]
    return {
        **latency_of(every),
        "by_operation": {op: latency_of(times) for op, times in sorted(by_operation.items())},
    }


def latency_of(times_ms: list[float]) -> dict:
    """Count, median and 95th percentile (nearest rank) of request times, in milliseconds."""
    if not times_ms:
        return {"requests": 0, "median_ms": None, "p95_ms": None}
    ordered = sorted(times_ms)
    rank = math.ceil(0.95 * len(ordered))  # nearest rank: the value 95% of requests do not pass
    return {
        "requests": len(ordered),
        "median_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[rank - 1], 1),
    }


def masked(exchange: Exchange) -> Exchange:
    """A copy of `exchange` showing every secret the run knows by its name."""
    return dataclasses.replace(
        exchange,
        url=SECRETS.mask(exchange.url) or "",
        request_body=SECRETS.mask(exchange.request_body),
        response_body=SECRETS.mask(exchange.response_body),
        error=SECRETS.mask(exchange.error),
        headers=None
        if exchange.headers is None
        else {k: SECRETS.mask(v) or "" for k, v in exchange.headers.items()},
        contract=None
        if exchange.contract is None
        else {
            k: SECRETS.mask(v) if isinstance(v, str) else v for k, v in exchange.contract.items()
        },
    )


def exchanges_as_text(exchanges: list[Exchange]) -> str:
    """A readable transcript: one block per exchange with its curl reproduction."""
    blocks = []
    for ex in exchanges:
        lines = [_head(ex)] if ex.method in STREAM_METHODS else [_head(ex), f"  {ex.as_curl()}"]
        if ex.request_body is not None and ex.method in NOT_REQUESTS:  # else in curl's --data
            lines.append(f"  request: {ex.request_body}")
        if ex.error:
            lines.append(f"  error: {ex.error}")
        elif ex.method in STREAM_METHODS:
            if ex.response_body is not None:
                lines.append(f"  -> {ex.response_body}")
        else:
            lines.append(f"  -> {ex.status} in {ex.elapsed_ms:.1f} ms: {ex.response_body}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def exchanges_in_brief(exchanges: list[Exchange]) -> str:
    """One line per exchange (what was asked, what came back and how much): a transcript too
    long to attach whole, kept in the report's exchanges/ archive instead."""
    lines = []
    for ex in exchanges:
        sent = f", {len(ex.request_body)} characters sent" if ex.request_body else ""
        came = (
            f"error: {ex.error}"
            if ex.error
            else f"{ex.status}, {len(ex.response_body or '')} characters"
        )
        lines.append(f"{_head(ex)}{sent} -> {came}")
    return "\n".join(lines)


def _head(ex: Exchange) -> str:
    """An exchange's first line in a transcript: its number, operation, role and request."""
    return f"#{ex.seq} {ex.operation} ({ex.role}) {ex.method} {ex.url}"
