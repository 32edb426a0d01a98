"""What a terminal shows while a run goes: bars per game counted from the run record, each
failure on one line as it happens, judged as the certificate judges it; --quiet says only the
verdict."""

import io
import json
from pathlib import Path

from cli_support import livecert
from rich.console import Console

from livecert.certify.progress import RunProgress, failure_line
from livecert.suite.fixtures.allure_labels import judged_failed


def _scenario(name: str, outcome: str, game: str = "xocdia", **checks) -> dict:
    """A scenario's record as the suite writes it, its judged clauses by the suite's rule."""
    return {
        "type": "scenario",
        "name": name,
        "game": game,
        "outcome": outcome,
        "checks": checks,
        "judged_failed": judged_failed(checks, None) if outcome == "failed" else [],
        "message": "the round is 'closed', expected 'cancelled'\nmore",
    }


def test_a_failure_line_names_the_clauses_judged_not_every_clause_its_message_names() -> None:
    record = _scenario(
        "The bowl touches a token", "failed",
        **{"XD-VOID-02": {"ran": 2, "held": 1}, "XD-RND-01": {"ran": 1, "held": 1}},
    )  # fmt: skip
    record["failed_clauses"] = ["TBL-MAL-03", "XD-VOID-02"]  # what the message names
    assert failure_line(record) == (
        "FAILED XD-VOID-02: The bowl touches a token: the round is 'closed', expected 'cancelled'"
    )


def test_the_bars_count_each_games_scenarios_from_the_run_record(tmp_path: Path) -> None:
    record = tmp_path / "run-record.jsonl"
    lines = [
        {
            "type": "collected",
            "games": {"xocdia": 3, "table": 1},
            "clauses": {"xocdia": ["XD-PAY-03", "XD-VOID-02"], "table": ["TBL-DISC-01"]},
        },
        {
            "type": "collected",
            "games": {"xocdia": 3, "table": 1},  # another worker: the same
            "clauses": {"xocdia": ["XD-PAY-03", "XD-VOID-02"], "table": ["TBL-DISC-01"]},
        },
        _scenario("A", "passed"),
        _scenario("B", "failed", **{"XD-PAY-03": {"ran": 1, "held": 0}}),
        _scenario("C", "passed", game="table"),
    ]
    record.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"type": "scen')
    shown = io.StringIO()
    live = RunProgress(record, Console(file=shown, width=120, force_terminal=False))
    live.start()
    live.stop()
    tasks = {t.description: t for t in live.progress.tasks}
    assert (tasks["Xoc Dia"].completed, tasks["Xoc Dia"].total) == (2, 3)
    assert (tasks["Both games"].completed, tasks["Both games"].total) == (1, 1)
    assert tasks["Xoc Dia"].fields["failed"] == 1
    # XD-PAY-03's check ran in B; XD-VOID-02 has had none yet
    assert (tasks["Xoc Dia"].fields["judged"], tasks["Xoc Dia"].fields["clauses"]) == (1, 2)
    assert "FAILED XD-PAY-03: B: the round is 'closed'" in shown.getvalue()


def test_quiet_says_the_verdict_and_nothing_else(tmp_path: Path) -> None:
    done = livecert(
        "certify", "--quiet", "--no-html", "--game", "xocdia", "--clauses", "XD-VOID-02",
        "--report-dir", str(tmp_path / "r"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [
        "livecert 0.1.0 — verdict: COMPLIANT ON THE 1 SELECTED CLAUSES; NOT A CERTIFICATION"
    ]


def test_a_run_says_what_it_certifies_and_each_phase_after_the_scenarios(tmp_path: Path) -> None:
    done = livecert(
        "certify", "--no-html", "--game", "xocdia", "--clauses", "XD-VOID-02",
        "--report-dir", str(tmp_path / "r"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("livecert 0.1.0: certifying the embedded reference implementation")
    assert "building the certificate" in out and "writing the manifest" in out
    assert "wall time: " in out
