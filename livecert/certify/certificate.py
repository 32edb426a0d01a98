"""Turn a run record into the certificate: the verdict and every clause's status, with evidence.

The verdict is `non-compliant` when any clause in scope failed, `incomplete` when the target
failed under the run (unreachable, 5xx, contract violation), the harness itself erred, or a
clause in scope was not proven by any scenario, and `compliant` only when every clause in scope
passed.
"""

from collections import Counter, defaultdict
from datetime import UTC, datetime
from typing import Any

from livecert import __version__
from livecert.adapters.evidence import latency_by_operation
from livecert.adapters.registry import CANONICAL, is_canonical
from livecert.certify.scope import (
    DECLARED_ONLY,
    NOT_CERTIFIABLE,
    NOT_YET_COVERED,
    OUT_OF_SCOPE_REASON,
    clauses_in_scope,
    sections_for,
)
from livecert.contract import CONTRACT_BODY, CONTRACT_CLAUSES, CONTRACT_IDENTITY, load_contract
from livecert.rules import load_catalogue, load_paytable, rules_documents
from livecert.rules.catalogue import catalogue_sha256, document_findings

OUTCOMES_PER_GAME = {"sicbo": 216, "xocdia": 16}
DOCUMENTS_PROFILE = {"name": "documents", "title": "the rules documents (RULES.md)"}
LIMITATIONS = (
    "Randomness is not assessed: the harness enters every result itself, so the physical "
    "fairness of the dice, tokens, shaker and bowl, and any random number generator, need an "
    "evaluation of their own.",
    "Only the certification API is exercised: the video stream, the player's screen and the "
    "dealer's console are outside this run.",
    "RTP is computed exactly from the settlements of one bet per selection on every possible "
    "outcome (enumeration), not estimated from a long random session.",
    "Interrupted games (REG-INTR-01) need the target restarted mid-round by the lab's restart "
    "hook (--restart-hook, or a mapping's restart_target; the harness restarts the embedded "
    "reference itself); without one they are not tested and the verdict is incomplete. The "
    "restart counts only where it is seen (a new instance in /v1/info, or the target down). A "
    "restart tests one crash at one moment of the round, not every way a server can fail.",
    "Timing duties (the betting countdown) are observed from the harness's side of the network; "
    "a target under heavy load or far away may see them differently.",
)
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


