"""The doctor's probe: one small round through every operation, each answer read as the
harness does."""

from collections.abc import Callable
from decimal import Decimal
from typing import NoReturn, TypeVar

from livecert.adapters import (
    AdapterError,
    BetView,
    PlayerHandle,
    Refused,
    RoundView,
    TargetAdapter,
    TargetError,
    TargetInfo,
)
from livecert.adapters.errors import MappingAnswerError, Unsupported
from livecert.adapters.mapping import MappingError
from livecert.certify.diagnosis import FAIL, OK, WARN, Diagnosis
from livecert.certify.probe_payouts import PayoutProbe
from livecert.contract import ContractViolation
from livecert.harness.dealer import open_round
from livecert.harness.stake_fit import stake_fit
from livecert.harness.sweep import instant, offered_codes
from livecert.rules import expected_settlement, load_paytable

PROBE_BALANCE = Decimal(100)
PROBE_STAKE = Decimal(1)
# per game: the selections the probe bets on, in order of preference (the first the target
# offers), and the result it enters: dice in no sorted order, tokens of both colours
PROBE_PLAY: dict[str, tuple[tuple[str, ...], tuple]] = {
    "sicbo": (("BIG", "SMALL", "ODD", "EVEN"), (6, 5, 4)),
    "xocdia": (("ODD", "EVEN", "BIG", "SMALL"), ("r", "w", "r", "r")),
}
OUTCOMES = ("win", "lose", "refund")
ANSWERS_ADVICE = (
    "the mapping does not fit this answer: fix the path or shape it names (docs/mapping.md, "
    '"Answers"), or check what the target answers there'
)
T = TypeVar("T")


def _named(what: str, id_: str | None) -> str:
    """ "round r1", or "the round" where the answer names none (an instant round may not)."""
    return f"{what} {id_}" if id_ else f"the {what}"


class _Stop(Exception):
    """The probe of one game cannot go on (the line that says why is written)."""


