"""Bet record operators: a round missing from a player's record, or its balances shifted."""

from dataclasses import replace

from livecert.adapters.model import BetRecord, HistoryPage, PlayerHandle
from livecert.harness.mutants.mutation import Mutation
from livecert.harness.mutants.registry import clauses_in, operator

RECORD = ("TBL-DISC-03", "REG-RECALL-01")


@operator(
    "record-row-dropped",
    family="records",
    summary="the bet record leaves out the player's latest round and its bets",
    validates=clauses_in(*RECORD),
    declares=lambda clause: RECORD,  # the bets' details and the round's record, both gone
)
class RecordRowDropped(Mutation):
    def record(self, player: PlayerHandle, record: BetRecord) -> BetRecord:
        if not record.rounds:
            return record
        dropped = record.rounds[-1].round_id
        self.altered(f"{player.player_id}'s bet record shown without round {dropped}")
        return replace(
            record,
            rounds=record.rounds[:-1],
            bets=tuple(b for b in record.bets if b.round_id != dropped),
        )


@operator(
    "record-balances-shifted",
    family="records",
    summary="the bet record's balance before and after each round one minor unit off",
    # the record's balances are REG-RECALL-01's ("the balance before and after"), not
    # TBL-DISC-03's (the bets' details): a validation on the reference showed it
    validates=clauses_in("REG-RECALL-01"),
)
class RecordBalancesShifted(Mutation):
    def record(self, player: PlayerHandle, record: BetRecord) -> BetRecord:
        if not record.rounds:
            return record
        unit = self.unit
        rows = tuple(
            replace(
                row,
                balance_before=row.balance_before + unit,
                balance_after=None if row.balance_after is None else row.balance_after + unit,
            )
            for row in record.rounds
        )
        self.altered(f"{player.player_id}'s bet record shown with every balance {unit} more")
        return replace(record, rounds=rows)


@operator(
    "statistics-round-dropped",
    family="records",
    summary="the statistics chart leaves out one of the rounds it must show",
    validates=clauses_in("SB-STAT-01"),
)
class StatisticsRoundDropped(Mutation):
    def statistics(self, table_id: str, rows: list[dict]) -> list[dict]:
        if not rows:
            return rows
        self.altered(f"the statistics chart of table {table_id} shown without its first row")
        return rows[1:]


@operator(
    "history-round-repeated",
    family="records",
    summary="each page of the table's round history shows its first round twice",
    # the history is the table's record of its rounds, judged on REG-RECALL-01 (history_judge.py)
    validates=clauses_in("REG-RECALL-01"),
)
class HistoryRoundRepeated(Mutation):
    def history(self, table_id: str, page: HistoryPage) -> HistoryPage:
        if not page.rounds:
            return page
        first = page.rounds[0]
        self.altered(f"a page of table {table_id}'s round history shows {first.round_id} twice")
        return replace(page, rounds=(first, *page.rounds))


# what a shown result derives, per game: the fields a miscount alters (history_judge.py)
DERIVED = {"SB-GEN-01": ("total",), "XD-GEN-01": ("red", "white")}


@operator(
    "history-result-miscounted",
    family="records",
    summary="the round history's results derive otherwise than their dice or tokens (a Sic Bo "
    "total one more; a Xoc Dia count of one more red, one fewer white)",
    # what a result derives is the game's own clause, judged against the dice or tokens shown
    validates=clauses_in(*DERIVED),
)
class HistoryResultMiscounted(Mutation):
    def history(self, table_id: str, page: HistoryPage) -> HistoryPage:
        fields = DERIVED[self.clause]
        rounds = []
        for entry in page.rounds:
            result = entry.result
            if isinstance(result, dict) and all(isinstance(result.get(f), int) for f in fields):
                moved = {fields[0]: result[fields[0]] + 1}
                if len(fields) > 1:
                    moved[fields[1]] = result[fields[1]] - 1
                self.altered(f"round {entry.round_id} of the history shown with {moved}")
                entry = replace(entry, result={**result, **moved})
            rounds.append(entry)
        return replace(page, rounds=tuple(rounds))
