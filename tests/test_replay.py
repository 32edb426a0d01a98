"""`livecert replay`: a report's failed scenarios run again against the same target, each
finding said to hold, to be fixed, or not to be judged; the report replayed is left as it was."""

import json
import shutil
from pathlib import Path

import pytest
from cli_support import certify, livecert

from livecert.report.signing import manifest_problems

FAULT = "bowl-touch-ignored"  # XD-VOID-02: a touched bowl does not cancel the round


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("replay") / "run"
    status, certificate, output = certify(
        folder, "--no-html", "--game", "xocdia", "--reference-fault", FAULT
    )
    assert status == 1 and certificate["clauses"]["XD-VOID-02"]["status"] == "failed", output
    return folder


def _replay_folder(output: str) -> Path:
    return Path(output.split("the replay's report: ")[1].split("/\n")[0])


def test_replaying_every_failed_scenario_finds_the_finding_still_holds(report: Path) -> None:
    done = livecert("replay", str(report), "--failed", env=None)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "holds      XD-VOID-02" in done.stdout and "failed again" in done.stdout
    replayed = _replay_folder(done.stdout)
    assert replayed.parent == report.parent and replayed != report
    certificate = json.loads((replayed / "certificate.json").read_text(encoding="utf-8"))
    assert certificate["target"]["faults"] == [FAULT]  # the same target: its seeded fault
    assert certificate["scope"]["partial"] is True  # only the clauses replayed
    assert certificate["summary"]["scenarios"] == 1  # the one failed scenario, not its file
    assert manifest_problems(report) == []  # the report replayed is as it was


def test_one_scenario_is_named_by_words_of_its_name(report: Path) -> None:
    done = livecert("replay", str(report), "bowl touches a token", env=None)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "replayed 1 scenario(s)" in done.stdout


def test_a_finding_the_target_no_longer_has_is_said_fixed(report: Path, tmp_path: Path) -> None:
    """The same scenario against the target after the vendor's fix (here: the reference
    without the fault) passes, and the finding is said to be fixed."""
    fixed = tmp_path / "fixed"
    shutil.copytree(report, fixed)
    certificate = json.loads((fixed / "certificate.json").read_text(encoding="utf-8"))
    certificate["target"]["faults"] = []
    (fixed / "certificate.json").write_text(json.dumps(certificate), encoding="utf-8")
    done = livecert("replay", str(fixed), "--failed", env=None)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fixed      XD-VOID-02" in done.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        ((), "name one failed scenario, or give --failed"),
        (("no such scenario",), "no failed scenario matching 'no such scenario'"),
    ],
)
def test_what_to_replay_must_be_said_and_found(report: Path, args, words: str) -> None:
    done = livecert("replay", str(report), *args, env=None)
    assert done.returncode == 3 and words in done.stderr, done.stderr


def test_a_scenario_that_did_not_judge_the_clause_again_is_not_said_fixed() -> None:
    """Passed by other scenarios while the replayed one was skipped there: not judged."""
    from livecert.certify.replay import Replayed, judge_replay

    replayed = {
        "clauses": {
            "SB-PAY-08": {
                "status": "passed",
                "scenario_names": ["S1", "S2"],
                "checks": {"in_scenarios": {"S1": 3}},
                "not_testable": ["S2: the target does not offer TRIPLE_1"],
            }
        },
        "verdict_reasons": [],
    }
    scenarios = [Replayed("n1", "S1", ("SB-PAY-08",)), Replayed("n2", "S2", ("SB-PAY-08",))]
    found = {v["scenario"]: v["finding"] for v in judge_replay(scenarios, replayed)}
    assert found == {"S1": "fixed", "S2": "not judged"}
