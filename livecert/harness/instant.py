"""Instant rounds: one request takes a slip, plays the round with the result the lab forces and
settles it (capability `instant-round`).

Many vendors' tables, and the RNG versions of live games, have nothing else: no round to open,
bet on and close. The duties that need no live round are checked through this one request as on
a live table: what a refused round must leave unmoved, what an accepted round must return, and
how many rounds at once must reconcile. Every amount is judged from the target's own answers
(its balance, the returns it reports), never from what the harness hoped to see.
"""

import math
import random
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from livecert.adapters import PlayerHandle, Refused, RoundView, TargetAdapter
from livecert.adapters.errors import Unsupported
from livecert.adapters.model import TableLimits
from livecert.harness.attempts import refusal
from livecert.harness.sweep import INSTANT_ROUND
from livecert.rules import Paytable, all_outcomes, expected_settlement
from livecert.rules.conditions import Outcome
from livecert.rules.money import round_to_minor

Slip = Sequence[tuple[str, Decimal | str]]
MAX_WORKERS = 32


def require_instant(adapter: TargetAdapter, capabilities: Sequence[str]) -> None:
    """Unsupported unless the target declares instant rounds and its adapter can play one."""
    if INSTANT_ROUND in capabilities and not hasattr(adapter, "play_round"):
        raise Unsupported(
            "play an instant round",
            f"the adapter ({type(adapter).__name__}) has no instant-round operation",
        )


def _as_amount(stake: Decimal | str) -> Decimal:
    if isinstance(stake, Decimal):
        return stake
    try:
        value = Decimal(stake)
    except ArithmeticError:
        return Decimal(0)
    return value if value.is_finite() else Decimal(0)


@dataclass
class InstantPlay:
    """One instant round a player tried: the slip, the result forced, and what came back."""

    player: str
    slip: tuple[tuple[str, Decimal], ...]
    outcome: Outcome
    round: RoundView | None = None
    refusal: Refused | None = None

    @property
    def accepted(self) -> bool:
        return self.round is not None

    @property
    def staked(self) -> Decimal:
        """What the slip stakes, where the round was taken (a stake sent as text counts as the
        amount it writes, or nothing: "abc")."""
        if not self.accepted:
            return Decimal(0)
        return sum((_as_amount(s) for _, s in self.slip), Decimal(0))

    @property
    def returned(self) -> Decimal:
        """What the target says the round returned (a bet it reports no return for: nothing)."""
        if self.round is None:
            return Decimal(0)
        return sum((b.returned or Decimal(0) for b in self.round.bets), Decimal(0))

    def unsettled(self) -> list[str]:
        """The slip's bets the accepted round does not report settled with a return."""
        if self.round is None:
            return []
        shown = {b.selection: b for b in self.round.bets}
        return [
            code
            for code, _ in self.slip
            if code not in shown or shown[code].status != "settled" or shown[code].returned is None
        ]

    def describe(self) -> str:
        slip = ", ".join(f"{stake} on {code}" for code, stake in self.slip)
        if self.round is None:
            return f"{self.player}: [{slip}] on {self.outcome}: refused ({self.refusal})"
        return (
            f"{self.player}: [{slip}] on {self.outcome}: round {self.round.round_id} "
            f"{self.round.state}, staked {self.staked}, returned {self.returned}"
        )


def play(
    adapter: TargetAdapter,
    name: str,
    handle: PlayerHandle,
    table_id: str,
    slip: Slip,
    outcome: Outcome,
    key: str | None = None,
    must_refuse: bool = False,
) -> InstantPlay:
    """Play one instant round; a refusal is kept, not raised. `must_refuse`: a slip the rules
    refuse, judged only on whether it was taken and on the balance after, so the adapter need
    not read its settlement (one it reads from the balance cannot tell several bets apart)."""
    tried = InstantPlay(name, tuple(slip), tuple(outcome))  # type: ignore[arg-type]
    answer: list[RoundView] = []
    # only an adapter reading settlement from the balance needs to be told (and only the
    # mapping adapter has the option: a plugin's play_round keeps its own signature)
    from_balance = getattr(adapter, "settles_from_balance", None)
    unread = must_refuse and from_balance is not None and from_balance("play_round")
    options = {"read_settlement": False} if unread else {}

    def send() -> None:
        answer.append(
            adapter.play_round(  # type: ignore[attr-defined]
                handle, table_id, list(slip), tuple(outcome), idempotency_key=key, **options
            )
        )

    tried.refusal = refusal(send)
    tried.round = answer[0] if answer else None
    return tried


def stake_taken_as(tried: "InstantPlay", before: Decimal, after: Decimal, minor_unit: int) -> str:
    """Where a one-bet slip whose stake has more decimals than the currency was taken and
    lost, what the balance says was taken: "the stake 1.001 was taken as 1.00 (truncated)"
    (rounded, where it went up); else "" (nothing to say beyond what moved)."""
    if not tried.accepted or len(tried.slip) != 1 or tried.returned:
        return ""
    stake = _as_amount(tried.slip[0][1])
    taken = before - after
    exact = Fraction(stake)

    def to(mode: str) -> Decimal:
        return round_to_minor(exact, minor_unit, mode)

    if stake <= 0 or stake == to("down") or taken == stake:
        return ""
    if taken == to("down"):
        return f"the stake {tried.slip[0][1]} was taken as {taken} (truncated to the currency)"
    if taken in (to("up"), to("half-up")):
        return f"the stake {tried.slip[0][1]} was taken as {taken} (rounded to the currency)"
    return ""


