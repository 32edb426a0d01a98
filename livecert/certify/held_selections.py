"""The selections the run held back in its first moments, as "mapping or target" (the run's
`selections_held` record): a code of the mapping refused where it must win, or never winning at
a target that takes codes it cannot know, may be the mapping's mistake as well as the target's
fault. No scenario bet on it; its clauses and the duties over every selection cannot pass on
the rest, so each passed one is shown not tested, with the reason and the probe command that
tells which. A clause that failed keeps its failure: the held code made none of its checks.
"""

from typing import Any


def hold_clauses(
    statuses: dict[str, dict], records: list[dict[str, Any]], games: tuple[str, ...]
) -> list[str]:
    """Each held clause of the run's `games`, in scope, shown not tested (passed or not: the
    reason replaces "does not offer", which would blame the target); the verdict's reasons,
    one a held code, and the games whose selections were not tried."""
    said = []
    for record in records:
        if record["type"] != "selections_held":
            continue
        for game, clauses in record["clauses"].items():
            if game not in games:
                continue
            for clause, reason in clauses.items():
                row = statuses.get(clause)
                if row is None or not row["in_scope"] or row["status"] == "failed":
                    continue
                row["status"], row["reason"] = "not-tested", reason
                row.pop("not_testable", None)
            said += list(record["held"].get(game, {}).values())
        said += [f"selections not tried before the run: {n}" for n in record.get("notes", [])]
    return said
