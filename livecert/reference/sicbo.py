"""Sic Bo: selection codes, result validation and settlement, written by hand from RULES.md A and D.

Settlement takes a selection code and three dice and answers (outcome, odds) with odds an exact
Fraction ("x:1", so a win returns stake x (1 + odds)). Seeded faults arrive as a frozenset of names;
every branch that applies one is marked `# FAULT <name>`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from livecert.reference.money import opposite_rounding

NAME = "sicbo"
MAX_RTP = "97.22"  # SB-RTP-01: Small/Big/Odd/Even at 105/216 x 2 = 97.2222%
RESHAKE_REASONS = frozenset({"dice-overlap", "die-not-flat", "too-few-tumbles"})
EVENT_TYPES = frozenset({"shake", "rearrange"})  # bowl-touched-token is Xoc Dia only
RESULT_KEY = "dice"

WIN = "win"
LOSE = "lose"

# SB-PAY-08: specific totals and their odds (totals 3 and 18 are not offered, RULES.md D).
_TOTAL_ODDS = {
    4: 60,
    17: 60,
    5: 30,
    16: 30,
    6: 18,
    15: 18,
    7: 12,
    14: 12,
    8: 8,
    13: 8,
    9: 7,
    12: 7,
    10: 6,
    11: 6,
}
_FOUR_NUMBER_SETS = frozenset({(1, 2, 3, 4), (2, 3, 4, 5), (2, 3, 5, 6), (3, 4, 5, 6)})

_SIMPLE = frozenset(
    {
        "SMALL",
        "BIG",
        "ODD",
        "EVEN",
        "ANY_TRIPLE",
        "ALL_ODD",
        "ALL_EVEN",
        "TWO_ODD_ONE_EVEN",
        "TWO_EVEN_ONE_ODD",
    }
)
_ONE = re.compile(r"(NUMBER|TRIPLE|PAIR)_([1-6])")
_TOTAL = re.compile(r"TOTAL_([1-9][0-9]?)")
_DOUBLE = re.compile(r"DOUBLE_([1-6])_([1-6])")
_THREE = re.compile(r"THREE_SINGLES_([1-6])_([1-6])_([1-6])")
_DOUBLE_SINGLE = re.compile(r"DOUBLE_SINGLE_([1-6])_([1-6])_([1-6])")
_FOUR = re.compile(r"FOUR_NUMBERS_([1-6])_([1-6])_([1-6])_([1-6])")


@dataclass(frozen=True)
class Selection:
    """A parsed selection: its family and the numbers the code names."""

    family: str
    numbers: tuple[int, ...] = ()


class ResultError(ValueError):
    """A result entry that is not three dice 1..6; the message says why."""


@lru_cache(maxsize=512)
def parse_selection(code: str) -> Selection | None:
    """Parse one of the 110 selection codes; None for anything else (case and order matter)."""
    if code in _SIMPLE:
        return Selection(code)
    if m := _ONE.fullmatch(code):
        return Selection(m.group(1), (int(m.group(2)),))
    if m := _TOTAL.fullmatch(code):
        total = int(m.group(1))
        return Selection("TOTAL", (total,)) if total in _TOTAL_ODDS else None
    if m := _DOUBLE.fullmatch(code):
        a, b = int(m.group(1)), int(m.group(2))
        return Selection("DOUBLE", (a, b)) if a < b else None
    if m := _THREE.fullmatch(code):
        a, b, c = (int(g) for g in m.groups())
        return Selection("THREE_SINGLES", (a, b, c)) if a < b < c else None
    if m := _DOUBLE_SINGLE.fullmatch(code):
        p, q, s = (int(g) for g in m.groups())
        return Selection("DOUBLE_SINGLE", (p, s)) if p == q and p != s else None
    if m := _FOUR.fullmatch(code):
        numbers = tuple(int(g) for g in m.groups())
        return Selection("FOUR_NUMBERS", numbers) if numbers in _FOUR_NUMBER_SETS else None
    return None


def is_selection(code: str) -> bool:
    """True for exactly the 110 Sic Bo selection codes of docs/contract.md."""
    return parse_selection(code) is not None


def all_selections() -> list[str]:
    """The 110 codes, enumerated family by family (for tests and tooling)."""
    codes = sorted(_SIMPLE)
    for family in ("NUMBER", "TRIPLE", "PAIR"):
        codes += [f"{family}_{n}" for n in range(1, 7)]
    codes += [f"TOTAL_{t}" for t in sorted(_TOTAL_ODDS)]
    for a in range(1, 7):
        for b in range(a + 1, 7):
            codes.append(f"DOUBLE_{a}_{b}")
            codes += [f"THREE_SINGLES_{a}_{b}_{c}" for c in range(b + 1, 7)]
    codes += [f"DOUBLE_SINGLE_{p}_{p}_{s}" for p in range(1, 7) for s in range(1, 7) if s != p]
    codes += ["FOUR_NUMBERS_" + "_".join(map(str, s)) for s in sorted(_FOUR_NUMBER_SETS)]
    return codes


def parse_result(body: dict[str, Any], faults: frozenset[str]) -> tuple[int, ...]:
    """Validate a result entry `{"dice": [a, b, c]}` (SB-GEN-01) and return the dice in order."""
    if set(body) != {"dice"}:
        raise ResultError('a Sic Bo result is exactly {"dice": [a, b, c]}')
    dice = body["dice"]
    if not isinstance(dice, list) or len(dice) != 3:
        raise ResultError("a Sic Bo result is exactly three dice")
    low, high = 1, 6
    if "die-out-of-range-accepted" in faults:  # FAULT die-out-of-range-accepted
        low, high = 0, 7
    for index, die in enumerate(dice):
        if type(die) is not int:
            raise ResultError(f"die {index} ({die!r}) is not an integer")
        if not low <= die <= high:
            raise ResultError(f"die {index} ({die}) is outside 1..6")
    return tuple(dice)


def result_view(dice: tuple[int, ...], faults: frozenset[str]) -> dict[str, Any]:
    """The recorded result as the contract shows it: the dice and their total."""
    total = sum(dice)
    if "total-misreported" in faults:  # FAULT total-misreported
        total = total + 1 if total < 18 else total - 1  # off by one, still a possible total
    return {"dice": list(dice), "total": total}


def max_rtp(faults: frozenset[str]) -> str:
    """The declared maximum RTP in percent."""
    if "declares-wrong-max-rtp" in faults:  # FAULT declares-wrong-max-rtp
        return "97.50"
    return MAX_RTP


def rounding_mode(code: str, declared: str, faults: frozenset[str]) -> str:
    """The rounding applied to this selection's fractional win (the declared rule, faults aside)."""
    three_to_two = code in ("TWO_ODD_ONE_EVEN", "TWO_EVEN_ONE_ODD")
    if three_to_two and "three-to-two-rounds-wrong-way" in faults:
        return opposite_rounding(declared)  # FAULT three-to-two-rounds-wrong-way
    return declared