def losing_outcome(paytable: Paytable, codes: Sequence[str]) -> Outcome:
    """An outcome on which every one of `codes` loses outright (so an accepted slip over the
    balance shows below zero), or else the one returning least on them."""
    one = Decimal(1)

    def back(outcome: Outcome) -> Decimal:
        return sum(
            (expected_settlement(paytable, c, outcome, one, 2, "down").returned for c in codes),
            Decimal(0),
        )

    return min(all_outcomes(paytable), key=back)


def winning_outcome(paytable: Paytable, wins: str, loses: str) -> Outcome:
    """An outcome on which `wins` wins outright and `loses` loses outright, the one where
    `wins` pays most (so a negative stake on it, wrongly taken, takes most from the balance)."""
    one = Decimal(1)

    def settled(code: str, outcome: Outcome):
        return expected_settlement(paytable, code, outcome, one, 2, "down")

    found = [
        o
        for o in all_outcomes(paytable)
        if settled(wins, o).outcome == "win" and settled(loses, o).outcome == "lose"
    ]
    if not found:
        raise ValueError(f"no outcome where {wins} wins and {loses} loses")
    return max(found, key=lambda o: settled(wins, o).returned)


def concurrent_plays(
    jobs: Sequence[Callable[[], InstantPlay]],
) -> list[InstantPlay]:
    """Run every job at the same moment (released together, so the rounds really race)."""
    go = threading.Event()

    def run(job: Callable[[], InstantPlay]) -> InstantPlay:
        go.wait(timeout=10)
        return job()

    with ThreadPoolExecutor(max_workers=min(MAX_WORKERS, len(jobs) or 1)) as pool:
        futures = [pool.submit(run, job) for job in jobs]
        go.set()
        return [f.result() for f in futures]


# -- random stakes over the whole range ---------------------------------------------------------


def step_of(minor_unit: int) -> Decimal:
    """The smallest amount the target's currency writes (0.01 for two decimals)."""
    return Decimal(1).scaleb(-minor_unit)


def stake_up_to(rng: random.Random, most: Decimal, minor_unit: int) -> Decimal:
    """A stake from the smallest unit to `most`, log-uniform, so a cent, a few units and a very
    large stake are all drawn (a payout that changes with the size of the stake is found)."""
    unit = step_of(minor_unit)
    units = int(most / unit)
    if units < 1:
        return unit
    drawn = int(10 ** rng.uniform(0, math.log10(units)))
    return unit * max(1, min(units, drawn))


def random_slip(
    rng: random.Random,
    codes: Sequence[str],
    balance: Decimal,
    minor_unit: int,
    over_balance: bool = False,
    limits: TableLimits | None = None,
    most_bets: int = 4,
) -> list[tuple[str, Decimal]]:
    """One to `most_bets` (at most four) bets on distinct selections, within `balance` and the
    declared `limits` (or, `over_balance`, one unit over the balance and within the limits: the
    slip must be refused for the balance alone). Empty when the limits leave no slip to draw."""
    unit = step_of(minor_unit)
    least = (limits.min_bet if limits else None) or unit
    most_bet = (limits.max_bet if limits else None) or balance + unit
    most_slip = limits.max_slip if limits and limits.max_slip else None
    total = balance + unit if over_balance else balance
    if most_slip is not None and total > most_slip:
        if over_balance:
            return []  # over the slip limit as well: not a test of the balance
        total = most_slip
    count = min(len(codes), rng.randint(1, max(1, min(most_bets, 4))), int(total / least))
    if count < 1 or (over_balance and most_bet * count < total):
        return []
    chosen = rng.sample(list(codes), k=count)
    if over_balance:  # the total spread over the bets, each within the bet limits
        slip, left = [], total
        for index, code in enumerate(chosen):
            still = len(chosen) - index - 1
            stake = min(most_bet, left - least * still) if still else left
            slip.append((code, stake))
            left -= stake
        return slip if left == 0 and all(least <= s <= most_bet for _, s in slip) else []
    slip, left = [], total
    for index, code in enumerate(chosen):
        still = len(chosen) - index - 1  # each later bet needs at least the minimum
        room = min(most_bet, left - least * still)
        stake = max(least, stake_up_to(rng, room, minor_unit))
        slip.append((code, stake))
        left -= stake
    return slip


def random_outcome(rng: random.Random, paytable: Paytable) -> Outcome:
    outcomes = _OUTCOMES.setdefault(paytable.game, list(all_outcomes(paytable)))
    return outcomes[rng.randrange(len(outcomes))]


_OUTCOMES: dict[str, list[Outcome]] = {}
