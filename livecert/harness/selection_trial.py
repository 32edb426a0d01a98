"""Each offered selection played where it must win, before the run judges anything on it.

A selection code mistyped in a mapping (`stable` for `Stable`) is taken by a casino that keeps
stakes on codes it does not know and answered as lost: every payout, settlement and return of
that selection would then be reported as the target's finding, though the fault may be the
mapping's. Played on outcomes where the rules say it must win, such a code shows itself; what
is done with it is the caller's (`livecert doctor --probe` names it; a run holds it back, as
"mapping or target", in `held_selections`).
"""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from livecert.adapters import Refused, RoundView
from livecert.adapters.model import TableLimits
from livecert.rules import Paytable, all_outcomes, expected_settlement
from livecert.rules.conditions import Outcome

MOST_BETS = 40  # bets in one slip of the trial (each must win: the balance only grows)
REPLAYS = 12  # more outcomes where it must win, played for a code not won on its first
REPLAY_STAKES = 60  # the most stakes the replays may lose in all
NO_SUCH_CODE = "LIVECERT_NO_SUCH_SELECTION"  # a code no target offers

# a slip played on a forced outcome: the round as the target settled it, or Refused raised
Play = Callable[[list[tuple[str, Decimal]], Outcome], RoundView]


def trial_stake(limits: TableLimits | None) -> tuple[Decimal, int] | None:
    """The stake of each bet of the trial, and the most bets a slip may hold, inside the
    declared limits: one currency unit, or the least stake a bet (and a slip) may hold; None
    where no single bet fits them."""
    limits = limits or TableLimits()
    stake = max(Decimal(1), limits.min_bet or Decimal(0), limits.min_slip or Decimal(0))
    if limits.max_bet is not None and stake > limits.max_bet:
        stake = limits.max_bet
    if limits.min_bet is not None and stake < limits.min_bet:
        return None
    most = MOST_BETS if limits.max_slip is None else min(MOST_BETS, int(limits.max_slip // stake))
    return (stake, most) if most >= 1 and (limits.min_slip or 0) <= stake else None


def wins(paytable: Paytable, code: str, outcome: Outcome) -> bool:
    """Whether `code` wins outright on `outcome` (not a refund, not a loss)."""
    return expected_settlement(paytable, code, outcome, Decimal(1), 2, "down").outcome == "win"


def winning_outcomes(paytable: Paytable, code: str) -> list[Outcome]:
    return [o for o in all_outcomes(paytable) if wins(paytable, code, o)]


def shown(outcome: Outcome) -> str:
    return "-".join(str(o) for o in outcome)


def must_win_rounds(
    paytable: Paytable, codes: Sequence[str], most: int = MOST_BETS
) -> list[tuple[Outcome, list[str]]]:
    """Outcomes, with the codes each is played for (at most `most` a slip), so that every code
    is played once on an outcome where it wins outright (few rounds: each outcome taken for
    the most codes left)."""
    won = {o: {c for c in codes if wins(paytable, c, o)} for o in all_outcomes(paytable)}
    left, rounds = list(codes), []
    while left:
        outcome = max(won, key=lambda o: (len(won[o] & set(left)), str(o)))
        chosen = [c for c in left if c in won[outcome]]
        if not chosen:  # a code that wins on no outcome (none in the rules' paytables)
            break
        for start in range(0, len(chosen), most):
            rounds.append((outcome, chosen[start : start + most]))
        left = [c for c in left if c not in chosen]
    return rounds


@dataclass(frozen=True)
class Missed:
    """A code that did not win where it must: refused, or taken and not won."""

    code: str
    outcome: Outcome
    said: str  # what the target answered, in a few words
    refused: bool


def _play(play: Play, slip: list[tuple[str, Decimal]], outcome: Outcome) -> RoundView | Refused:
    try:
        return play(slip, outcome)
    except Refused as refused:
        return refused


def _judge(play: Play, slip: list[str], outcome: Outcome, stake: Decimal) -> list[Missed]:
    """The codes of one slip played on `outcome` that did not win (a refused slip of several
    played again one code at a time, to tell which)."""
    answer = _play(play, [(c, stake) for c in slip], outcome)
    if isinstance(answer, Refused) and len(slip) > 1:
        return [m for c in slip for m in _judge(play, [c], outcome, stake)]
    if isinstance(answer, Refused):
        return [Missed(slip[0], outcome, f"refused: {answer.code} {answer.message}", True)]
    bets = {b.selection: b for b in answer.bets}
    missed = []
    for code in slip:
        bet = bets.get(code)
        if bet is None or bet.outcome != "win":
            said = (
                "no settlement of it" if bet is None else f"{bet.outcome}, returned {bet.returned}"
            )
            missed.append(Missed(code, outcome, said, False))
    return missed


def each_missed(
    paytable: Paytable, codes: Sequence[str], play: Play, stake: Decimal, most: int
) -> Iterator[Missed]:
    """Every code played once on an outcome where it must win, at most `most` bets a slip (one
    where settlement is read from the balance); the codes refused or not won there, as found.
    A player funded with `trial_stakes` never runs short here: only codes not won lose."""
    for outcome, slip in must_win_rounds(paytable, codes, most):
        yield from _judge(play, slip, outcome, stake)


def missed_wins(
    paytable: Paytable, codes: Sequence[str], play: Play, stake: Decimal, most: int
) -> list[Missed]:
    return list(each_missed(paytable, codes, play, stake, most))


def trial_stakes(codes: int, most: int) -> int:
    """The stakes a trial's player is funded with: every code lost once, a whole slip still
    paid for, and the replays' losses (`never_won`)."""
    return codes + most + REPLAY_STAKES


@dataclass(frozen=True)
class NeverWon:
    """A code taken and not won on any outcome where it must win that the trial played."""

    first: Missed
    lost_on: int  # outcomes where it must win, played and lost
    must_win: int  # outcomes where it must win, in all
    unplayed: int  # of those tried, the ones refused or left for want of funds

    def said(self) -> str:
        if self.lost_on == self.must_win:
            return f"it lost on all {self.must_win} outcomes where it must win"
        left = f"; {self.unplayed} more refused or not played" if self.unplayed else ""
        return (
            f"it lost on each of the {self.lost_on} outcomes played of the {self.must_win} "
            f"where it must win{left}"
        )


def _spread(outcomes: Sequence[Outcome], count: int) -> list[Outcome]:
    """`count` of `outcomes` spread evenly over them (all where there are no more)."""
    if len(outcomes) <= count:
        return list(outcomes)
    return [outcomes[i * len(outcomes) // count] for i in range(count)]


def never_won(
    paytable: Paytable,
    lost: Sequence[Missed],
    play: Play,
    stake: Decimal,
    most: int,
    budget: int = REPLAY_STAKES,
) -> list[NeverWon]:
    """Of the codes taken and not won, those that lose again on up to REPLAYS more outcomes
    where they must win (spread over them; every one where there are no more), at most `most`
    bets a slip and `budget` stakes lost in all: a code that wins on one is the target's to
    judge, its losses there findings of the run."""
    left = {m.code: m for m in lost if not m.refused}
    lost_on = dict.fromkeys(left, 1)
    unplayed = dict.fromkeys(left, 0)
    must_win = {code: winning_outcomes(paytable, code) for code in left}
    by_outcome: dict[Outcome, list[str]] = {}
    for code, first in left.items():
        others = [o for o in must_win[code] if o != first.outcome]
        for outcome in _spread(others, REPLAYS):
            by_outcome.setdefault(outcome, []).append(code)
    for outcome, codes in by_outcome.items():
        for start in range(0, len(codes), most):
            slip = [c for c in codes[start : start + most] if c in left]
            if slip and len(slip) > budget:  # its losses are not funded: left unplayed
                for code in slip:
                    unplayed[code] += 1
                continue
            if not slip:
                continue
            missed = {m.code: m for m in _judge(play, slip, outcome, stake)}
            budget -= sum(1 for m in missed.values() if not m.refused)
            for code in slip:
                if code not in missed:  # it won here: its losses are the target's to judge
                    left.pop(code)
                elif missed[code].refused:
                    unplayed[code] += 1
                else:
                    lost_on[code] += 1
    return [NeverWon(m, lost_on[c], len(must_win[c]), unplayed[c]) for c, m in left.items()]


def takes_unknown_codes(paytable: Paytable, play: Play, stake: Decimal) -> bool:
    """Whether the target takes a bet on a code it cannot know (answers it as a bet): then a
    mistyped code is taken too, and its losses may be the mapping's."""
    outcome = next(iter(all_outcomes(paytable)))
    return not isinstance(_play(play, [(NO_SUCH_CODE, stake)], outcome), Refused)


def held_selections(
    paytable: Paytable,
    codes: Sequence[str],
    play: Play,
    stake: Decimal,
    most: int,
    sent_as: Callable[[str], str],
    probe_command: str,
) -> dict[str, str]:
    """The codes a run must hold back, each with its reason ("mapping or target: ..."): one
    refused on an outcome where it must win, and one that loses on every such outcome played
    where the target takes codes it cannot know. A code the target knows (it refuses unknown
    ones) and never pays is not held: its payouts are the target's, judged by the run."""
    missed = missed_wins(paytable, codes, play, stake, most)
    if not missed:
        return {}
    held = {}
    tell = (
        "to tell which, compare it with the vendor's codes and try the mapping again with "
        f"`{probe_command}`"
    )
    for m in missed:
        if m.refused:
            held[m.code] = (
                f"mapping or target: the code {m.code} (sent as {sent_as(m.code)}) was "
                f"refused on {shown(m.outcome)}, where it must be taken and win ({m.said}): "
                f"a mistyped code in the mapping, or a bet the target refuses; {tell}"
            )
    never = never_won(paytable, [m for m in missed if not m.refused], play, stake, most)
    if never and takes_unknown_codes(paytable, play, stake):
        for n in never:
            m = n.first
            held[m.code] = (
                f"mapping or target: the code {m.code} (sent as {sent_as(m.code)}) never won: "
                f"{n.said()} (on {shown(m.outcome)}: {m.said}), and the target takes codes it "
                f"cannot know, so a mistyped code is answered so too; {tell}"
            )
    return held
