"""Abstract values: each expression is a frozenset of what it may be; the constants of the
analysis."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLAUSE = re.compile(r"^(SB|XD|TBL|REG|DOC|CONTRACT)-([A-Z]+-)?\d{2}$")
SINK_METHODS = {"check": 1, "held": 0, "failed": 0}  # CheckLedger method -> clauses argument
LEDGERS = {"checks", "ledger"}
SUITE = {"livecert.suite.steps": "steps", "livecert.suite.fixtures": "fixtures"}
ANALYSED = ("steps", "fixtures", "livecert/harness")
PURE = {
    "paytable",
    "load_paytable",
    "selection_code",
    "parse_dice",
    "parse_tokens",
}  # livecert.harness.vocabulary: called for real
PURE_METHODS = {"selection"}  # Paytable.selection(code)
COPIES = {"tuple", "list", "set", "frozenset", "sorted"}
MUTATORS = {"add", "append", "update", "extend", "discard", "setdefault", "remove", "pop"}


# -- abstract values: a frozenset of possibilities ------------------------------------------------


@dataclass(frozen=True)
class Seq:
    """A tuple or list whose i-th element has the abstract value items[i]."""

    items: tuple[frozenset, ...]
    exact: bool = True  # False: any number of elements, each one of items[sure:] (a comprehension)
    nonempty: bool = False  # an inexact sequence known to hold something (chosen by `or`)
    sure: int = 0  # of an inexact sequence: its first `sure` items are there for certain


@dataclass(frozen=True)
class Map:
    """A dict constant."""

    pairs: tuple[tuple[object, frozenset], ...]


@dataclass(frozen=True)
class Obj:
    """A concrete object of livecert's (a Paytable, a Selection), used through PURE calls."""

    obj: object

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Obj) and other.obj is self.obj


@dataclass(frozen=True)
class Marker:
    kind: str  # scene, tags, attr, rows, expected, rowobj, func, cls, opaque, checks
    name: str = ""
    ref: object = None


OPAQUE = frozenset({Marker("opaque")})
# settlement_check.SettlementRow.clauses: the bet's paytable row and REG-SETTLE-01, or
# REG-SETTLE-01 alone (a win off only by the rounding direction)
SETTLEMENT_ROW_CLAUSES = frozenset(
    {
        Seq((frozenset({Marker("rows", "any")}), frozenset({"REG-SETTLE-01"}))),
        Seq((frozenset({"REG-SETTLE-01"}),)),
    }
)
EMPTY: frozenset = frozenset()


def concrete(value: object) -> frozenset:
    """The abstract value of a Python constant."""
    if isinstance(value, str | bool | int | float) or value is None:
        return frozenset({value})
    if isinstance(value, tuple | list | set | frozenset):
        return frozenset({Seq(tuple(concrete(v) for v in value))})
    if isinstance(value, dict):
        return frozenset({Map(tuple((k, concrete(v)) for k, v in value.items()))})
    if isinstance(value, Marker):
        return frozenset({value})
    return frozenset({Obj(value)})


def elements(value: frozenset) -> frozenset:
    """What iterating `value` may give."""
    out: set = set()
    for item in value:
        if isinstance(item, Seq):
            for element in item.items:
                out |= element
        elif isinstance(item, Map):
            out |= {k for k, _ in item.pairs}
        elif isinstance(item, Marker) and item.kind in ("attr", "rows", "tags"):
            out.add(item)  # resolved per scenario
        elif isinstance(item, str | bool | int) or item is None:
            out.add(item)
        else:
            out.add(Marker("opaque"))
    return frozenset(out)


def truth(value: frozenset) -> bool | None:
    """True or False where every possibility agrees, else None."""
    seen = set()
    for item in value:
        if isinstance(item, Seq) and item.exact:
            seen.add(bool(item.items))
        elif isinstance(item, Seq):
            if not any(item.items) or item.nonempty:
                seen.add(bool(any(item.items)))
            else:
                return None
        elif isinstance(item, Map):
            seen.add(bool(item.pairs))
        elif isinstance(item, Marker | Obj):
            return None
        else:
            seen.add(bool(item))
    return seen.pop() if len(seen) == 1 else None


def shape(alternative: object) -> tuple[list[frozenset], frozenset] | None:
    """A check's clauses as the elements it surely names (each the set of what that element can
    be) and every clause it may name; None where something in it is not a clause we know."""
    if isinstance(alternative, Marker) and alternative.kind in ("attr", "rows"):
        return [frozenset({alternative})], frozenset({alternative})
    if not isinstance(alternative, Seq):
        return None
    if alternative.exact:
        parts = alternative.items
    elif alternative.sure:  # the sure head, then what may follow
        parts = (*alternative.items[: alternative.sure], alternative.items[-1])
    else:
        parts = (elements(frozenset({alternative})),)
    atoms = []
    for part in parts:
        found = set()
        for atom in elements(part):
            if isinstance(atom, str):
                if CLAUSE.match(atom):
                    found.add(atom)
            elif isinstance(atom, Marker) and atom.kind in ("rows", "attr", "tags"):
                found.add(atom)
            else:
                return None
        atoms.append(frozenset(found))
    may = frozenset().union(*atoms) if atoms else frozenset()
    # an inexact one (a comprehension) is taken to name something: all it may
    sure = atoms[: alternative.sure] if not alternative.exact and alternative.sure else atoms
    return sure, may


def _is_singleton(value: frozenset) -> bool:
    try:
        _singleton(value)
    except LookupError:
        return False
    return True


def _singleton(value: frozenset) -> object:
    if len(value) == 1:
        (item,) = value
        if isinstance(item, str | int | bool) or item is None:
            return item
    raise LookupError
