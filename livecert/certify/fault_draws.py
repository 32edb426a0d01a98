"""The draws of `livecert selftest --full`: a fault with a parameter (a stake threshold, a delay,
a round depth) is run once per draw of its parameter over its whole range, so a fault hiding
outside the values the suite happens to use is an escape the self-test shows.

The ranges come from `livecert serve --list-faults` (`NAME CLAUSES KIND:LOW..HIGH`); the harness
never imports the reference. Draws are seeded and the seed printed, so a run can be made again:
the first two draws of a fault are the ends of its range, the others uniform inside it.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Range:
    """A fault parameter's kind (`money` or `int`) and its range, both ends included."""

    kind: str
    low: str
    high: str

    @classmethod
    def parse(cls, listed: str) -> Range:
        """`KIND:LOW..HIGH` as the fault listing prints it."""
        kind, _, span = listed.partition(":")
        low, _, high = span.partition("..")
        if kind not in ("money", "int") or not low or not high:
            raise ValueError(f"a fault's range must read KIND:LOW..HIGH, not {listed!r}")
        return cls(kind, low, high)

    def _units(self, text: str) -> int:
        return int(Decimal(text) * 100) if self.kind == "money" else int(text)

    def _text(self, units: int) -> str:
        return f"{Decimal(units) / 100:.2f}" if self.kind == "money" else str(units)

    def draw(self, count: int, rng: random.Random) -> list[str]:
        """`count` values: the two ends first, then uniform draws, none repeated where the
        range allows."""
        low, high = self._units(self.low), self._units(self.high)
        chosen: list[int] = [low, high][:count] if high > low else [low]
        while len(chosen) < min(count, high - low + 1):
            value = rng.randint(low, high)
            if value not in chosen:
                chosen.append(value)
        return [self._text(units) for units in chosen]


def spec(name: str, value: str) -> str:
    """The fault as the reference takes it: `NAME=VALUE`."""
    return f"{name}={value}"


def family(spec_or_name: str) -> str:
    """The fault a drawn run belongs to (`NAME=VALUE` -> `NAME`)."""
    return spec_or_name.partition("=")[0]


def drawn_catalogue(
    catalogue: dict[str, list[str]], ranges: dict[str, Range], draws: int, seed: int
) -> dict[str, list[str]]:
    """The catalogue with each fault of a range replaced by `draws` runs `NAME=VALUE` (their
    clauses unchanged); faults with no parameter stay as they are. `draws` 0 keeps them bare
    (their defaults)."""
    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    for name, clauses in catalogue.items():
        if draws and name in ranges:
            for value in ranges[name].draw(draws, rng):
                out[spec(name, value)] = clauses
        else:
            out[name] = clauses
    return out


def draws_table(runs: list[tuple[str, bool]]) -> list[str]:
    """Per family of drawn runs (`NAME=VALUE`, ok), the values drawn and those caught on exactly
    their clauses, as a markdown table (tests/README.md keeps it)."""
    drawn: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for run, ok in runs:
        if "=" in run:
            drawn[family(run)].append((run.partition("=")[2], ok))
    if not drawn:
        return []
    lines = ["| fault | draws | caught exactly | values (missed in bold) |", "|---|---|---|---|"]
    for name, values in drawn.items():
        shown = ", ".join(v if ok else f"**{v}**" for v, ok in values)
        caught = sum(ok for _, ok in values)
        lines.append(f"| {name} | {len(values)} | {caught} | {shown} |")
    return lines
