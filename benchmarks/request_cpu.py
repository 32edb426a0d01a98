"""The CPU one request costs the harness's client, layer by layer, on loopback.

Why it exists: on loopback a sweep's harness spends more CPU than the round trips it waits on,
and most of a request's own is the client's HTTP stack. This sends `GET /v1/info` to a fresh
embedded reference, 1,000 times a round, through each layer the adapters use, and prints the
median CPU (`time.process_time`) of one request over the rounds:

- session: `bounded_session(...).request`, as the adapters send (bounded_session.py: a plain
  request straight through urllib3);
- send: the session's `send` of a request prepared once;
- transport: the transport's `send` of it (BoundedTransport: the deadline's watch, the body
  read in chunks);
- urllib3: the connection pool's `urlopen` and the body read, no requests at all;
- prepare: preparing the request alone (no sending).

    python benchmarks/request_cpu.py              # 7 rounds of 1,000 requests each
    python benchmarks/request_cpu.py --rounds 3 --requests 500
"""

import argparse
import statistics
import time
from collections.abc import Callable

from requests.models import PreparedRequest
from requests.structures import CaseInsensitiveDict
from urllib3.util import Timeout

from livecert.adapters.bounded_session import bounded_session
from livecert.adapters.bounds import DEFAULT_BOUNDS
from livecert.harness.embedded import EmbeddedServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args(argv)
    with EmbeddedServer() as server:
        url = server.url + "/v1/info"
        session = bounded_session(server.url)
        headers = {"Authorization": f"Bearer {server.operator_token}"}
        transport = session.get_adapter(url)

        def prepared() -> PreparedRequest:
            request = PreparedRequest()
            merged = CaseInsensitiveDict({**session.headers, **headers})
            request.prepare(method="GET", url=url, headers=merged, data={})
            return request

        once = prepared()
        pool = transport.get_connection_with_tls_context(once, True, None, None)

        def through_urllib3() -> None:
            answer = pool.urlopen(
                "GET", "/v1/info", headers=once.headers, redirect=False,
                preload_content=False, retries=False, timeout=Timeout(connect=5, read=30),
            )  # fmt: skip
            answer.read()
            answer.release_conn()

        layers: dict[str, Callable[[], object]] = {
            "session": lambda: (
                session.request(
                    "GET", url, headers=headers, timeout=DEFAULT_BOUNDS.deadline((5, 30))
                ).text
            ),
            "send": lambda: session.send(once, timeout=DEFAULT_BOUNDS.deadline((5, 30))).text,
            "transport": lambda: (
                transport.send(once, timeout=DEFAULT_BOUNDS.deadline((5, 30))).text
            ),
            "urllib3": through_urllib3,
            "prepare": prepared,
        }
        spent: dict[str, list[float]] = {name: [] for name in layers}
        for _ in range(args.rounds):
            for name, call in layers.items():  # each layer in turn: the same moments for all
                for _ in range(50):
                    call()
                started = time.process_time()
                for _ in range(args.requests):
                    call()
                spent[name].append((time.process_time() - started) / args.requests * 1e6)
        session.close()
    print(f"CPU of one GET /v1/info, median of {args.rounds} rounds of {args.requests} (us):")
    for name, values in spent.items():
        low, high = min(values), max(values)
        print(f"  {name:10} {statistics.median(values):6.0f}  (range {low:.0f}-{high:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
