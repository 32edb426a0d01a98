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
from livecert.certify.findings import findings
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
    target does not say (a hash, most often); each value said to come from where it came."""
    declared = {
        "name": target.get("name"),
        "version": target.get("version"),
        "hash": target.get("build_hash"),
    }
    build: dict[str, Any] = {key: declared[key] or lab.get(f"build_{key}") for key in declared}
    from_target = [key for key in declared if declared[key]]
    from_lab = [key for key in declared if not declared[key] and lab.get(f"build_{key}")]
    build["source"] = (
        "; ".join(
            f"{_listed(keys)} from {where}"
            for keys, where in (
                (from_target, "the target's /v1/info"),
                (from_lab, "the lab's [lab] fields"),
            )
            if keys
        )
        or "not declared by the target nor named by the lab"
    )
    if from_lab:
        build["from_lab"] = from_lab
    differences = [
        f"the lab names {key} {lab[f'build_{key}']!r}, the target declared {declared[key]!r}"
        for key in declared
        if lab.get(f"build_{key}") and declared[key] and lab[f"build_{key}"] != declared[key]
    ]
    if differences:
        build["differences"] = differences
    return build


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


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
