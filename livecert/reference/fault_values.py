"""A seeded fault, and the parameter of a fault that hides at some values only.

A fault of a class that shows only from some stake up, after some delay or some rounds back is
caught only if the suite covers the space, not a point: such a fault takes a parameter (a stake
threshold, a delay, a round depth, a cent pattern), given as `--fault NAME=VALUE`, and
`livecert selftest --full` draws it from its whole range (seeded and printed) so that every draw
must fail exactly the fault's declared clauses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

KINDS = ("money", "int")  # money: a decimal string of 2 places; int: a whole number (ms, rounds)
_MONEY = re.compile(r"\d+\.\d{2}")
_INT = re.compile(r"\d+")


@dataclass(frozen=True)
class FaultParameter:
    """What a fault varies (`what`, e.g. "the least stake it pays wrong"), its kind, its whole
    range (both ends included) and the value it takes when none is given."""

    what: str
    kind: str
    low: str
    high: str
    default: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a fault parameter's kind is one of {KINDS}, not {self.kind!r}")
        for value in (self.low, self.high, self.default):
            self.parse(value)

    @property
    def listed(self) -> str:
        """`KIND:LOW..HIGH`, the range `livecert serve --list-faults` prints."""
        return f"{self.kind}:{self.low}..{self.high}"

    def parse(self, text: str) -> str:
        """`text` checked against the kind and the range; raise ValueError saying what to give."""
        pattern = _MONEY if self.kind == "money" else _INT
        if not pattern.fullmatch(text):
            shape = "an amount such as 12.34" if self.kind == "money" else "a whole number"
            raise ValueError(f"a fault parameter must be {shape}, not {text!r}")
        try:
            value = Decimal(text)
        except InvalidOperation as exc:  # pragma: no cover: the pattern admits only numbers
            raise ValueError(f"{text!r} is no number") from exc
        if not Decimal(self.low) <= value <= Decimal(self.high):
            raise ValueError(f"{text} is outside the fault's range {self.low} to {self.high}")
        return text


@dataclass(frozen=True)
class Fault:
    """One seeded fault: its name, the clause IDs it breaks, and what it does; `parameter` for a
    fault of a class that hides at some values only."""

    name: str
    clauses: tuple[str, ...]
    description: str
    parameter: FaultParameter | None = None


class FaultSet(frozenset):
    """The faults a server runs with: a frozenset of their names (`"name" in faults`, as every
    `# FAULT` branch asks) that also keeps each parameterised fault's value."""

    values: Mapping[str, str]

    def __new__(cls, names: Iterable[str] = (), values: Mapping[str, str] | None = None):
        made = super().__new__(cls, names)
        made.values = dict(values or {})
        return made

    def value(self, name: str) -> str:
        """The parameter `name` runs with (its default when the fault was given bare)."""
        return self.values[name]

    def money(self, name: str) -> int:
        """A money parameter in minor units (cents)."""
        return int(Decimal(self.values[name]) * 100)

    def number(self, name: str) -> int:
        """A whole-number parameter (milliseconds, rounds, a count)."""
        return int(self.values[name])
