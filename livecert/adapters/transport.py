"""Sending one request to a target, for every adapter: the retry policy, the evidence of each
attempt, and what went wrong on the wire in words a lab can act on.

A request is sent again only when it cannot have reached the target (no connection was made),
or when the caller says re-sending cannot apply anything twice and the connection broke; at most
CONNECT_RETRIES times. A 429 (and a 503) with a Retry-After is sent again after that wait, when
re-sending is safe (a read, a write with an idempotency key) and the wait fits in what is left
of the request's deadline and the run; a 429 to a write that is not safe to send again is a
target error naming it. Every attempt is recorded, the failed ones too; the whole request, its
attempts and waits, stays within one deadline (livecert.adapters.bounds).
"""

import http.client
import ssl
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import requests
from urllib3.exceptions import ConnectTimeoutError, IncompleteRead, NewConnectionError

from livecert.adapters.bounds import (
    AnswerCutShort,
    AnswerStalled,
    AnswerTooLarge,
    Bounds,
    Deadline,
    DeadlinePassed,
    RedirectElsewhere,
)
from livecert.adapters.errors import RunCut, TargetError
from livecert.adapters.evidence import TOO_MANY_REQUESTS, Exchange, ExchangeRecorder, clip

CONNECT_RETRIES = 2
TOO_MANY = TOO_MANY_REQUESTS
RETRY_AFTER_WAITS = 3  # at most this many waits a target may ask for, per request


def never_sent(error: requests.RequestException) -> bool:
    """True when the request cannot have reached the target (no connection was made)."""
    if isinstance(error, requests.ConnectTimeout):
        return True
    return any(isinstance(exc, NewConnectionError | ConnectTimeoutError) for exc in _chain(error))


# the wire's errors whose own words say what happened
SAID_IN_WORDS = (DeadlinePassed, AnswerTooLarge, AnswerCutShort, AnswerStalled, RedirectElsewhere)


def describe_error(
    error: requests.RequestException, base_url: str, timeout: tuple[float, float]
) -> str:
    """What went wrong on the wire, in words a lab can act on."""
    if isinstance(error, SAID_IN_WORDS):
        return str(error)
    if isinstance(error, requests.exceptions.SSLError):
        return (
            f"TLS with {base_url} failed: {tls_cause(error)}; to trust a lab's own certificate "
            "authority, name its CA file with --ca-bundle FILE (or REQUESTS_CA_BUNDLE)"
        )
    if isinstance(error, requests.ConnectTimeout):
        return f"no connection within {timeout[0]:g} s to {base_url}"
    if isinstance(error, requests.ReadTimeout):
        return f"no answer within {timeout[1]:g} s"
    if isinstance(error, requests.TooManyRedirects):
        last, why = error.response, str(error).rstrip(".").lower()  # "exceeded 30 redirects"
        if last is None:
            return f"redirected in a loop ({why})"
        to = last.headers.get("location")
        return f"answered {last.status_code}, redirecting in a loop ({why}, the last to {to!r})"
    if isinstance(error, requests.ConnectionError):
        if never_sent(error):
            return f"cannot connect to {base_url} (is the server running?)"
        return f"the connection to {base_url} broke: {broken_how(error)}"
    return f"{type(error).__name__}: {error}"


def _chain(error: BaseException) -> list[BaseException]:
    """An error and every error it was raised from or holds, outermost first."""
    found: list[BaseException] = []
    pending = [error]
    while pending:
        exc = pending.pop(0)
        if any(exc is seen for seen in found):
            continue
        found.append(exc)
        linked = (exc.__cause__, exc.__context__, getattr(exc, "reason", None), *exc.args)
        pending.extend(e for e in linked if isinstance(e, BaseException))
    return found


def tls_cause(error: BaseException) -> str:
    """The TLS library's own reason (certificate verify failed: self-signed certificate...)."""
    for exc in _chain(error):
        if isinstance(exc, ssl.SSLCertVerificationError) and exc.verify_message:
            return f"certificate verify failed: {exc.verify_message}"
        if isinstance(exc, ssl.SSLError):
            return str(exc.reason or exc)
    return "the handshake did not complete"


def broken_how(error: BaseException) -> str:
    """How a connection broke, in words (never a library's class name)."""
    chain = _chain(error)
    if any(isinstance(e, http.client.RemoteDisconnected) for e in chain):
        return "the target closed it without an answer"
    if any(isinstance(e, ConnectionResetError) for e in chain):
        return "the target reset it"
    if any(isinstance(e, BrokenPipeError) for e in chain):
        return "the target closed it while the request was being sent"
    if any(isinstance(e, http.client.IncompleteRead | IncompleteRead) for e in chain):
        return "the target closed it before its answer's end"
    return "it ended without a whole answer"


