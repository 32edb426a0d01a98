"""The lab's fields on the certificate: who tested what for whom, the build, the run's own dates
and harness, the findings once each on page 1, waivers shown as waivers, a self-test marked as
one, and a retest naming the findings it closes."""

import hashlib
import json
import re
from datetime import datetime
from pathlib import Path
from xml.etree import ElementTree

import jsonschema_rs
import pytest
from cli_support import certify

from livecert.certify.lab import build_under_test, findings, folder_sha256
from livecert.report.certificate_page import render_certificate
from livecert.report.publish import certificate_schema
from livecert.settings import SettingsError, check_lab, read_lab_file

LAB = """
[lab]
lab = "Example Test Labs"
report_number = "ETL-2026-0142"
client = "Casino Vendor Ltd"
tester = "T. Tester"
reviewer = "R. Reviewer"
jurisdictions = ["Malta Gaming Authority"]
standards = "GLI-19 v3.0"
build_version = "9.9.9"
build_hash = "sha256:0f3a9c"
retest_of = "ETL-2026-0101"

[[lab.waivers]]
clause = "XD-VOID-02"
reason = "the bowl-touch rule does not apply in this jurisdiction"
approved_by = "R. Reviewer"
"""
UTC_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


@pytest.mark.parametrize(
    "lab, words",
    [
        ({"labb": "x"}, "unknown field(s) labb"),
        ({"tester": ["a"]}, "tester must be text"),
        ({"standards": [1]}, "standards must be a list of texts"),
        ({"waivers": {"clause": "SB-PAY-01"}}, "waivers must be an array of tables"),
        ({"waivers": [{"clause": "SB-PAY-01", "reason": "r"}]}, "waivers #1 needs approved_by"),
        (
            {"deviations": [{"clause": "A", "reason": "r", "approved_by": "b", "by": "c"}]},
            "deviations #1 has no by",
        ),
    ],
)
def test_a_lab_table_that_cannot_be_used_is_refused_naming_the_field(lab, words) -> None:
    with pytest.raises(SettingsError, match=re.escape(words)):
        check_lab(lab, "livecert.toml")


def test_a_lab_file_may_hold_the_table_or_the_fields_at_its_top_level(tmp_path: Path) -> None:
    (tmp_path / "table.toml").write_text('[lab]\nlab = "L"\n')
    (tmp_path / "top.toml").write_text('lab = "L"\nclient = "C"\n')
    assert read_lab_file(tmp_path / "table.toml") == {"lab": "L"}
    assert read_lab_file(tmp_path / "top.toml") == {"lab": "L", "client": "C"}


