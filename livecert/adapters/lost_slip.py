"""A bet slip whose answer is lost on the way back, sent by the canonical adapter (REG-IDEMP-01
under a real network fault).

`LostSlips.send` sends one contract bet slip through the harness's loopback fault relay
(`lost_answer.py`) with the session's own headers, TLS checks and the player's token, and records
it as an exchange with no answer and the reason. Kept apart from `HttpAdapter`, which keeps a
thin `place_bets_answer_lost`, so the adapter's module stays about the contract's operations.
"""

import json
import time
from collections.abc import Callable

import requests

from livecert.adapters.bounds import DEFAULT_BOUNDS, Bounds
from livecert.adapters.errors import RunCut, TargetError, Unsupported, check_sendable
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.lost_answer import (
    DroppedAnswer,
    RelayError,
    RelayFailed,
    send_answer_lost,
)


class LostSlips:
    """An adapter's slips whose answer is lost: each relay finished before the next slip is
    lost and when the adapter closes (each within its bound)."""

    def __init__(
        self,
        session: requests.Session,
        base_url: str,
        recorder: ExchangeRecorder,
        bounds: Bounds = DEFAULT_BOUNDS,
    ) -> None:
        self.session, self.base_url, self.recorder = session, base_url, recorder
        self.bounds = bounds  # the slip through the relay is a request too: --rate-limit
        self._open: list[Callable[[], DroppedAnswer]] = []

    def send(
        self,
        token: str,
        round_id: str,
        slip: dict,
        idempotency_key: str,
        in_flight: bool,
        timeout: float,
    ) -> Callable[[], DroppedAnswer]:
        """Send `slip` to the round's bets with `idempotency_key` through a relay that drops
        its answer: once the target has answered, or (`in_flight`) leaving as soon as the slip
        was passed on, the target still at work. The caller re-sends with the same key, then
        calls what this returns: it waits (bounded) until the target has answered the lost slip
        and tells what the relay saw of that answer. Unsupported where the target is reached
        through a proxy (the relay connects to it directly)."""
        self.close()
        path = f"/v1/rounds/{round_id}/bets"
        operation = f"place {len(slip['bets'])} bet(s), the answer lost on the way"
        check_sendable(operation, lambda: f"POST {self.base_url}{path}", path)
        session = self.session
        rate = self.bounds.rate
        if rate is not None and not rate.wait(self.bounds.run_left()):
            raise RunCut("lose the answer to a bet slip", "not sent: the run ended first", "")
        if session.proxies:
            raise Unsupported(
                "lose the answer to a bet slip",
                "the target is reached through a proxy from the environment; the harness's "
                "fault relay connects to the target directly",
            )
        finish = lose_answer(
            self.base_url,
            path,
            json.dumps(slip, separators=(",", ":")),
            {
                **session.headers,
                "Authorization": f"Bearer {token}",
                "Idempotency-Key": idempotency_key,
                "Content-Type": "application/json",
            },
            self.recorder,
            operation=operation,
            verify=session.verify,
            in_flight=in_flight,
            timeout=timeout,
        )
        self._open.append(finish)
        return finish

    def close(self) -> None:
        """Stop the relays still waiting for an answer they drop."""
        while self._open:
            self._open.pop()()


def lose_answer(
    base_url: str,
    path: str,
    body: str,
    headers: dict[str, str],
    recorder: ExchangeRecorder,
    *,
    operation: str,
    verify: bool | str,
    in_flight: bool,
    timeout: float,
) -> Callable[[], DroppedAnswer]:
    """`send_answer_lost` for a POST, recorded as an exchange with no answer and the reason (the
    harness dropped it on purpose); TargetError when the relay failed. Returns `finish`: waits
    (bounded) until the target has answered, stops the relay and completes the record."""
    url = base_url.rstrip("/") + path
    exchange = Exchange(recorder.next_seq(), operation, "player", "POST", url, body, None, None, 0)
    exchange.idempotency_key = headers.get("Idempotency-Key")
    started = time.perf_counter()
    try:
        relay = send_answer_lost(
            base_url,
            "POST",
            path,
            body,
            headers,
            verify=verify,
            wait_for_answer=not in_flight,
            timeout=timeout,
        )
    except RelayFailed as failed:
        exchange.error = f"the harness's fault relay failed: {failed}"
        recorder.add(exchange)
        raise TargetError(operation, exchange.error, f"POST {url}") from None
    except RelayError as error:  # the harness's own part failed: recorded, then a harness error
        exchange.error = str(error)
        recorder.add(exchange)
        raise
    exchange.elapsed_ms = (time.perf_counter() - started) * 1000
    exchange.error = relay.result.describe()
    recorder.add(exchange)

    def finish() -> DroppedAnswer:
        relay.close()
        exchange.error = relay.result.describe()  # in flight: what the target answered after
        return relay.result

    return finish
