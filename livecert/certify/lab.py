"""The lab's part of a certificate: who tested what for whom, under which standards, with which
harness, when; the findings once each; the waivers a lab granted; the report a retest follows.

The fields come from the `[lab]` table of the config file or from `--lab FILE` (checked by
livecert.settings). What the run can say for itself is never taken from the file: the test
dates are the run's own clock (UTC, the offset written), the harness is named by its version and
the sha256 of the features, steps and fixtures it ran, and the build under test is what the
target declared in /v1/info; a build the lab names that differs from it is shown beside it.
"""

import hashlib
import platform
from pathlib import Path
from typing import Any

from livecert import __version__
from livecert.report.junit import clause_evidence
from livecert.settings import LAB_LIST_FIELDS, LAB_TEXT_FIELDS

SUITE_FOLDERS = ("features", "steps", "fixtures")
BUILD_FIELDS = ("build_name", "build_version", "build_hash")  # shown as the build, not here


def folder_sha256(folder: Path) -> str:
    """One sha256 over a folder's source files: each file's path and sha256, in path order
    (compiled caches left out), so that two installs of the same suite give the same hash."""
    lines = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        lines.append(f"{digest}  {path.relative_to(folder).as_posix()}\n")
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def environment(suite_root: Path) -> dict[str, Any]:
    """The harness as run: its version, the sha256 of each part of the suite, the platform."""
    parent = suite_root.parent
    return {
        "harness": f"livecert {__version__}",
        "suite_sha256": {
            name: folder_sha256(parent / name) for name in SUITE_FOLDERS if (parent / name).is_dir()
        },
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }


def build_under_test(lab: dict[str, Any], target: dict[str, Any]) -> dict[str, Any]:
    """The build as the target declared it, with what the lab names where that differs or the
    target does not say (a hash, most often)."""
    declared = {"name": target.get("name"), "version": target.get("version")}
    build: dict[str, Any] = {
        "name": declared["name"] or lab.get("build_name"),
        "version": declared["version"] or lab.get("build_version"),
        "hash": target.get("build_hash") or lab.get("build_hash"),
        "source": "the target's /v1/info" if declared["name"] else "the lab's [lab] fields",
    }
    differences = [
        f"the lab names {key} {lab[f'build_{key}']!r}, the target declared {declared[key]!r}"
        for key in ("name", "version")
        if lab.get(f"build_{key}") and declared[key] and lab[f"build_{key}"] != declared[key]
    ]
    if differences:
        build["differences"] = differences
    return build


def findings(certificate: dict[str, Any]) -> list[dict[str, Any]]:
    """Each distinct defect once: the failed clauses grouped by the first scenario that failed
    them and what their checks said there (a payout paid wrong fails its row and REG-SETTLE-01
    in the same scenario, in the same words), each with what was expected and seen (the
    clause's own failed check, not another clause's), how many scenarios met it and where its
    evidence is."""
    reproductions = certificate.get("reproductions") or []
    grouped: dict[str, dict[str, Any]] = {}
    for clause, row in (certificate.get("clauses") or {}).items():
        if row.get("status") != "failed":
            continue
        failed = row.get("failed_scenarios") or []
        index, what = clause_evidence(row, reproductions)
        scenario = reproductions[index - 1]["name"] if index else clause
        key = f"{scenario}\n{what}"  # a scenario, one defect's words
        finding = grouped.setdefault(
            key,
            {
                "clauses": [],
                "what": what,
                "scenarios": 0,
                "evidence": f"#clause-{clause}",
                "reproduction": f"#reproduction-{index}" if index else None,
                "waived": True,
            },
        )
        finding["clauses"].append(clause)
        finding["scenarios"] = max(finding["scenarios"], len(failed))
        finding["waived"] = finding["waived"] and bool(row.get("waiver"))
    return list(grouped.values())


def self_test(target: dict[str, Any]) -> dict[str, Any] | None:
    """A run against the embedded reference with seeded faults proves the harness, not a
    product: said on every page."""
    if target.get("embedded") and target.get("faults"):
        return {
            "faults": list(target["faults"]),
            "statement": "a self-test of the harness against the reference implementation with "
            "seeded faults; not a certificate of any product",
        }
    return None


def lab_section(
    certificate: dict[str, Any],
    lab: dict[str, Any],
    suite_root: Path,
    started_at: str,
    ended_at: str,
) -> dict[str, Any]:
    """The certificate's lab fields, build, environment, dates, findings and self-test mark,
    to merge into it."""
    fields = {k: lab[k] for k in LAB_TEXT_FIELDS if lab.get(k) and k not in BUILD_FIELDS}
    for key in LAB_LIST_FIELDS:
        if lab.get(key):
            fields[key] = [lab[key]] if isinstance(lab[key], str) else list(lab[key])
    for key in ("deviations", "waivers"):
        if lab.get(key):
            fields[key] = [dict(row) for row in lab[key]]
    return {
        "lab": fields,
        "build": build_under_test(lab, certificate.get("target") or {}),
        "environment": environment(suite_root),
        "test_dates": {
            "started_at": started_at,
            "ended_at": ended_at,
            **({"campaign": lab["test_dates"]} if lab.get("test_dates") else {}),
        },
        "findings": findings(certificate),
        "self_test": self_test(certificate.get("target") or {}),
    }
