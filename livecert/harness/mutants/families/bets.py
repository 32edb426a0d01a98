"""Bet operators: a refused bet shown taken, and a taken bet shown refused.

Either keeps the rest of what the harness reads consistent with the fault: a bet shown taken is
in its round and its stake is gone from the balance; a bet shown refused is in no round and moved
no money.
"""

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any

from livecert.adapters.errors import Refused
from livecert.adapters.model import BetView, PlayerHandle, RoundView
from livecert.harness.mutants.mutation import with_bets
from livecert.harness.mutants.registry import clauses_in, operator
from livecert.harness.mutants.settled import BetsGone, StakesTaken
from livecert.rules.paytable import load_paytable

# the clauses whose scenarios send what must be refused: a bet after betting closed (the round
# clauses, REG-COMMIT-01), bad input, a stake outside the declared limits, a slip over the balance
REFUSING = ("SB-RND-01", "XD-RND-01", "REG-COMMIT-01", "REG-INPUT-01", "REG-LIMIT-01")
# what a table that takes what it must refuse breaks: the clause that demanded the refusal,
# the betting window and the commitment duty, no balance below zero (a slip over it taken), and
# money conserved: a bet shown taken that the table never settles leaves its stake unaccounted
# for, where a session's model of the wallet meets one (at a clock table, whose close comes
# when it will)
REFUSED_BREAKS = (*REFUSING, "REG-BAL-01", "REG-MONEY-01")
# the clauses whose scenarios send what must be taken: a bet inside the countdown, at a limit,
# several bets of several types in one round
TAKING = ("SB-RND-01", "XD-RND-01", "REG-LIMIT-01", "SB-RND-02")


def taken_breaks() -> tuple[str, ...]:
    """What a table that refuses what it must take breaks: the clauses that demand it taken,
    and every paytable row whose bets it then never settles."""
    rows = [row for game in ("sicbo", "xocdia") for row in load_paytable(game).family_clauses()]
    return (*TAKING, *rows)


def _stake(value: Any) -> Decimal | None:
    if isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


@operator(
    "refused-shown-taken",
    family="bets",
    summary="a bet the table must refuse is taken (its stake leaves the balance)",
    validates=clauses_in(*REFUSING),
    declares=lambda clause: REFUSED_BREAKS,
)
class RefusedShownTaken(StakesTaken):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.taken: dict[str, list[BetView]] = {}  # round id: the bets shown taken
        self.made = 0  # bets made up so far (their ids distinct)

    def bets_refused(
        self, player: PlayerHandle, round_id: str, bets: Sequence[Any], refusal: Refused
    ) -> list[BetView] | None:
        stakes = [_stake(stake) for _, stake in bets]
        if not bets or any(s is None or not s.is_finite() for s in stakes):
            return None  # a slip that names no amount cannot be shown taken
        with self.lock:
            self.made += 1
            views = [
                BetView(
                    f"mutant-{self.made}-{n}",
                    round_id,
                    player.player_id,
                    str(code),
                    stake,
                    "open",
                    None,
                    None,
                    None,
                )
                for n, ((code, _), stake) in enumerate(zip(bets, stakes, strict=True))
                if stake is not None
            ]
            self.taken.setdefault(round_id, []).extend(views)
        self.took(player.player_id, views)
        self.altered(f"a slip of {len(views)} bet(s) refused ({refusal.code}) shown taken")
        return views

    def round_refused(
        self,
        player: PlayerHandle,
        table_id: str,
        bets: Sequence[Any],
        outcome: Sequence[Any],
        refusal: Refused,
    ) -> RoundView | None:
        """An instant round refused, shown played: its bets taken and lost (their stakes gone
        from the balance), at the table and on the result asked."""
        views = self.bets_refused(player, "", bets, refusal)
        if views is None:
            return None
        lost = [replace(v, status="settled", outcome="lose", win=Decimal(0),
                        returned=Decimal(0)) for v in views]  # fmt: skip
        dice = all(isinstance(o, int) for o in outcome)
        result = {"dice" if dice else "tokens": list(outcome)}
        game = "sicbo" if dice else "xocdia"
        return RoundView(f"mutant-round-{self.made}", table_id, game, "settled", result,
                         tuple(lost))  # fmt: skip

    def round(self, operation: str, view: RoundView) -> RoundView:
        with self.lock:
            extra = list(self.taken.get(view.round_id, ()))
        if not extra:
            return view
        self.altered(f"round {view.round_id} shown with {len(extra)} bet(s) it refused")
        return with_bets(view, [*view.bets, *extra])


@operator(
    "taken-shown-refused",
    family="bets",
    summary="a bet the table must take is refused (nothing moves)",
    validates=clauses_in(*TAKING),
    declares=lambda clause: taken_breaks(),
)
class TakenShownRefused(BetsGone):
    gone_as = "shown refused"

    def bets_placed(
        self, player: PlayerHandle, round_id: str, bets: Sequence[Any], views: list[BetView]
    ) -> list[BetView]:
        self.forget(views)
        self.altered(f"a slip of {len(views)} bet(s) taken shown refused")
        raise Refused("place bets", 409, "betting_closed", "refused by the validation mutant")


@operator(
    "withdrawal-taken",
    family="bets",
    summary="a placed bet is withdrawn (its stake back) where bets may not be withdrawn",
    validates=clauses_in("SB-RND-04"),
)
class WithdrawalTaken(BetsGone):
    gone_as = "withdrawn"

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.placed: dict[str, BetView] = {}  # bet id: the bet as its slip's answer showed it

    def bets_placed(
        self, player: PlayerHandle, round_id: str, bets: Sequence[Any], views: list[BetView]
    ) -> list[BetView]:
        with self.lock:
            self.placed.update({v.bet_id: v for v in views})
        return views

    def withdrawal_refused(self, player: PlayerHandle, bet_id: str, refusal: Refused) -> bool:
        with self.lock:
            placed = self.placed.get(bet_id)
        if placed is None:
            return False  # a bet never shown: its stake is not known
        self.forget([placed])
        self.altered(f"the withdrawal of bet {bet_id} refused ({refusal.code}) shown done")
        return True
