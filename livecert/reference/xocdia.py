"""Xoc Dia: selection codes, result validation and settlement, by hand from RULES.md B and D.

A result is the four face-up token colours in the order the dealer read them, each "r" or "w".
Settlement takes a selection code and the tokens and answers (outcome, odds) with odds an exact
Fraction ("x:1", a win returns stake x (1 + odds)); BIG and SMALL answer ("refund", 0) on two red
two white (the stake is returned). Seeded faults arrive as a frozenset of names; every branch that
applies one is marked `# FAULT <name>`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from livecert.reference.money import opposite_rounding

NAME = "xocdia"
MAX_RTP = "98.75"  # XD-RTP-01: Big and Small at (5 x 1.96 + 6) / 16 = 98.75%
RESHAKE_REASONS = frozenset({"items-fell", "standing-token"})  # XD-RND-03, XD-RND-04
EVENT_TYPES = frozenset({"shake", "rearrange", "bowl-touched-token"})
RESULT_KEY = "tokens"
TOKENS = 4
COLOURS = ("r", "w")

WIN = "win"
LOSE = "lose"
REFUND = "refund"

_LOSS = (LOSE, Fraction(0))
_REFUND = (REFUND, Fraction(0))
_EVEN_MONEY = Fraction(96, 100)  # 0.96:1 (XD-PAY-07..10)
_TWO_POINT_EIGHT = Fraction(28, 10)  # 2.8:1 (XD-PAY-02, XD-PAY-04)

SELECTIONS = (
    "FOUR_RED",
    "ONE_WHITE_THREE_RED",
    "TWO_TWO",
    "THREE_WHITE_ONE_RED",
    "FOUR_WHITE",
    "FOUR_OF_A_COLOUR",
    "ODD",
    "EVEN",
    "BIG",
    "SMALL",
)
_SELECTION_SET = frozenset(SELECTIONS)
_POINT_NINETY_SIX = frozenset({"ODD", "EVEN", "BIG", "SMALL"})


class ResultError(ValueError):
    """A result entry that is not four tokens "r"/"w"; the message says why."""


def is_selection(code: str) -> bool:
    """True for exactly the 10 Xoc Dia selection codes of docs/contract.md (case matters)."""
    return code in _SELECTION_SET


def all_selections() -> list[str]:
    """The 10 codes in the contract's order (for tests and tooling)."""
    return list(SELECTIONS)


def parse_result(body: dict[str, Any], faults: frozenset[str]) -> tuple[str, ...]:
    """Validate `{"tokens": [four of "r"/"w"]}` (XD-GEN-01); return the tokens in entered order."""
    if set(body) != {"tokens"}:
        raise ResultError('a Xoc Dia result is exactly {"tokens": [t1, t2, t3, t4]}, "r" or "w"')
    tokens = body["tokens"]
    if not isinstance(tokens, list) or len(tokens) != TOKENS:
        raise ResultError('a Xoc Dia result is exactly four tokens, each "r" or "w"')
    out = []
    for index, token in enumerate(tokens):
        if not isinstance(token, str):
            raise ResultError(f'token {index} ({token!r}) is not a string "r" or "w"')
        if token not in COLOURS:
            if "bad-token-accepted" in faults:  # FAULT bad-token-accepted
                out.append("w")  # the bad token is counted as white
                continue
            raise ResultError(f'token {index} ({token!r}) is not "r" or "w" (lower case)')
        out.append(token)
    return tuple(out)


def result_view(tokens: tuple[str, ...], faults: frozenset[str]) -> dict[str, Any]:
    """The recorded result as the contract shows it: the tokens as entered and the colour counts."""
    red = sum(1 for token in tokens if token == "r")
    return {"tokens": list(tokens), "red": red, "white": len(tokens) - red}


def max_rtp(faults: frozenset[str]) -> str:
    """The declared maximum RTP in percent."""
    if "declares-wrong-max-rtp-xocdia" in faults:  # FAULT declares-wrong-max-rtp-xocdia
        return "99.00"
    return MAX_RTP