def retry_after(response: requests.Response, resend_safe: bool) -> float | None:
    """The seconds a 429 (or, where re-sending is safe, a 503) asks the run to wait before
    sending again (its Retry-After: seconds or an HTTP date); None when it asks no wait."""
    if response.status_code != 429 and not (response.status_code == 503 and resend_safe):
        return None
    value = response.headers.get("Retry-After", "").strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _next_turn(bounds: Bounds, deadline: Deadline, operation: str, request_line: str) -> None:
    """A request sent again is another request to the server: under --rate-limit it waits its
    own turn, within what is left of its deadline."""
    if bounds.rate is not None and not bounds.rate.wait(deadline.left()):
        raise _cut(
            deadline, operation, "no turn under --rate-limit before the deadline", request_line
        )


def _cut(
    deadline: Deadline,
    operation: str,
    message: str,
    request_line: str,
    came: str = "",
    began: int | None = None,
) -> TargetError:
    """The error ending a request: RunCut when the run's end cut it, else a TargetError."""
    kind = RunCut if deadline.by_run else TargetError
    return kind(operation, message, request_line, None, came, began=began)


def send_recorded(
    send: Callable[[Deadline], requests.Response],
    new_exchange: Callable[[], Exchange],
    recorder: ExchangeRecorder,
    *,
    operation: str,
    request_line: str,
    resend_safe: bool,
    base_url: str,
    timeout: tuple[float, float],
    bounds: Bounds,
) -> tuple[requests.Response, Exchange]:
    """`send(deadline)` under the retry policy, each attempt recorded as `new_exchange()`; the
    answer and its exchange, or TargetError naming the operation and `request_line` when no
    whole answer came back within the request's deadline (RunCut: within the run's end)."""
    deadline = bounds.deadline(timeout)
    attempt = waits = 0
    while True:
        attempt += 1
        exchange = new_exchange()
        started = time.perf_counter()
        try:
            response = send(deadline)
        except requests.RequestException as error:
            exchange.elapsed_ms = (time.perf_counter() - started) * 1000
            exchange.error = describe_error(error, base_url, timeout)
            exchange.status = getattr(error, "status", None)
            if partial := getattr(error, "partial", b""):  # what came of the body: evidence
                exchange.response_body = clip(partial.decode("utf-8", "replace"))
            recorder.add(exchange)
            retry = (
                attempt <= CONNECT_RETRIES
                and not isinstance(error, DeadlinePassed | AnswerTooLarge)
                and (
                    never_sent(error)
                    or (resend_safe and isinstance(error, requests.ConnectionError))
                )
                and deadline.left() > 0.2 * attempt
            )
            if retry:
                time.sleep(0.2 * attempt)
                _next_turn(bounds, deadline, operation, request_line)
                continue
            # a whole answer (a redirect not followed) or one that began and never came whole:
            # its status, and the body that came
            answered = error.response.status_code if error.response is not None else None
            began = None if answered is not None else exchange.status
            came = exchange.response_body or ""
            if isinstance(error, DeadlinePassed):
                raise _cut(deadline, operation, exchange.error, request_line, came, began) from None
            lost = isinstance(error, requests.ConnectionError) and not isinstance(
                error, requests.Timeout
            )
            raise TargetError(
                operation,
                exchange.error,
                request_line,
                answered,
                came,
                connection_lost=lost,
                began=began,
            ) from None
        exchange.elapsed_ms = (time.perf_counter() - started) * 1000
        exchange.status, exchange.response_body = response.status_code, clip(response.text)
        recorder.add(exchange)
        if response.status_code == TOO_MANY and not resend_safe:
            raise TargetError(
                operation,
                f"answered {TOO_MANY} (too many requests) to a write that carries no idempotency "
                "key: it cannot be sent again without risking it twice; keep the run under the "
                "server's limit with --rate-limit",
                request_line,
                TOO_MANY,
            )
        wait = retry_after(response, resend_safe)
        if response.status_code == TOO_MANY and (wait is None or waits >= RETRY_AFTER_WAITS):
            # the run's pace, not a refusal of the action: never a finding on its clause
            asked = "without a Retry-After" if wait is None else f"after {waits} waits"
            raise TargetError(
                operation,
                f"answered {TOO_MANY} (too many requests) {asked}: the run goes faster than the "
                "server allows; keep it under the limit with --rate-limit",
                request_line,
                TOO_MANY,
            )
        if wait is None or waits >= RETRY_AFTER_WAITS:
            return response, exchange
        left = deadline.left()
        if wait >= left:
            raise _cut(
                deadline,
                operation,
                f"answered {response.status_code} asking to be sent again after {wait:g} s "
                f"(Retry-After), more than the {max(left, 0):.1f} s left of {deadline.limit()}",
                request_line,
            )
        waits += 1
        time.sleep(wait)
        _next_turn(bounds, deadline, operation, request_line)
