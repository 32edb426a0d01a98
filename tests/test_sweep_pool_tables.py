"""A sweep thread whose round failed leaves its table: the next round is played at a new one.

The contract allows one unfinished round per table. A round whose slip the target refused stays
open (the harness never repairs the target's state), so a thread that kept its table would have
every later round refused there: harness errors for rounds the target never failed.
"""

from decimal import Decimal

from livecert.adapters.errors import Refused
from livecert.adapters.evidence import ExchangeRecorder
from livecert.adapters.http import HttpAdapter
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.sweep_pool import SweepPool
from livecert.harness.vocabulary import paytable

XOCDIA = paytable("xocdia")
OUTCOMES = [("r", "r", "r", "r"), ("r", "r", "r", "w"), ("w", "w", "w", "w")]


class RefusesFirstSlip(HttpAdapter):
    """The reference, its first slip refused as a target could (the round left open)."""

    refused = False

    def place_bets(self, player, round_id, bets, idempotency_key=None):  # type: ignore[override]
        if not self.refused:
            self.refused = True
            raise Refused(f"place {len(bets)} bet(s)", 409, "ROUND_STATE", "not now")
        return super().place_bets(player, round_id, bets, idempotency_key)


def test_a_round_that_failed_leaves_its_table_and_the_next_rounds_are_played() -> None:
    with EmbeddedServer() as server:
        adapter = RefusesFirstSlip(server.url, server.operator_token, server.dealer_token)
        recorder: ExchangeRecorder = adapter.recorder
        pool = SweepPool(adapter, recorder, XOCDIA, adapter.info(), Decimal("1.00"), (), 1)
        try:
            pool.play(OUTCOMES)
            first, *rest = (pool.round_of(outcome) for outcome in OUTCOMES)
        finally:
            pool.stop()
            adapter.close()
    assert isinstance(first.bets.error, Refused)
    for played in rest:  # at a new table: opened, bet, closed and settled as the paytable says
        assert [step.error for step in played.steps()] == [None, None, None]
        assert not played.result.value.mismatches  # type: ignore[union-attr]
    made = [
        exchange.operation
        for played in (first, *rest)
        for step in played.steps()
        for exchange in step.exchanges  # each round's own evidence, its table's making too
        if exchange.operation == "create a xocdia table"
    ]
    assert len(made) == 2  # the first table, and one after the round left open on it
