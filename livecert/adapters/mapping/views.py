"""A target's answers, read into fields (reading.py), made the harness's views: a bet with
the amounts the target did not give derived from those it did, a round (remembered), a
player's bet record. A bet or a record that names no round or player leaves it unnamed (empty,
never "None"); a player's own record that names none is the player's."""

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.model import BetRecord, BetView, PlayerHandle, RecordRound, RoundView
from livecert.rules.money import round_to_minor


def _outcome_of(returned: Decimal, stake: Decimal) -> str | None:
    """A bet's outcome from what it returned, for a target that reports only amounts: nothing
    back is a loss, the stake back a refund, more a win; anything between says nothing."""
    if returned == 0:
        return "lose"
    if returned == stake:
        return "refund"
    return "win" if returned > stake else None


def multiplied(stake: Decimal, multiplier: Decimal, minor_unit: int, rounding: str) -> Decimal:
    """The amount a settlement written as a multiplier stands for: the stake times it, in
    whole minor units under the declared rounding (the text says the odds, not the fraction's
    fate: where it falls between minor units the bet carries its exact win, and only its odds
    are judged there; the balance shows the rounding)."""
    return round_to_minor(Fraction(stake * multiplier), minor_unit, rounding)


class Views:
    """The views of Reader's fields: needs its `slip_stakes`, `slip_bets`, `minor_unit`,
    `rounding`, `_settled_by_balance`, `rounds_seen` and `round_games`."""

    slip_stakes: dict[str, Decimal]
    slip_bets: tuple[tuple[str, Decimal | None], ...]
    minor_unit: int
    rounding: str
    instant_result: tuple | None
    rounds_seen: set[str]
    round_games: dict[str, str]

    def _settled_by_balance(self, name: str | None) -> bool:
        raise NotImplementedError

    def bet(self, fields: dict) -> BetView:
        """A bet, with the amount the target did not give derived from the one it did."""
        stake, outcome = fields.get("stake"), fields.get("outcome")
        selection = fields.get("selection")
        index = fields.get("slip_index")  # settlements listed in the slip's order
        if index is not None:
            code, sent = self._in_order(index, selection)
            selection = code if selection is None else selection
            stake = sent if stake is None else stake
        if stake is None:  # the target names the bet, not its stake: the slip's
            stake = self.slip_stakes.get(selection)
        win, returned = fields.get("win"), fields.get("returned")
        exact_win = None  # a multiple's win, where it falls between minor units
        if stake is not None:  # a settlement written as a multiple of the stake
            times = fields.get("win_multiplier")
            if win is None and times is not None:
                win = multiplied(stake, times, self.minor_unit, self.rounding)
                exact_win = stake * times if win != stake * times else None
            times = fields.get("return_multiplier")
            if returned is None and times is not None:
                returned = multiplied(stake, times, self.minor_unit, self.rounding)
                exact = stake * times
                exact_win = exact - stake if returned != exact else None
        net = fields.get("net")
        if net is not None and returned is None and stake is not None:
            returned = stake + net
        said = "outcome" in fields  # else inferred from the amounts, and not judged
        if not said and outcome is None and win is not None and win > 0:
            outcome = "win"  # no outcome read, and a net win: a win (a zero win says nothing)
        if returned is None and win is not None and stake is not None:
            returned = {"win": stake + win, "refund": stake, "lose": Decimal(0)}.get(outcome)
        if not said and returned is not None and stake is not None:
            outcome = _outcome_of(returned, stake)  # the mapping reads no outcome: the amount's
        settled = fields.get("status") not in (None, "open")
        lenient = self._settled_by_balance(None)  # the settlement comes from the balance
        if not said and outcome is None and returned is None and settled and not lenient:
            raise MappingAnswerError(
                "read a bet",
                "shapes.bet",
                "the mapping reads neither the bet's outcome nor what it returned, and a win of "
                f"{win} does not tell a loss from a refund: read its outcome, returned or net",
                repr(fields),
            )
        if win is None and returned is not None and stake is not None:
            win = returned - stake if outcome == "win" else Decimal(0)
        return BetView(
            bet_id=_named(fields, "bet_id"),  # a bet the answer names no id for: empty
            round_id=_named(fields, "round_id"),  # a bet naming none is unnamed, not "None"
            player_id=_named(fields, "player_id"),
            selection=selection,
            stake=stake,
            status=fields.get("status"),
            outcome=outcome,
            win=win,
            returned=returned,
            outcome_read=said or outcome is None,
            exact_win=exact_win,
        )

    def _status_of(self, bet: dict, round_fields: dict) -> dict:
        """An instant round's bet whose shape reads no status (a settlement text) is as
        settled as the round the one request played and settled; a live round's bet that
        says no status stays unread (its settlement is judged, never assumed)."""
        if "status" in bet or self.instant_result is None:
            return bet
        if round_fields.get("state") != "settled":
            return bet
        return {**bet, "status": "settled"}

    def _in_order(self, index: int, selection: str | None) -> tuple[str, Decimal | None]:
        """The slip's bet at `index`, for the settlement at that place (`match: order`); a
        settlement past the slip's end, or naming another selection than the bet there, shows
        the answer is not in the slip's order: the mapping's assumption, not the target's
        finding."""
        slip = self.slip_bets
        problem = ""
        if not slip:
            problem = "settlements matched by order (match: order) outside an instant round"
        elif index >= len(slip):
            problem = f"settlement {index + 1} of a slip of {len(slip)} bet(s)"
        elif selection is not None and selection != slip[index][0]:
            problem = (
                f"settlement {index + 1} names {selection}, the slip's bet {index + 1} is on "
                f"{slip[index][0]}: the answer is not in the slip's order (use match: selection)"
            )
        if problem:
            raise MappingAnswerError("read a bet", "match: order", problem, "")
        return slip[index]

    def round(self, fields: dict) -> RoundView:
        """A round, remembered (its game, and that the run has met it)."""
        round_id = _named(fields, "round_id")  # an instant round the answer names no id for
        self.rounds_seen.add(round_id)
        if fields.get("game"):
            self.round_games[round_id] = fields["game"]
        return RoundView(
            round_id=round_id,
            table_id=str(fields.get("table_id")),
            game=fields.get("game") or self.round_games.get(round_id, ""),
            state=fields.get("state"),
            result=fields.get("result"),
            bets=tuple(self.bet(self._status_of(b, fields)) for b in fields.get("bets") or []),
            events=tuple(fields.get("events") or []),
            opened_at=fields.get("opened_at"),
            betting_ends_at=fields.get("betting_ends_at"),
        )

    def round_or_none(self, fields: Any) -> RoundView | None:
        """The round an answer shows, or None when it shows none yet (a table between rounds)."""
        if not isinstance(fields, dict) or fields.get("round_id") in (None, ""):
            return None
        return self.round(fields)

    def record(self, fields: dict, player: PlayerHandle) -> BetRecord:
        """A player's bet record: their bets, and per round what was staked and the balances."""
        rounds = tuple(
            RecordRound(
                round_id=str(r.get("round_id")),
                game=r.get("game"),
                state=r.get("state"),
                result=r.get("result"),
                staked=r.get("staked"),
                returned=r.get("returned"),
                balance_before=r.get("balance_before"),
                balance_after=r.get("balance_after"),
            )
            for r in fields.get("rounds") or []
        )
        # a record read with the player's own credentials ("your history") that names no
        # player is theirs: the one it names at its top, else the caller; a player a bet does
        # name stays as named, to be compared with the one asked
        owner = _named(fields, "player_id") or player.player_id
        bets = tuple(
            bet if bet.player_id else replace(bet, player_id=owner)
            for bet in (self.bet(b) for b in fields.get("bets") or [])
        )
        return BetRecord(owner, bets, rounds)


def _named(fields: dict, key: str) -> str:
    """The id an answer names at `key`, or "" where it names none (never "None")."""
    value = fields.get(key)
    return "" if value is None else str(value)
