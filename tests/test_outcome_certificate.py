"""REG-FAIR-01/02 in the certificate and on the command line: judged from the histories given
(`--history`), each duty on its own tests; the reference's loaded shakers caught through the
self-test's own path; a bad history refused before anything runs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from livecert.adapters import HistoryPage, HistoryRound
from livecert.certify.certificate import build_certificate
from livecert.certify.outcomes import analysis_of, rows_from_target
from livecert.certify.selftest import _certify_run, outcome_histories
from livecert.fairness import HistoryError
from livecert.fairness.history import checked_rows
from livecert.harness.embedded import EmbeddedServer
from tests.test_certificate import all_passing

FAIR = ("REG-FAIR-01", "REG-FAIR-02")


def rows(game: str, n: int, seed: int, first_six: float | None = None) -> list:
    rng = np.random.default_rng(seed)
    found = []
    for i in range(n):
        if game == "sicbo":
            dice = [int(d) for d in rng.integers(1, 7, size=3)]
            if first_six is not None:
                dice[0] = 6 if rng.random() < first_six else int(rng.integers(1, 6))
            result = " ".join(map(str, dice))
        else:
            result = " ".join("r" if r else "w" for r in rng.random(4) < 0.5)
        found.append((i + 2, {"round_id": f"R{i}", "result": result, "in_order": "true"}))
    return checked_rows(found, game, "test")


def analysis(game: str, n: int = 10_000, seed: int = 1, first_six: float | None = None) -> dict:
    return analysis_of(rows(game, n, seed, first_six), f"{game}.csv")


def certificate(analyses: list[dict], games=("sicbo", "xocdia")) -> dict:
    records = [*all_passing(), *({"type": "outcome_analysis", "analysis": a} for a in analyses)]
    return build_certificate(records, games, run={})


def test_histories_of_every_game_that_hold_pass_both_duties_and_say_what_was_read() -> None:
    cert = certificate([analysis("sicbo"), analysis("xocdia")])
    assert {c: cert["clauses"][c]["status"] for c in FAIR} == dict.fromkeys(FAIR, "passed")
    row = cert["clauses"]["REG-FAIR-01"]
    assert row["checks"]["ran"] == row["checks"]["held"] == 6 + 5  # Sic Bo 6, Xoc Dia 5
    assert cert["limitations"][0].startswith(
        "Randomness is assessed only from the outcome history given (Sic Bo: 10,000 rounds"
    )
    assert [a["game"] for a in cert["outcome_analysis"]] == ["sicbo", "xocdia"]
    alone = certificate([analysis("sicbo")], games=("sicbo",))  # every Sic Bo clause held
    assert alone["verdict"] == "compliant"


def test_a_game_without_its_history_leaves_the_duties_not_tested_and_the_run_incomplete() -> None:
    cert = certificate([analysis("sicbo")])
    for clause in FAIR:
        row = cert["clauses"][clause]
        assert row["status"] == "not-tested"
        assert "no outcome history of Xoc Dia given" in row["reason"]
    assert cert["verdict"] == "incomplete"


def test_a_loaded_die_fails_the_distribution_duty_alone() -> None:
    cert = certificate([analysis("sicbo", first_six=0.25), analysis("xocdia")])
    assert cert["clauses"]["REG-FAIR-01"]["status"] == "failed"
    assert cert["clauses"]["REG-FAIR-02"]["status"] == "passed"
    assert cert["clauses"]["REG-FAIR-01"]["failed_checks"][0].startswith("Sic Bo: faces of die 1")
    assert cert["verdict"] == "non-compliant"


def test_a_short_history_passes_nothing_and_says_why() -> None:
    cert = certificate([analysis("xocdia", n=3_000)], games=("xocdia",))
    row = cert["clauses"]["REG-FAIR-02"]
    assert row["status"] == "not-tested"
    assert "fewer outcomes than the 10,000 GLI-19 §3.4.2 asks" in row["reason"]


@pytest.mark.parametrize(
    ("fault", "duty"),
    [
        ("loaded-die", "REG-FAIR-01"),
        ("sticky-die", "REG-FAIR-02"),
        ("red-biased-token", "REG-FAIR-01"),
    ],
)
def test_each_shaker_fault_of_the_reference_fails_exactly_its_duty(
    tmp_path: Path, fault, duty
) -> None:
    run = _certify_run(fault, [duty], tmp_path / "report", full=False)
    assert run.ok and run.failed == [duty], (run.failed, run.output_tail)


def test_the_reference_fair_shaker_passes_both_duties(tmp_path: Path) -> None:
    histories = outcome_histories(None, tmp_path / "h")
    command = [sys.executable, "-m", "livecert.cli", "certify", "--clauses", ",".join(FAIR)]
    for path in histories:
        command += ["--history", str(path)]
    done = subprocess.run(
        [*command, "--report-dir", str(tmp_path / "r"), "--quiet", "--no-html"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    cert = json.loads((tmp_path / "r" / "certificate.json").read_text(encoding="utf-8"))
    assert {c: cert["clauses"][c]["status"] for c in FAIR} == dict.fromkeys(FAIR, "passed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (tmp_path / "r" / "outcomes").iterdir()) == [
        "outcome-analysis-sicbo-history-sicbo.json", "outcome-analysis-sicbo-history-sicbo.txt",
        "outcome-analysis-xocdia-history-xocdia.json", "outcome-analysis-xocdia-history-xocdia.txt",
    ]  # fmt: skip


def livecert(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "livecert.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_a_bad_row_stops_certify_and_outcomes_before_anything_runs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("round_id,result\nR1,1 2 3\nR2,0 2 3\n", encoding="utf-8")
    done = livecert("certify", "--history", str(bad), "--report-dir", str(tmp_path / "r"))
    assert done.returncode == 3
    assert f"{bad}:3: die '0' is not a whole number from 1 to 6" in done.stderr
    assert not (tmp_path / "r" / "run-record.jsonl").exists()
    done = livecert("outcomes", "--history", str(bad), "--report-dir", str(tmp_path / "o"))
    assert done.returncode == 3 and f"{bad}:3: die '0'" in done.stderr


def test_outcomes_writes_the_analysis_and_exits_by_the_duties(tmp_path: Path) -> None:
    good = tmp_path / "h.csv"
    lines = ["round_id,result,in_order"]
    rng = np.random.default_rng(3)
    lines += [f"R{i},{' '.join(map(str, rng.integers(1, 7, 3)))},true" for i in range(10_000)]
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = livecert(
        "outcomes", "--history", str(good), "--detect", "0.02", "--report-dir", str(tmp_path / "o")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "REG-FAIR-01: passed" in done.stdout and "a bias of 0.02" in done.stdout
    saved = json.loads(
        (tmp_path / "o" / "outcome-analysis-sicbo-h.json").read_text(encoding="utf-8")
    )
    assert saved["rounds_tested"] == 10_000 and saved["power"]["detect"] == 0.02
    chart = tmp_path / "o" / "outcome-analysis-sicbo-h.png"  # the certificate's chart, too
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    short = tmp_path / "short.csv"
    short.write_text("\n".join(lines[:2001]) + "\n", encoding="utf-8")
    assert (
        livecert(
            "outcomes", "--history", str(short), "--report-dir", str(tmp_path / "s")
        ).returncode
        == 2
    )


def test_outcome_duties_selected_alone_need_a_history(tmp_path: Path) -> None:
    done = livecert("certify", "--clauses", "REG-FAIR-01", "--report-dir", str(tmp_path / "r"))
    assert done.returncode == 3 and "judged from an outcome history" in done.stderr


def test_a_history_that_could_not_be_read_leaves_the_duties_not_tested_saying_why() -> None:
    records = [
        *all_passing(),
        {"type": "outcome_history_error", "message": "reading table t7's history: 503"},
    ]
    cert = build_certificate(records, ("sicbo",), run={})
    for clause in FAIR:
        row = cert["clauses"][clause]
        assert row["status"] == "not-tested"
        assert "the history could not be read: reading table t7's history: 503" in row["reason"]
    assert cert["verdict"] == "incomplete"
    assert "could not be read" in cert["limitations"][0]


class Pages:
    """A target's round history as pages given here."""

    def __init__(self, *pages: HistoryPage) -> None:
        self.pages, self.asked = list(pages), []

    def round_history(self, table_id: str, after: str | None = None, limit: int = 1000):
        self.asked.append(after)
        return self.pages.pop(0)


