"""The contract checker the reference tests rely on really rejects bad responses.

Server-side speed is measured by benchmarks/ (reported, not asserted).
"""

from __future__ import annotations

import jsonschema
import pytest
from reference_support import validate_schema


def test_contract_checker_is_not_vacuous() -> None:
    bet = {
        "bet_id": "b",
        "round_id": "r",
        "player_id": "p",
        "game": "sicbo",
        "selection": "SMALL",
        "stake": "1.00",
        "placed_at": "2026-11-29T19:33:25.123Z",
        "status": "open",
        "outcome": None,
        "win": None,
        "returned": None,
    }
    validate_schema("Bet", bet)
    for broken in (
        {**bet, "stake": 1},
        {**bet, "status": "pending"},
        {**bet, "placed_at": "yesterday"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            validate_schema("Bet", broken)