def test_the_suite_hash_is_over_each_file_and_its_path_and_leaves_caches_out(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.feature").write_bytes(b"x")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"compiled")
    line = f"{hashlib.sha256(b'x').hexdigest()}  a.feature\n"
    assert folder_sha256(tmp_path) == hashlib.sha256(line.encode()).hexdigest()
    (tmp_path / "a.feature").write_bytes(b"y")
    assert folder_sha256(tmp_path) != hashlib.sha256(line.encode()).hexdigest()


def test_each_value_of_the_build_is_said_to_come_from_where_it_came() -> None:
    lab = {"build_name": "Lab name", "build_hash": "sha256:lab"}
    declared = build_under_test(lab, {"name": "Table", "version": "2.1", "build_hash": "abc"})
    assert (declared["hash"], declared["source"]) == (
        "abc",
        "name, version and hash from the target's /v1/info",
    )
    assert "from_lab" not in declared
    assert declared["differences"] == [
        "the lab names name 'Lab name', the target declared 'Table'",
        "the lab names hash 'sha256:lab', the target declared 'abc'",
    ]
    silent = build_under_test(lab, {})
    assert (silent["name"], silent["version"], silent["hash"]) == ("Lab name", None, "sha256:lab")
    assert silent["source"] == "name and hash from the lab's [lab] fields"
    assert silent["from_lab"] == ["name", "hash"]
    assert build_under_test({}, {})["source"] == "not declared by the target nor named by the lab"


def test_one_defect_failing_two_clauses_in_one_scenario_is_one_finding() -> None:
    certificate = {
        "clauses": {
            "XD-PAY-03": {"status": "failed", "failed_scenarios": ["sweep", "two-two"]},
            "REG-SETTLE-01": {"status": "failed", "failed_scenarios": ["sweep", "two-two"]},
            "XD-VOID-02": {"status": "failed", "failed_scenarios": ["bowl"]},
            "XD-PAY-01": {"status": "passed"},
        },
        "reproductions": [
            {"name": "sweep", "message": "XD-PAY-03 expected 0.00 saw 1.00"},
            {"name": "bowl", "message": "expected cancelled"},
        ],
    }
    assert findings(certificate) == [
        {
            "clauses": ["XD-PAY-03", "REG-SETTLE-01"],
            "what": "XD-PAY-03 expected 0.00 saw 1.00",
            "scenarios": 2,
            "evidence": "#clause-XD-PAY-03",
            "reproduction": "#reproduction-1",
            "waived": False,
        },
        {
            "clauses": ["XD-VOID-02"],
            "what": "expected cancelled",
            "scenarios": 1,
            "evidence": "#clause-XD-VOID-02",
            "reproduction": "#reproduction-2",
            "waived": False,
        },
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[int, dict, Path]]:
    """The bowl touch ignored, certified with the lab's waiver of its clause and without one;
    then the fix, a retest of XD-VOID-02 naming the failed run."""
    base = tmp_path_factory.mktemp("lab")
    (base / "lab.toml").write_text(LAB, encoding="utf-8")
    found = {}
    fault = ("--no-html", "--game", "xocdia", "--reference-fault", "bowl-touch-ignored")
    status, cert, output = certify(base / "waived", *fault, "--lab", str(base / "lab.toml"))
    found["waived"] = (status, cert, base / "waived")
    status, cert, output = certify(base / "failed", *fault, "--clauses", "XD-VOID-02")
    assert status == 1, output[-2000:]
    found["failed"] = (status, cert, base / "failed")
    status, cert, output = certify(
        base / "retest", "--no-html", "--game", "xocdia", "--clauses", "XD-VOID-02",
        "--retests", str(base / "failed"),
    )  # fmt: skip
    found["retest"] = (status, cert, base / "retest")
    return found


def test_the_lab_fields_build_dates_and_harness_are_on_the_certificate(runs) -> None:
    _, certificate, _ = runs["waived"]
    lab = certificate["lab"]
    assert lab["report_number"] == "ETL-2026-0142" and lab["client"] == "Casino Vendor Ltd"
    assert lab["standards"] == ["GLI-19 v3.0"]  # one text read as a list of one
    build = certificate["build"]
    # the build as the target declared it; the lab's differing version shown beside it
    assert (build["name"], build["version"]) == (
        certificate["target"]["name"],
        certificate["target"]["version"],
    )
    assert build["hash"] == "sha256:0f3a9c"
    # the reference declares no hash: the lab's, said to be the lab's (not the target's)
    assert build["from_lab"] == ["hash"]
    assert build["source"] == (
        "name and version from the target's /v1/info; hash from the lab's [lab] fields"
    )
    assert build["differences"] == [
        f"the lab names version '9.9.9', the target declared {certificate['target']['version']!r}"
    ]
    dates = certificate["test_dates"]
    assert UTC_MOMENT.fullmatch(dates["started_at"]) and UTC_MOMENT.fullmatch(dates["ended_at"])
    assert datetime.fromisoformat(dates["started_at"]) <= datetime.fromisoformat(dates["ended_at"])
    suite = certificate["environment"]["suite_sha256"]
    assert set(suite) == {"features", "steps", "fixtures"}
    assert all(re.fullmatch(r"[0-9a-f]{64}", digest) for digest in suite.values())


def test_a_waived_failure_is_compliant_with_a_waiver_and_shown_as_waived(runs) -> None:
    status, certificate, folder = runs["waived"]
    assert status == 0
    assert certificate["verdict"] == "compliant"
    assert certificate["verdict_statement"] == "compliant with 1 waiver"
    row = certificate["clauses"]["XD-VOID-02"]
    assert row["status"] == "failed"  # judged as it was: the waiver is the lab's decision
    assert row["waiver"]["approved_by"] == "R. Reviewer"
    assert any(
        "waived by the lab: XD-VOID-02 (failed;" in r for r in certificate["verdict_reasons"]
    )
    case = next(
        c
        for c in ElementTree.parse(folder / "junit.xml").getroot().iter("testcase")
        if c.get("name").startswith("XD-VOID-02 ")
    )
    assert case.find("skipped").get("message").startswith("waived: the bowl-touch rule")
    page = render_certificate(certificate, [], [])
    assert "COMPLIANT WITH 1 WAIVER" in page
    assert "waived: the bowl-touch rule does not apply" in page


def test_a_seeded_fault_run_is_marked_a_self_test_with_its_finding_on_page_one(runs) -> None:
    _, certificate, _ = runs["failed"]
    assert certificate["self_test"]["faults"] == ["bowl-touch-ignored"]
    [finding] = certificate["findings"]
    assert finding["clauses"] == ["XD-VOID-02"] and finding["scenarios"] >= 1
    page = render_certificate(certificate, [], [])
    assert "Self-test of the harness" in page and "Certificate of conformance" not in page
    assert 'class="watermark"' in page
    # the finding comes before the traceability matrix
    findings_at = page.index('id="findings"')
    assert page.index("XD-VOID-02", findings_at) < page.index('id="traceability"')


def test_a_retest_names_the_report_it_follows_and_the_finding_it_closes(runs) -> None:
    status, certificate, _ = runs["retest"]
    assert status == 0, certificate["verdict_reasons"]
    retest = certificate["retest"]
    assert retest["verdict"] == "non-compliant"
    assert retest["closes"] == ["XD-VOID-02"]
    assert retest["still_failing"] == retest["newly_failing"] == []
    page = render_certificate(certificate, [], [])
    assert "closes XD-VOID-02" in page


def test_a_waiver_of_a_clause_the_catalogue_lacks_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "lab.toml").write_text(
        '[[lab.waivers]]\nclause = "SB-PAY-99"\nreason = "r"\napproved_by = "b"\n'
    )
    status, _, output = _certify_usage(tmp_path, "--lab", str(tmp_path / "lab.toml"))
    assert status == 3 and "[lab] waivers name ['SB-PAY-99']" in output


