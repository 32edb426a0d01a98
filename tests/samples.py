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


def scenario(name: str, clauses: list[str], outcome: str = "passed", **extra) -> dict:
    """A run record's line for one Sic Bo scenario."""
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
