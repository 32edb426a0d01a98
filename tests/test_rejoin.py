"""A player who re-joins during a round is settled once (issue 35): the reference's seeded fault
`rejoin-settles-twice` does what its entry says, and the disconnection scenarios catch it on
TBL-DISC-02 while the clean reference passes them, the re-joining scenarios among them."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import certify
from fastapi.testclient import TestClient

from livecert.reference.app import create_app
from livecert.reference.config import Config

OPERATOR = {"Authorization": "Bearer operator-dev-token"}
DEALER = {"Authorization": "Bearer dealer-dev-token"}
FAULT = "rejoin-settles-twice"
DISCONNECTION = "TBL-DISC-01,TBL-DISC-02,TBL-DISC-03"
REJOINING = (
    "The player drops and re-joins while betting is still open",
    "The player drops after betting ends and re-joins before the result",
)
GAMES = ("Sic Bo", "Xoc Dia")
NEW_SCENARIOS = {f"{g}: a player who disconnects: {s}" for g in GAMES for s in REJOINING}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Config(db_path=str(tmp_path / "ref.sqlite3"), faults=frozenset({FAULT})))
    with TestClient(app) as api:
        yield api
    app.state.store.close()


def _player(api: TestClient) -> dict[str, str]:
    made = api.post("/v1/players", json={"balance": "100.00"}, headers=OPERATOR)
    return {"Authorization": f"Bearer {made.json()['token']}"}


def _balance(api: TestClient, player: dict[str, str]) -> str:
    return api.get("/v1/player", headers=player).json()["balance"]


def test_the_fault_credits_twice_a_player_who_rejoined_mid_round(client: TestClient) -> None:
    """Three players bet 10.00 on Big, which 4 5 6 pays 1:1 (20.00 returned): one re-joins
    before the result (credited twice: 100 - 10 + 2 x 20), one after it and one never leaves
    (credited once: 110); every bet shows one settlement of 20.00."""
    rejoins, returns_later, stays = (_player(client) for _ in range(3))
    table = client.post("/v1/tables", json={"game": "sicbo"}, headers=OPERATOR).json()
    opened = client.post(
        f"/v1/tables/{table['table_id']}/rounds", json={"countdown_ms": 60_000}, headers=DEALER
    )
    round_id = opened.json()["round_id"]
    for player in (rejoins, returns_later, stays):
        slip = {"bets": [{"selection": "BIG", "stake": "10.00"}]}
        assert client.post(f"/v1/rounds/{round_id}/bets", json=slip, headers=player).is_success
    for player in (rejoins, returns_later):
        client.post("/v1/player/disconnect", headers=player)
    client.post("/v1/player/connect", headers=rejoins)
    client.post(f"/v1/rounds/{round_id}/close", headers=DEALER)
    client.post(f"/v1/rounds/{round_id}/result", json={"dice": [4, 5, 6]}, headers=DEALER)
    client.post("/v1/player/connect", headers=returns_later)
    assert [_balance(client, p) for p in (rejoins, returns_later, stays)] == [
        "130.00",
        "110.00",
        "110.00",
    ]
    bets = client.get(f"/v1/rounds/{round_id}", headers=DEALER).json()["bets"]
    assert [(b["status"], b["returned"]) for b in bets] == [("settled", "20.00")] * 3


def test_rejoining_mid_round_is_judged_on_the_disconnection(tmp_path: Path) -> None:
    """With the fault, on the disconnection clauses: TBL-DISC-02 fails, in the re-joining
    scenarios only (the conservation check blames the disconnection where the connected player
    C was paid right). Clean, TBL-DISC-02 passes with checks from those scenarios."""
    env = {**os.environ, "LIVECERT_MONEY_SEED": "1"}  # the random sessions, repeatable
    status, certificate, output = certify(
        tmp_path / "faulty",
        "--no-html",
        "--clauses",
        DISCONNECTION,
        "--reference-fault",
        FAULT,
        env=env,
    )
    failed = {c: row for c, row in certificate["clauses"].items() if row["status"] == "failed"}
    assert (status, sorted(failed)) == (1, ["TBL-DISC-02"]), output[-3000:]
    assert set(failed["TBL-DISC-02"]["failed_scenarios"]) == NEW_SCENARIOS
    assert not certificate["harness_errors"]

    status, certificate, output = certify(
        tmp_path / "clean", "--no-html", "--clauses", "TBL-DISC-02", env=env
    )
    row = certificate["clauses"]["TBL-DISC-02"]
    assert (status, row["status"]) == (0, "passed"), output[-3000:]
    in_scenarios = row["checks"]["in_scenarios"]
    assert all(in_scenarios.get(name, 0) > 0 for name in NEW_SCENARIOS), in_scenarios


def test_a_wallet_wrong_for_every_player_is_not_the_disconnections(tmp_path: Path) -> None:
    """`winnings-not-credited` pays no Sic Bo winner, connected or not: the offline player's
    balance is off, but so is player C's, so TBL-DISC-02 is not blamed (REG-MONEY-01 is)."""
    status, certificate, output = certify(
        tmp_path / "unpaid",
        "--no-html",
        "--game",
        "sicbo",
        "--clauses",
        "TBL-DISC-02",
        "--reference-fault",
        "winnings-not-credited",
        env={**os.environ, "LIVECERT_MONEY_SEED": "1"},
    )
    row = certificate["clauses"]["TBL-DISC-02"]
    assert (status, row["status"]) == (0, "passed"), output[-3000:]
    assert not certificate["harness_errors"]
