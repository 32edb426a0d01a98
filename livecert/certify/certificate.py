"""Turn a run record into the certificate: the verdict and every clause's status, with evidence.

The verdict is `non-compliant` when any clause in scope failed, `incomplete` when the target
failed under the run (unreachable, 5xx, contract violation), the harness itself erred, or a
clause in scope was not proven by any scenario, and `compliant` only when every clause in scope
passed.
"""

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from livecert import __version__
from livecert.adapters.registry import CANONICAL, is_canonical
from livecert.certify.clause_status import (
    NOT_APPLICABLE,
    clause_statuses,
    mark_not_applicable,
)
from livecert.certify.held_selections import hold_clauses
from livecert.certify.history_findings import judge_history_findings
from livecert.certify.outcome_duties import judge_outcome_duties, limitation
from livecert.certify.run_sections import latency, reproductions, rtp, sweep
from livecert.certify.scope import (
    clauses_in_scope,
    sections_for,
)
from livecert.contract import load_contract
from livecert.rules import rules_documents
from livecert.rules.catalogue import catalogue_sha256, document_findings

DOCUMENTS_PROFILE = {"name": "documents", "title": "the rules documents (RULES.md)"}
LIMITATIONS = (
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


def _target(target: dict, records: list[dict]) -> dict[str, Any]:
    """The target's identity as it declared it; when it never did, what it answered instead
    (`preflight`: "answered 500 to GET /v1/info: ...", "did not answer ...: cannot connect")."""
    shown = {k: v for k, v in target.items() if k != "type"}
    answers = [r["answer"] for r in records if r["type"] == "target_error" and r.get("answer")]
    if not target and answers:
        shown["preflight"] = answers[0]
    return shown


def apply_waivers(statuses: dict[str, dict], waivers: list[dict]) -> list[str]:
    """Show each waiver on its clause's row; answer the clauses in scope whose failure or want
    of a test a waiver covers (the verdict is then said "with N waivers"). A clause keeps the
    status it was judged: a waiver is the lab's decision, not a pass."""
    covered = []
    for waiver in waivers:
        row = statuses.get(waiver["clause"])
        if row is None:
            continue  # a clause of another game than this run's
        row["waiver"] = {"reason": waiver["reason"], "approved_by": waiver["approved_by"]}
        if row["in_scope"] and row["status"] in ("failed", "not-tested"):
            covered.append(waiver["clause"])
    return list(dict.fromkeys(covered))


def build_certificate(
    records: list[dict],
    games: tuple[str, ...],
    run: dict[str, Any],
    selected: tuple[str, ...] = (),
    sweep_only: tuple[str, ...] = (),
    waivers: list[dict] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """The certificate of one run, from its run record (of `selected` clauses only, if given;
    with the sweep narrowed to the selections of the `sweep_only` clauses, if given; with the
    lab's `waivers` of clauses, each shown with its reason and who approved it)."""
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
    statuses = clause_statuses(
        scenarios, in_scope, sections_for(games), unselected, contract_reason
    )
    mark_not_applicable(statuses, target, games)
    analyses = [r["analysis"] for r in records if r["type"] == "outcome_analysis"]
    unread = [r["message"] for r in records if r["type"] == "outcome_history_error"]
    judge_outcome_duties(statuses, analyses, games, unread)
    judge_history_findings(statuses, records)
    held = hold_clauses(statuses, records, games)
    waived = apply_waivers(statuses, waivers)
    judged_failed = [c for c, row in statuses.items() if row["status"] == "failed"]
    failed = [c for c in judged_failed if c not in waived]
    untested = [
        c
        for c in in_scope
        if statuses.get(c, {}).get("status") not in ("passed", NOT_APPLICABLE)
        and c not in judged_failed
        and c not in waived
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
        if waived:
            passed = f"{len(in_scope) - len(moot) - len(waived)} of the {len(in_scope)} {which} "
            passed += "passed" + (f", {len(moot)} not applicable" if moot else "")
            passed += f", {len(waived)} waived"
        elif moot:
            passed = f"all {len(in_scope) - len(moot)} applicable {which} passed"
        else:
            passed = f"all {len(in_scope)} {which} passed"
        reasons.append(passed + (" (a partial run, not a certification)" if partial else ""))
        if moot:
            reasons.append(
                f"{len(moot)} not applicable: "
                + "; ".join(f"{c}: {statuses[c]['reason']}" for c in moot)
            )
    if waived:
        reasons.append(
            f"{len(waived)} clause(s) waived by the lab: "
            + "; ".join(
                f"{c} ({statuses[c]['status']}; {statuses[c]['waiver']['reason']}; approved by "
                f"{statuses[c]['waiver']['approved_by']})"
                for c in waived
            )
        )
    if run_cut:
        reasons.append(run_cut)
    if target_errors:
        reasons.append(target_errors[0])
    if harness_errors:
        reasons.append(f"harness error: {harness_errors[0]}")
    if untested:
        reasons.append(f"{len(untested)} clause(s) in scope not tested: {', '.join(untested)}")
    reasons += held
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
    if waived and verdict == "compliant":
        statement += f" with {len(waived)} waiver{'s' if len(waived) > 1 else ''}"
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
                + (
                    "clause of the catalogue is"
                    if len(outside) == 1
                    else "clauses of the catalogue are"
                )
                + " outside this harness version's scope and "
                + ("is" if len(outside) == 1 else "are")
                + " listed as not tested"
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
        "rtp": rtp(records, games, target),
        "sweep": sweep(records, games),
        "latency": latency(records),
        "target_errors": target_errors,
        "run_cut": run_cut,  # why the run ended before its last scenario (--max-duration)
        "contract_violations": [
            {k: r.get(k) for k in ("nodeid", "clause", "operation", "status", "message")}
            for r in records
            if r["type"] == "contract_violation"
        ],
        "harness_errors": harness_errors,
        "reproductions": reproductions(records),
        "document_consistency": [
            {"document": f.document, "finding": f.finding, "catalogue_line": f.line}
            for f in document_findings()
        ],
        "limitations": [limitation(analyses, unread), *LIMITATIONS],
        "outcome_analysis": analyses,
        "rules": {
            "catalogue": {"name": "RULES.md", "sha256": catalogue_sha256()},
            "documents": [
                {"name": d.name, "sha256": d.sha256, "size": d.size} for d in rules_documents()
            ],
        },
        "run": run,
    }