def test_retesting_a_folder_without_a_certificate_is_a_usage_error(tmp_path: Path) -> None:
    status, _, output = _certify_usage(tmp_path, "--retests", str(tmp_path))
    assert status == 3 and "--retests:" in output and "no certificate.json" in output


def _certify_usage(folder: Path, *args: str) -> tuple[int, None, str]:
    from cli_support import livecert

    done = livecert("certify", "--report-dir", str(folder / "r"), "--no-html", *args)
    assert not (folder / "r" / "certificate.json").exists()
    return done.returncode, None, done.stdout + done.stderr


def test_the_certificate_json_keeps_the_lab_fields_as_given(runs) -> None:
    _, _, folder = runs["waived"]
    written = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
    assert written["lab"]["waivers"][0]["clause"] == "XD-VOID-02"
    assert written["lab"]["retest_of"] == "ETL-2026-0101"


def _schema_errors(certificate: dict) -> list[str]:
    validator = jsonschema_rs.Draft202012Validator(json.loads(certificate_schema()))
    return [f"{list(e.instance_path)}: {e.message}" for e in validator.iter_errors(certificate)]


def test_every_certificate_written_follows_the_schema_shipped_beside_it(runs) -> None:
    for _, _, folder in runs.values():
        assert (folder / "certificate.schema.json").read_bytes() == certificate_schema()
        written = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
        assert _schema_errors(written) == [], folder.name


