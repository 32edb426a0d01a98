"""Payout operators: a winning bet paid otherwise than its row says.

Aimed at a paytable clause (SB-PAY-05, XD-PAY-03, ...), a mutant alters only the winning bets of
that row's selections, wherever the bet shows (the result's answer, a round read, the bet
record), and carries the difference into the player's later balances and record, as a target
that really paid so would show it.
"""

from dataclasses import replace
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction

from livecert.adapters.model import BetView, RoundView
from livecert.harness.mutants.registry import operator
from livecert.harness.mutants.settled import ShownSettled
from livecert.rules.paytable import load_paytable

GAMES = {"SB-": "sicbo", "XD-": "xocdia"}


def game_of(clause: str) -> str | None:
    return next((g for prefix, g in GAMES.items() if clause.startswith(prefix)), None)


def is_paytable_row(clause: str) -> bool:
    """A clause that is a row of its game's paytable."""
    game = game_of(clause)
    return game is not None and clause in load_paytable(game).family_clauses()


SETTLE = "REG-SETTLE-01"  # every bet settled by the published rules, whatever its row
RTP_DUTY = "REG-RTP-01"  # each selection's measured return equals its theoretical one


def rtp_clauses() -> dict[str, str]:
    """Each game's maximum-RTP clause, and the duty of both: clause -> its game (None: both)."""
    return {load_paytable(g).rtp_clause: g for g in ("sicbo", "xocdia")} | {RTP_DUTY: ""}


def pays_otherwise(clause: str) -> bool:
    """A payout operator aims at a row, at the settlement duty, or at a return to player."""
    return is_paytable_row(clause) or clause == SETTLE or clause in rtp_clauses()


def payout_declares(clause: str) -> tuple[str, ...]:
    """A row's mutant fails the row and the settlement duty (a bet paid otherwise than its row
    says is not settled by the published rules); the duty's, the duty; a return to player's
    fails it with the rows it overpays and the settlement duty."""
    if clause == SETTLE:  # every row of both games paid otherwise
        rows = [row for g in ("sicbo", "xocdia") for row in load_paytable(g).family_clauses()]
        return (SETTLE, *rows)
    if clause not in rtp_clauses():
        return (clause, SETTLE)
    games = [rtp_clauses()[clause]] if rtp_clauses()[clause] else ["sicbo", "xocdia"]
    rows = [row for g in games for row in load_paytable(g).family_clauses()]
    own = [c for c, g in rtp_clauses().items() if g in games and c != RTP_DUTY]
    return tuple(dict.fromkeys((clause, *rows, *own, RTP_DUTY, SETTLE)))


def codes_of(clause: str) -> set[str]:
    """The selections a payout mutant aimed at `clause` pays otherwise: its row's; for the
    settlement duty and a return to player, every selection of the game(s) it covers."""
    game = game_of(clause) if is_paytable_row(clause) else rtp_clauses().get(clause, "")
    if is_paytable_row(clause):
        return {s.code for s in load_paytable(game or "").selections if s.clause == clause}
    games = [game] if game else ["sicbo", "xocdia"]
    return {s.code for g in games for s in load_paytable(g).selections}


class PaidOtherwise(ShownSettled):
    """A winning bet of the clause's row shown paid `paid(bet)` instead."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.codes = codes_of(self.clause)

    def paid(self, bet: BetView) -> Decimal | None:
        """The win the mutant shows for `bet`, or None to leave it."""
        raise NotImplementedError

    def _bet(self, bet: BetView) -> BetView:
        shown = self.shifts.shown(bet.bet_id)
        if shown is not None:
            return shown
        if (
            bet.selection not in self.codes
            or bet.status != "settled"
            or bet.win is None
            or bet.win <= 0
            or bet.returned is None
        ):
            return bet
        win = self.paid(bet)
        if win is None or win == bet.win:
            return bet
        difference = win - bet.win
        shown = replace(
            bet,
            win=win,
            returned=bet.returned + difference,
            exact_win=None if bet.exact_win is None else bet.exact_win + difference,
        )
        self.shifts.add(shown, difference)
        self.altered(f"bet {bet.bet_id} ({bet.selection}) won {bet.win}, shown as won {win}")
        return shown


@operator(
    "payout-unit-off",
    family="payouts",
    summary="a winning bet paid one minor unit more than its odds give",
    validates=pays_otherwise,
    declares=payout_declares,
)
class PayoutUnitOff(PaidOtherwise):
    def paid(self, bet: BetView) -> Decimal | None:
        assert bet.win is not None
        return bet.win + self.unit


@operator(
    "payout-other-odds",
    family="payouts",
    summary="a winning bet of the row paid at the odds of another row",
    validates=is_paytable_row,
    declares=payout_declares,
)
class PayoutOtherOdds(PaidOtherwise):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        game = game_of(self.clause)
        assert game is not None
        self.paytable = load_paytable(game)

    def paid(self, bet: BetView) -> Decimal | None:
        assert bet.win is not None
        own = Fraction(bet.win) / Fraction(bet.stake) if bet.stake else None
        other = self._other_odds(own)
        if other is None:
            return None
        exact = Fraction(bet.stake) * other
        return (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(
            self.unit, rounding=ROUND_DOWN
        )

    def _other_odds(self, own: Fraction | None) -> Fraction | None:
        """The odds of the next row after this one in the paytable (around its end) that pays
        other odds than the bet was paid."""
        rows = self.paytable.family_clauses()
        at = rows.index(self.clause)
        for clause in rows[at + 1 :] + rows[:at]:
            for selection in self.paytable.selections:
                if selection.clause != clause:
                    continue
                odds = min(selection.odds_by_count.values())
                if odds != own:
                    return odds
        return None


TRIPLE_LOSERS = ("SMALL", "BIG", "ODD", "EVEN")  # SB-PAY-16: these lose on a triple


@operator(
    "triple-loss-paid",
    family="payouts",
    summary="Small, Big, Odd or Even paid at 1:1 on a triple instead of losing",
    validates=lambda clause: clause == "SB-PAY-16",
    # a Small, Big, Odd or Even paid on a triple also breaks that selection's own row (a
    # sweep over every selection judges it there too) and the settlement duty
    declares=lambda clause: (clause, "SB-PAY-01", "SB-PAY-02", "SB-PAY-03", "SB-PAY-04", SETTLE),
)
class TripleLossPaid(PaidOtherwise):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.codes = set(TRIPLE_LOSERS)
        self.triples: set[str] = set()  # the rounds whose result is a triple

    def round(self, operation: str, view: RoundView) -> RoundView:
        dice = (view.result or {}).get("dice")
        if isinstance(dice, list) and len(dice) == 3 and len(set(dice)) == 1:
            with self.lock:
                self.triples.add(view.round_id)
        return super().round(operation, view)

    def _bet(self, bet: BetView) -> BetView:
        shown = self.shifts.shown(bet.bet_id)
        if shown is not None:
            return shown
        with self.lock:
            on_triple = bet.round_id in self.triples
        if not on_triple or bet.selection not in self.codes or bet.status != "settled":
            return bet
        if bet.win is None or bet.win != 0 or bet.returned is None:
            return bet
        shown = replace(bet, outcome="win", win=bet.stake, returned=bet.returned + 2 * bet.stake)
        self.shifts.add(shown, 2 * bet.stake)
        self.altered(f"bet {bet.bet_id} ({bet.selection}) lost on a triple, shown paid 1:1")
        return shown
