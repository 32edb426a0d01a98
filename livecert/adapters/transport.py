"""Sending one request to a target, for every adapter: the retry policy, the evidence of each
attempt, and what went wrong on the wire in words a lab can act on.

A request is sent again only when it cannot have reached the target (no connection was made),
or when the caller says re-sending cannot apply anything twice and the connection broke; at most
CONNECT_RETRIES times. Every attempt is recorded, the failed ones too.
"""

import time
from collections.abc import Callable

import requests
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from livecert.adapters.errors import TargetError
from livecert.adapters.evidence import Exchange, ExchangeRecorder, clip

CONNECT_RETRIES = 2


def never_sent(error: requests.RequestException) -> bool:
    """True when the request cannot have reached the target (no connection was made)."""
    if isinstance(error, requests.ConnectTimeout):
        return True
    pending: list[BaseException] = [error]
    seen: set[int] = set()
    while pending:
        exc = pending.pop()
        if id(exc) in seen:
            continue
        seen.add(id(exc))
        if isinstance(exc, NewConnectionError | ConnectTimeoutError):
            return True
        linked = (exc.__cause__, exc.__context__, getattr(exc, "reason", None), *exc.args)
        pending.extend(e for e in linked if isinstance(e, BaseException))
    return False


def describe_error(
    error: requests.RequestException, base_url: str, timeout: tuple[float, float]
) -> str:
    """What went wrong on the wire, in words a lab can act on."""
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
        return f"the connection to {base_url} broke: {type(error).__name__}"
    return f"{type(error).__name__}: {error}"


def send_recorded(
    send: Callable[[], requests.Response],
    new_exchange: Callable[[], Exchange],
    recorder: ExchangeRecorder,
    *,
    operation: str,
    request_line: str,
    resend_safe: bool,
    base_url: str,
    timeout: tuple[float, float],
) -> tuple[requests.Response, Exchange]:
    """`send()` under the retry policy, each attempt recorded as `new_exchange()`; the answer and
    its exchange, or TargetError naming the operation and `request_line` when nothing came back."""
    attempt = 0
    while True:
        attempt += 1
        exchange = new_exchange()
        started = time.perf_counter()
        try:
            response = send()
        except requests.RequestException as error:
            exchange.elapsed_ms = (time.perf_counter() - started) * 1000
            exchange.error = describe_error(error, base_url, timeout)
            recorder.add(exchange)
            retry = attempt <= CONNECT_RETRIES and (
                never_sent(error) or (resend_safe and isinstance(error, requests.ConnectionError))
            )
            if retry:
                time.sleep(0.2 * attempt)
                continue
            answered = error.response.status_code if error.response is not None else None
            raise TargetError(operation, exchange.error, request_line, answered) from None
        exchange.elapsed_ms = (time.perf_counter() - started) * 1000
        exchange.status, exchange.response_body = response.status_code, clip(response.text)
        recorder.add(exchange)
        return response, exchange