@pytest.mark.parametrize(
    "change, where",
    [
        (
            lambda c: c["clauses"]["XD-VOID-02"].update(status="waived"),
            "['clauses', 'XD-VOID-02', 'status']",
        ),
        (
            lambda c: c["test_dates"].update(started_at="2026-12-02 10:00"),
            "['test_dates', 'started_at']",
        ),
        (lambda c: c["lab"]["waivers"][0].pop("approved_by"), "['lab', 'waivers', 0]"),
        (lambda c: c.update(verdict="compliant with 1 waiver"), "['verdict']"),
    ],
)
def test_the_schema_refuses_a_certificate_that_breaks_it(runs, change, where: str) -> None:
    _, _, folder = runs["waived"]
    written = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
    change(written)
    assert any(error.startswith(where) for error in _schema_errors(written))


def test_a_xocdia_certificate_shows_nothing_of_sic_bo(runs) -> None:
    """The reference declares both games; a run of one shows that game's declarations only."""
    _, certificate, _ = runs["waived"]
    assert certificate["scope"]["games"] == ["xocdia"]
    assert set(certificate["target"]["max_rtp"]) == {"sicbo", "xocdia"}  # as declared
    page = render_certificate(certificate, [], [])
    assert "sicbo" not in page.lower() and "sic bo" not in page.lower()


def test_a_wrong_payout_is_one_finding_with_its_row_its_duty_and_its_return() -> None:
    """Total 10 paying 7:1 fails its row and REG-SETTLE-01 in different first scenarios, in
    different words that each name both; and the returns of TOTAL_10 (REG-RTP-01, SB-RTP-01),
    measured off the paytable: one defect, one finding with the four clauses."""
    row_words = "Total 10 paid 70.00, expected 60.00 [breaks SB-PAY-08, REG-SETTLE-01]"
    sweep_words = "TOTAL_10 stake 1.00: expected win, paid 6.00 [breaks SB-PAY-08, REG-SETTLE-01]"
    highest = "the highest measured return is 100.00% (TOTAL_10), not 97.22% [breaks SB-RTP-01]"
    returns = "1 selection returns other than the paytable: TOTAL_10 100% [breaks REG-RTP-01]"

    def failed(scenarios: list[str], words: str) -> dict:
        return {
            "status": "failed",
            "failed_scenarios": scenarios,
            "checks": {"first_failure": words},
        }

    certificate = {
        "clauses": {
            "SB-PAY-08": failed(["total 10", "sweep 136"], row_words),
            "SB-RTP-01": failed(["highest"], highest),
            "REG-SETTLE-01": failed(["sweep 136", "sweep 145"], sweep_words),
            "REG-RTP-01": failed(["returns"], returns),
            "SB-PAY-01": {"status": "passed"},
        },
        "reproductions": [{"name": "total 10", "message": row_words}],
        "rtp": {
            "sicbo": {
                "selections": {
                    "SMALL": {"clause": "SB-PAY-01", "theoretical": "35/36", "measured": "35/36"},
                    "TOTAL_10": {"clause": "SB-PAY-08", "theoretical": "7/8", "measured": "1"},
                }
            }
        },
    }
    assert findings(certificate) == [
        {
            "clauses": ["SB-PAY-08", "SB-RTP-01", "REG-SETTLE-01", "REG-RTP-01"],
            "what": row_words,
            "scenarios": 5,
            "evidence": "#clause-SB-PAY-08",
            "reproduction": "#reproduction-1",
            "waived": False,
            "also": [highest, sweep_words, returns],
        }
    ]
    # a return off the paytable whose row passed is a defect of its own (the row's checks held)
    certificate["clauses"]["SB-PAY-08"] = {"status": "passed"}
    certificate["clauses"]["REG-SETTLE-01"] = {"status": "passed"}
    assert [f["clauses"] for f in findings(certificate)] == [["SB-RTP-01"], ["REG-RTP-01"]]


