"""The report's parts, each on its own: manifest, rules page, certificate page, Allure set-up,
charts. (tests/test_report_browser.py opens the real thing in Chromium.)"""

import base64
import json
import re
import shutil
from pathlib import Path

from matplotlib.colors import to_hex
from samples import scenario

from livecert.certify.certificate import build_certificate
from livecert.certify.scope import IN_SCOPE
from livecert.report import allure_report
from livecert.report.allure_report import (
    CATEGORIES,
    categories_for,
    environment_properties,
    install_generator,
    keep_history,
    prepare_results,
)
from livecert.report.certificate_page import render_certificate
from livecert.report.charts import (
    BLUE,
    FAILED,
    LABEL_POINTS,
    ORANGE,
    PASSED,
    bets_per_clause,
    rtp_figure,
    sweep_figure,
    sweep_matrix,
)
from livecert.report.manifest import entries, page_summary, sha256_of, write_manifest
from livecert.report.rules_page import write_rules
from livecert.rules import load_catalogue

TARGET = {
    "type": "target",
    "url": "http://lab.example:8750",
    "name": "vendor-sicbo",
    "version": "4.2",
    "contract_version": "1.0.0",
    "currency": "EUR",
    "minor_unit": 2,
    "rounding": "half-even",
    "max_rtp": {"sicbo": "97.22"},
}


def a_failed_run() -> dict:
    records = [TARGET, *(scenario(f"proves {c}", [c]) for c in IN_SCOPE["sicbo"])]
    records.append(
        scenario(
            "Small on 2 2 2",
            ["SB-PAY-16"],
            "failed",
            failed_clauses=["SB-PAY-16"],
            message="SMALL won on a triple",
        )
    )
    records.append(
        {
            "type": "reproduction",
            "nodeid": "Small on 2 2 2",
            "name": "Small on 2 2 2",
            "message": "expected lose, target shows win [breaks SB-PAY-16]",
            "exchanges": [
                {
                    "operation": "enterResult",
                    "status": 200,
                    "error": None,
                    "curl": "curl -sS -X POST 'http://lab.example:8750/v1/rounds/r1/result'",
                    "response": "{}",
                }
            ],
        }
    )
    return build_certificate(records, ("sicbo",), run={"duration_seconds": 1.0})


def test_the_manifest_hashes_every_file_and_itself(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "b.json").write_text("{}")
    path, digest = write_manifest(tmp_path)
    manifest = json.loads(path.read_text())
    assert [f["path"] for f in manifest["files"]] == ["a.txt", "results/b.json"]
    assert manifest["files"][0]["sha256"] == sha256_of(tmp_path / "a.txt")
    assert (tmp_path / "manifest.sha256").read_text() == f"{digest}  manifest.json\n"
    assert digest == sha256_of(path)
    rows = page_summary(entries(tmp_path))
    assert [r.path for r in rows] == ["a.txt", "results/ (1 files)"]
    (tmp_path / "a.txt").write_text("altered")
    assert sha256_of(tmp_path / "a.txt") != manifest["files"][0]["sha256"]


def test_the_rules_page_has_an_anchor_on_every_clause_line(tmp_path) -> None:
    page = write_rules(tmp_path).read_text(encoding="utf-8")
    for clause in load_catalogue().values():
        assert f'id="L{clause.line}"' in page
    assert (tmp_path / "rules" / "RULES.md").is_file()
    assert len(list((tmp_path / "rules" / "documents").glob("*.txt"))) == 4


def test_the_certificate_page_traces_every_clause_and_reproduces_failures() -> None:
    certificate = a_failed_run()
    page = render_certificate(certificate, charts=[], manifest=[])
    for clause_id, row in certificate["clauses"].items():
        assert f'id="clause-{clause_id}"' in page
        if row["catalogue_line"]:
            assert f'href="rules/RULES.html#L{row["catalogue_line"]}"' in page
    assert "NON-COMPLIANT" in page
    assert "curl -sS -X POST &#39;http://lab.example:8750/v1/rounds/r1/result&#39;" in page
    assert "expected lose, target shows win" in page
    assert "half-even" in page and "vendor-sicbo" in page
    assert "thirty" in page  # RULES.md section E
    assert "Randomness is not assessed" in page
    assert "<script" not in page and "http://" not in page.replace("http://lab.example", "")


