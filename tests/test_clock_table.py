"""The clock table (examples/clock_table): a live table on its own timer over a plain WebSocket,
with lent accounts, declared table limits, bets answered by one frame (or, with --no-ack, never
answered), certified through its mapping files (issue 35). Both mappings load; the betting
window, the commitment of bets and the balance come out clean through each; two seeded faults
fail exactly their declared clauses on them. The whole matrix (both games' whole suites, every
fault) is `python -m examples.clock_table.selftest`, its table in tests/README.md.
"""

import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_support import certify
from vendor_support import example_server

from examples.clock_table.selftest import BALANCE, DECLARED
from livecert.adapters.mapping import load_mapping
from livecert.harness.embedded import free_port

# a table running rounds on its own clock
pytestmark = pytest.mark.timing

ROOT = Path(__file__).resolve().parent.parent
MAPPING = ROOT / "examples" / "clock_table" / "mapping.yaml"
NO_ACK = ROOT / "examples" / "clock_table" / "mapping-noack.yaml"
TOKEN_ENV, ACCOUNTS_ENV = "CLOCK_TABLE_ADMIN_TOKEN", "CLOCK_TABLE_ACCOUNTS"


@contextmanager
def clock_table(*options: str) -> Iterator[tuple[str, dict[str, str]]]:
    """(URL, environment with the admin token and the lent accounts) of the clock table started
    with `options` (its faults, --no-ack)."""
    port = free_port()
    accounts = ",".join(f"acct{n}:{secrets.token_urlsafe(9)}" for n in range(1, 17))
    env = {**os.environ, TOKEN_ENV: secrets.token_hex(12), ACCOUNTS_ENV: accounts}
    command = [sys.executable, "-m", "examples.clock_table", "--port", str(port), "--seed", "7"]
    command += ["--balance", BALANCE, *options]
    url = f"http://127.0.0.1:{port}"
    with example_server(command, env, url + "/api/tables", "the clock table"):
        yield url, env


def _certify(
    folder: Path, url: str, env: dict, *args: str, mapping: Path = MAPPING
) -> tuple[int, dict, str]:
    return certify(
        folder, "--adapter", str(mapping), "--target-url", url, "--no-html", *args, env=env
    )


def _failed(certificate: dict) -> set[str]:
    return {c for c, row in certificate["clauses"].items() if row["status"] == "failed"}


@pytest.mark.parametrize("mapping", [MAPPING, NO_ACK], ids=["answered", "no-ack"])
def test_the_mapping_loads(monkeypatch: pytest.MonkeyPatch, mapping: Path) -> None:
    monkeypatch.setenv(TOKEN_ENV, "x" * 24)
    monkeypatch.setenv(ACCOUNTS_ENV, "a:b,c:d")
    loaded = load_mapping(mapping)
    assert loaded.data["streams"]["protocol"] == "websocket"
    assert loaded.data["declares"]["limits"]["xocdia"] == {"min_bet": "1.00", "max_bet": "5000.00"}
    emit = loaded.data["operations"]["place_bets"]["emit"]
    assert emit.get("answer_event") == "bet_ack" if mapping == MAPPING else emit["ack"] is False


CLEAN_CLAUSES = "XD-RND-01,REG-COMMIT-01,REG-BAL-01"


@pytest.mark.parametrize(
    ("options", "mapping"), [((), MAPPING), (("--no-ack",), NO_ACK)], ids=["answered", "no-ack"]
)
def test_the_clean_table_takes_bets_only_while_betting_and_never_below_zero(
    tmp_path: Path, options: tuple[str, ...], mapping: Path
) -> None:
    """The betting window (a bet after the close refused, judged on the stream too), the bets
    committed as taken, and the balance through the lent accounts, with bets answered by a
    frame and never answered: each passes on checks that ran (about 20 s each)."""
    with clock_table(*options) as (url, env):
        status, certificate, output = _certify(
            tmp_path / "report", url, env, "--game", "xocdia", "--clauses", CLEAN_CLAUSES,
            mapping=mapping,
        )  # fmt: skip
    assert not _failed(certificate), output[-3000:]
    assert (status, certificate["verdict"]) == (0, "compliant"), output[-3000:]
    for clause in CLEAN_CLAUSES.split(","):
        row = certificate["clauses"][clause]
        assert row["status"] == "passed" and row["checks"]["held"] > 0, (clause, row)


@pytest.mark.parametrize(
    ("fault", "game", "clauses"),
    [
        # the result pushed before the close: judged on the stream (about 20 s)
        ("result-before-close", "sicbo", "REG-COMMIT-01,SB-RND-03"),
        # a bet answered, and taken, after the close went out (about 20 s)
        ("late-ack", "xocdia", "XD-RND-01,REG-COMMIT-01"),
    ],
)
def test_a_fault_fails_its_clauses(tmp_path: Path, fault: str, game: str, clauses: str) -> None:
    with clock_table("--fault", fault) as (url, env):
        status, certificate, output = _certify(
            tmp_path / "report", url, env, "--game", game, "--clauses", clauses
        )
    assert _failed(certificate) == DECLARED[(fault, game)], output[-3000:]
    assert (status, certificate["verdict"]) == (1, "non-compliant"), output[-3000:]
