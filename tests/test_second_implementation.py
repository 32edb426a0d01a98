"""No false positives across implementations: a second server, written independently of the
reference (examples/second_server: its own ASGI app, in-memory state, settlement by lookup tables
built outcome by outcome, rounding half-even), is certified compliant by the same suite.
"""

import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from cli_support import certify

from livecert.harness.capabilities import LAB_ABILITIES
from livecert.harness.embedded import free_port

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.timing
def test_the_second_implementation_passes_all_but_interrupted_games(tmp_path: Path) -> None:
    port, operator, dealer = free_port(), secrets.token_hex(8), secrets.token_hex(8)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "examples.second_server",
            "--port",
            str(port),
            "--operator-token",
            operator,
            "--dealer-token",
            dealer,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                info = requests.get(url + "/v1/info", timeout=1).json()
                break
            except requests.RequestException:
                time.sleep(0.1)
        assert info["rounding"] == "half-even" and info["implementation"]["name"] != (
            "livecert-reference"
        )
        status, certificate, output = certify(
            tmp_path / "report",
            "--game",
            "all",
            "--target-url",
            url,
            "--operator-token",
            operator,
            "--dealer-token",
            dealer,
            "--no-html",  # the report pages are checked by test_report*.py; here: the verdict
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    # no restart hook (it keeps its rounds in memory: a restart would lose them), so
    # interrupted games are not tested, with what to give: incomplete, nothing failed
    assert (status, certificate["verdict"]) == (2, "incomplete"), output[-3000:]
    assert not [c for c, row in certificate["clauses"].items() if row["status"] == "failed"]
    interrupted = certificate["clauses"]["REG-INTR-01"]
    assert (interrupted["status"], interrupted["in_scope"]) == ("not-tested", True)
    assert interrupted["reason"] == "skipped: " + LAB_ABILITIES["restart"], interrupted["reason"]
    in_scope = certificate["scope"]["clauses_in_scope"]
    # it declares no table limits: that duty is not applicable; everything else passed
    assert certificate["clauses"]["REG-LIMIT-01"]["status"] == "not-applicable"
    # and no outcome history was given: the fairness duties are not applicable either
    fairness = ("REG-FAIR-01", "REG-FAIR-02")
    assert {certificate["clauses"][c]["status"] for c in fairness} == {"not-applicable"}
    others = [c for c in in_scope if c not in ("REG-LIMIT-01", "REG-INTR-01", *fairness)]
    assert all(certificate["clauses"][c]["status"] == "passed" for c in others)
    assert certificate["sweep"]["sicbo"]["settlements_checked"] == 216 * 110
    assert certificate["target"]["name"] == info["implementation"]["name"]


def test_the_second_implementation_shares_no_code_with_livecert() -> None:
    for path in (ROOT / "examples" / "second_server").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+livecert", text, re.M), path