def test_allure_environment_names_the_target_versions_rounding_and_documents() -> None:
    certificate = a_failed_run()
    properties = environment_properties(certificate)
    assert "Target\\ URL=http://lab.example:8750\n" in properties
    assert "Rounding\\ rule=half-even\n" in properties
    assert f"RULES.md\\ sha256={certificate['rules']['catalogue']['sha256']}\n" in properties
    assert properties.count("sha256\\ ") == 4
    assert [c["name"] for c in CATEGORIES] == ["Target error"]


def test_allure_has_a_category_for_each_rule_the_certificate_failed() -> None:
    """Filed by the line the suite adds to a failed scenario's message (the clauses its checks
    failed), not by the clauses a message happens to name."""
    certificate = a_failed_run()
    failed = [c for c, row in certificate["clauses"].items() if row["status"] == "failed"]
    assert failed
    categories = categories_for(certificate)
    assert [c["name"].split()[0] for c in categories] == [*failed, "Target"]
    first = categories[0]
    pattern = re.compile(first["messageRegex"])
    assert pattern.fullmatch(f"expected 10.00, saw 5.00\nJudged failed: X-1, {failed[0]}")
    assert not pattern.fullmatch(f"expected 10.00 [breaks {failed[0]}]")  # named, not judged
    assert not pattern.fullmatch(f"Judged failed: {failed[0]}1")


def test_without_node_or_java_certify_says_how_to_build_the_html(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LIVECERT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    problem = install_generator(say=lambda _: None)
    assert problem == "Node.js (npm) and Java not found, so the Allure HTML was not built"
    outcome = allure_report.build_allure(tmp_path, a_failed_run(), None, say=lambda _: None)
    assert outcome.built == []
    (tmp_path / "allure-results").mkdir()
    outcome = allure_report.build_allure(tmp_path, a_failed_run(), None, say=lambda _: None)
    assert outcome.built == [] and f"livecert report {tmp_path}" in outcome.message
    assert (tmp_path / "allure-results" / "environment.properties").is_file()


def test_the_sweep_picture_marks_exactly_the_mismatched_cells() -> None:
    sweeps = [
        {"outcome": [1, 1, 1], "mismatched": ["SMALL"]},
        {"outcome": [1, 2, 3], "mismatched": []},
    ]
    labels, matrix, codes = sweep_matrix("sicbo", sweeps)
    assert labels == ["1 1 1", "1 2 3"] and len(codes) == 110
    assert matrix[0][codes.index("SMALL")] == FAILED
    assert sum(row.count(FAILED) for row in matrix) == 1
    assert matrix[1].count(PASSED) == 110
    counts = bets_per_clause("sicbo", sweeps)
    assert counts["SB-PAY-01"] == 2 and counts["SB-PAY-08"] == 14 * 2


def _rtp_rows(game: str, measured_of: dict[str, str]) -> dict:
    from livecert.rules import load_paytable

    return {
        "rolls": 216,
        "declared_max_percent": "97.22",
        "selections": {
            s.code: {
                "theoretical_percent": "90.0000%",
                "measured_percent": measured_of.get(s.code, "90.0000%"),
            }
            for s in load_paytable(game).selections
        },
    }


def test_the_rtp_picture_starts_at_zero_reads_at_8_points_and_marks_a_difference() -> None:
    figure = rtp_figure("sicbo", _rtp_rows("sicbo", {"SMALL": "120.0000%"}))
    panels = figure.axes
    assert len(panels) == 3  # 110 selections in panels of at most 40 rows
    assert all(axes.get_xlim()[0] == 0 for axes in panels)
    assert panels[0].get_xlim()[1] >= 128  # the measured 120% and its mark fit
    assert min(t.get_fontsize() for a in panels for t in a.get_yticklabels()) >= LABEL_POINTS
    marks = [t for a in panels for t in a.texts if t.get_text() == "≠"]
    assert len(marks) == 1 and marks[0].get_position()[0] == 121
    colours = {to_hex(bar.get_facecolor()) for bar in panels[0].patches}
    assert {BLUE.lower(), ORANGE.lower()} <= colours  # Okabe-Ito blue and orange
    assert any(bar.get_hatch() for bar in panels[0].patches)  # measured: hatched too
    [legend] = figure.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "declared maximum 97.22%",
        "theoretical",
        "measured",
    ]


