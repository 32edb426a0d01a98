"""Each clause's status from the scenarios' checks: passed only where a check for it ran and
held, failed only where one failed, else not tested with the reason (or not applicable, for a
declaration the target does not make). The verdict is built on these (certificate.py)."""

from collections import Counter, defaultdict
from typing import Any

from livecert.certify.scope import (
    DECLARED_ONLY,
    NOT_CERTIFIABLE,
    NOT_YET_COVERED,
    OUT_OF_SCOPE_REASON,
)
from livecert.contract import CONTRACT_BODY, CONTRACT_CLAUSES, CONTRACT_IDENTITY
from livecert.rules import load_catalogue

NOT_APPLICABLE = "not-applicable"  # a clause about a declaration the target does not make
NOT_SELECTED_REASON = "not selected for this run (--clauses): not judged, not certified"
CONTRACT_SECTION = "contract"  # the harness's own clauses (livecert/contract/clauses.py)


def _new_entry() -> dict[str, Any]:
    return {
        "scenarios": 0,
        "passed": 0,
        "failed": [],
        "errors": [],
        "skipped": [],
        "unjudged": [],
        "names": [],
        "checks_ran": 0,
        "checks_held": 0,
        "checked_in": {},
        "sample": None,
    }


NOT_OFFERED = "does not offer"  # the words of a selection (or game) the target lacks


def _distinct(reasons: list[str], shown: int = 3) -> str:
    """The distinct reasons, most frequent first (a few; the rest counted)."""
    ordered = [r for r, _ in Counter(reasons).most_common()]
    more = f" (and {len(ordered) - shown} other reasons)" if len(ordered) > shown else ""
    return "; ".join(ordered[:shown]) + more


def _not_offered(entry: dict[str, Any]) -> str:
    """The selections of a clause the target does not offer, when a scenario found that: the
    root reason, before the skips of the scenarios that could not run there for another."""
    found = [r for r in entry["unjudged"] + entry["skipped"] if NOT_OFFERED in r]
    if not found:
        return ""
    others = [r for r in entry["skipped"] if NOT_OFFERED not in r]
    return _distinct(found) + (
        f"; its other scenarios skipped: {_distinct(others)}" if others else ""
    )


def _not_judged_reason(s: dict, clause: str) -> str:
    """Why a tagged clause was not judged in scenario `s`."""
    unproven = (s.get("unproven") or {}).get(clause)
    return unproven or f"{s['name']}: no check for {clause} ran in it"


def _tally_rules(scenarios: list[dict]) -> dict[str, dict[str, Any]]:
    """Per clause, from each scenario's checks: a check that failed fails it; one that held in a
    scenario that was judged (passed, or failed on another check) passes it there; a clause the
    scenario is tagged with but no check judged is not tested there, with the reason."""
    tally: dict[str, dict[str, Any]] = defaultdict(_new_entry)
    for s in scenarios:
        violated = s.get("contract_clause") if s.get("contract_violation") else None
        checks = s.get("checks") or {}
        for clause in dict.fromkeys([*s["clauses"], *checks]):
            if clause in CONTRACT_CLAUSES:
                continue  # tallied from the exchanges (_tally_contract)
            entry = tally[clause]
            entry["scenarios"] += 1
            entry["names"].append(s["name"])
            check = checks.get(clause) or {"ran": 0, "held": 0, "failed": []}
            entry["checks_ran"] += check["ran"]
            entry["checks_held"] += check["held"]
            if check["ran"]:
                entry["checked_in"][s["name"]] = check["ran"]
            if check["ran"] > check["held"]:
                entry["failed"].append(s["name"])  # a check for this clause failed
                said = check.get("failed") or []
                entry["first_failure"] = entry.get("first_failure") or (said[0] if said else None)
            elif violated:
                # the target left the contract before the rule could be judged: not proven
                entry["errors"].append(f"{s['name']}: blocked by a {violated} finding")
            elif check["held"] and s["outcome"] in ("passed", "failed"):
                entry["passed"] += 1
                entry["sample"] = entry["sample"] or check.get("sample")
            elif s["outcome"] == "skipped":
                entry["skipped"].append(s.get("skip_reason") or s["name"])
            elif s["outcome"] == "error":
                entry["errors"].append(f"{s['name']}: {s.get('message')}")
            else:
                entry["unjudged"].append(_not_judged_reason(s, clause))
    return tally


