"""REG-FAIR-01 and REG-FAIR-02 in the certificate: judged from the outcome analyses of the run
(`--history`), never from scenarios; not applicable where no history was given.

A duty passes only where every game of the run had its history analysed and the duty's tests
held on enough outcomes; it fails where one of its tests failed, whatever else; otherwise it is
not tested, with the reason, and the verdict is incomplete.
"""

from typing import Any

from livecert.certify.scope import NO_HISTORY_REASON, OUTCOME_DUTIES

NOT_APPLICABLE = "not-applicable"
GAME_NAMES = {"sicbo": "Sic Bo", "xocdia": "Xoc Dia"}
LIMITATION_NONE = (
    "Randomness is not assessed: no outcome history was given (--history), and the harness "
    "enters every result itself, so the physical fairness of the dice, tokens, shaker and bowl, "
    "and any random number generator, need an evaluation of their own."
)


def limitation(analyses: list[dict], errors: list[str] = ()) -> str:  # type: ignore[assignment]
    """The certificate's line on randomness, as assessed by this run or not."""
    if not analyses and errors:
        return (
            "Randomness is not assessed: the outcome history asked for could not be read ("
            + "; ".join(errors)
            + "), so the fairness of the dice, tokens, shaker and bowl needs an evaluation "
            "of its own."
        )
    if not analyses:
        return LIMITATION_NONE
    read = "; ".join(
        f"{GAME_NAMES[a['game']]}: {a['rounds_tested']:,} rounds of {a['source']}" for a in analyses
    )
    return (
        f"Randomness is assessed only from the outcome history given ({read}): the lab battery "
        "at the 99% level with Holm's correction tests the outcomes recorded, not the device "
        "itself, and says nothing of rounds outside that history or of a random number "
        "generator."
    )


def _row_for(
    duty: str, analyses: list[dict], games: tuple[str, ...], errors: list[str]
) -> dict[str, Any]:
    by_game = {a["game"]: a for a in analyses}
    failed = [
        f"{GAME_NAMES[a['game']]}: {test}"
        for a in analyses
        for test in a["duties"][duty]["failed_tests"]
    ]
    tests = [t for a in analyses for t in a["tests"] if t["duty"] == duty]
    ran = [t for t in tests if "not_run" not in t]
    held = [t for t in ran if t.get("passed")]
    row: dict[str, Any] = {
        "scenarios": 0,
        "failed_scenarios": [],
        "scenario_names": [f"the outcome analysis of {a['source']}" for a in analyses],
        "checks": {
            "ran": len(ran),
            "held": len(held),
            "in_scenarios": {f"outcome analysis ({a['game']})": len(ran) for a in analyses},
            "sample": (
                f"{held[0]['name']} ({held[0]['part']}): Holm p {held[0]['adjusted_p']:.3g}"
                if held
                else None
            ),
            "first_failure": failed[0] if failed else None,
        },
    }
    if failed:
        row["status"], row["failed_checks"] = "failed", failed
        return row
    reasons = [f"the history could not be read: {e}" for e in errors]
    reasons += [
        f"no outcome history of {GAME_NAMES[g]} given" for g in games if g not in by_game
    ] + [
        f"{GAME_NAMES[a['game']]}: {a['duties'][duty]['reason']}"
        for a in analyses
        if a["duties"][duty]["status"] != "passed"
    ]
    if reasons:
        row["status"], row["reason"] = "not-tested", "; ".join(reasons)
    else:
        row["status"] = "passed"
    return row


def judge_outcome_duties(
    statuses: dict[str, dict],
    analyses: list[dict],
    games: tuple[str, ...],
    errors: list[str] = (),  # type: ignore[assignment]
) -> None:
    """Set REG-FAIR-01/02's rows from the analyses and the histories that could not be read
    (in scope and selected rows only)."""
    for duty in OUTCOME_DUTIES:
        row = statuses.get(duty)
        if row is None or not row["in_scope"]:  # not selected (--clauses): not judged
            continue
        if not analyses and not errors:
            row["status"], row["reason"] = NOT_APPLICABLE, NO_HISTORY_REASON
            continue
        row.pop("reason", None)
        row.update(_row_for(duty, analyses, games, list(errors)))
