"""`livecert compare OLD NEW`: two certificates clause by clause, each clause judged by the runs'
own verdicts; the end-to-end case is two real runs of the reference, each with its own fault."""

import json
import os
from pathlib import Path

import pytest
from cli_support import certify, livecert

from livecert.certify.compare import compare, kind_of

# (old status, new status) -> the kind of change, written out by hand for every pair
TRANSITIONS = {
    ("failed", "passed"): "fixed",
    ("failed", "failed"): "still_failing",
    ("failed", "not-tested"): "newly_not_tested",
    ("failed", "absent"): "newly_not_tested",
    ("passed", "failed"): "newly_failing",
    ("not-tested", "failed"): "newly_failing",
    ("absent", "failed"): "newly_failing",
    ("not-applicable", "failed"): "newly_failing",
    ("passed", "not-tested"): "newly_not_tested",
    ("passed", "not-applicable"): "newly_not_tested",
    ("passed", "absent"): "newly_not_tested",
    ("not-tested", "passed"): "newly_passing",
    ("absent", "passed"): "newly_passing",
    ("passed", "passed"): None,
    ("not-tested", "not-tested"): None,
    ("absent", "not-tested"): None,
    ("not-applicable", "not-tested"): None,
}


@pytest.mark.parametrize("old, new", list(TRANSITIONS))
def test_each_pair_of_standings_is_the_change_written_by_hand(old: str, new: str) -> None:
    assert kind_of(old, new) == TRANSITIONS[(old, new)]


def _certificate(**statuses: str) -> dict:
    return {
        "verdict": "non-compliant" if "failed" in statuses.values() else "compliant",
        "target": {"name": "a-casino", "version": "1"},
        "clauses": {
            c.replace("_", "-"): {"status": s, "text": f"text of {c}", "failed_scenarios": ["x"]}
            for c, s in statuses.items()
        },
    }


def test_a_clause_in_only_one_certificate_counts_as_absent_in_the_other() -> None:
    old = _certificate(SB_PAY_01="failed")
    new = _certificate(XD_PAY_01="failed")
    difference = compare(old, new)
    assert [c["clause"] for c in difference["newly_not_tested"]] == ["SB-PAY-01"]
    assert [c["clause"] for c in difference["newly_failing"]] == ["XD-PAY-01"]
    assert difference["newly_failing"][0]["failed_scenarios"] == ("x",)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    """Xoc Dia with the bowl touch ignored (XD-VOID-02), then, the vendor's fix in and a new
    fault in, with a rearrangement voiding the round (XD-RND-02)."""
    base = tmp_path_factory.mktemp("compare")
    for name, fault in (("before", "bowl-touch-ignored"), ("after", "rearrange-voids-round")):
        status, _, output = certify(
            base / name, "--no-html", "--game", "xocdia", "--reference-fault", fault
        )
        assert status == 1, output[-2000:]
    return base / "before", base / "after"


def test_compare_shows_the_fixed_and_the_new_finding_of_two_runs(two_runs) -> None:
    before, after = two_runs
    output = before.parent / "difference.json"
    done = livecert("compare", str(before), str(after), "--output", str(output), env=None)
    assert done.returncode == 1, done.stdout + done.stderr  # a clause newly failing
    difference = json.loads(output.read_text())
    assert [c["clause"] for c in difference["fixed"]] == ["XD-VOID-02"]
    assert [c["clause"] for c in difference["newly_failing"]] == ["XD-RND-02"]
    assert difference["still_failing"] == difference["newly_not_tested"] == []
    assert "fixed: 1\n  XD-VOID-02: failed -> passed" in done.stdout
    assert "newly failing: 1\n  XD-RND-02: passed -> failed" in done.stdout


def test_the_run_compared_with_itself_changes_nothing_and_exits_0(two_runs) -> None:
    before, _ = two_runs
    done = livecert("compare", str(before), str(before), env=None)
    assert done.returncode == 0, done.stdout + done.stderr
    written = before.parent / f"compare-{before.name}-{before.name}.json"
    difference = json.loads(written.read_text())
    assert [c["clause"] for c in difference["still_failing"]] == ["XD-VOID-02"]
    assert difference["fixed"] == difference["newly_failing"] == []
    assert not (before / written.name).exists()  # outside the report: its manifest holds


def test_a_folder_without_a_certificate_is_a_usage_error(tmp_path: Path) -> None:
    done = livecert("compare", str(tmp_path), str(tmp_path), env={**os.environ})
    assert done.returncode == 3
    assert "is not a livecert report folder (no certificate.json)" in done.stderr
