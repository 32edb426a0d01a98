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
from livecert.harness.sweep import offered_codes
from livecert.rules import Paytable, all_outcomes, expected_settlement
from livecert.rules.conditions import Outcome

RULES = ("down", "up", "half-up", "half-even")
MOST_BETS = 40  # bets in one probing slip (each must win: the balance only grows)
NO_SUCH_CODE = "LIVECERT_NO_SUCH_SELECTION"  # a code no target offers
SMALLEST_STAKES = 300  # the stakes tried for a fractional payout: 1 to 300 minor units


def _wins(paytable: Paytable, code: str, outcome: Outcome) -> bool:
    """Whether `code` wins outright on `outcome` (not a refund, not a loss)."""
    return expected_settlement(paytable, code, outcome, Decimal(1), 2, "down").outcome == "win"


def _winning_outcome(paytable: Paytable, code: str) -> Outcome | None:
    return next((o for o in all_outcomes(paytable) if _wins(paytable, code, o)), None)


def must_win_rounds(paytable: Paytable, codes: Sequence[str]) -> list[tuple[Outcome, list[str]]]:
    """Outcomes, with the codes each is played for, so that every code is played once on an
    outcome where it wins outright (few rounds: each outcome taken for the most codes left)."""
    wins = {o: {c for c in codes if _wins(paytable, c, o)} for o in all_outcomes(paytable)}
    left, rounds = list(codes), []
    while left:
        outcome = max(wins, key=lambda o: (len(wins[o] & set(left)), str(o)))
        chosen = [c for c in left if c in wins[outcome]]
        if not chosen:  # a code that wins on no outcome (none in the rules' paytables)
            break
        for start in range(0, len(chosen), MOST_BETS):
            rounds.append((outcome, chosen[start : start + MOST_BETS]))
        left = [c for c in left if c not in chosen]
    return rounds


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
    outcome = _winning_outcome(paytable, code)
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
        tables = getattr(getattr(self.adapter, "mapping", None), "selections", {}) or {}
        table = tables.get(self.paytable.game)
        return repr(table.to_vendor(code)) if table is not None else repr(code)

    def _round(self, slip: list, outcome: Outcome) -> RoundView | Refused:
        try:
            return self.play(self.player, self.table, slip, tuple(outcome))
        except Refused as refused:
            return refused

    def selections(self, codes: Sequence[str]) -> list[str]:
        """Every code played on an outcome where it must win: the codes refused or not won
        (each a FAIL line naming the mapping's code, then whether the target takes codes it
        cannot know, to tell a mistyped code from an unpaid one)."""
        wrong: list[str] = []
        self.lost = []
        for outcome, group in must_win_rounds(self.paytable, codes):
            slips = [[c] for c in group] if self.one_bet_a_round else [group]
            for slip in slips:
                wrong += self._judge_slip(slip, outcome)
        if self.lost:
            self._unknown_code()
        return wrong

    def _judge_slip(self, slip: list[str], outcome: Outcome) -> list[str]:
        shown = "-".join(str(o) for o in outcome)
        answer = self._round([(c, self.stake) for c in slip], outcome)
        if isinstance(answer, Refused) and len(slip) > 1:  # which of them: each alone
            return [w for c in slip for w in self._judge_slip([c], outcome)]
        if isinstance(answer, Refused):
            (code,) = slip
            self.add(
                FAIL,
                f"{code} (sent as {self.vendor_code(code)}) was refused on {shown}: "
                f"{answer.code} {answer.message}",
                f"likely a mistyped code: compare selections.{self.paytable.game} with the "
                "vendor's codes (or mark the selection not offered: null)",
            )
            return [code]
        bets = {b.selection: b for b in answer.bets}
        wrong = []
        for code in slip:
            bet = bets.get(code)
            if bet is not None and bet.outcome == "win":
                continue
            said = (
                "no settlement of it" if bet is None else f"{bet.outcome}, returned {bet.returned}"
            )
            self.add(
                FAIL,
                f"{code} (sent as {self.vendor_code(code)}) did not win on {shown}, where it must "
                f"win: the target answered {said}",
                "likely a mistyped code in selections (a casino that keeps stakes on codes it "
                "does not know answers a loss), or the target does not pay it: the line on "
                "unknown codes below tells which",
            )
            wrong.append(code)
            self.lost.append(code)
        return wrong

    def _unknown_code(self) -> None:
        """Whether the target refuses a code it cannot know: if it does, the codes above are
        codes it knows (their payout is the target's); if it takes it, a mistyped code is the
        likelier cause."""
        outcome = next(iter(all_outcomes(self.paytable)))
        answer = self._round([(NO_SUCH_CODE, self.stake)], outcome)
        if isinstance(answer, Refused):
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
            shown = "-".join(str(o) for o in case.outcome)
            seen.append(f"{case.stake} on {case.code} on {shown} returned {returned}")
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
