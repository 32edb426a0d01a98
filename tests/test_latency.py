"""How many requests a run sent and how long they took, in the certificate and the summary:
in all and per operation, the count, the median and the 95th percentile; the count is every
request the target received (counted by a proxy in front of it)."""

import os
from pathlib import Path

from cli_support import certify
from rewriting_proxy import rewriting_proxy, unchanged

from livecert.adapters.evidence import latency_of
from livecert.harness.embedded import EmbeddedServer


def test_the_median_and_the_95th_percentile_by_hand() -> None:
    assert latency_of([]) == {"requests": 0, "median_ms": None, "p95_ms": None}
    assert latency_of([float(n) for n in range(20, 0, -1)]) == {
        "requests": 20,
        "median_ms": 10.5,  # (10 + 11) / 2
        "p95_ms": 19.0,  # nearest rank: the 19th of 20 (ceil(0.95 x 20))
    }
    assert latency_of([5.0, 1.0, 300.0]) == {"requests": 3, "median_ms": 5.0, "p95_ms": 300.0}


def test_every_request_the_target_received_is_counted(tmp_path: Path) -> None:
    received: list[str] = []
    with (
        EmbeddedServer() as server,
        rewriting_proxy(
            server.url, unchanged, observe=lambda _headers, answer: received.append(answer.url)
        ) as url,
    ):
        env = {
            **os.environ,
            "LIVECERT_OPERATOR_TOKEN": server.operator_token,
            "LIVECERT_DEALER_TOKEN": server.dealer_token,
        }
        status, certificate, output = certify(
            tmp_path, "--no-html", "--game", "xocdia", "--clauses", "XD-VOID-02,XD-PAY-09",
            "--target-url", url, env=env,
        )  # fmt: skip
    assert status == 0, output[-3000:]
    latency = certificate["latency"]
    assert latency["requests"] == len(received) > 16  # the sweep's 16 rounds at least
    by_operation = latency["by_operation"]
    assert sum(op["requests"] for op in by_operation.values()) == latency["requests"]
    assert all(op["median_ms"] <= op["p95_ms"] for op in by_operation.values())
    assert f"requests: {latency['requests']:,} to the target" in output
