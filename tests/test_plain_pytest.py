"""The scenarios run under plain pytest, as the README shows for CI pipelines that prefer it:
`pytest features -m CLAUSE`, the clause tags as markers, the embedded reference as the target.
(The self-test's clean certification runs every scenario; this checks the plain-pytest path.)"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "features", "-p", "no:cacheprovider", "-q", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_clause_runs_under_plain_pytest() -> None:
    done = _pytest("-m", "SB-PAY-16 and not sweep")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


def test_a_seeded_fault_fails_the_clause_under_plain_pytest() -> None:
    done = _pytest("-m", "SB-PAY-16 and not sweep", "--reference-fault", "small-wins-on-triple")
    assert done.returncode == 1, done.stdout[-2000:]
    assert "SB-PAY-16" in done.stdout and " failed" in done.stdout


def test_the_installed_suite_runs_with_allure_from_any_folder(tmp_path: Path) -> None:
    """The README's plugin example, run from a folder of the vendor's own (the feature files
    outside pytest's rootdir, where allure-pytest-bdd 2.16 failed every scenario): each result
    written, under its Gherkin feature."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "livecert.suite.features", "-p",
         "no:cacheprovider", "-q", "-m", "xocdia and XD-PAY-09", "--alluredir=allure-results"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = [
        json.loads(p.read_text()) for p in (tmp_path / "allure-results").glob("*-result.json")
    ]
    assert results and all(r["status"] in ("passed", "skipped") for r in results)
    features = {x["value"] for r in results for x in r["labels"] if x["name"] == "feature"}
    assert "Xoc Dia: every selection on every result" in features
    assert all(r["titlePath"][-1] in features for r in results)