def entry(i: int) -> HistoryRound:
    return HistoryRound(f"R{i}", "settled", {"dice": [1, 2, 3]}, f"2026-01-01T00:00:{i:02d}Z")


@pytest.mark.parametrize(
    ("pages", "says"),
    [
        ((HistoryPage((entry(1),), "c1"), HistoryPage((), "c2")), "an empty page that names"),
        ((HistoryPage((entry(1),), "c1"), HistoryPage((entry(2),), "c1")), "came back again"),
        ((HistoryPage(tuple(entry(i % 60) for i in range(1001)), None),), "a page of 1001"),
    ],
)
def test_pages_that_would_cut_or_loop_the_history_are_refused(pages, says) -> None:
    with pytest.raises(HistoryError, match=says):
        rows_from_target(Pages(*pages), "t1", None)


def test_pages_are_read_by_their_cursor_to_the_last() -> None:
    target = Pages(HistoryPage((entry(1), entry(2)), "c2"), HistoryPage((entry(3),), None))
    assert [r.round_id for r in rows_from_target(target, "t1", None)] == ["R1", "R2", "R3"]
    assert target.asked == [None, "c2"]


def test_exclude_run_must_name_a_report_with_its_exchanges(tmp_path: Path) -> None:
    good = tmp_path / "h.csv"
    good.write_text("round_id,result\nR1,1 2 3\n", encoding="utf-8")
    done = livecert("outcomes", "--history", str(good), "--exclude-run", str(tmp_path / "none"))
    assert done.returncode == 3 and "not a report folder with its exchanges" in done.stderr


def test_a_target_without_the_history_capability_is_refused_before_the_run(tmp_path: Path) -> None:
    with EmbeddedServer(without=("round-history",)) as server:
        env = {**os.environ, "LIVECERT_OPERATOR_TOKEN": server.operator_token}
        env["LIVECERT_DEALER_TOKEN"] = server.dealer_token
        done = subprocess.run(
            [sys.executable, "-m", "livecert.cli", "certify", "--target-url", server.url,
             "--history-from-target", "t1", "--report-dir", str(tmp_path / "r")],
            capture_output=True, text=True, timeout=120, env=env,
        )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    assert "does not declare the capability 'round-history'" in done.stderr
    assert not (tmp_path / "r" / "run-record.jsonl").exists()


def test_outcome_duties_select_no_scenario() -> None:
    """No scenario is tagged with them: selected beside others, the others choose the
    scenarios (a contract clause then runs them all, as alone)."""
    from livecert.certify.runner import CertifyOptions

    assert CertifyOptions(clauses=("CONTRACT-01", "REG-FAIR-01")).rule_clauses == []
    assert CertifyOptions(clauses=("SB-PAY-01", "REG-FAIR-02")).rule_clauses == ["SB-PAY-01"]
