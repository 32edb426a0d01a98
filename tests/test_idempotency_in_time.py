"""Idempotency keys over time and across players (issue 36): the drawn delays of the re-sends
cover every lifetime of the reference's fault that forgets a key, the two faults of a key kept
wrongly behave as their catalogue entries say, and a certification catches each at the ends of
its range on exactly its declared clauses."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import certify
from fastapi.testclient import TestClient

from livecert.harness.embedded import EmbeddedServer
from livecert.reference.app import create_app
from livecert.reference.config import DEFAULT_DEALER_TOKEN, DEFAULT_OPERATOR_TOKEN, Config
from livecert.reference.faults import FAULTS
from livecert.suite.steps.idempotency import LOW_MS, TOP_MS, draw_delays

# idempotency keys over delays of up to 5.5 s
pytestmark = pytest.mark.timing

FORGOTTEN = "idempotency-key-forgotten-after"
PER_TABLE = "idempotency-key-per-table"
OPERATOR = {"Authorization": f"Bearer {DEFAULT_OPERATOR_TOKEN}"}
DEALER = {"Authorization": f"Bearer {DEFAULT_DEALER_TOKEN}"}


# -- the drawn delays ------------------------------------------------------------------------------


def test_the_delays_are_the_seed_s_and_the_last_is_always_the_top() -> None:
    for seed in range(300):
        delays = draw_delays(seed)
        assert delays == draw_delays(seed)  # replayable from the printed seed
        assert list(delays) == sorted(delays) and len(delays) == 3
        assert delays[0] >= LOW_MS and delays[-1] == TOP_MS


def test_the_drawn_delays_cover_the_whole_range() -> None:
    drawn = [d for seed in range(300) for d in draw_delays(seed)[:2]]
    span = TOP_MS - LOW_MS
    assert min(drawn) < LOW_MS + span / 10 and max(drawn) > TOP_MS - span / 10


def test_the_last_re_send_outlives_every_lifetime_the_faults_may_draw() -> None:
    for name in (FORGOTTEN, PER_TABLE):
        parameter = FAULTS[name].parameter
        assert parameter is not None and parameter.kind == "int"
        assert int(parameter.high) < TOP_MS, name


# -- the reference under the two faults, on a clock of the test's own ------------------------------


class Clock:
    """Milliseconds the test moves by hand."""

    def __init__(self) -> None:
        self.ms = 1_700_000_000_000

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def reference(tmp_path: Path) -> Iterator[Any]:
    clients: list[TestClient] = []

    def make(*faults: str) -> tuple[TestClient, Clock]:
        clock = Clock()
        db = str(tmp_path / f"ref{len(clients)}.db")
        config = Config(db_path=db, clock=clock, faults=frozenset(faults))  # NAME=VALUE
        client = TestClient(create_app(config))
        clients.append(client)
        return client, clock

    yield make
    for client in clients:
        client.close()
        client.app.state.store.close()


def _player(client: TestClient) -> dict[str, str]:
    made = client.post("/v1/players", json={"balance": "100.00", "name": "t"}, headers=OPERATOR)
    return {"Authorization": f"Bearer {made.json()['token']}"}


def _round(client: TestClient) -> str:
    table = client.post("/v1/tables", json={"game": "xocdia"}, headers=OPERATOR).json()
    opened = client.post(
        f"/v1/tables/{table['table_id']}/rounds", json={"countdown_ms": 600_000}, headers=DEALER
    )
    return opened.json()["round_id"]


def _bet(client: TestClient, rid: str, who: dict, key: str, code: str = "EVEN") -> Any:
    slip = {"bets": [{"selection": code, "stake": "10.00"}]}
    return client.post(f"/v1/rounds/{rid}/bets", json=slip, headers={**who, "Idempotency-Key": key})


@pytest.mark.parametrize("lifetime", ["200", "5000"])
def test_a_key_is_forgotten_after_the_fault_s_lifetime_only(reference: Any, lifetime: str) -> None:
    client, clock = reference(f"{FORGOTTEN}={lifetime}")
    rid, player = _round(client), _player(client)
    first = _bet(client, rid, player, "k1")
    assert first.status_code == 201
    clock.ms += int(lifetime)
    again = _bet(client, rid, player, "k1")
    assert (again.status_code, again.json()) == (200, first.json())  # still remembered
    clock.ms += 1
    late = _bet(client, rid, player, "k1")
    assert late.status_code == 201  # forgotten: a second bet
    assert late.json()["bets"][0]["bet_id"] != first.json()["bets"][0]["bet_id"]


@pytest.mark.parametrize("lifetime", ["1000", "5000"])
def test_a_table_wide_key_replays_or_blocks_another_player_within_its_lifetime(
    reference: Any, lifetime: str
) -> None:
    client, clock = reference(f"{PER_TABLE}={lifetime}")
    rid = _round(client)
    a, b, c = _player(client), _player(client), _player(client)
    first = _bet(client, rid, a, "shared")
    clock.ms += int(lifetime)
    replayed = _bet(client, rid, b, "shared")
    assert (replayed.status_code, replayed.json()) == (200, first.json())  # A's answer to B
    assert _bet(client, rid, c, "shared", "ODD").status_code == 409  # C blocked
    again = _bet(client, rid, a, "shared")
    assert (again.status_code, again.json()) == (200, first.json())
    clock.ms += 1
    own = _bet(client, rid, b, "shared")  # past the lifetime: the player's own key again
    assert own.status_code == 201
    assert own.json()["bets"][0]["bet_id"] != first.json()["bets"][0]["bet_id"]


def test_without_the_faults_a_key_is_the_player_s_and_kept(reference: Any) -> None:
    client, clock = reference()
    rid = _round(client)
    a, b = _player(client), _player(client)
    first = _bet(client, rid, a, "k")
    theirs = _bet(client, rid, b, "k")
    assert theirs.status_code == 201
    assert theirs.json()["bets"][0]["bet_id"] != first.json()["bets"][0]["bet_id"]
    clock.ms += 3_600_000
    again = _bet(client, rid, a, "k")
    assert (again.status_code, again.json()) == (200, first.json())


# -- a certification catches each fault at its range's ends, on exactly its clauses --------------


def _quiet_seed() -> int:
    """A seed whose two drawn delays fall well inside the range (the first after 300 ms, the
    second before 4 s): the re-send that meets each fault is then known in advance."""
    return next(s for s in range(10_000) if draw_delays(s)[0] > 300 and draw_delays(s)[1] < 4000)


@pytest.mark.parametrize(
    ("fault", "caught_by"),
    [
        (f"{FORGOTTEN}=200", "sent again during betting"),  # answered a second bet
        (f"{FORGOTTEN}=5000", "sent again after settlement"),  # refused ROUND_STATE
        (f"{PER_TABLE}=1000", "IDEMPOTENCY_CONFLICT"),  # another player's slip blocked
    ],
)
def test_a_certification_catches_the_fault_on_exactly_its_clauses(
    tmp_path: Path, fault: str, caught_by: str
) -> None:
    declared = sorted(FAULTS[fault.partition("=")[0]].clauses)
    env = {**os.environ, "LIVECERT_MONEY_SEED": str(_quiet_seed())}
    with EmbeddedServer(faults=(fault,)) as server:
        status, cert, output = certify(
            tmp_path / "report",
            "--no-html",
            "--game",
            "xocdia",
            "--clauses",
            ",".join(declared),
            "--target-url",
            server.url,
            "--operator-token",
            server.operator_token,
            "--dealer-token",
            server.dealer_token,
            env=env,
        )
    failed = sorted(c for c, row in cert["clauses"].items() if row["status"] == "failed")
    assert (status, failed) == (1, declared), output
    evidence = str(cert["clauses"]["REG-IDEMP-01"]["checks"]["first_failure"])
    assert caught_by in evidence, evidence