_LOSS = (LOSE, Fraction(0))


def _win(odds: int | Fraction) -> tuple[str, Fraction]:
    return WIN, Fraction(odds)


@lru_cache(maxsize=65536)
def settle(code: str, dice: tuple[int, ...], faults: frozenset[str]) -> tuple[str, Fraction]:
    """Settle one selection against three dice: (outcome, odds x of x:1); odds 0 on a loss."""
    sel = parse_selection(code)
    if sel is None:
        raise ValueError(f"unknown Sic Bo selection {code!r}")
    counts = Counter(dice)
    total = sum(dice)
    triple = len(counts) == 1
    odd_dice = sum(1 for d in dice if d % 2 == 1)
    family = sel.family

    if family == "SMALL":  # SB-PAY-01, SB-PAY-16
        if "small-wins-on-triple" in faults and triple and 4 <= total <= 10:
            return _win(1)  # FAULT small-wins-on-triple
        if "small-includes-eleven" in faults and total == 11:
            return _win(1)  # FAULT small-includes-eleven
        return _win(1) if 4 <= total <= 10 and not triple else _LOSS
    if family == "BIG":  # SB-PAY-02, SB-PAY-16
        if "big-includes-ten" in faults and total == 10 and not triple:
            return _win(1)  # FAULT big-includes-ten
        return _win(1) if 11 <= total <= 17 and not triple else _LOSS
    if family == "ODD":  # SB-PAY-03, SB-PAY-16
        if total % 2 == 1 and not triple:
            return _win(2 if "odd-pays-2-to-1" in faults else 1)  # FAULT odd-pays-2-to-1
        return _LOSS
    if family == "EVEN":  # SB-PAY-04, SB-PAY-16
        if "even-loses-on-total-4" in faults and total == 4:
            return _LOSS  # FAULT even-loses-on-total-4
        return _win(1) if total % 2 == 0 and not triple else _LOSS
    if family == "NUMBER":  # SB-PAY-05: 1:1, 2:1, 3:1 on one, two, three dice
        shown = counts[sel.numbers[0]]
        if shown == 3 and "number-on-three-dice-pays-2-to-1" in faults:
            return _win(2)  # FAULT number-on-three-dice-pays-2-to-1
        return _win(shown) if shown else _LOSS
    if family == "TRIPLE":  # SB-PAY-06
        if counts[sel.numbers[0]] == 3:
            if "specific-triple-pays-150" in faults:
                return _win(150)  # FAULT specific-triple-pays-150
            return _win(180)
        return _LOSS
    if family == "ANY_TRIPLE":  # SB-PAY-07
        if triple:
            return _win(24 if "any-triple-pays-24" in faults else 30)  # FAULT any-triple-pays-24
        return _LOSS
    if family == "TOTAL":  # SB-PAY-08; a triple wins its total (RULES.md D)
        wanted = sel.numbers[0]
        if total != wanted:
            return _LOSS
        if wanted == 10 and "total-10-pays-7-to-1" in faults:
            return _win(7)  # FAULT total-10-pays-7-to-1
        return _win(_TOTAL_ODDS[wanted])
    if family == "DOUBLE":  # SB-PAY-09: pays once, also when one number shows twice (D)
        a, b = sel.numbers
        if counts[a] and counts[b]:
            if "double-pays-twice" in faults and (counts[a] == 2 or counts[b] == 2):
                return _win(10)  # FAULT double-pays-twice
            return _win(5)
        return _LOSS
    if family == "PAIR":  # SB-PAY-10: at least two; the triple wins it (D)
        shown = counts[sel.numbers[0]]
        if shown == 3 and "pair-loses-on-triple" in faults:
            return _LOSS  # FAULT pair-loses-on-triple
        return _win(10) if shown >= 2 else _LOSS
    if family == "ALL_ODD":  # SB-PAY-11
        return _win(6) if odd_dice == 3 else _LOSS
    if family == "ALL_EVEN":  # SB-PAY-11
        if odd_dice == 0:
            return _win(5 if "all-even-pays-5-to-1" in faults else 6)  # FAULT all-even-pays-5-to-1
        return _LOSS
    if family == "TWO_ODD_ONE_EVEN":  # SB-PAY-12: 3:2
        if odd_dice == 2:
            if "two-odd-one-even-pays-1-to-1" in faults:
                return _win(1)  # FAULT two-odd-one-even-pays-1-to-1
            return _win(Fraction(3, 2))
        return _LOSS
    if family == "TWO_EVEN_ONE_ODD":  # SB-PAY-12: 3:2
        return _win(Fraction(3, 2)) if odd_dice == 1 else _LOSS
    if family == "THREE_SINGLES":  # SB-PAY-13
        if "three-singles-ordered" in faults:
            return _win(30) if dice == sel.numbers else _LOSS  # FAULT three-singles-ordered
        return _win(30) if tuple(sorted(dice)) == sel.numbers else _LOSS
    if family == "DOUBLE_SINGLE":  # SB-PAY-14
        p, s = sel.numbers
        if "double-single-ignores-single" in faults:
            return _win(60) if counts[p] == 2 else _LOSS  # FAULT double-single-ignores-single
        return _win(60) if counts[p] == 2 and counts[s] == 1 else _LOSS
    if family == "FOUR_NUMBERS":  # SB-PAY-15: three different numbers from the set (D)
        in_set = all(d in sel.numbers for d in dice)
        if "four-numbers-counts-repeats" in faults:
            return _win(7) if in_set else _LOSS  # FAULT four-numbers-counts-repeats
        return _win(7) if in_set and len(counts) == 3 else _LOSS
    raise AssertionError(f"unhandled family {family}")  # pragma: no cover
