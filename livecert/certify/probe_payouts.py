"""The probe's check of a mapping against the target before a run can blame the target: every
offered selection played on an outcome where it must win, and the rounding the target shows on
fractional payouts compared with the one declared (targets that play instant rounds).

A selection code mistyped in the mapping (`stable` for `Stable`) is taken and its stake kept by
a casino that does not check codes, and a rounding declared `down` where the casino rounds
half-up settles every fractional payout a cent apart: a run would report both as the target's
payout findings. Here each is named before the run, with what to fix. What the target paid is
read from its balance around a one-bet round wherever an amount matters, never from the
mapping's reading of it (a multiplier's amount is the declared rounding's by construction).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import combinations

from livecert.adapters import PlayerHandle, Refused, RoundView, TargetAdapter
from livecert.adapters.model import TableLimits
from livecert.certify.diagnosis import FAIL, OK, WARN
from livecert.harness.selection_trial import (
    MOST_BETS,
    NO_SUCH_CODE,
    each_missed,
    must_win_rounds,
    shown,
    takes_unknown_codes,
    winning_outcomes,
)
from livecert.harness.sweep import offered_codes, selection_tables
from livecert.rules import Paytable, expected_settlement
from livecert.rules.conditions import Outcome

__all__ = ["RULES", "PayoutProbe", "must_win_rounds", "rounding_cases"]

RULES = ("down", "up", "half-up", "half-even")
SMALLEST_STAKES = 300  # the stakes tried for a fractional payout: 1 to 300 minor units


@dataclass(frozen=True)
class RoundingCase:
    """A one-bet round whose payout falls between minor units: what each rule returns."""

    code: str
    stake: Decimal
    outcome: Outcome
    returns: dict[str, Decimal]  # rule -> the amount returned under it


def _cases_of(
    paytable: Paytable, code: str, minor_unit: int, low: Decimal, high: Decimal | None
) -> list[RoundingCase]:
    """`code`'s one-bet rounds at the smallest stakes from `low`, where the rules disagree."""
    outcome = next(iter(winning_outcomes(paytable, code)), None)
    unit = Decimal(1).scaleb(-minor_unit)
    found: list[RoundingCase] = []
    for k in range(SMALLEST_STAKES if outcome is not None else 0):
        stake = (low + k * unit).quantize(unit)
        if (high is not None and stake > high) or (k >= 20 and not found):
            break  # past the limit, or integer odds (a fraction up to 1/20 shows by now)
        returns = {
            r: expected_settlement(paytable, code, outcome, stake, minor_unit, r).returned  # type: ignore[arg-type]
            for r in RULES
        }
        if len(set(returns.values())) > 1:
            found.append(RoundingCase(code, stake, outcome, returns))  # type: ignore[arg-type]
    return found


def rounding_cases(
    paytable: Paytable, codes: Sequence[str], minor_unit: int, limits: TableLimits | None
) -> list[RoundingCase]:
    """The fewest one-bet rounds (chosen greedily) whose returns tell every two rounding rules
    apart, at stakes inside the declared limits; none where no offered payout falls between
    minor units (integer odds only)."""
    low = limits.min_bet if limits and limits.min_bet else Decimal(1).scaleb(-minor_unit)
    high = limits.max_bet if limits else None
    candidates = [c for code in codes for c in _cases_of(paytable, code, minor_unit, low, high)]
    apart = set(combinations(RULES, 2))
    chosen: list[RoundingCase] = []
    while apart and candidates:
        best = max(candidates, key=lambda c: sum(c.returns[a] != c.returns[b] for a, b in apart))
        told = {(a, b) for a, b in apart if best.returns[a] != best.returns[b]}
        if not told:
            break
        chosen.append(best)
        apart -= told
    return chosen