def clause_statuses(
    scenarios: list[dict],
    in_scope: list[str],
    sections: tuple[str, ...],
    unselected: set[str],
    contract_reason: str | None = None,
) -> dict[str, dict[str, Any]]:
    """Every clause's status; `contract_reason` says why the contract clauses do not apply
    (a run through a mapping or plugin adapter), else they are tallied from the exchanges."""
    catalogue = load_catalogue()
    tally = _tally_rules(scenarios)
    if contract_reason is None:
        _tally_contract(scenarios, tally)
    statuses: dict[str, dict[str, Any]] = {}
    rows = [
        *((cid, c.section, c.text, c.line) for cid, c in catalogue.items()),
        *((cid, CONTRACT_SECTION, text, None) for cid, text in CONTRACT_CLAUSES.items()),
    ]
    for clause_id, section, text, line in rows:
        if section not in (*sections, CONTRACT_SECTION):
            continue
        entry = tally.get(clause_id)
        row: dict[str, Any] = {
            "text": text,
            "section": section,
            "catalogue_line": line,
            "in_scope": clause_id in in_scope,
            "scenarios": entry["scenarios"] if entry else 0,
            "failed_scenarios": entry["failed"] if entry else [],
            "scenario_names": entry["names"] if entry else [],
            "checks": {
                "ran": entry["checks_ran"] if entry else 0,
                "held": entry["checks_held"] if entry else 0,
                "in_scenarios": entry["checked_in"] if entry else {},
                "sample": entry["sample"] if entry else None,
                # what this clause's own first failed check said (a scenario may fail several)
                "first_failure": entry.get("first_failure") if entry else None,
            },
        }
        selected = clause_id not in unselected
        if selected and entry and entry["failed"]:
            row["status"] = "failed"
        elif selected and entry and entry["passed"] and not entry["errors"]:
            row["status"] = "passed"
            if entry["skipped"] or entry["unjudged"]:
                # proven by its other scenarios; say which could not judge it on this target
                row["not_testable"] = sorted(set(entry["skipped"] + entry["unjudged"]))
        else:
            row["status"] = "not-tested"
            if clause_id in NOT_CERTIFIABLE:
                row["reason"] = NOT_CERTIFIABLE[clause_id]
            elif contract_reason and clause_id in CONTRACT_CLAUSES:
                row["reason"] = contract_reason
            elif clause_id in unselected:
                row["reason"] = NOT_SELECTED_REASON
            elif clause_id not in in_scope:
                row["reason"] = NOT_YET_COVERED.get(clause_id, OUT_OF_SCOPE_REASON)
            elif entry and entry["errors"]:
                row["reason"] = "error: " + entry["errors"][0]
            elif entry and (not_offered := _not_offered(entry)):
                row["reason"] = not_offered
            elif entry and (entry["skipped"] or entry["unjudged"]):
                # what the scenarios that ran could not judge first: the most telling reason
                parts = [
                    f"{label}: {_distinct(entry[key])}"
                    for key, label in (("unjudged", "not judged"), ("skipped", "skipped"))
                    if entry[key]
                ]
                row["reason"] = "; ".join(parts)
            else:
                row["reason"] = "no scenario proving it was run"
        statuses[clause_id] = row
    return statuses


def _tally_contract(scenarios: list[dict], tally: dict[str, dict[str, Any]]) -> None:
    """CONTRACT-01/02: proven by the scenarios whose answers were validated and held (each a
    check: its status, and its body where the contract gives it a schema), failed by the
    scenarios whose answer broke it. CONTRACT-03: proven only where an answer's ids were
    compared with the request's and matched (the identity checks)."""
    for clause in CONTRACT_CLAUSES:
        entry = tally[clause]
        for s in scenarios:
            check = (s.get("checks") or {}).get(clause) or {"ran": 0, "held": 0}
            entry["checks_ran"] += check["ran"]
            entry["checks_held"] += check["held"]
            if check["ran"]:
                entry["checked_in"][s["name"]] = check["ran"]
            violated = s.get("contract_violation") and (
                s.get("contract_clause", CONTRACT_BODY) == clause
            )
            if violated or check["ran"] > check["held"]:  # an answer broke it, caught or not
                entry["scenarios"] += 1
                entry["failed"].append(s["name"])
                if check.get("failed") and not entry.get("first_failure"):
                    entry["first_failure"] = check["failed"][0]
            elif s["outcome"] in ("passed", "failed") and check["held"]:
                entry["scenarios"] += 1
                entry["passed"] += 1
        entry["names"] = [
            "every scenario whose answers were compared with its requests"
            if clause == CONTRACT_IDENTITY
            else "every scenario whose answers were validated against the contract"
        ]


def mark_not_applicable(statuses: dict[str, dict], target: dict, games: tuple[str, ...]) -> None:
    """A clause about what a target declares is not applicable where none of the run's games
    declares it (REG-LIMIT-01 without limits) and no check of it ran."""
    if "limits" not in target:  # the target never said what it declares
        return
    declared = {g for g, limits in target["limits"].items() if limits}
    if declared & set(games):
        return
    for clause, reason in DECLARED_ONLY.items():
        row = statuses.get(clause)
        if row and row["in_scope"] and row["status"] == "not-tested":
            row["status"], row["reason"] = NOT_APPLICABLE, reason.format(games=", ".join(games))
            row.pop("not_testable", None)