def rounding_mode(code: str, declared: str, faults: frozenset[str]) -> str:
    """The rounding applied to this selection's fractional win (the declared rule, faults aside)."""
    if code in _POINT_NINETY_SIX and "point-ninety-six-rounds-the-wrong-way" in faults:
        return opposite_rounding(declared)  # FAULT point-ninety-six-rounds-the-wrong-way
    if code == "TWO_TWO" and "three-to-two-rounds-wrong-way" in faults:
        return opposite_rounding(declared)  # FAULT three-to-two-rounds-wrong-way: 1.5:1 is 3:2
    return declared


def _win(odds: int | Fraction) -> tuple[str, Fraction]:
    return WIN, Fraction(odds)


@lru_cache(maxsize=4096)
def settle(code: str, tokens: tuple[str, ...], faults: frozenset[str]) -> tuple[str, Fraction]:
    """Settle one selection against four tokens: (outcome, odds x of x:1); odds 0 unless a win."""
    if code not in _SELECTION_SET:
        raise ValueError(f"unknown Xoc Dia selection {code!r}")
    red = sum(1 for token in tokens if token == "r")

    if code == "FOUR_RED":  # XD-PAY-01: 14:1
        if red == 4:
            if "four-red-pays-10-to-1" in faults:
                return _win(10)  # FAULT four-red-pays-10-to-1
            return _win(14)
        return _LOSS
    if code == "ONE_WHITE_THREE_RED":  # XD-PAY-02: 2.8:1
        wanted = 3
        if "one-white-three-red-paid-as-three-white-one-red" in faults:
            wanted = 1  # FAULT one-white-three-red-paid-as-three-white-one-red
        return _win(_TWO_POINT_EIGHT) if red == wanted else _LOSS
    if code == "TWO_TWO":  # XD-PAY-03: 1.5:1
        if red == 2:
            if "two-two-pays-1-to-1" in faults:
                return _win(1)  # FAULT two-two-pays-1-to-1
            return _win(Fraction(3, 2))
        return _LOSS
    if code == "THREE_WHITE_ONE_RED":  # XD-PAY-04: 2.8:1
        if red == 1:
            if "three-white-one-red-pays-2-to-1" in faults:
                return _win(2)  # FAULT three-white-one-red-pays-2-to-1
            return _win(_TWO_POINT_EIGHT)
        return _LOSS
    if code == "FOUR_WHITE":  # XD-PAY-05: 14:1
        if red == 0:
            if "four-white-pays-10-to-1" in faults:
                return _win(10)  # FAULT four-white-pays-10-to-1
            return _win(14)
        return _LOSS
    if code == "FOUR_OF_A_COLOUR":  # XD-PAY-06: 6.5:1 on four white or four red
        if red in (0, 4):
            return _win(Fraction(13, 2))
        if "four-of-a-colour-paid-on-three" in faults and red in (1, 3):
            return _win(Fraction(13, 2))  # FAULT four-of-a-colour-paid-on-three
        return _LOSS
    parity_odds = _EVEN_MONEY
    if "odd-even-pay-1-to-1" in faults:
        parity_odds = Fraction(1)  # FAULT odd-even-pay-1-to-1
    if code == "ODD":  # XD-PAY-07: 1 or 3 red
        return _win(parity_odds) if red % 2 == 1 else _LOSS
    if code == "EVEN":  # XD-PAY-08: 0, 2 or 4 red
        return _win(parity_odds) if red % 2 == 0 else _LOSS
    if code == "BIG":  # XD-PAY-09: 3 or 4 red; stake returned on two-two
        if red >= 3:
            return _win(_EVEN_MONEY)
        if red == 2:
            if "big-loses-on-two-two" in faults:
                return _LOSS  # FAULT big-loses-on-two-two
            if "big-paid-on-two-two" in faults:
                return _win(_EVEN_MONEY)  # FAULT big-paid-on-two-two
            return _REFUND
        return _LOSS
    if code == "SMALL":  # XD-PAY-10: 0 or 1 red; stake returned on two-two
        if red <= 1:
            return _win(_EVEN_MONEY)
        if red == 2:
            if "small-loses-on-two-two" in faults:
                return _LOSS  # FAULT small-loses-on-two-two
            return _REFUND
        return _LOSS
    raise AssertionError(f"unhandled selection {code}")  # pragma: no cover
