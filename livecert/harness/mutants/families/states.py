"""Round state operators: the state a dealer's action leaves shown otherwise.

A table whose pause, resume, cancel or void does not take, or whose betting stays open after the
dealer closed it or opens again on a resume, shows it in the round's state; the mutant shows
that state in the action's answer and in every read of the round after it, until the round
moves on (its state changes again at the target).
"""

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from livecert.adapters.model import BetView, PlayerHandle, RoundView
from livecert.harness.mutants.mutation import Mutation
from livecert.harness.mutants.registry import clauses_in, operator
from livecert.harness.mutants.settled import BetsGone

ACTIONS = ("pause", "resume", "cancel", "void")
# the clauses whose scenarios judge the state a dealer's action leaves
BY_ACTION = ("TBL-MAL-01", "TBL-MAL-02", "TBL-MAL-03")


class ShownState(Mutation):
    """After the operations `takes`, the round's state shown as `shown(before, after)`."""

    takes: tuple[str, ...] = ()

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self._lock = threading.Lock()
        self.last: dict[str, str] = {}  # round: the state the target last showed
        self.held: dict[str, tuple[str, str]] = {}  # round: (the state the target shows, shown)

    def shown(self, before: str | None, after: str) -> str | None:
        raise NotImplementedError

    def round(self, operation: str, view: RoundView) -> RoundView:
        with self._lock:
            before = self.last.get(view.round_id)
            self.last[view.round_id] = view.state
            if operation in self.takes:
                shown = self.shown(before, view.state)
                if shown is not None and shown != view.state:
                    self.held[view.round_id] = (view.state, shown)
            held = self.held.get(view.round_id)
            if held is not None and held[0] != view.state:  # the round moved on at the target
                del self.held[view.round_id]
                held = None
        if held is None:
            return view
        self.altered(
            f"round {view.round_id} ({operation}) in state {view.state!r} shown {held[1]!r}"
        )
        return replace(view, state=held[1])


@operator(
    "action-not-taken",
    family="states",
    summary="a dealer's pause, resume, cancel or void leaves the round's state as it was",
    validates=clauses_in(*BY_ACTION),
    # a pause not taken is seen again at the resume, a cancel not taken at the restart's
    # refund: the fault breaks the malfunction clauses together, and an interrupted round's
    declares=lambda clause: (*BY_ACTION, "REG-INTR-01"),
)
class ActionNotTaken(ShownState):
    takes = (*(f"dealer_action:{a}" for a in ACTIONS), "record_event:bowl-touched-token")

    def shown(self, before: str | None, after: str) -> str | None:
        return before


@operator(
    "resume-reopens-betting",
    family="states",
    summary="a round resumed after betting closed shows betting open again",
    # betting reopened is the betting window's finding and REG-COMMIT-01's, not the resume's
    # (steps/rounds.py): aimed at the window, run on the scenarios that pause and resume too
    validates=clauses_in("SB-RND-01", "XD-RND-01"),
    declares=lambda clause: (clause, "REG-COMMIT-01"),
    scope=lambda clause: (clause, "TBL-MAL-02"),
)
class ResumeReopensBetting(ShownState):
    takes = ("dealer_action:resume",)

    def shown(self, before: str | None, after: str) -> str | None:
        return "betting" if after == "closed" else None


@operator(
    "close-leaves-betting-open",
    family="states",
    summary="betting still shown open after the dealer closed it",
    # (a scenario of SB-RND-03 closes betting too, but the state it leaves is SB-RND-01's and
    # REG-COMMIT-01's, which such a scenario is not tagged with: see tests/README.md)
    validates=clauses_in("SB-RND-01", "XD-RND-01", "REG-COMMIT-01"),
    # betting open after the close breaks the window, the commitment, and in Sic Bo the bets'
    # standing through the shake that follows the close (SB-RND-04)
    declares=lambda clause: ("SB-RND-01", "XD-RND-01", "REG-COMMIT-01", "SB-RND-04"),
)
class CloseLeavesBettingOpen(ShownState):
    takes = ("close_betting",)

    def shown(self, before: str | None, after: str) -> str | None:
        return "betting" if after == "closed" else None


# the clauses whose scenarios re-shake or rearrange with bets on the table: the bets stay
RESHAKES = ("SB-RND-05", "SB-RND-06", "XD-RND-02", "XD-RND-03", "XD-RND-04")


@operator(
    "reshake-drops-bets",
    family="states",
    summary="a re-shake or a rearrangement drops the round's bets (their stakes returned)",
    validates=clauses_in(*RESHAKES),
    # bets dropped on a re-shake break the re-shake's clause, SB-RND-04 (no bet withdrawn or
    # cancelled, also not on a re-shake) and the money's conservation (stakes back unbidden)
    declares=lambda clause: (clause, "SB-RND-04", "REG-MONEY-01"),
)
class ReshakeDropsBets(BetsGone):
    gone_as = "dropped"

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.placed: dict[str, list[BetView]] = {}  # round: the bets taken in it
        self.reshaken: set[str] = set()  # the rounds whose bets were dropped

    def bets_placed(
        self, player: PlayerHandle, round_id: str, bets: Sequence[Any], views: list[BetView]
    ) -> list[BetView]:
        with self.lock:
            self.placed.setdefault(round_id, []).extend(views)
        return views

    def round(self, operation: str, view: RoundView) -> RoundView:
        """The bets taken before a re-shake or rearrangement (a dealer's answer may show none)
        are gone from then on."""
        if operation in ("record_reshake", "record_event:rearrange"):
            with self.lock:
                first = view.round_id not in self.reshaken
                self.reshaken.add(view.round_id)
                taken = list(self.placed.get(view.round_id, ()))
            if first:
                self.forget([*taken, *view.bets])
        return super().round(operation, view)


@operator(
    "shake-not-kept",
    family="states",
    summary="the round forgets the dealer's shake: it is no longer among the round's events",
    # SB-RND-03: when betting ends the dealer shakes, and the round keeps the shake
    validates=clauses_in("SB-RND-03"),
)
class ShakeNotKept(Mutation):
    def round(self, operation: str, view: RoundView) -> RoundView:
        if not view.events:
            return view
        kept = tuple(e for e in view.events if e.get("type") != "shake")
        if len(kept) == len(view.events):
            return view
        self.altered(f"round {view.round_id} ({operation}) shown without the dealer's shake")
        return replace(view, events=kept)
