"""Contract-valid sample answers shared by the self-tests (info, a bet, a settled round), and
run-record lines for the certificate's tests."""

INFO = {
    "implementation": {"name": "fake", "version": "0"},
    "contract_version": "1.0.0",
    "games": ["sicbo"],
    "currency": "EUR",
    "minor_unit": 2,
    "rounding": "down",
    "max_rtp": {"sicbo": "97.22"},
    "capabilities": [],
}
BET = {
    "bet_id": "b1",
    "round_id": "r1",
    "player_id": "p1",
    "game": "sicbo",
    "selection": "SMALL",
    "stake": "1.00",
    "placed_at": "2026-11-29T19:33:25.123Z",
    "status": "settled",
    "outcome": "win",
    "win": "1.00",
    "returned": "2.00",
}
OPEN_BET = {**BET, "status": "open", "outcome": None, "win": None, "returned": None}
ROUND = {
    "round_id": "r1",
    "table_id": "t1",
    "game": "sicbo",
    "state": "settled",
    "opened_at": "2026-11-29T19:33:25.123Z",
    "betting_ends_at": "2026-11-29T19:33:26.123Z",
    "result": {"dice": [1, 2, 3], "total": 6},
    "events": [],
    "bets": [BET],
}


def held(count: int = 1) -> dict:
    """One clause's checks in a scenario: `count` ran and held."""
    return {"ran": count, "held": count, "failed": [], "sample": "held"}


def broke(count: int = 1, held_too: int = 0) -> dict:
    """One clause's checks in a scenario: `count` failed (and `held_too` held)."""
    return {
        "ran": count + held_too,
        "held": held_too,
        "failed": ["expected x, the target said y"] * count,
        "sample": "held" if held_too else None,
    }


def scenario(name: str, clauses: list[str], outcome: str = "passed", **extra) -> dict:
    """A run record's line for one Sic Bo scenario. Unless `checks` is given: a passed scenario
    held one check per tag (and the contract's: an answer validated, CONTRACT-01 and 02, and
    an identity check, CONTRACT-03); a failed one failed a check on each of its
    `failed_clauses` (all its tags when none are named) and judged nothing else."""
    if "checks" not in extra:
        if outcome == "passed":
            contract = ["CONTRACT-01", "CONTRACT-02", "CONTRACT-03"]
            extra["checks"] = {c: held() for c in [*clauses, *contract]}
        elif outcome == "failed" and not extra.get("contract_violation"):
            extra["checks"] = {c: broke() for c in extra.get("failed_clauses") or clauses}
        else:
            extra["checks"] = {}
    return {
        "type": "scenario",
        "nodeid": name,
        "name": name,
        "game": "sicbo",
        "clauses": clauses,
        "outcome": outcome,
        "failed_clauses": None,
        **extra,
    }
