"""The two games' settlement as lookup tables, built once by walking every outcome.

Instead of asking each selection "do you win on this roll?", each outcome is asked "what does it
pay?": for every one of the 216 ordered rolls (Sic Bo) and 16 ordered token results (Xoc Dia) the
paying selections are listed with their odds as a fraction (numerator, denominator). Everything
not listed loses. The table is then TABLE[game][selection][outcome] = (result, num, den) where
result is "win", "lose" or "refund".
"""

from collections import Counter
from fractions import Fraction
from itertools import combinations, product

# Odds as (numerator, denominator): x:1 wins stake × x on top of the stake.
TOTAL_ODDS = {
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
FOUR_SETS = ((1, 2, 3, 4), (2, 3, 4, 5), (2, 3, 5, 6), (3, 4, 5, 6))


def _code(prefix: str, *numbers: int) -> str:
    return "_".join((prefix, *map(str, numbers)))


def sicbo_codes() -> list[str]:
    faces = range(1, 7)
    codes = [
        "SMALL",
        "BIG",
        "ODD",
        "EVEN",
        "ANY_TRIPLE",
        "ALL_ODD",
        "ALL_EVEN",
        "TWO_ODD_ONE_EVEN",
        "TWO_EVEN_ONE_ODD",
    ]
    codes += [_code("NUMBER", n) for n in faces]
    codes += [_code("TRIPLE", n) for n in faces]
    codes += [_code("PAIR", n) for n in faces]
    codes += [_code("TOTAL", t) for t in range(4, 18)]
    codes += [_code("DOUBLE", *pair) for pair in combinations(faces, 2)]
    codes += [_code("THREE_SINGLES", *trio) for trio in combinations(faces, 3)]
    codes += [_code("DOUBLE_SINGLE", p, p, s) for p in faces for s in faces if s != p]
    codes += [_code("FOUR_NUMBERS", *group) for group in FOUR_SETS]
    return codes


def sicbo_pays(roll: tuple[int, int, int]) -> dict[str, tuple[int, int]]:
    """Every selection a roll pays, with its odds."""
    seen = Counter(roll)
    total = sum(roll)
    distinct = sorted(seen)
    odd = sum(1 for d in roll if d % 2)
    pays: dict[str, tuple[int, int]] = {}
    if len(distinct) == 1:  # a triple: Small, Big, Odd and Even lose (SB-PAY-16)
        pays[_code("TRIPLE", roll[0])] = (180, 1)
        pays["ANY_TRIPLE"] = (30, 1)
    else:
        pays["SMALL" if total <= 10 else "BIG"] = (1, 1)
        pays["ODD" if total % 2 else "EVEN"] = (1, 1)
    for face, count in seen.items():
        pays[_code("NUMBER", face)] = (count, 1)
        if count >= 2:
            pays[_code("PAIR", face)] = (10, 1)
    if total in TOTAL_ODDS:
        pays[_code("TOTAL", total)] = (TOTAL_ODDS[total], 1)
    for pair in combinations(distinct, 2):
        pays[_code("DOUBLE", *pair)] = (5, 1)
    if odd == 3:
        pays["ALL_ODD"] = (6, 1)
    elif odd == 0:
        pays["ALL_EVEN"] = (6, 1)
    elif odd == 2:
        pays["TWO_ODD_ONE_EVEN"] = (3, 2)
    else:
        pays["TWO_EVEN_ONE_ODD"] = (3, 2)
    if len(distinct) == 3:
        pays[_code("THREE_SINGLES", *distinct)] = (30, 1)
        for group in FOUR_SETS:
            if set(distinct) <= set(group):
                pays[_code("FOUR_NUMBERS", *group)] = (7, 1)
    if len(distinct) == 2:
        doubled = next(f for f, c in seen.items() if c == 2)
        single = next(f for f, c in seen.items() if c == 1)
        pays[_code("DOUBLE_SINGLE", doubled, doubled, single)] = (60, 1)
    return pays


XOCDIA_CODES = [
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
]
_BY_RED = {
    4: "FOUR_RED",
    3: "ONE_WHITE_THREE_RED",
    2: "TWO_TWO",
    1: "THREE_WHITE_ONE_RED",
    0: "FOUR_WHITE",
}
_COUNT_ODDS = {4: (14, 1), 3: (14, 5), 2: (3, 2), 1: (14, 5), 0: (14, 1)}
EVEN_MONEY = (24, 25)  # 0.96:1
REFUND = (0, 0)


def xocdia_pays(tokens: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    red = tokens.count("r")
    pays = {_BY_RED[red]: _COUNT_ODDS[red], ("ODD" if red % 2 else "EVEN"): EVEN_MONEY}
    if red in (0, 4):
        pays["FOUR_OF_A_COLOUR"] = (13, 2)
    if red == 2:  # two-two: Big and Small get their stake back (XD-PAY-09/10)
        pays["BIG"] = pays["SMALL"] = REFUND
    else:
        pays["BIG" if red > 2 else "SMALL"] = EVEN_MONEY
    return pays


def _build(codes: list[str], outcomes, pays_of) -> dict[str, dict[tuple, tuple[str, int, int]]]:
    table: dict[str, dict[tuple, tuple[str, int, int]]] = {c: {} for c in codes}
    for outcome in outcomes:
        pays = pays_of(outcome)
        unknown = set(pays) - set(codes)
        assert not unknown, unknown
        for code in codes:
            odds = pays.get(code)
            if odds is None:
                table[code][outcome] = ("lose", 0, 1)
            elif odds == REFUND:
                table[code][outcome] = ("refund", 0, 1)
            else:
                table[code][outcome] = ("win", *odds)
    return table


TABLE = {
    "sicbo": _build(sicbo_codes(), list(product(range(1, 7), repeat=3)), sicbo_pays),
    "xocdia": _build(XOCDIA_CODES, list(product("rw", repeat=4)), xocdia_pays),
}
assert len(TABLE["sicbo"]) == 110 and len(TABLE["xocdia"]) == 10


def settle(game: str, code: str, outcome: tuple) -> tuple[str, int, int]:
    return TABLE[game][code][outcome]


def max_rtp_percent(game: str) -> str:
    """The best selection's return, in percent to two decimals (computed, not typed in)."""
    best = Fraction(0)
    for by_outcome in TABLE[game].values():
        back = Fraction(0)
        for result, num, den in by_outcome.values():
            back += {"win": 1 + Fraction(num, den), "refund": 1, "lose": 0}[result]
        best = max(best, back / len(by_outcome))
    hundredths = int(best * 10000)  # truncated, as the documents state it
    return f"{hundredths // 100}.{hundredths % 100:02d}"