class _Probe:
    """One game's probe: every check one line; the first failure ends it (_Stop)."""

    def __init__(
        self, adapter: TargetAdapter, info: TargetInfo, game: str, diagnosis: Diagnosis
    ) -> None:
        self.adapter, self.info, self.game, self.diagnosis = adapter, info, game, diagnosis
        unit = Decimal(1).scaleb(-info.minor_unit)
        fit = stake_fit(info.limits.get(game), load_paytable(game), info.minor_unit)
        stake = fit.twin(PROBE_STAKE.quantize(unit)) or PROBE_STAKE.quantize(unit)
        self.balance, self.stake = max(PROBE_BALANCE, 2 * stake).quantize(unit), stake
        self.preferred, self.outcome = PROBE_PLAY[game]
        self.shown = "-".join(str(o) for o in self.outcome)
        self.returned: Decimal | None = None  # what the settled bet reads it returned
        self.code = ""  # the selection the probe bets on: the first the target offers
        self.ids = True  # rounds and bets must read their ids (a live round's: certify needs them)

    def add(self, status: str, what: str, advice: str = "") -> None:
        self.diagnosis.add(status, f"probe {self.game}: {what}", advice)

    def fail(self, what: str, advice: str) -> NoReturn:
        self.add(FAIL, what, advice)
        raise _Stop

    def check(self, ok: bool, what: str, problem: str, advice: str, quiet: bool = False) -> None:
        """An OK line for `what` (none if `quiet`: a later line says it), or a FAIL line with
        the problem and what to fix."""
        if not ok:
            self.fail(problem, advice)
        if not quiet:
            self.add(OK, what)

    def step(self, what: str, action: Callable[[], T]) -> T:
        """`action`'s answer; when it raises, the line that says why, and _Stop."""
        try:
            return action()
        except (AdapterError, ContractViolation, MappingError) as error:
            self.failed(what, error)

    def failed(self, what: str, error: Exception) -> NoReturn:
        """A FAIL line for `error` with what to fix (a warning for what the adapter cannot
        express: not probed), and _Stop."""
        if isinstance(error, MappingAnswerError):
            self.fail(str(error), ANSWERS_ADVICE)
        if isinstance(error, MappingError):
            self.fail(f"{what}: {'; '.join(error.problems)}", "fix the mapping file")
        if isinstance(error, Unsupported):
            self.add(WARN, f"{what}: not probed: {error.reason}")
            raise _Stop
        if isinstance(error, Refused):
            advice = "check the request the adapter sends and the credentials of its role"
            self.fail(f"{what}: refused ({error.status} {error.code}): {error.message}", advice)
        if isinstance(error, ContractViolation):
            advice = "see livecert/contract/openapi.yaml"
            self.fail(f"{what}: the answer does not match the contract: {error.detail}", advice)
        detail = error.detail if isinstance(error, TargetError) else str(error)
        self.fail(f"{what}: {detail}", "check that the target runs and answers")

    def run(self) -> None:
        adapter, game = self.adapter, self.game
        player = self.step("create a player", lambda: adapter.create_player(self.balance))
        shown = self.step("read the balance", lambda: adapter.balance(player))
        self.check(
            bool(player.player_id) and shown == self.balance,
            f"created player {player.player_id}; the balance reads back {shown}",
            f"player {player.player_id!r} was created with {self.balance}; it reads {shown}",
            "check create_player's player_id and the money format of the balance (money, or "
            "the field's own money)",
        )
        table = self.step("create a table", lambda: adapter.create_table(game))
        codes = offered_codes(adapter, load_paytable(game))
        code = next((c for c in self.preferred if c in codes), codes[0] if codes else None)
        if code is None:
            self.add(WARN, "not probed further: the target offers no selection of this game")
            return
        self.code = code
        try:
            opened = open_round(adapter, game, table)
        except Unsupported as error:
            if not instant(adapter, self.info):
                self.failed("open a round", error)
            self.instant(player, table, codes)
            return
        except (AdapterError, ContractViolation, MappingError) as error:
            self.failed("open a round", error)
        self.live(player, opened, code)

    def instant(self, player: PlayerHandle, table: str, codes: list[str]) -> None:
        """The instant round read back, then the mapping checked against the target: every
        offered selection where it must win, the rounding of fractional payouts (what the
        balance shows) against the declared one; then the bet record, where there is one."""
        adapter, code, info = self.adapter, self.code, self.info
        play = adapter.play_round  # type: ignore[attr-defined]  # instant() checked it
        what = "play an instant round"
        view = self.step(what, lambda: play(player, table, [(code, self.stake)], self.outcome))
        self.ids = False  # certify finds an instant round's bets by their selection or place
        self.settled(view, what, next((b for b in view.bets if b.selection == code), None))
        after = self.step("read the balance", lambda: adapter.balance(player))
        from_balance = getattr(adapter, "settles_from_balance", None)
        payouts = PayoutProbe(
            adapter, load_paytable(self.game), player, table, self.stake,
            bool(from_balance and from_balance("play_round")), play, self.add,
        )  # fmt: skip
        wrong = self.step(
            "play each selection where it must win", lambda: payouts.selections(codes)
        )
        if not wrong:
            self.add(OK, f"each of the {len(codes)} selections offered won where it must")
        limits = info.limits.get(self.game)
        self.step(
            "probe the rounding",
            lambda: payouts.rounding(info.rounding, info.minor_unit, limits),
        )
        if view.round_id:  # the first round's record, and the balance after it
            self.record(player, view.round_id, after)

    def live(self, player: PlayerHandle, opened: RoundView, code: str) -> None:
        adapter, round_id = self.adapter, opened.round_id
        self.state(opened, "betting", "open a round")
        what = f"place {self.stake} on {code}"
        placed = self.step(what, lambda: adapter.place_bets(player, round_id, [(code, self.stake)]))
        self.bet(placed[0] if len(placed) == 1 else None, what, "open")
        self.state(self.step("close betting", lambda: adapter.close_betting(round_id)), "closed")
        entered = self.step(
            "enter the result", lambda: adapter.enter_result(round_id, self.outcome)
        )
        self.state(entered, "settled", f"enter {self.shown}")
        for reader, label in ((None, "read the round"), (player, "read the round as the player")):
            view = self.step(label, lambda reader=reader: adapter.get_round(round_id, reader))
            self.settled(
                view, label, next((b for b in view.bets if b.bet_id == placed[0].bet_id), None)
            )
        self.record(player, round_id)

    def state(
        self, view: RoundView, wanted: str, what: str = "close betting", quiet: bool = False
    ) -> None:
        self.check(
            (bool(view.round_id) or not self.ids) and view.state == wanted,
            f"{what}: {_named('round', view.round_id)} reads {wanted}",
            f"{what}: round {view.round_id!r} reads state {view.state!r}, not {wanted!r}",
            "translate the target's states into ours with a value table (values)",
            quiet,
        )

    def bet(self, bet: BetView | None, what: str, status: str, quiet: bool = False) -> BetView:
        """Check the bet reads back as placed (its id, our selection code, the stake) with
        `status`; answer it. A bet just placed may read no status at all (an acknowledgement
        that only lists the bets taken): certify needs none there, so neither does the probe;
        a settled bet's status is what certify judges its settlement by."""
        code = self.code
        shown = bet.status if bet is not None else None
        status_read = shown == status or (status == "open" and shown is None)
        self.check(
            bet is not None
            and (bool(bet.bet_id) or not self.ids)
            and (bet.selection, bet.stake) == (code, self.stake)
            and status_read,
            f"{what}: {_named('bet', bet and bet.bet_id)} reads {code}, {self.stake}, {status}",
            f"{what}: the bet reads {bet and (bet.bet_id, bet.selection, bet.stake, bet.status)}"
            f"; the probe placed {self.stake} on {code} and expects it {status}",
            "check the bet shape (bet_id, selection and the selections table, stake and its "
            "money format, status and its value table) and where the answer's bets are",
            quiet,
        )
        assert bet is not None
        return bet

    def settled(self, view: RoundView, what: str, bet: BetView | None) -> None:
        """Check a settled round reads back whole: its state, the result entered, the bet with
        its outcome and amounts. A settlement other than the rules' is only a warning: the run
        judges the target, the probe the mapping."""
        self.state(view, "settled", what, quiet=True)
        if self.game == "sicbo":
            expected: dict = {"dice": list(self.outcome), "total": sum(self.outcome)}
        else:
            red = self.outcome.count("r")
            expected = {"tokens": list(self.outcome), "red": red, "white": 4 - red}
        self.check(
            view.result == expected,
            f"{what}: {_named('round', view.round_id)} reads settled, with the result entered "
            f"({self.shown})",
            f"{what}: the result reads {view.result}; the probe entered {expected}",
            "check the round shape's result (its dice, total or tokens) and outcomes "
            "(dice_order, red, white)",
        )
        code = self.code
        bet = self.bet(bet, what, "settled", quiet=True)
        self.check(
            bet.outcome in OUTCOMES and None not in (bet.win, bet.returned),
            f"{what}: {_named('bet', bet.bet_id)} reads {code}, {self.stake}, settled: "
            f"{bet.outcome}, win "
            f"{bet.win}, returned {bet.returned}",
            f"{what}: the bet reads outcome {bet.outcome!r}, win {bet.win}, returned "
            f"{bet.returned}",
            "map the bet shape's outcome (win, lose or refund) and one of win, returned, net",
        )
        info = self.info
        due = expected_settlement(
            load_paytable(self.game), code, self.outcome, self.stake, info.minor_unit, info.rounding
        )
        if (bet.outcome, bet.returned) != (due.outcome, due.returned):
            self.add(
                WARN,
                f"{what}: the rules settle {code} on {self.shown} as {due.outcome} returning "
                f"{due.returned}; the bet reads {bet.outcome} returning {bet.returned}",
                "if the target is right, check the mapping's outcome values and what its "
                "amounts mean (win, returned or net); the run will judge the target",
            )
        self.returned = bet.returned

    def record(self, player: PlayerHandle, round_id: str, after: Decimal | None = None) -> None:
        """The round's bet record, and the balance right after it (`after`, where it was read
        then: more rounds were played since)."""
        record = self.step("read the bet record", lambda: self.adapter.bet_record(player, round_id))
        bets = [b for b in record.bets if b.round_id == round_id]
        shown = record.round(round_id)
        self.check(
            bool(bets)
            and shown is not None
            and (shown.staked, shown.balance_before) == (self.stake, self.balance),
            "the bet record reads back the bet, its stake and the balance before",
            f"the bet record reads {len(bets)} bet(s) of round {round_id} and {shown}; the probe "
            f"staked {self.stake} there from a balance of {self.balance}",
            "check the bet_record answer: its bets, its rounds (the record_round shape) and "
            "their money formats",
        )
        if after is None:
            after = self.step("read the balance", lambda: self.adapter.balance(player))
        due = self.balance - self.stake + (self.returned or 0)
        if self.returned is not None and after != due:
            self.add(
                WARN,
                f"the balance reads {after} after the round, not {due}",
                "check the balance's money format; the run will judge the target",
            )


def _probe(adapter: TargetAdapter, info: TargetInfo, diagnosis: Diagnosis) -> None:
    """Play one small round per game the target offers, each answer checked as it reads."""
    for game in [g for g in info.games if g in PROBE_PLAY]:
        try:
            _Probe(adapter, info, game, diagnosis).run()
        except _Stop:
            continue
