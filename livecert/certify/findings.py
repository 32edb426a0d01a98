"""The certificate's findings: each defect once, with every clause it breaks.

One wrong payout fails its paytable row and REG-SETTLE-01 on every round that meets it, and the
return of its selection, so REG-RTP-01 and the game's maximum RTP as well. A lab reads that as
one defect, and the README promises it once. Each failed clause is attached to the clause its
defect is first of, never joined through a duty many defects share (REG-SETTLE-01 is broken by
every wrong row; two wrong rows are two findings):
- a clause whose first failed check names the clauses it breaks goes with the first of them
  that failed (REG-SETTLE-01's "[breaks SB-PAY-08, REG-SETTLE-01]" goes with SB-PAY-08);
- a return-to-player clause (a game's maximum, REG-RTP-01) whose words name a selection whose
  measured return is off the paytable goes with that selection's row, where the row failed;
- a clause failed in the same scenario in the same words as an earlier one goes with it.
Anything else is its own finding: a scenario failing two clauses for two reasons is two.
"""

import re
from typing import Any

from livecert.harness.findings import clauses_broken
from livecert.report.junit import clause_evidence

_RETURNS = re.compile(r"^[A-Z]+-RTP-\d\d$")  # a game's maximum RTP, and REG-RTP-01


def _off_paytable(certificate: dict[str, Any]) -> dict[str, str]:
    """Each selection whose measured return differs from its theoretical one: its row's clause."""
    off: dict[str, str] = {}
    for table in (certificate.get("rtp") or {}).values():
        for code, row in ((table or {}).get("selections") or {}).items():
            if row.get("clause") and row.get("measured") != row.get("theoretical"):
                off[code] = row["clause"]
    return off


def _attached_to(
    clause: str,
    what: str,
    scenario: str,
    failed: list[str],
    off: dict[str, str],
    said_where: dict[str, str],
) -> str:
    """The clause whose finding `clause` belongs to (itself where it is a defect of its own)."""
    named = [c for c in clauses_broken(what) if c in failed]
    first = named[0] if named else clause
    if _RETURNS.match(first):
        found = [(m.start(), row) for code, row in off.items() if row in failed
                 for m in [re.search(rf"\b{re.escape(code)}\b", what)] if m]  # fmt: skip
        if found:
            return min(found)[1]  # the first selection its words name
    if first != clause:
        return first
    return said_where.setdefault(f"{scenario}\n{what}", clause)


def findings(certificate: dict[str, Any]) -> list[dict[str, Any]]:
    """Each distinct defect once: its clauses (in the certificate's order), what was expected
    and seen (the first clause's own failed check, not another clause's), how many scenarios
    met it and where its evidence is; the other clauses' words, where they differ, under
    `also`."""
    reproductions = certificate.get("reproductions") or []
    rows = {
        clause: row
        for clause, row in (certificate.get("clauses") or {}).items()
        if row.get("status") == "failed"
    }
    failed = list(rows)
    evidence = {clause: clause_evidence(row, reproductions) for clause, row in rows.items()}
    off = _off_paytable(certificate)
    said_where: dict[str, str] = {}
    attached = {}
    for clause, (index, what) in evidence.items():
        scenario = reproductions[index - 1]["name"] if index else clause
        attached[clause] = _attached_to(clause, what, scenario, failed, off, said_where)

    def root(clause: str) -> str:
        seen = {clause}
        while attached[clause] != clause and attached[clause] not in seen:
            clause = attached[clause]
            seen.add(clause)
        return clause

    found: dict[str, dict[str, Any]] = {}
    for clause in sorted(rows, key=lambda c: failed.index(root(c))):
        index, what = evidence[clause]
        owner = root(clause)
        if owner not in found:
            owner_index, owner_what = evidence[owner]
            found[owner] = {
                "clauses": [],
                "what": owner_what,
                "scenarios": set(),
                "evidence": f"#clause-{owner}",
                "reproduction": f"#reproduction-{owner_index}" if owner_index else None,
                "waived": True,
                "also": [],
            }
        finding = found[owner]
        finding["clauses"].append(clause)
        finding["scenarios"].update(rows[clause].get("failed_scenarios") or [])
        finding["waived"] = finding["waived"] and bool(rows[clause].get("waiver"))
        if what != finding["what"] and what not in finding["also"]:
            finding["also"].append(what)
    return [
        {key: value for key, value in finding.items() if key != "also" or value}
        | {"scenarios": len(finding["scenarios"])}
        for finding in found.values()
    ]
