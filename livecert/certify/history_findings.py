"""The target's findings met while reading a round history after the run (`--history-from-target`):
rounds that repeat or go back in time break the `round-history` operation's promise (every
finished round once, oldest first), a finding on the clause docs/contract.md names for it
(REG-RECALL-01), whatever the scenarios proved of that clause. The fairness duties of that
history stay not tested, with the reason (outcome_duties.py).
"""

from typing import Any


def judge_history_findings(statuses: dict[str, dict], records: list[dict[str, Any]]) -> None:
    """Fail each finding's clause (in scope and selected only: an unselected clause is not
    judged), its evidence the finding's message."""
    for record in records:
        if record["type"] != "history_finding":
            continue
        row = statuses.get(record["clause"])
        if row is None or not row["in_scope"]:  # unselected (--clauses) rows are out of scope
            continue
        row.pop("reason", None)
        row.pop("not_testable", None)
        row["status"] = "failed"
        row.setdefault("failed_checks", []).append(record["message"])
        checks = row["checks"]
        checks["ran"] += 1
        checks["first_failure"] = checks.get("first_failure") or record["message"]
        checks["in_scenarios"]["the round history read after the run"] = (
            checks["in_scenarios"].get("the round history read after the run", 0) + 1
        )
