"""Allure files a failed scenario under the clauses its checks failed, as the certificate does.

A Xoc Dia sweep round is tagged with every payout clause of the game. With FOUR_RED paying
10:1, the round with four red fails XD-PAY-01 (and the settlement duty) only: Allure's Behaviours
tab must not show the other payout clauses failed, which the certificate passes.
"""

import json
from pathlib import Path

from allure_commons import model2
from cli_support import certify

from livecert.reference.faults import FAULTS
from livecert.report import allure_report
from livecert.suite.fixtures.allure_labels import (
    JUDGED_FAILED,
    JUDGED_LINE,
    NOTHING_JUDGED,
    STEP_ARGUMENTS_ONLY,
    STORIES_AS_JUDGED,
    judged_failed,
)

FAULT = "four-red-pays-10-to-1"


def _results(folder: Path) -> list[dict]:
    return [
        json.loads(path.read_text(encoding="utf-8"))
        for path in (folder / "allure-results").glob("*-result.json")
    ]


def _stories(result: dict) -> set[str]:
    return {label["value"] for label in result["labels"] if label["name"] == "story"}


def test_a_failed_scenario_shows_failed_only_under_the_clauses_it_failed(tmp_path: Path) -> None:
    args = ("--no-html", "--game", "xocdia", f"--reference-fault={FAULT}")
    status, certificate, output = certify(tmp_path, *args)
    assert status == 1, output
    failed = {c for c, v in certificate["clauses"].items() if v["status"] == "failed"}
    assert failed == set(FAULTS[FAULT].clauses)
    results = _results(tmp_path)
    assert results
    for result in results:
        labels = {label["name"] for label in result["labels"]}
        assert JUDGED_FAILED not in labels  # the working label is never written
        if result["status"] in ("failed", "broken"):
            assert _stories(result) <= failed, (result["name"], _stories(result) - failed)
    # the sweep round with four red, tagged with every payout clause, shows only what it failed
    sweep = [r for r in results if r["name"].startswith("Every selection settles by the")]
    [four_red] = [r for r in sweep if r["status"] != "passed"]
    assert four_red["name"].endswith("on r r r r") and len(sweep) == 16
    # tagged with every payout clause: each linked to its line (its tags are not repeated as
    # Allure tags, which would say again what the stories say)
    linked = {link["name"].split(":")[0] for link in four_red["links"]}
    assert {"XD-PAY-02", "XD-PAY-09"} <= linked
    assert not {"XD-PAY-02", "XD-PAY-09"} & {
        label["value"] for label in four_red["labels"] if label["name"] == "tag"
    }
    assert four_red["status"] == "failed"
    assert _stories(four_red) == {"XD-PAY-01", "REG-SETTLE-01"} <= failed
    said = four_red["statusDetails"]["message"].splitlines()[-1]
    assert said == f"{JUDGED_LINE}REG-SETTLE-01, XD-PAY-01"  # what the categories file it by
    # the run record says the same of it, for certify's progress lines
    records = [json.loads(line) for line in (tmp_path / "run-record.jsonl").open()]
    [recorded] = [
        r for r in records if r["type"] == "scenario" and r["name"].endswith(four_red["name"])
    ]
    assert recorded["judged_failed"] == ["REG-SETTLE-01", "XD-PAY-01"]
    # a scenario that passed keeps every clause it judged
    assert all({"XD-PAY-02", "XD-PAY-09"} <= _stories(r) for r in sweep if r is not four_red)


def test_an_answer_outside_the_contract_is_filed_as_a_failure_of_its_clause(tmp_path: Path) -> None:
    """pytest sees a contract violation as an error (Allure: broken, under every tag), where the
    certificate fails the contract clause alone and leaves the tagged clauses untested."""
    fault = "round-state-in-capitals"
    args = ("--no-html", "--game", "xocdia", f"--reference-fault={fault}")
    status, certificate, output = certify(tmp_path, *args)
    assert status == 1, output
    failed = {c for c, v in certificate["clauses"].items() if v["status"] == "failed"}
    assert failed == {"CONTRACT-02"}
    shown = [r for r in _results(tmp_path) if r["status"] in ("failed", "broken")]
    assert shown
    for result in shown:
        assert (result["status"], _stories(result)) == ("failed", {"CONTRACT-02"}), result["name"]
        said = result["statusDetails"]["message"].splitlines()[-1]
        assert said == f"{JUDGED_LINE}CONTRACT-02"