def test_two_wrong_rows_are_two_findings_whatever_duty_they_share() -> None:
    """Every wrong row breaks REG-SETTLE-01 too: the duty goes with the row its first failure
    names, and never makes one finding of two defects; a limit refused on BIG is not BIG's row,
    and a return naming two selections goes with the first."""

    def failed(words: str) -> dict:
        return {"status": "failed", "failed_scenarios": [words], "checks": {"first_failure": words}}

    total = "Total 10 paid 7:1 [breaks SB-PAY-08, REG-SETTLE-01]"
    odd = "ODD stake 1.00: expected lose, paid 1.00 [breaks SB-PAY-03, REG-SETTLE-01]"
    settle = "ODD stake 2.00: expected lose, paid 2.00 [breaks SB-PAY-03, REG-SETTLE-01]"
    limit = "a stake of 50000.01 on BIG was taken above the maximum [breaks REG-LIMIT-01]"
    returns = (
        "2 selections return other than the paytable: ODD 150%; TOTAL_10 100% [breaks REG-RTP-01]"
    )
    certificate = {
        "clauses": {
            "SB-PAY-03": failed(odd),
            "SB-PAY-08": failed(total),
            "REG-SETTLE-01": failed(settle),
            "REG-RTP-01": failed(returns),
            "REG-LIMIT-01": failed(limit),
        },
        "rtp": {
            "sicbo": {
                "selections": {
                    "BIG": {"clause": "SB-PAY-02", "theoretical": "35/36", "measured": "1"},
                    "ODD": {"clause": "SB-PAY-03", "theoretical": "35/36", "measured": "3/2"},
                    "TOTAL_10": {"clause": "SB-PAY-08", "theoretical": "7/8", "measured": "1"},
                }
            }
        },
    }
    assert [f["clauses"] for f in findings(certificate)] == [
        ["SB-PAY-03", "REG-SETTLE-01", "REG-RTP-01"],
        ["SB-PAY-08"],
        ["REG-LIMIT-01"],
    ]


def test_each_clause_is_shown_its_own_checks_words_not_another_clauses() -> None:
    """One scenario failing two clauses for two reasons: two findings, each in its own words."""
    certificate = {
        "clauses": {
            "SB-PAY-08": {
                "status": "failed",
                "failed_scenarios": ["instant"],
                "checks": {"first_failure": "SB-PAY-08: Big paid 2.00, expected 0.00"},
            },
            "REG-LIMIT-01": {
                "status": "failed",
                "failed_scenarios": ["instant"],
                "checks": {"first_failure": "a stake of 0.001 was taken below the minimum"},
            },
        },
        "reproductions": [{"name": "instant", "message": "SB-PAY-08: Big paid 2.00 (and 1 more)"}],
    }
    assert [(f["clauses"], f["what"]) for f in findings(certificate)] == [
        (["SB-PAY-08"], "SB-PAY-08: Big paid 2.00, expected 0.00"),
        (["REG-LIMIT-01"], "a stake of 0.001 was taken below the minimum"),
    ]


def test_a_waiver_not_needed_leaves_the_findings_saying_every_clause_passed(runs) -> None:
    """A lab's waiver of a clause that passed covers nothing: the findings do not say waived."""
    _, certificate, _ = runs["retest"]  # compliant: XD-VOID-02 passed
    certificate = {
        **certificate,
        "lab": {"waivers": [{"clause": "XD-VOID-02", "reason": "r", "approved_by": "b"}]},
    }
    page = render_certificate(certificate, [], [])
    start = page.index('id="findings"')
    findings_section = page[start : page.index("<h2", start)]
    assert "None: every clause in scope passed." in findings_section
    assert "waived" not in findings_section
