"""The win conditions a paytable row can name, as small pure predicates.

Each predicate takes the outcome (three dice for Sic Bo, four tokens for Xoc Dia) and a
selection's parameters and answers how many times the condition is met: 0 means the bet does not
win. Only `number_shown` counts above 1 (the tiers of SB-PAY-05); the others answer 0 or 1.
Keeping the vocabulary here and the numbers in the paytable file means a profile can change odds
without touching code.
"""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Outcome = tuple[int, ...] | tuple[str, ...]
Params = Mapping[str, Any]


def _total(dice: Sequence[int]) -> int:
    return sum(dice)


def total_between(dice: Sequence[int], p: Params) -> int:
    return int(p["low"] <= _total(dice) <= p["high"])


def total_parity(dice: Sequence[int], p: Params) -> int:
    return int(_total(dice) % 2 == p["parity"])


def total_is(dice: Sequence[int], p: Params) -> int:
    return int(_total(dice) == p["t"])


def number_shown(dice: Sequence[int], p: Params) -> int:
    return sum(1 for die in dice if die == p["n"])


def triple_of(dice: Sequence[int], p: Params) -> int:
    return int(all(die == p["n"] for die in dice))


def any_triple(dice: Sequence[int], p: Params) -> int:
    return int(len(set(dice)) == 1)


def both_shown(dice: Sequence[int], p: Params) -> int:
    return int(p["a"] in dice and p["b"] in dice)


def at_least_two(dice: Sequence[int], p: Params) -> int:
    return int(number_shown(dice, p) >= 2)


def all_dice_parity(dice: Sequence[int], p: Params) -> int:
    return int(all(die % 2 == p["parity"] for die in dice))


def dice_parity_split(dice: Sequence[int], p: Params) -> int:
    return int(sum(1 for die in dice if die % 2 == 1) == p["odd"])


def exact_multiset(dice: Sequence[int], p: Params) -> int:
    return int(Counter(dice) == Counter((p["a"], p["b"], p["c"])))


def distinct_within(dice: Sequence[int], p: Params) -> int:
    chosen = {p["a"], p["b"], p["c"], p["d"]}
    return int(len(set(dice)) == len(dice) and set(dice) <= chosen)


def red_count_in(tokens: Sequence[str], p: Params) -> int:
    """Xoc Dia: the number of red tokens face up is one of `counts`."""
    return int(sum(1 for token in tokens if token == "r") in p["counts"])


def is_triple(dice: Sequence[int]) -> bool:
    """A Sic Bo triple: three equal dice (the exception of SB-PAY-16)."""
    return len(set(dice)) == 1


CONDITIONS: dict[str, Callable[[Sequence[int], Params], int]] = {
    fn.__name__: fn
    for fn in (
        total_between,
        total_parity,
        total_is,
        number_shown,
        triple_of,
        any_triple,
        both_shown,
        at_least_two,
        all_dice_parity,
        dice_parity_split,
        exact_multiset,
        distinct_within,
        red_count_in,
    )
}
