"""junit.xml for CI dashboards: one test case per clause, judged as the certificate judged it.

A dashboard counts test cases, so the cases are what a lab certifies: clauses. A passed clause
is a passing case; a failed one a failure with what was expected and seen (its first failing
scenario's message) and every scenario that failed it; a clause not tested is skipped with the
reason, or an error where a target or harness error kept it from being judged; a clause outside
this version's scope or not applicable is skipped with why, and so is a clause the lab waived
(with the waiver, and what was judged). Each case carries the clause id, its
scenario count and links to its row in certificate.html and its line in the catalogue as
properties; its classname is `livecert.<game>.<section>.<family>`, so a dashboard's tree groups
the clauses by game and rules section. A run that never reached the target is one error case
that says so: a file with no case would read as nothing wrong. An incomplete run has an error
case with its reasons, so that a dashboard is not green where certify exits 2. (pytest's own
file, a case per scenario, is `junit-scenarios.xml`.)
"""

import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

from livecert.rules import load_catalogue
from livecert.target_text import LINES, visible

JUNIT = "junit.xml"
SCENARIOS_JUNIT = "junit-scenarios.xml"  # pytest's --junitxml: a case per scenario
GAME_OF_SECTION = {"A": "sicbo", "B": "xocdia", "C": "both", "F": "both", "contract": "both"}
MESSAGE_LENGTH = 300  # characters of a message attribute; the whole text is the element's body


def _family(clause: str) -> str:
    """`SB-PAY` of `SB-PAY-08`; a contract clause is its own family."""
    return re.sub(r"-\d+$", "", clause)


def _classname(clause: str, row: dict) -> str:
    section = row.get("section", "")
    game = GAME_OF_SECTION.get(section, "both")
    return f"livecert.{game}.{section}.{_family(clause)}"


def clause_evidence(row: dict, reproductions: list[dict]) -> tuple[int | None, str]:
    """A failed clause's evidence, for its JUnit case and its finding on page 1: the number
    (from 1) of the reproduction of the first scenario that failed it, if any, and what was
    expected and seen: the clause's own first failed check's words, else that scenario's."""
    failed = set(row.get("failed_scenarios") or ())
    index = next((i for i, r in enumerate(reproductions, 1) if r.get("name") in failed), None)
    own = (row.get("checks") or {}).get("first_failure")
    scenario = reproductions[index - 1].get("message") if index else None
    return index, own or scenario or "a check for this clause failed"


def _judgement(row: dict, reproductions: list[dict]) -> tuple[str, str, str] | None:
    """(element, message, body) of the case's outcome; None for a passed clause."""
    status, reason = row.get("status"), row.get("reason") or ""
    if status == "passed":
        return None
    waiver = row.get("waiver")
    if waiver and status in ("failed", "not-tested") and row.get("in_scope", True):
        said = f"waived: {waiver['reason']} (approved by {waiver['approved_by']}); judged {status}"
        return (
            "skipped",
            said,
            f"{said}\n{clause_evidence(row, reproductions)[1] if status == 'failed' else reason}",
        )
    if status == "failed":
        message = clause_evidence(row, reproductions)[1]
        scenarios = row.get("failed_scenarios") or []
        body = f"{message}\n\nfailed in {len(scenarios)} scenario(s):\n" + "\n".join(scenarios)
        return "failure", message, body
    if status == "not-tested" and reason.startswith("error: "):
        return "error", reason, reason
    if status == "not-applicable":
        return "skipped", _said("not applicable", reason), reason
    if not row.get("in_scope", True):
        return "skipped", _said("outside this run's scope", reason), reason
    return "skipped", _said("not tested", reason), reason


def _said(status: str, reason: str) -> str:
    """The status, then its reason (said once where the reason begins with it already)."""
    return reason if reason.startswith(f"{status}: ") else f"{status}: {reason}"