def test_a_failure_on_no_clause_it_judges_is_broken_not_failed() -> None:
    """A scenario that failed on no clause it judges (a check on clauses it is not tagged with,
    which tests/test_check_tags.py shows no step of the suite can make): to the certificate a
    harness error, so Allure shows it broken and no clause failed by it."""
    result = model2.TestResult(
        name="a scenario",
        status=model2.Status.FAILED,
        labels=[
            model2.Label(name="story", value="TBL-MAL-01"),
            model2.Label(name=JUDGED_FAILED, value=NOTHING_JUDGED),
        ],
    )
    STORIES_AS_JUDGED.report_result(result)
    assert result.status == model2.Status.BROKEN
    assert {(label.name, label.value) for label in result.labels} == {("story", "TBL-MAL-01")}


def test_an_allowed_bet_refused_fails_its_clause_in_any_scenario_that_meets_it(
    tmp_path: Path,
) -> None:
    """A table taking one slip a round refuses the Sic Bo pause scenario's second bet: a
    finding on SB-RND-02 (several bets in one round) there, though the scenario is about the
    pause (TBL-MAL-01) and not tagged with it; Allure files it failed under SB-RND-02 alone, no
    harness error is reported, and the selected clause is judged on what held."""
    fault = "one-slip-per-round"
    args = ("--no-html", "--game", "sicbo", f"--reference-fault={fault}", "--clauses", "TBL-MAL-01")
    _status, certificate, output = certify(tmp_path, *args)
    assert not certificate["harness_errors"], certificate["harness_errors"]
    assert certificate["clauses"]["TBL-MAL-01"]["status"] == "passed", output
    paused = [r for r in _results(tmp_path) if "paused during betting" in r["name"]]
    assert paused and all(
        (r["status"], _stories(r)) == ("failed", {"SB-RND-02"}) for r in paused
    ), [(r["status"], _stories(r)) for r in paused]


def test_the_clauses_judged_failed_are_those_whose_checks_failed_and_the_contracts() -> None:
    checks = {
        "XD-PAY-01": {"ran": 3, "held": 2, "failed": ["FOUR_RED paid 10.00"]},
        "XD-PAY-02": {"ran": 5, "held": 5, "failed": []},
        "REG-SETTLE-01": {"ran": 10, "held": 9, "failed": ["..."]},
    }
    assert judged_failed(checks, None) == ["REG-SETTLE-01", "XD-PAY-01"]
    assert judged_failed({"XD-PAY-02": checks["XD-PAY-02"]}, "CONTRACT-02") == ["CONTRACT-02"]
    assert judged_failed({}, None) == []


def test_the_categories_file_by_the_line_the_suite_writes() -> None:
    assert allure_report.JUDGED_LINE == JUDGED_LINE


def test_a_step_keeps_the_arguments_its_words_gave_not_the_fixtures_it_used() -> None:
    inner = model2.TestStepResult(
        parameters=[
            model2.Parameter(name="dice", value="'1 1 2'"),
            model2.Parameter(name="request", value="<FixtureRequest>"),
        ]
    )
    step = model2.TestStepResult(
        parameters=[
            model2.Parameter(name="stake", value="'1.00'"),
            model2.Parameter(name="scene", value="Scene(game='sicbo', round=None, bets=0)"),
            model2.Parameter(name="sweep_pools", value="{}"),
            model2.Parameter(
                name="sweep_ledgers", value="{'sicbo': SweepLedger(sicbo, 1 outcomes played)}"
            ),
            model2.Parameter(name="sweep_only", value="frozenset()"),
        ],
        steps=[inner],
    )
    result = model2.TestResult(steps=[step])
    STEP_ARGUMENTS_ONLY.report_result(result)
    assert [p.name for p in step.parameters] == ["stake"]
    assert [p.name for p in inner.parameters] == ["dice"]


def test_a_sic_bo_run_names_no_clause_of_xoc_dia(tmp_path: Path) -> None:
    """A late bet taken at a Sic Bo table breaks SB-RND-01 and REG-COMMIT-01: its words, its
    finding and its Allure results once named XD-RND-01 as well (a check naming both games'
    betting windows)."""
    args = ("--no-html", "--game", "sicbo", "--clauses", "SB-RND-01")
    status, certificate, output = certify(
        tmp_path, *args, "--reference-fault=countdown-not-enforced"
    )
    assert status == 1, output
    [finding] = certificate["findings"]
    assert finding["clauses"] == ["SB-RND-01"]  # REG-COMMIT-01 was not selected
    assert finding["what"].endswith("[breaks SB-RND-01, REG-COMMIT-01]"), finding["what"]
    said = [finding["what"], *finding.get("also", [])]
    said += [r["message"] for r in certificate["reproductions"]]
    said += [p.read_text(encoding="utf-8") for p in (tmp_path / "allure-results").glob("*.json")]
    assert not [words for words in said if "XD-" in words]
