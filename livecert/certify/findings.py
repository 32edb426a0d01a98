"""The certificate's findings: each defect once, with every clause it breaks.

One wrong payout fails its paytable row and REG-SETTLE-01 on every round that meets it, and the
return of its selection, so REG-RTP-01 and the game's maximum RTP as well. A lab reads that as
one defect, and the README promises it once. Failed clauses are one finding where:
- a failed check's words say it breaks both (a ClauseFailure names every clause it is
  evidence against);
- the same scenario failed both in the same words;
- one failed on a selection's measured return (the RTP table shows it off the paytable) and
  the other is that selection's paytable row, failed too.
Anything else stays its own finding: a scenario failing two clauses for two reasons is two.
"""

import re
from typing import Any

from livecert.harness.findings import clauses_broken
from livecert.report.junit import clause_evidence


class _Groups:
    """Failed clauses joined into defects (a union-find over the clause ids)."""

    def __init__(self, clauses: list[str]) -> None:
        self.parent = {clause: clause for clause in clauses}

    def root(self, clause: str) -> str:
        while self.parent[clause] != clause:
            self.parent[clause] = self.parent[self.parent[clause]]
            clause = self.parent[clause]
        return clause

    def join(self, one: str, other: str) -> None:
        if one in self.parent and other in self.parent:
            first, second = sorted((self.root(one), self.root(other)), key=self.order)
            self.parent[second] = first

    def order(self, clause: str) -> int:
        return list(self.parent).index(clause)


def _off_paytable(certificate: dict[str, Any]) -> dict[str, str]:
    """Each selection whose measured return differs from its theoretical one: its row's clause."""
    off: dict[str, str] = {}
    for table in (certificate.get("rtp") or {}).values():
        for code, row in ((table or {}).get("selections") or {}).items():
            if row.get("clause") and row.get("measured") != row.get("theoretical"):
                off[code] = row["clause"]
    return off


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
    evidence = {clause: clause_evidence(row, reproductions) for clause, row in rows.items()}
    groups = _Groups(list(rows))
    said_where: dict[str, str] = {}
    off = _off_paytable(certificate)
    for clause, (index, what) in evidence.items():
        for other in clauses_broken(what):
            groups.join(clause, other)
        scenario = reproductions[index - 1]["name"] if index else clause
        groups.join(clause, said_where.setdefault(f"{scenario}\n{what}", clause))
        for code, row_clause in off.items():
            if re.search(rf"\b{re.escape(code)}\b", what) and row_clause in rows:
                groups.join(clause, row_clause)
    found: dict[str, dict[str, Any]] = {}
    for clause, row in rows.items():
        index, what = evidence[clause]
        root = groups.root(clause)
        if root not in found:
            found[root] = {
                "clauses": [],
                "what": what,
                "scenarios": set(),
                "evidence": f"#clause-{clause}",
                "reproduction": f"#reproduction-{index}" if index else None,
                "waived": True,
                "also": [],
            }
        finding = found[root]
        finding["clauses"].append(clause)
        finding["scenarios"].update(row.get("failed_scenarios") or [])
        finding["waived"] = finding["waived"] and bool(row.get("waiver"))
        if what != finding["what"] and what not in finding["also"]:
            finding["also"].append(what)
    return [
        {key: value for key, value in finding.items() if key != "also" or value}
        | {"scenarios": len(finding["scenarios"])}
        for finding in found.values()
    ]