def _clause_statuses(
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
    """CONTRACT-01/02: proven by every scenario that met the target (each of its responses was
    validated), failed by the scenarios whose response broke it. CONTRACT-03: proven only where
    an answer's ids were compared with the request's and matched (the identity checks)."""
    for clause in CONTRACT_CLAUSES:
        entry = tally[clause]
        for s in scenarios:
            check = (s.get("checks") or {}).get(clause) or {"ran": 0, "held": 0}
            entry["checks_ran"] += check["ran"]
            entry["checks_held"] += check["held"]
            if check["ran"]:
                entry["checked_in"][s["name"]] = check["ran"]
            if s.get("contract_violation") and s.get("contract_clause", CONTRACT_BODY) == clause:
                entry["scenarios"] += 1
                entry["failed"].append(s["name"])
            elif s["outcome"] in ("passed", "failed") and (
                clause != CONTRACT_IDENTITY or check["held"]
            ):
                entry["scenarios"] += 1
                entry["passed"] += 1
        entry["names"] = [
            "every scenario whose answers were compared with its requests"
            if clause == CONTRACT_IDENTITY
            else "every scenario that met the target (its responses were validated)"
        ]


def _harness_errors(records: list[dict], scenarios: list[dict]) -> list[str]:
    """What the harness (or a mapping file) got wrong: never a finding against the target, and
    every one makes the verdict `incomplete`: a scenario that erred in the harness, a failed
    scenario no check of its own tags failed (a check on clauses it is not tagged with, or one
    that named none), and a clean-up that failed (it may hide a result)."""
    errors = []
    for s in scenarios:
        if s["outcome"] == "error" and not s.get("target_error"):
            errors.append(f"{s['name']}: {s.get('harness_error') or s.get('message')}")
            continue
        untagged = {
            c: u for c, u in (s.get("untagged_checks") or {}).items() if u["ran"] > u["held"]
        }
        judged_failure = any(c["ran"] > c["held"] for c in (s.get("checks") or {}).values())
        if untagged and not judged_failure:
            first = next(iter(untagged.values()))
            errors.append(
                f"{s['name']}: a check on {', '.join(untagged)} failed, but the scenario is not "
                f"tagged with it (a tagging defect of the harness): {first['failed'][0]}"
            )
        elif s["outcome"] == "failed" and not judged_failure and not s.get("contract_violation"):
            errors.append(f"{s['name']}: failed on no clause it judges: {s.get('message')}")
    errors += [
        f"clean-up after {r['name']}: {r['message']}"
        for r in records
        if r["type"] == "teardown_error"
    ]
    errors += [r["message"] for r in records if r["type"] == "harness_error"]  # the run's own
    return errors


def _reproductions(records: list[dict], limit: int = 50) -> list[dict]:
    """What reproduces each failed scenario: its message (expected versus actual) and its
    requests as curl commands with what came back (the first `limit` failures)."""
    return [
        {k: r.get(k) for k in ("nodeid", "name", "message", "exchanges")}
        for r in records
        if r["type"] == "reproduction"
    ][:limit]


def _latency(records: list[dict]) -> dict[str, Any] | None:
    """The requests the run sent the target and how long they took, every process's samples
    together (one per worker of a run over workers), and how many it answered 429 (too many
    requests: waited for and sent again where safe); None when it never connected."""
    found = [r for r in records if r["type"] == "latency"]
    if not found:
        return None
    merged: dict[str, list[float]] = {}
    for record in found:
        for operation, times in record.get("samples", {}).items():
            merged.setdefault(operation, []).extend(times)
    throttled = sum(record.get("throttled", 0) for record in found)
    return {**latency_by_operation(merged), "throttled": throttled}


def _rtp(records: list[dict], games: tuple[str, ...], target: dict) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for game in games:
        rows = next(
            (r for r in reversed(records) if r["type"] == "rtp" and r["game"] == game), None
        )
        best = next(
            (r for r in reversed(records) if r["type"] == "rtp_max" and r["game"] == game), None
        )
        if rows is None and best is None:
            continue
        table = load_paytable(game)
        result[game] = {
            "stated_max_percent": table.declared_max_rtp_percent,
            "declared_max_percent": (target.get("max_rtp") or {}).get(game),
            "measured_max_percent": best.get("measured") if best else None,
            "rolls": rows["rolls"] if rows else None,
            "selections": {
                r["code"]: {
                    k: r[k]
                    for k in (
                        "clause",
                        "theoretical",
                        "measured",
                        "theoretical_percent",
                        "measured_percent",
                    )
                }
                for r in (rows["rows"] if rows else [])
            },
        }
    return result


def _sweep(records: list[dict], games: tuple[str, ...]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for game in games:
        rounds = {
            tuple(r["outcome"]): r for r in records if r["type"] == "sweep" and r["game"] == game
        }
        if not rounds:
            continue
        result[game] = {
            "outcomes_possible": OUTCOMES_PER_GAME[game],
            "outcomes_played": len(rounds),
            "selections": max(r["selections"] for r in rounds.values()),
            "settlements_checked": sum(r["checked"] for r in rounds.values()),
            "mismatches": sum(r["mismatches"] for r in rounds.values()),
            "mismatched_outcomes": [list(o) for o, r in rounds.items() if r["mismatches"]],
        }
    return result


def _verdict_statement(verdict: str, in_scope: list[str], failed: list[str], partial: bool) -> str:
    """The verdict in words; a partial run (--clauses) never says compliant alone."""
    if not partial:
        return verdict
    if verdict == "non-compliant":
        return (
            f"non-compliant on {len(failed)} of the {len(in_scope)} selected clauses; "
            "not a certification"
        )
    return f"{verdict} on the {len(in_scope)} selected clauses; not a certification"


def _not_applicable(statuses: dict[str, dict], target: dict, games: tuple[str, ...]) -> None:
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


def _target(target: dict, records: list[dict]) -> dict[str, Any]:
    """The target's identity as it declared it; when it never did, what it answered instead
    (`preflight`: "answered 500 to GET /v1/info: ...", "did not answer ...: cannot connect")."""
    shown = {k: v for k, v in target.items() if k != "type"}
    answers = [r["answer"] for r in records if r["type"] == "target_error" and r.get("answer")]
    if not target and answers:
        shown["preflight"] = answers[0]
    return shown


def build_certificate(
    records: list[dict],
    games: tuple[str, ...],
    run: dict[str, Any],
    selected: tuple[str, ...] = (),
    sweep_only: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The certificate of one run, from its run record (of `selected` clauses only, if given;
    with the sweep narrowed to the selections of the `sweep_only` clauses, if given)."""
    partial = bool(selected or sweep_only)
    target = next((r for r in records if r["type"] == "target"), {})
    scenarios = [r for r in records if r["type"] == "scenario"]
    target_errors = [r["message"] for r in records if r["type"] == "target_error"]
    run_cut = next((r["message"] for r in records if r["type"] == "run_cut"), None)
    harness_errors = _harness_errors(records, scenarios)
    adapter = target.get("adapter") or {"kind": CANONICAL, "name": CANONICAL}
    contract_reason = None
    if not is_canonical(adapter["kind"]):
        contract_reason = (
            f"the target was driven through the {adapter['kind']} adapter {adapter['name']!r}: "
            "it does not speak the certification contract, so its answers were not validated "
            "against it"
        )
    in_scope = clauses_in_scope(games, contract=contract_reason is None)
    unselected = {c for c in in_scope if selected and c not in selected}
    in_scope = [c for c in in_scope if c not in unselected]
    statuses = _clause_statuses(
        scenarios, in_scope, sections_for(games), unselected, contract_reason
    )
    _not_applicable(statuses, target, games)
    failed = [c for c, row in statuses.items() if row["status"] == "failed"]
    untested = [
        c
        for c in in_scope
        if statuses.get(c, {}).get("status") not in ("passed", NOT_APPLICABLE) and c not in failed
    ]
    reasons = []
    if failed:
        verdict = "non-compliant"
        reasons.append(f"{len(failed)} clause(s) failed: {', '.join(failed)}")
    elif target_errors or harness_errors or untested or run_cut:
        verdict = "incomplete"
    else:
        verdict = "compliant"
        moot = [c for c in in_scope if statuses.get(c, {}).get("status") == NOT_APPLICABLE]
        which = "selected clauses" if partial else "clauses in scope"
        passed = (
            f"all {len(in_scope)} {which} passed"
            if not moot
            else f"all {len(in_scope) - len(moot)} applicable {which} passed"
        )
        reasons.append(passed + (" (a partial run, not a certification)" if partial else ""))
        if moot:
            reasons.append(
                f"{len(moot)} not applicable (about declarations the target does not make): "
                + "; ".join(f"{c}: {statuses[c]['reason']}" for c in moot)
            )
    if run_cut:
        reasons.append(run_cut)
    if target_errors:
        reasons.append(target_errors[0])
    if harness_errors:
        reasons.append(f"harness error: {harness_errors[0]}")
    if untested:
        reasons.append(f"{len(untested)} clause(s) in scope not tested: {', '.join(untested)}")
    untestable = [
        c for c in untested if "not testable on this target" in statuses[c].get("reason", "")
    ]
    if untestable:
        reasons.append(
            "not testable on this target, so not certified (each clause's row says why: a "
            f"selection not offered, a capability not declared): {', '.join(untestable)}"
        )
    outside = [c for c, row in statuses.items() if not row["in_scope"] and c not in unselected]
    statement = _verdict_statement(verdict, in_scope, failed, partial)
    counts = defaultdict(int)
    for s in scenarios:
        counts[s["outcome"]] += 1
    return {
        "certificate_version": "1",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "harness": {
            "name": "livecert",
            "version": __version__,
            "contract_version": load_contract().version,
        },
        "scope": {
            "games": list(games),
            "rules_profile": target.get("rules_profile") or DOCUMENTS_PROFILE,
            "clauses_in_scope": in_scope,
            "clauses_outside_scope": outside,
            "clauses_not_selected": sorted(unselected),
            "partial": partial,
            "sweep_only": sorted(sweep_only),
            "statement": (
                f"{len(in_scope)} clauses in scope for {', '.join(games)}; {len(outside)} "
                "clauses of the catalogue are outside this harness version's scope and are "
                "listed as not tested"
                + (
                    f"; a partial run of the selected clauses only (--clauses): the other "
                    f"{len(unselected)} clauses in scope were not selected, not judged and not "
                    "certified"
                    if selected
                    else ""
                )
                + (
                    f"; the sweep bet only on the selections of {', '.join(sorted(sweep_only))} "
                    "(--sweep-only): the other selections were not swept, and the highest "
                    "return over every selection of a narrowed game could fail but not pass"
                    if sweep_only
                    else ""
                )
            ),
        },
        "target": _target(target, records),
        "verdict": verdict,
        "verdict_statement": statement,
        "verdict_reasons": reasons,
        "summary": {"scenarios": len(scenarios), **dict(counts)},
        "clauses": statuses,
        "rtp": _rtp(records, games, target),
        "sweep": _sweep(records, games),
        "latency": _latency(records),
        "target_errors": target_errors,
        "run_cut": run_cut,  # why the run ended before its last scenario (--max-duration)
        "contract_violations": [
            {k: r.get(k) for k in ("nodeid", "clause", "operation", "status", "message")}
            for r in records
            if r["type"] == "contract_violation"
        ],
        "harness_errors": harness_errors,
        "reproductions": _reproductions(records),
        "document_consistency": [
            {"document": f.document, "finding": f.finding, "catalogue_line": f.line}
            for f in document_findings()
        ],
        "limitations": list(LIMITATIONS),
        "rules": {
            "catalogue": {"name": "RULES.md", "sha256": catalogue_sha256()},
            "documents": [
                {"name": d.name, "sha256": d.sha256, "size": d.size} for d in rules_documents()
            ],
        },
        "run": run,
    }
