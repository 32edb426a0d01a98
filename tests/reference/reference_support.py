"""Helpers for the reference server tests: a contract-checking client and API shortcuts.

Every response the ContractClient receives is validated against livecert/contract/openapi.yaml
(the operation's schema for its status, or the default Error response).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from fastapi.testclient import TestClient
from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
for _entry in (TESTS, REPO):  # `hand_tables` and `livecert` importable without an install
    if str(_entry) not in sys.path:
        sys.path.insert(0, str(_entry))

CONTRACT = yaml.safe_load((REPO / "livecert" / "contract" / "openapi.yaml").read_text())
_REGISTRY = Registry().with_resource(
    "urn:contract", Resource.from_contents(CONTRACT, default_specification=DRAFT202012)
)
_OPERATIONS: list[tuple[re.Pattern[str], str, dict[str, Any]]] = []
for _template, _item in CONTRACT["paths"].items():
    _pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", _template) + "$")
    for _method, _operation in _item.items():
        if _method in {"get", "post", "put", "delete", "patch"}:
            _OPERATIONS.append((_pattern, _method, _operation))

OPERATOR = {"Authorization": "Bearer operator-dev-token"}
DEALER = {"Authorization": "Bearer dealer-dev-token"}


def validate_schema(name: str, instance: Any) -> None:
    """Validate an instance against a named component schema of the contract."""
    OAS31Validator(
        {"$ref": f"urn:contract#/components/schemas/{name}"},
        registry=_REGISTRY,
        format_checker=OAS31Validator.FORMAT_CHECKER,
    ).validate(instance)


def _response_schema(method: str, path: str, status: int) -> dict[str, Any] | None:
    for pattern, op_method, operation in _OPERATIONS:
        if op_method == method.lower() and pattern.match(path):
            responses = operation["responses"]
            response = responses.get(str(status)) or responses["default"]
            if "$ref" in response:
                response = CONTRACT["components"]["responses"][response["$ref"].split("/")[-1]]
            return response["content"]["application/json"]["schema"]
    return None


class ContractClient:
    """A TestClient wrapper that checks every response against the contract."""

    def __init__(self, client: TestClient, check: bool = True) -> None:
        self.client = client
        self.check = check

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.client.request(method, path, **kwargs)
        if self.check:
            self.validate(method, path.split("?", 1)[0], response)
        return response

    def validate(self, method: str, path: str, response: Any) -> None:
        status = response.status_code
        assert status < 500, f"{method} {path} -> {status} {response.text}"
        body = response.json()
        if status >= 400:
            validate_schema("Error", body)
            return
        schema = _response_schema(method, path, status)
        assert schema is not None, f"{method} {path} answered {status}, not in the contract"
        OAS31Validator(
            {**schema, "$id": "urn:contract-response"}
            if "$ref" not in schema
            else {"$ref": "urn:contract" + schema["$ref"]},
            registry=_REGISTRY,
            format_checker=OAS31Validator.FORMAT_CHECKER,
        ).validate(body)

    def get(self, path: str, **kw: Any) -> Any:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Any:
        return self.request("POST", path, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.request("DELETE", path, **kw)


class Casino:
    """Helpers to set up players, tables and rounds through the API."""

    def __init__(self, api: ContractClient) -> None:
        self.api = api

    def player(self, balance: str = "1000.00") -> tuple[str, dict[str, str]]:
        r = self.api.post(
            "/v1/players", json={"balance": balance, "name": "tester"}, headers=OPERATOR
        )
        assert r.status_code == 201, r.text
        return r.json()["player_id"], {"Authorization": f"Bearer {r.json()['token']}"}

    def table(self, game: str = "sicbo") -> str:
        r = self.api.post("/v1/tables", json={"game": game}, headers=OPERATOR)
        assert r.status_code == 201, r.text
        return r.json()["table_id"]

    def open(self, table_id: str, countdown_ms: int = 60_000) -> str:
        r = self.api.post(
            f"/v1/tables/{table_id}/rounds", json={"countdown_ms": countdown_ms}, headers=DEALER
        )
        assert r.status_code == 201, r.text
        return r.json()["round_id"]

    def bet(self, round_id: str, player: dict[str, str], *bets: tuple[str, str], **kw: Any) -> Any:
        slip = [{"selection": s, "stake": k} for s, k in bets]
        return self.api.post(
            f"/v1/rounds/{round_id}/bets",
            json={"bets": slip},
            headers={**player, **kw.pop("headers", {})},
            **kw,
        )

    def close(self, round_id: str) -> Any:
        r = self.api.post(f"/v1/rounds/{round_id}/close", headers=DEALER)
        assert r.status_code == 200, r.text
        return r.json()

    def result(self, round_id: str, dice: Any) -> Any:
        return self.api.post(f"/v1/rounds/{round_id}/result", json={"dice": dice}, headers=DEALER)

    def tokens(self, round_id: str, tokens: Any) -> Any:
        """Enter a Xoc Dia result `{"tokens": tokens}`."""
        return self.api.post(
            f"/v1/rounds/{round_id}/result", json={"tokens": tokens}, headers=DEALER
        )

    def event(self, round_id: str, kind: str) -> Any:
        """Record a dealer event (`shake`, `rearrange`, `bowl-touched-token`)."""
        return self.api.post(f"/v1/rounds/{round_id}/events", json={"type": kind}, headers=DEALER)

    def reshake(self, round_id: str, reason: str) -> Any:
        return self.api.post(
            f"/v1/rounds/{round_id}/reshakes", json={"reason": reason}, headers=DEALER
        )

    def get_round(self, round_id: str) -> dict[str, Any]:
        r = self.api.get(f"/v1/rounds/{round_id}", headers=DEALER)
        assert r.status_code == 200, r.text
        return r.json()

    def balance(self, player: dict[str, str]) -> str:
        r = self.api.get("/v1/player", headers=player)
        assert r.status_code == 200, r.text
        return r.json()["balance"]

    def play(
        self,
        player: dict[str, str],
        dice: list[int],
        *bets: tuple[str, str],
        table_id: str | None = None,
    ) -> dict[str, Any]:
        """One whole round: open, bet, close, result; answers the settled round."""
        round_id = self.open(table_id or self.table())
        r = self.bet(round_id, player, *bets)
        assert r.status_code == 201, r.text
        self.close(round_id)
        r = self.result(round_id, dice)
        assert r.status_code == 200, r.text
        return r.json()

    def play_xocdia(
        self,
        player: dict[str, str],
        tokens: list[str],
        *bets: tuple[str, str],
        table_id: str | None = None,
    ) -> dict[str, Any]:
        """One whole Xoc Dia round: open, bet, shake, close, result; answers the round."""
        round_id = self.open(table_id or self.table("xocdia"))
        r = self.bet(round_id, player, *bets)
        assert r.status_code == 201, r.text
        assert self.event(round_id, "shake").status_code == 200
        self.close(round_id)
        r = self.tokens(round_id, tokens)
        assert r.status_code == 200, r.text
        return r.json()


def round_before_a_restart(
    db: str, *bets: tuple[str, str], close: bool = False
) -> tuple[dict[str, str], str, list[dict[str, Any]]]:
    """A player of 100.00 with `bets` (each its own slip) in a new round of a reference on
    `db`, betting closed if asked; then that reference's store left as a killed server leaves
    it. The player's credential, the round id, and each bet as its slip's answer gave it."""
    from livecert.reference.app import create_app
    from livecert.reference.config import Config

    first = create_app(Config(db_path=db))
    with TestClient(first) as client:
        casino = Casino(ContractClient(client))
        _pid, player = casino.player("100.00")
        round_id = casino.open(casino.table())
        answers = [casino.bet(round_id, player, bet) for bet in bets]
        assert [a.status_code for a in answers] == [201] * len(bets), [a.text for a in answers]
        staked = sum((Decimal(stake) for _code, stake in bets), Decimal(0))
        assert casino.balance(player) == f"{Decimal('100.00') - staked:.2f}"
        placed = [a.json()["bets"][0] for a in answers]
        if close:
            casino.close(round_id)
    first.state.store.close()
    return player, round_id, placed


@contextmanager
def restarted(db: str, **config: Any) -> Iterator[ContractClient]:
    """The reference started again on `db` (with `config`: a fault, an option), closed after."""
    from livecert.reference.app import create_app
    from livecert.reference.config import Config

    app = create_app(Config(db_path=db, **config))
    with TestClient(app) as client:
        yield ContractClient(client)
    app.state.store.close()