def _case(clause: str, row: dict, reproductions: list[dict]) -> ElementTree.Element:
    text = row.get("text") or ""
    case = ElementTree.Element(
        "testcase",
        classname=_classname(clause, row),
        name=visible(f"{clause} {text}".strip()),
        time="0",
    )
    properties = ElementTree.SubElement(case, "properties")
    shown = {
        "clause": clause,
        "status": row.get("status", ""),
        "scenarios": str(row.get("scenarios", 0)),
        "checks_ran": str((row.get("checks") or {}).get("ran", 0)),
        "evidence": f"certificate.html#clause-{clause}",
    }
    if row.get("catalogue_line"):
        shown["catalogue"] = f"rules/RULES.html#L{row['catalogue_line']}"
    if row.get("sensitivity"):  # method validation on this target (--validate)
        shown["sensitivity"] = row["sensitivity"]
    for name, value in shown.items():
        ElementTree.SubElement(properties, "property", name=name, value=visible(value))
    judged = _judgement(row, reproductions)
    if judged is not None:
        kind, message, body = judged
        outcome = ElementTree.SubElement(case, kind, message=visible(message)[:MESSAGE_LENGTH])
        outcome.text = visible(body, LINES)
    return case


def _run_errors(certificate: dict) -> Iterator[tuple[str, str]]:
    """The run's own errors, each a case of its own: nothing a clause holds says them."""
    for message in dict.fromkeys(certificate.get("target_errors") or []):
        yield "target error", message
    for message in certificate.get("harness_errors") or []:
        yield "harness error", message
    if certificate.get("run_cut"):
        yield "run cut short", certificate["run_cut"]
    said = certificate.get("target_errors") or certificate.get("harness_errors")
    if certificate.get("verdict") == "incomplete" and not (said or certificate.get("run_cut")):
        # clauses not tested, each a skipped case: red in CI all the same, as certify's exit 2
        yield "verdict incomplete", "; ".join(certificate.get("verdict_reasons") or [])


def _never_reached(certificate: dict) -> bool:
    """True when no scenario ran because the target could not be reached."""
    return bool(certificate.get("target_errors")) and not (certificate.get("summary") or {}).get(
        "scenarios"
    )


def build_junit(certificate: dict) -> ElementTree.ElementTree:
    """The JUnit document of a certificate: a suite per classname, a case per clause."""
    reproductions = certificate.get("reproductions") or []
    suites: dict[str, list[ElementTree.Element]] = {}
    if not _never_reached(certificate):
        titles = {cid: c.section_title for cid, c in load_catalogue().items()}
        for clause, row in (certificate.get("clauses") or {}).items():
            case = _case(clause, row, reproductions)
            title = titles.get(clause, "the certification contract")
            suites.setdefault(f"{case.get('classname')} ({title})", []).append(case)
    for kind, message in _run_errors(certificate):
        case = ElementTree.Element("testcase", classname="livecert.run", name=kind, time="0")
        error = ElementTree.SubElement(case, "error", message=visible(message)[:MESSAGE_LENGTH])
        error.text = visible(message, LINES)
        suites.setdefault("livecert.run (the run itself)", []).append(case)
    duration = str((certificate.get("run") or {}).get("duration_seconds", 0))
    root = ElementTree.Element(
        "testsuites", name=visible(f"livecert {certificate.get('verdict', '')}"), time=duration
    )
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for name, cases in suites.items():
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        suite = ElementTree.SubElement(
            root,
            "testsuite",
            name=visible(name),
            time="0",
            **{k: str(v) for k, v in counts.items()},
        )
        suite.extend(cases)
        for key, value in counts.items():
            totals[key] += value
    root.attrib.update({k: str(v) for k, v in totals.items()})
    ElementTree.indent(root)
    return ElementTree.ElementTree(root)


def write_junit(folder: Path, certificate: dict) -> Path:
    """Write junit.xml of `certificate` into the report folder."""
    path = folder / JUNIT
    build_junit(certificate).write(path, encoding="utf-8", xml_declaration=True)
    return path
