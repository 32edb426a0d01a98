"""An outcome history read from a running target (`--from-target`, `--history-from-target`):
the reference's drawn tables read page by page through the canonical adapter, a loaded shaker
caught on its duty, and the rounds a harness run played left out by their ids."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from livecert.adapters import HttpAdapter
from livecert.adapters.evidence import ExchangeRecorder
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.exchange_archive import ExchangeArchive

ROUNDS = 10_000


@pytest.fixture(scope="module")
def sticky() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(faults=("sticky-die",), drawn_rounds=ROUNDS, shaker_seed=7) as server:
        yield server


def outcomes(server: EmbeddedServer, folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "LIVECERT_OPERATOR_TOKEN": server.operator_token,
        "LIVECERT_DEALER_TOKEN": server.dealer_token,
    }
    command = [sys.executable, "-m", "livecert.cli", "outcomes", "--target-url", server.url]
    return subprocess.run(
        [*command, *args, "--report-dir", str(folder)],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


def test_a_sticky_die_read_from_the_target_fails_independence(
    sticky: EmbeddedServer, tmp_path: Path
) -> None:
    done = outcomes(sticky, tmp_path, "--from-target", "drawn-sicbo")
    assert done.returncode == 1, done.stdout + done.stderr
    analysis = json.loads(
        (tmp_path / "outcome-analysis-sicbo-table-drawn-sicbo.json").read_text(encoding="utf-8")
    )
    assert analysis["rounds_tested"] == ROUNDS and analysis["in_order"]
    # its faces are fair, but dice that repeat their own earlier faces cannot be judged by the
    # chi-square tests (they assume independent rounds): distribution not tested, not failed
    duties = analysis["duties"]
    assert (duties["REG-FAIR-01"]["status"], duties["REG-FAIR-02"]["status"]) == (
        "not-tested",
        "failed",
    )
    assert "a die depends on its own earlier outcomes" in duties["REG-FAIR-01"]["reason"]
    # the rows read are kept beside the analysis, hashed, and analyse again to the same figures
    kept = tmp_path / analysis["history"]["file"]
    assert analysis["history"]["sha256"] == hashlib.sha256(kept.read_bytes()).hexdigest()
    again = subprocess.run(
        [sys.executable, "-m", "livecert.cli", "outcomes", "--history", str(kept),
         "--report-dir", str(tmp_path / "again")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert again.returncode == 1, again.stdout + again.stderr
    [redone] = [json.loads(p.read_text("utf-8")) for p in (tmp_path / "again").glob("*.json")]
    assert [t.get("statistic") for t in redone["tests"]] == [
        t.get("statistic") for t in analysis["tests"]
    ]
    assert analysis["source"] == "the round history of table drawn-sicbo"


def test_the_rounds_a_run_played_on_the_table_are_left_out_by_id(
    sticky: EmbeddedServer, tmp_path: Path
) -> None:
    """Twenty rounds forced to four red on the drawn Xoc Dia table, their exchanges kept as a
    run keeps them: counted, as a part of their own (no shaker named, 20 rounds: nothing can
    pass), unless that run is named."""
    recorder = ExchangeRecorder()
    adapter = HttpAdapter(sticky.url, sticky.operator_token, sticky.dealer_token, recorder=recorder)
    player = adapter.create_player(Decimal("100.00"))
    for _ in range(20):
        round_id = adapter.open_round("drawn-xocdia", countdown_ms=60_000).round_id
        adapter.record_event(round_id, "shake")
        adapter.place_bets(player, round_id, [("EVEN", Decimal("1.00"))])
        adapter.close_betting(round_id)
        adapter.enter_result(round_id, ["r", "r", "r", "r"])
    adapter.close()
    run = tmp_path / "run"
    ExchangeArchive(run, "gw0").add("forced::rounds", "forced rounds", recorder.drain())
    counted = outcomes(sticky, tmp_path / "a", "--from-target", "drawn-xocdia")
    left_out = outcomes(
        sticky, tmp_path / "b", "--from-target", "drawn-xocdia", "--exclude-run", str(run)
    )
    with_them = json.loads(
        (tmp_path / "a" / "outcome-analysis-xocdia-table-drawn-xocdia.json").read_text("utf-8")
    )
    without = json.loads(
        (tmp_path / "b" / "outcome-analysis-xocdia-table-drawn-xocdia.json").read_text("utf-8")
    )
    assert with_them["rounds_tested"] == ROUNDS + 20 and not with_them["in_order"]
    assert without["rounds_tested"] == ROUNDS and without["in_order"]
    assert without["left_out"] == {"rounds whose result the harness entered": 20}
    assert left_out.returncode == 0, left_out.stdout + left_out.stderr
    assert counted.returncode == 2  # a part of 20 rounds: too few to pass
    assert [p["rounds"] for p in with_them["parts"]] == [ROUNDS, 20]
