"""`livecert replay REPORT [SCENARIO] [--failed]`: run a report's failed scenarios again against
the same target and say, finding by finding, whether it still holds.

A report holds no credential: the target's tokens come from the environment or the config file,
as for certify. The scenarios run as written, with fresh players and rounds of their own (the
suite makes them); the run is a partial certification of the clauses the scenarios failed, in a
report folder of its own beside the one replayed (whose manifest and signature still hold).
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from livecert.certify.compare import read_certificate
from livecert.certify.runner import CertifyError, CertifyOptions

EMBEDDED = "(embedded reference server)"
ADAPTERS_OWN = "(the adapter's own)"


@dataclass(frozen=True)
class Replayed:
    """One failed scenario of the report and the clauses it failed there."""

    nodeid: str
    name: str
    clauses: tuple[str, ...]


def failed_scenarios(certificate: dict[str, Any], chosen: str | None) -> list[Replayed]:
    """The report's failed scenarios (with a reproduction) matching `chosen` (its id, or words
    of its name), or all of them when `chosen` is None."""
    clauses_of: dict[str, list[str]] = {}
    for clause, row in (certificate.get("clauses") or {}).items():
        if row.get("status") == "failed":
            for name in row.get("failed_scenarios") or []:
                clauses_of.setdefault(name, []).append(clause)
    found = []
    for reproduction in certificate.get("reproductions") or []:
        nodeid, name = reproduction.get("nodeid") or "", reproduction.get("name") or ""
        if not nodeid or name not in clauses_of:
            continue
        if chosen is None or chosen == nodeid or chosen.lower() in name.lower():
            found.append(Replayed(nodeid, name, tuple(clauses_of[name])))
    return found


def replay_options(
    certificate: dict[str, Any], report: Path, operator_token: str | None, dealer_token: str | None
) -> CertifyOptions:
    """certify's options for the same target as the report's run: its URL or its embedded
    reference with the same seeded faults, its adapter, rules, games; a folder of its own."""
    run, target, scope = certificate["run"], certificate.get("target") or {}, certificate["scope"]
    url = run.get("target_url")
    embedded = url in (EMBEDDED, None) or bool(target.get("embedded"))
    shown = scope.get("rules_profile") or {}
    source = str(shown.get("source") or "")
    # a profile shipped with livecert by its name, a lab's own by its file
    profile = shown.get("name") if not source or source.startswith("livecert/") else source
    games = scope["games"]
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = (report if report.is_dir() else report.parent).resolve()  # beside, never inside
    return CertifyOptions(
        target_url=None if embedded or url == ADAPTERS_OWN else url,
        adapter=run.get("adapter"),
        rules=None if profile in (None, "documents") else profile,
        operator_token=operator_token,
        dealer_token=dealer_token,
        game="all" if len(games) > 1 else games[0],
        report_dir=folder.parent / f"{folder.name}-replay-{stamp}",
        reference_faults=list(target.get("faults") or []) if embedded else [],
        html=False,
        quiet=True,
        workers=1,
    )


def judge_replay(scenarios: list[Replayed], replayed: dict[str, Any]) -> list[dict[str, Any]]:
    """For each scenario and each clause it failed in the report: `holds` (failed again, in
    that scenario), `fixed` (the clause passed), or `not judged` (why)."""
    rows = replayed.get("clauses") or {}
    verdicts = []
    for scenario in scenarios:
        for clause in scenario.clauses:
            row = rows.get(clause) or {}
            if scenario.name in (row.get("failed_scenarios") or []):
                verdict, why = "holds", "failed again"
            elif (
                row.get("status") == "passed"
                and scenario.name in (row.get("checks") or {}).get("in_scenarios", {})
                and not any(scenario.name in note for note in row.get("not_testable", []))
            ):  # its checks ran in that scenario and held: skipped or unjudged is not fixed
                verdict, why = "fixed", "passed"
            else:
                verdict = "not judged"
                why = row.get("reason") or "; ".join(replayed.get("verdict_reasons") or [])
            verdicts.append(
                {"scenario": scenario.name, "clause": clause, "finding": verdict, "why": why}
            )
    return verdicts


def replay(
    report: Path,
    chosen: str | None,
    operator_token: str | None = None,
    dealer_token: str | None = None,
) -> tuple[int, list[dict[str, Any]], Path]:
    """Replay the chosen failed scenarios of `report`: the exit status (1 a finding holds,
    0 none does, 2 one could not be judged), each finding's verdict, the replay's folder."""
    from livecert.certify.runner import certify  # the suite's run, imported when replaying

    certificate = read_certificate(report)
    scenarios = failed_scenarios(certificate, chosen)
    if not scenarios:
        what = f"no failed scenario matching {chosen!r}" if chosen else "no failed scenario"
        raise CertifyError(f"{report} has {what} to replay")
    options = replay_options(certificate, report, operator_token, dealer_token)
    options.clauses = tuple(dict.fromkeys(c for s in scenarios for c in s.clauses))
    options.nodeids = [s.nodeid for s in scenarios]
    _, replayed, folder = certify(options)
    verdicts = judge_replay(scenarios, replayed)
    found = {v["finding"] for v in verdicts}
    status = 1 if "holds" in found else (2 if "not judged" in found else 0)
    return status, verdicts, folder
