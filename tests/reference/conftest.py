"""Fixtures for the reference server tests: an app on a tmp database, a contract-checking client."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fastapi.testclient import TestClient
from reference_support import Casino, ContractClient

from livecert.reference.app import create_app
from livecert.reference.config import Config

AppFactory = Callable[..., tuple[ContractClient, Casino]]


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[AppFactory]:
    """Build an app (with optional Config fields) on a fresh database in tmp_path."""
    clients: list[TestClient] = []
    counter = iter(range(1000))

    def factory(check: bool = True, **config: Any) -> tuple[ContractClient, Casino]:
        db = tmp_path / f"ref{next(counter)}.sqlite3"
        app = create_app(Config(db_path=str(db), **config))
        client = TestClient(app)
        clients.append(client)
        api = ContractClient(client, check=check)
        return api, Casino(api)

    yield factory
    for client in clients:
        client.close()
        client.app.state.store.close()


@pytest.fixture
def api_casino(make_app: AppFactory) -> tuple[ContractClient, Casino]:
    return make_app()


@pytest.fixture
def api(api_casino: tuple[ContractClient, Casino]) -> ContractClient:
    return api_casino[0]


@pytest.fixture
def casino(api_casino: tuple[ContractClient, Casino]) -> Casino:
    return api_casino[1]
