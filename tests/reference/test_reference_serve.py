"""The `livecert serve` command: options, fault listing, and a real server answering /v1/info."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from livecert.reference import faults, serve

REPO = Path(__file__).resolve().parents[2]


def test_list_faults(capsys) -> None:  # type: ignore[no-untyped-def]
    assert serve.main(["--list-faults"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # one line per fault of the catalogue (pinned line by line in test_reference_faults.py)
    assert [line.split(" ")[0] for line in lines] == list(faults.FAULTS)
    assert lines[0] == "small-wins-on-triple SB-PAY-16,REG-SETTLE-01,REG-RTP-01,SB-RTP-01"


def test_unknown_fault_is_a_usage_error(capsys) -> None:  # type: ignore[no-untyped-def]
    assert serve.main(["--fault", "bogus"]) == 3  # 2 is the verdict incomplete
    err = capsys.readouterr().err
    assert "bogus" in err and "total-misreported" in err


def test_bad_options_are_usage_errors(capsys) -> None:  # type: ignore[no-untyped-def]
    assert serve.main(["--rounding", "sideways"]) == 3  # argparse's own error
    assert serve.main(["--currency", "euro"]) == 3
    assert "invalid choice: 'sideways'" in capsys.readouterr().err


def test_the_help_names_the_default_tokens(capsys) -> None:  # type: ignore[no-untyped-def]
    assert serve.main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "Sic Bo and Xoc Dia" in shown
    assert "Default tokens: operator 'operator-dev-token', dealer 'dealer-dev-token'" in shown


def test_server_runs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "LIVECERT_DEALER_TOKEN": "d-tok"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "livecert.reference",
            "--port",
            "0",
            "--db",
            str(tmp_path / "x.sqlite3"),
            "--rounding",
            "half-even",
            "--fault",
            "total-misreported",
            "--currency",
            "USD",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        prefix = "livecert reference server listening on http://127.0.0.1:"
        assert line.startswith(prefix), (line, proc.stderr.read() if proc.poll() else "")
        base = line.removeprefix("livecert reference server listening on ")
        # the tokens it accepts: the default shown, the one the lab set named, never shown
        assert proc.stdout.readline().rstrip() == (
            "  operator token: operator-dev-token (the default; set LIVECERT_OPERATOR_TOKEN to "
            "change it)"
        )
        assert proc.stdout.readline().rstrip() == (
            "  dealer token: the one given (--dealer-token or LIVECERT_DEALER_TOKEN), not shown"
        )
        with urllib.request.urlopen(base + "/v1/info", timeout=5) as response:
            info = json.load(response)
        assert (info["rounding"], info["currency"]) == ("half-even", "USD")
        request = urllib.request.Request(
            base + "/v1/whoami", headers={"Authorization": "Bearer d-tok"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert json.load(response)["role"] == "dealer"
        assert (tmp_path / "x.sqlite3").exists()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