def test_the_sweep_picture_has_ticks_a_legend_and_crosses_on_the_mismatches() -> None:
    sweeps = [{"outcome": [a, b, 1], "mismatched": ["SMALL", "BIG"] if a == b == 1 else []}
              for a in range(1, 7) for b in range(1, 7)]  # fmt: skip
    figure = sweep_figure("sicbo", sweeps)
    [axes] = figure.axes
    assert len(axes.get_yticks()) >= 12 and len(axes.get_xticks()) >= 20
    assert min(t.get_fontsize() for t in axes.get_xticklabels()) >= LABEL_POINTS
    [crosses] = axes.collections
    assert sorted(map(tuple, crosses.get_offsets().tolist())) == [(0.0, 0.0), (1.0, 0.0)]
    texts = [t.get_text() for t in axes.get_legend().get_texts()]
    assert texts == [
        "settled as the paytable says",
        "not as the paytable says (x): 2",
        "not played",
    ]


def test_a_mapping_run_under_a_profile_names_both_on_every_page() -> None:
    """The certificate page, Allure's environment and certify's summary name the adapter (its
    file and sha256) and the rule profile (its sha256); the contract clauses are out of scope."""
    from livecert.certify.summary import summary_lines

    adapter = {"kind": "mapping", "name": "Sao Mai", "source": "m.yaml", "sha256": "ab" * 32}
    profile = {"name": "variant-150", "title": "a variant", "source": "v.toml", "sha256": "cd" * 32}
    target = {**TARGET, "adapter": adapter, "rules_profile": profile}
    records = [target, *(scenario(f"proves {c}", [c]) for c in IN_SCOPE["sicbo"])]
    certificate = build_certificate(records, ("sicbo",), run={"duration_seconds": 1.0})
    assert certificate["verdict"] == "compliant"
    assert "CONTRACT-01" not in certificate["scope"]["clauses_in_scope"]
    assert certificate["scope"]["rules_profile"]["name"] == "variant-150"
    page = render_certificate(certificate, charts=[], manifest=[])
    assert "variant-150" in page and "cd" * 32 in page
    assert "Sao Mai" in page and "ab" * 32 in page
    properties = environment_properties(certificate)
    assert f"Rules\\ profile=variant-150 (sha256 {'cd' * 32})\n" in properties
    assert "Adapter=mapping Sao Mai (m.yaml, sha256 " in properties
    summary = "\n".join(summary_lines(certificate, Path("/tmp/x")))
    assert "adapter: mapping Sao Mai" in summary and "rules profile: variant-150" in summary


def test_allure_names_the_executor_and_the_verdict(tmp_path) -> None:
    certificate = a_failed_run()
    certificate["target"]["name"] = "vendor\u202esicbo"  # the target's words, shown visibly
    results = tmp_path / "results"
    results.mkdir()
    prepare_results(results, certificate, None)
    shown = json.loads((results / "executor.json").read_text(encoding="utf-8"))
    version = certificate["harness"]["version"]
    assert shown["name"] == "livecert"
    assert shown["buildName"] == f"livecert {version}: {certificate['verdict_statement']}"
    assert "\u202e" not in shown["reportName"] and "vendor" in shown["reportName"]


def test_the_history_is_taken_out_of_the_single_page_for_the_next_run(tmp_path) -> None:
    """One Allure build: the single file embeds its history (base64, one `d(...)` per file);
    the next run feeds it back, and a run made before keeps its allure-report/history."""
    trend = b'[{"data":{"passed":3,"total":3}}]'
    page = tmp_path / "allure-report.html"
    page.write_text(
        "<script>d('data/test-cases/1.json','e30=')"
        f"d('history/history-trend.json','{base64.b64encode(trend).decode()}')</script>",
        encoding="utf-8",
    )
    kept = keep_history(page, tmp_path / "allure-history")
    assert kept is not None and (kept / "history-trend.json").read_bytes() == trend
    assert sorted(p.name for p in kept.iterdir()) == ["history-trend.json"]
    empty = tmp_path / "empty.html"
    empty.write_text("<html></html>", encoding="utf-8")
    assert keep_history(empty, tmp_path / "none") is None
    older = tmp_path / "older"  # a run before the single build kept allure-report/history
    (older / "allure-report" / "history").mkdir(parents=True)
    (older / "allure-report" / "history" / "history-trend.json").write_bytes(trend)
    for previous in (tmp_path, older):
        results = tmp_path / f"results-{previous.name}"
        results.mkdir()
        prepare_results(results, a_failed_run(), previous)
        assert (results / "history" / "history-trend.json").read_bytes() == trend