@dataclass
class PayoutProbe:
    """Plays the probing rounds through `play` (an instant round: player, table, slip,
    outcome) and `balance`; each finding is `add`ed as (status, what, advice)."""

    adapter: TargetAdapter
    paytable: Paytable
    player: PlayerHandle
    table: str
    stake: Decimal
    one_bet_a_round: bool  # settlement read from the balance: one bet per round
    play: Callable[..., RoundView]
    add: Callable[[str, str, str], None]
    lost: list[str] = field(default_factory=list)  # codes taken and not won where they must

    def vendor_code(self, code: str) -> str:
        table = selection_tables(self.adapter).get(self.paytable.game)
        return repr(table.to_vendor(code)) if table is not None else repr(code)

    def _round(self, slip: list, outcome: Outcome) -> RoundView | Refused:
        try:
            return self.play(self.player, self.table, slip, tuple(outcome))
        except Refused as refused:
            return refused

    def _slip(self, slip: list, outcome: Outcome) -> RoundView:
        return self.play(self.player, self.table, slip, tuple(outcome))

    def selections(self, codes: Sequence[str]) -> list[str]:
        """Every code played on an outcome where it must win: the codes refused or not won
        (each a FAIL line naming the mapping's code, then whether the target takes codes it
        cannot know, to tell a mistyped code from an unpaid one)."""
        most = 1 if self.one_bet_a_round else MOST_BETS
        missed = []
        for m in each_missed(self.paytable, codes, self._slip, self.stake, most):
            missed.append(m)  # each named as found: a target that fails later keeps them
            sent = f"{m.code} (sent as {self.vendor_code(m.code)})"
            if m.refused:
                self.add(
                    FAIL,
                    f"{sent} was refused on {shown(m.outcome)}: {m.said.removeprefix('refused: ')}",
                    f"likely a mistyped code: compare selections.{self.paytable.game} with the "
                    "vendor's codes (or mark the selection not offered: null)",
                )
                continue
            self.add(
                FAIL,
                f"{sent} did not win on {shown(m.outcome)}, where it must win: the target "
                f"answered {m.said}",
                "likely a mistyped code in selections (a casino that keeps stakes on codes it "
                "does not know answers a loss), or the target does not pay it: the line on "
                "unknown codes below tells which",
            )
        self.lost = [m.code for m in missed if not m.refused]
        if self.lost:
            self._unknown_code()
        return [m.code for m in missed]

    def _unknown_code(self) -> None:
        """Whether the target refuses a code it cannot know: if it does, the codes above are
        codes it knows (their payout is the target's); if it takes it, a mistyped code is the
        likelier cause."""
        if not takes_unknown_codes(self.paytable, self._slip, self.stake):
            self.add(
                WARN,
                f"the target refuses a selection it does not know ({NO_SUCH_CODE}), and took "
                f"{', '.join(self.lost)}: codes it knows, so their payouts are the target's",
                "if the mapping's codes are the vendor's, the run will judge the payouts",
            )
        else:
            self.add(
                WARN,
                f"the target takes a selection it cannot know ({NO_SUCH_CODE}) and answers it "
                f"as a bet: {', '.join(self.lost)} may be mistyped codes it answers as lost",
                "check each against the vendor's documentation (REG-INPUT-01 will judge the "
                "unknown code taken)",
            )

    def rounding(self, declared: str, minor_unit: int, limits: TableLimits | None) -> None:
        """The rounding the target's balance shows on fractional payouts, against `declared`."""
        codes = offered_codes(self.adapter, self.paytable)
        cases = rounding_cases(self.paytable, codes, minor_unit, limits)
        if not cases:
            return
        fits, seen = set(RULES), []
        for case in cases:
            before = self.adapter.balance(self.player)
            answer = self._round([(case.code, case.stake)], case.outcome)
            if isinstance(answer, Refused):
                self.add(WARN, f"rounding not probed: {case.stake} on {case.code} was refused", "")
                return
            returned = self.adapter.balance(self.player) - before + case.stake
            seen.append(f"{case.stake} on {case.code} on {shown(case.outcome)} returned {returned}")
            fits &= {r for r in RULES if case.returns[r] == returned}
        evidence = "; ".join(seen)
        if declared in fits:
            self.add(OK, f"fractional payouts are rounded {declared}, as declared ({evidence})", "")
        elif fits:
            named = " or ".join(sorted(fits))
            self.add(
                FAIL,
                f"fractional payouts are rounded {named}, not {declared} as declared ({evidence})",
                f"set declares.rounding to the rule the vendor publishes: {named} if it is what "
                "the target does (a declaration the target does not follow is a finding the run "
                "would report on every fractional payout)",
            )
        else:
            self.add(
                WARN,
                f"no rounding rule gives what the target paid on fractional payouts ({evidence})",
                "the run will judge the payouts; check the money format of the balance",
            )
