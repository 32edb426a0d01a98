"""Interrupted games (REG-INTR-01, GLI-19 §4.16): kill the embedded reference server with SIGKILL
after bets are confirmed, start it again on the same database, and finish the round.

It needs the target restarted, which the harness can do only to the reference it runs itself, so
this is a self-test of the reference (used by tests/test_interrupted.py and `livecert selftest`).
"""

from decimal import Decimal
from pathlib import Path

from livecert.adapters import HttpAdapter, Refused
from livecert.harness.embedded import EmbeddedServer
from livecert.rules import expected_settlement, load_paytable

STAKES = {"BIG": Decimal("10.00"), "TOTAL_15": Decimal("5.00")}


def _adapter(server: EmbeddedServer) -> HttpAdapter:
    return HttpAdapter(server.url, server.operator_token, server.dealer_token)


def interrupt_and_finish(db: Path, finish: str, faults: tuple[str, ...] = ()) -> list[str]:
    """Bet, kill the server, restart it on the same file, finish the round; the problems found."""
    first = EmbeddedServer(db_path=db).start()
    adapter = _adapter(first)
    table = adapter.create_table("sicbo")
    player = adapter.create_player(Decimal("100.00"))
    round_id = adapter.open_round(table, countdown_ms=60_000).round_id
    placed = adapter.place_bets(player, round_id, list(STAKES.items()))
    adapter.close_betting(round_id)
    first.kill()
    second = EmbeddedServer(
        db_path=db,
        faults=faults,
        operator_token=first.operator_token,
        dealer_token=first.dealer_token,
    ).start()
    try:
        adapter = _adapter(second)
        problems = []
        try:
            kept = {b.bet_id: b for b in adapter.get_round(round_id, player).bets}
        except Refused as refused:
            return [f"the round did not survive the restart: {refused}"]
        for bet in placed:
            if kept.get(bet.bet_id) is None or kept[bet.bet_id].status != "open":
                problems.append(f"bet {bet.selection} of {bet.stake} did not survive the restart")
        if adapter.balance(player) != Decimal("85.00"):
            problems.append(f"the balance after the restart is {adapter.balance(player)}")
        if problems:
            return problems
        if finish == "result":
            settled = adapter.enter_result(round_id, (4, 5, 6))
            table_rules = load_paytable("sicbo")
            expected = (
                Decimal("100.00")
                - sum(STAKES.values())
                + sum(
                    expected_settlement(table_rules, code, (4, 5, 6), stake, 2, "down").returned
                    for code, stake in STAKES.items()
                )
            )
            states = {b.status for b in settled.bets}
        else:
            settled = adapter.dealer_action(round_id, "cancel", "server restarted")
            expected = Decimal("100.00")
            states = {b.status for b in settled.bets}
        balance = adapter.balance(player)
        if balance != expected:
            problems.append(f"after the {finish} the balance is {balance}, expected {expected}")
        if states != {"settled" if finish == "result" else "cancelled"}:
            problems.append(f"after the {finish} the bets are {states}")
        return problems
    finally:
        second.stop()
        first.stop()
