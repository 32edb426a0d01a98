"""What the battery could have found: the smallest bias it detects with 90% power, and the
rounds a lab needs to detect a bias it names.

The model is the one a lab asks about: one die showing one face (a 6) with probability 1/6 + d,
its other faces sharing the rest; one token landing red with probability 1/2 + d. The test is
the battery's that sees it best (the die's or the token's own position where the history gives
the order; otherwise all faces pooled, or the red count), at the level Holm's method gives the
first of the family's tests (0.01 / tests): a bound below what Holm achieves, never above.
Power is the noncentral chi-square's: noncentrality n * sum((p - p0)^2 / p0).
"""

from dataclasses import dataclass
from math import sqrt

import numpy as np
from scipy import optimize, stats

from livecert.fairness.battery import LEVEL, RED_P

POWER = 0.9
THREE_DICE_RED = np.array([1, 3, 3, 1]) / 8  # three fair tokens' red count 0..3


def _red_count_shift() -> float:
    """sum((dP/dd)^2 / p0) for the red count when one token is red with probability 1/2 + d."""
    below = np.concatenate([THREE_DICE_RED, [0.0]])  # the token white
    above = np.concatenate([[0.0], THREE_DICE_RED])  # the token red
    slope = above - below
    return float(np.sum(slope**2 / RED_P))


# per unit of d^2, per observation counted by the test
SHIFT = {
    ("sicbo", True): 6 * (1 + 1 / 5),  # one die's faces: d on a face, -d/5 on the others
    ("sicbo", False): 6 * (1 + 1 / 5) / 9,  # all faces pooled: a third of the faces move d
    ("xocdia", True): 4.0,  # one token: red d, white -d
    ("xocdia", False): _red_count_shift(),
}
DF = {("sicbo", True): 5, ("sicbo", False): 5, ("xocdia", True): 1, ("xocdia", False): 4}
COUNTED = {("sicbo", True): 1, ("sicbo", False): 3, ("xocdia", True): 1, ("xocdia", False): 1}
FAIR = {"sicbo": 1 / 6, "xocdia": 1 / 2}
# the serial test of one position (a die or a token against itself one round later), for one
# that copies its own last value in a share r of rounds and is otherwise fair: noncentrality
# pairs * SERIAL_SHIFT * r^2 (a die's 6 x 6 table: the diagonal +5r/36, the rest -r/36 each,
# over 1/36: 5 r^2; a token's 2 x 2: r^2), on (faces - 1)^2 degrees of freedom
SERIAL_SHIFT = {"sicbo": 5.0, "xocdia": 1.0}
SERIAL_DF = {"sicbo": 25, "xocdia": 1}


def noncentrality_needed(df: int, level: float, power: float = POWER) -> float:
    """The noncentrality at which the chi-square test at `level` finds a bias with `power`."""
    critical = stats.chi2.isf(level, df)
    return float(optimize.brentq(lambda lam: stats.ncx2.sf(critical, df, lam) - power, 1e-9, 1e5))


@dataclass(frozen=True)
class Power:
    game: str
    in_order: bool
    rounds: int
    tests: int  # in the family: the level is 0.01 / tests
    level: float
    bias: float | None  # the smallest d found with 90% power; None without rounds
    detect: float | None = None  # the bias a lab named (--detect)
    rounds_needed: int | None = None
    parts: int = 1  # each part is tested on its own: `rounds` is the smallest part's
    repeat: float | None = None  # the smallest share of copied rounds the serial test finds

    @property
    def probability(self) -> float | None:
        return None if self.bias is None else FAIR[self.game] + self.bias

    def statement(self) -> str:
        what = "a die showing 6" if self.game == "sicbo" else "a token landing red"
        fair = "1/6" if self.game == "sicbo" else "1/2"
        how = (
            "its own position"
            if self.in_order
            else ("all faces pooled" if self.game == "sicbo" else "the red count")
        )
        lines = []
        if self.bias is not None:
            where = (
                f"On each of the {self.parts} parts (each tested on its own; the smallest has "
                f"{self.rounds:,} rounds)"
                if self.parts > 1
                else f"On these {self.rounds:,} rounds"
            )
            lines.append(
                f"{where}, {what} with probability "
                f"{self.probability:.4f} or more (fair {fair}) would be found with "
                f"{POWER:.0%} power ({how}, at {self.level:.2g}: 0.01 over the "
                f"{self.tests} tests, a bound below Holm's power)."
            )
        if self.repeat is not None:
            faces = 6 if self.game == "sicbo" else 2
            repeats = 1 / faces + (faces - 1) * self.repeat / faces  # chance, plus the copies
            thing = (
                "A die that copies its last roll's face"
                if self.game == "sicbo"
                else "A token that copies its last colour"
            )
            lines.append(
                f"{thing} in {self.repeat:.1%} of rounds or more, and is otherwise fair (so it "
                f"repeats in {repeats:.1%} of rounds, not 1/{faces}), would be found with "
                f"{POWER:.0%} power (its own serial test, lag 1, at {self.level:.2g})."
            )
        if self.detect is not None and self.rounds_needed is not None:
            lines.append(
                f"To find {what} with probability {FAIR[self.game] + self.detect:.4f} "
                f"(a bias of {self.detect:g}) with {POWER:.0%} power a lab needs "
                f"{self.rounds_needed:,} rounds."
            )
        return " ".join(lines)


def power_of(
    game: str,
    in_order: bool,
    rounds: int,
    tests: int,
    detect: float | None = None,
    parts: int = 1,
    serial_pairs: int | None = None,
) -> Power:
    """The power of the test that sees the model's bias best, on `rounds` (the smallest part's
    when the history is tested in `parts`); and, given `serial_pairs` (the fewest consecutive
    pairs a position's serial test counted, where every one ran), the serial test's."""
    key = (game, in_order)
    level = LEVEL / max(tests, 1)
    needed = noncentrality_needed(DF[key], level)
    counted = COUNTED[key]
    bias = sqrt(needed / (SHIFT[key] * rounds * counted)) if rounds else None
    rounds_needed = None
    if detect is not None:
        rounds_needed = int(np.ceil(needed / (SHIFT[key] * counted * detect * detect)))
    repeat = None
    if in_order and serial_pairs:  # only where every part's serial tests ran
        serial_needed = noncentrality_needed(SERIAL_DF[game], level)
        repeat = sqrt(serial_needed / (SERIAL_SHIFT[game] * serial_pairs))
        repeat = repeat if repeat < 1 else None  # no copying this history could show
    return Power(game, in_order, rounds, tests, level, bias, detect, rounds_needed, parts, repeat)
