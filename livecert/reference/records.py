"""What the service keeps on show: the table's statistics chart and the player's bet record."""

from __future__ import annotations

import json

from livecert.reference.base import Identity, ServicePart
from livecert.reference.errors import not_found
from livecert.reference.games import GAMES
from livecert.reference.rounds import FINISHED
from livecert.reference.views import Json, _bet_view, _money, iso

STATISTICS_DEPTH = 50
FAULTY_STATISTICS_DEPTH = 30  # FAULT statistics-30-rounds


class Records(ServicePart):
    """The statistics chart (SB-STAT-01) and the bet record (REG-RECALL-01)."""

    def statistics(self, ident: Identity, tid: str) -> Json:
        with self.store.reading():
            table = self.store.table(tid)
            if table is None:
                raise not_found(f"no table {tid!r}")
            game = GAMES[table["game"]]
            depth = STATISTICS_DEPTH
            if "statistics-30-rounds" in self.faults:
                depth = FAULTY_STATISTICS_DEPTH  # FAULT statistics-30-rounds
            if "statistics-includes-cancelled" in self.faults:
                # FAULT statistics-includes-cancelled: cancelled and void rounds take chart places
                finished = self.store.finished_rounds(tid, depth)
                rows = [row for row in finished if row["state"] == "settled"]
            else:
                rows = self.store.settled_rounds(tid, depth)
        if "statistics-oldest-first" in self.faults:
            rows = list(reversed(rows))  # FAULT statistics-oldest-first
        results = [
            {
                "round_id": row["id"],
                "settled_at": iso(row["settled_at"]),
                "result": game.result_view(tuple(json.loads(row["result"])), self.faults),
            }
            for row in rows
        ]
        return {"table_id": tid, "game": table["game"], "results": results}

    def bet_record(self, ident: Identity, round_id: str | None) -> Json:
        """The player's bets and, per round they bet in, the round's record (REG-RECALL-01)."""
        self.require(ident, "player")
        pid = ident.player_id
        assert pid is not None
        hide = "record-missing-stake" in self.faults  # FAULT record-missing-stake
        with self.store.reading():
            if "record-shows-other-players" in self.faults:
                rows = self.store.all_bets(round_id)  # FAULT record-shows-other-players
            else:
                rows = self.store.bets_of_player(pid, round_id)
            records = self.store.record_rounds(pid, round_id)
            wrong_back = self._round_rounds_back(pid)  # FAULT record-balance-wrong-rounds-back
        now = self.now()
        rounds = []
        for rec in records:
            state = self._state(rec, now)
            finished = state in FINISHED
            result = None
            if rec["result"] is not None:
                game = GAMES[rec["game"]]
                result = game.result_view(tuple(json.loads(rec["result"])), self.faults)
            after = rec["balance_after"] if finished else None
            if after is not None and "record-balance-after-wrong" in self.faults:
                after = rec["balance_before"]  # FAULT record-balance-after-wrong
            if after is not None and rec["round_id"] == wrong_back:
                after += 100  # FAULT record-balance-wrong-rounds-back: one unit too much
            above = "record-wrong-above-stake" in self.faults
            if (
                above
                and after is not None
                and rec["staked"] >= self.faults.money("record-wrong-above-stake")
            ):
                after += 1  # FAULT record-wrong-above-stake: a cent too much
            rounds.append(
                {
                    "round_id": rec["round_id"],
                    "table_id": rec["table_id"],
                    "game": rec["game"],
                    "state": state,
                    "opened_at": iso(rec["opened_at"]),
                    "finished_at": iso(rec["finished_at"]) if finished else None,
                    "result": result,
                    "staked": _money(0 if hide else rec["staked"]),
                    "returned": _money(rec["returned"]) if finished else None,
                    "balance_before": _money(rec["balance_before"]),
                    "balance_after": _money(after),
                }
            )
        if "record-missing-balance-after" in self.faults:
            for entry in rounds:
                del entry["balance_after"]  # FAULT record-missing-balance-after
        return {
            "player_id": pid,
            "bets": [_bet_view(row, hide_stake=hide) for row in rows],
            "rounds": rounds,
        }

    def _round_rounds_back(self, pid: str) -> str | None:
        """The round whose balances the record-balance-wrong-rounds-back fault writes wrong: the
        player's finished round N rounds before their newest finished one (N its parameter)."""
        if "record-balance-wrong-rounds-back" not in self.faults:
            return None
        depth = self.faults.number("record-balance-wrong-rounds-back")
        now = self.now()
        finished = [
            rec["round_id"]
            for rec in self.store.record_rounds(pid)
            if self._state(rec, now) in FINISHED
        ]
        return finished[depth] if depth < len(finished) else None
