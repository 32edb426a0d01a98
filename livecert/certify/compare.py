"""Two certificates clause by clause: what a retest fixed, broke, still fails, or no longer tests.

A lab retests a game after the vendor's fix and must say which findings the new report closes
and whether anything regressed. The comparison reads only the two `certificate.json` files: a
clause is judged by each run's own verdict on it (`passed`, `failed`, `not-tested`,
`not-applicable`), never re-derived.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CERTIFICATE = "certificate.json"
ABSENT = "absent"  # the clause is not in that certificate (another game, another version)

# (key, heading) in the order they are printed; a clause falls in at most one
KINDS = (
    ("newly_failing", "newly failing"),
    ("still_failing", "still failing"),
    ("fixed", "fixed"),
    ("newly_not_tested", "newly not tested"),
    ("newly_passing", "newly tested and passed"),
)


class CompareError(ValueError):
    """A folder that is not a report with a readable certificate: one message naming it."""


@dataclass(frozen=True)
class Change:
    """One clause whose standing moved between the two runs (or stayed failed)."""

    clause: str
    old: str
    new: str
    text: str
    failed_scenarios: tuple[str, ...]  # in the new run, where it fails there

    def line(self) -> str:
        seen = f" ({len(self.failed_scenarios)} scenarios)" if self.failed_scenarios else ""
        return f"{self.clause}: {self.old} -> {self.new}{seen}  {self.text}"


def read_certificate(folder: Path) -> dict[str, Any]:
    """The certificate of a report folder (or a certificate.json named directly)."""
    path = folder if folder.is_file() else folder / CERTIFICATE
    try:
        certificate = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{folder} is not a livecert report folder (no {CERTIFICATE})") from None
    except (OSError, ValueError) as error:
        raise CompareError(f"{path} cannot be read as a certificate: {error}") from None
    if not isinstance(certificate, dict) or not isinstance(certificate.get("clauses"), dict):
        raise CompareError(f"{path} is not a livecert certificate (no clauses)")
    return certificate


def kind_of(old: str, new: str) -> str | None:
    """Which kind of change `old` -> `new` is, or None when the clause's standing is unchanged."""
    if new == "failed":
        return "still_failing" if old == "failed" else "newly_failing"
    if old == "failed":
        return "fixed" if new == "passed" else "newly_not_tested"
    if old == "passed" and new != "passed":
        return "newly_not_tested"
    if new == "passed" and old != "passed":
        return "newly_passing"
    return None


def compare(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The clause-by-clause difference of two certificates, as data."""
    found: dict[str, list[Change]] = {key: [] for key, _ in KINDS}
    old_rows, new_rows = old["clauses"], new["clauses"]
    for clause in dict.fromkeys([*old_rows, *new_rows]):
        before = (old_rows.get(clause) or {}).get("status", ABSENT)
        row = new_rows.get(clause) or {}
        after = row.get("status", ABSENT)
        kind = kind_of(before, after)
        if kind is None:
            continue
        text = row.get("text") or (old_rows.get(clause) or {}).get("text", "")
        failed = tuple(row.get("failed_scenarios") or ()) if after == "failed" else ()
        found[kind].append(Change(clause, before, after, text, failed))
    return {
        "old": _summary(old),
        "new": _summary(new),
        **{key: [change.__dict__ for change in changes] for key, changes in found.items()},
        "same_target": _target_name(old) == _target_name(new),
    }


def _target_name(certificate: dict[str, Any]) -> tuple[str, str]:
    target = certificate.get("target") or {}
    return str(target.get("name", "")), str(target.get("url", ""))


def _summary(certificate: dict[str, Any]) -> dict[str, Any]:
    target = certificate.get("target") or {}
    lab = certificate.get("lab") or {}
    return {
        "verdict": certificate.get("verdict"),
        "generated_at": certificate.get("generated_at"),
        "report_number": lab.get("report_number"),
        "target": f"{target.get('name', '?')} {target.get('version', '')}".strip(),
        "games": (certificate.get("scope") or {}).get("games", []),
    }


def comparison_lines(difference: dict[str, Any], old_name: str, new_name: str) -> list[str]:
    """The difference in words, for the terminal."""
    old, new = difference["old"], difference["new"]
    lines = [
        f"old: {old_name}: {old['verdict']} ({old['target']}, {old['generated_at']})",
        f"new: {new_name}: {new['verdict']} ({new['target']}, {new['generated_at']})",
    ]
    if not difference["same_target"]:
        lines.append("note: the two runs name different targets")
    for key, heading in KINDS:
        changes = difference[key]
        lines.append(f"{heading}: {len(changes)}")
        lines += [f"  {Change(**change).line()}" for change in changes]
    return lines


def retest_section(old: dict, new: dict) -> dict:
    """What a retest says of the report it follows: its number and verdict, the findings this
    run closes, and those still or newly failing."""
    difference = compare(old, new)
    return {
        "report_number": (old.get("lab") or {}).get("report_number"),
        "verdict": old.get("verdict"),
        "generated_at": old.get("generated_at"),
        **{
            key: [change["clause"] for change in difference[kind]]
            for key, kind in (
                ("closes", "fixed"),
                ("still_failing", "still_failing"),
                ("newly_failing", "newly_failing"),
                ("no_longer_tested", "newly_not_tested"),
            )
        },
    }
