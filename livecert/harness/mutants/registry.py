"""Answer mutants: the operators a validation run applies to what the harness reads.

A lab validating its method (ISO/IEC 17025) must show that each clause's checks can fail on the
target it certifies, not only on livecert's own reference. An operator breaks one clause the way
a real fault of that target would (a payout a minor unit off, a refused bet shown taken, a
balance lagging a settlement), but in the answers the adapter hands the steps, never in what is
sent: the target is untouched, and each answer altered is marked in the evidence.

Operators are registered by family (one module each, as Schemathesis registers its checks); each
says which clauses it can validate and which clauses a mutant of it must fail. A mutant is an
operator aimed at one clause: `NAME@CLAUSE` (`payout-unit-off@SB-PAY-05`). Some operators fit
only one shape of target (`applies`): a pushed event can be altered only where the target
pushes its rounds, an id swapped is the contract's finding only where the target speaks it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from livecert.harness.mutants.mutation import Mutation


class MutantError(ValueError):
    """A mutant named that no operator makes, or aimed at a clause it cannot validate."""


@dataclass(frozen=True)
class TargetShape:
    """What choosing the operators must know of the certified target (its run record says)."""

    pushes: bool = False  # it pushes its rounds on a stream the harness judges
    contract: bool = False  # it speaks the certification contract (ids judged on CONTRACT-03)


def _always(clause: str, shape: TargetShape) -> bool:
    return True


@dataclass(frozen=True)
class Operator:
    """One way of breaking answers; `validates(clause)` says which clauses it can break, and
    `declares(clause)` which clauses its mutant aimed at `clause` must fail (that one, unless
    the operator says otherwise)."""

    name: str
    family: str
    summary: str  # the fault it stands for, in a lab's words
    validates: Callable[[str], bool]
    mutation: "type[Mutation]"
    declares: Callable[[str], tuple[str, ...]] = lambda clause: (clause,)
    # the clauses whose scenarios a mutant's run selects: the aimed clause's, and others where
    # its fault shows in scenarios about another clause (a resume reopening betting)
    scope: Callable[[str], tuple[str, ...]] = lambda clause: (clause,)
    # whether a mutant aimed at the clause fits a target of that shape (a pushed event's
    # operator a target that pushes none would leave "not applied", at the cost of a run)
    applies: Callable[[str, TargetShape], bool] = _always


OPERATORS: dict[str, Operator] = {}
STREAMS = "streams"  # the family of a live table's pushed events


def operator(
    name: str,
    family: str,
    summary: str,
    validates: Callable[[str], bool],
    declares: Callable[[str], tuple[str, ...]] | None = None,
    scope: Callable[[str], tuple[str, ...]] | None = None,
    applies: Callable[[str, TargetShape], bool] = _always,
) -> "Callable[[type[Mutation]], type[Mutation]]":
    """Register the decorated Mutation class as the operator `name`."""

    def register(mutation: "type[Mutation]") -> "type[Mutation]":
        if name in OPERATORS:
            raise ValueError(f"the operator {name} is registered twice")
        OPERATORS[name] = Operator(
            name, family, summary, validates, mutation, declares or (lambda clause: (clause,)),
            scope or (lambda clause: (clause,)), applies,
        )  # fmt: skip
        return mutation

    return register


def clauses_in(*clauses: str) -> Callable[[str], bool]:
    """An operator's `validates` for a fixed set of clauses."""
    chosen = frozenset(clauses)
    return lambda clause: clause in chosen


@dataclass(frozen=True)
class Mutant:
    """An operator aimed at one clause."""

    operator: Operator
    clause: str

    @property
    def name(self) -> str:
        return f"{self.operator.name}@{self.clause}"

    @property
    def declares(self) -> tuple[str, ...]:
        return self.operator.declares(self.clause)

    @property
    def scope(self) -> tuple[str, ...]:
        return self.operator.scope(self.clause)


def all_operators() -> dict[str, Operator]:
    """Every registered operator (importing the families registers them)."""
    from livecert.harness.mutants import families  # noqa: F401  (registers them)

    return OPERATORS


def operators_for(clause: str, shape: TargetShape | None = None) -> list[Operator]:
    """The operators that can validate `clause`, in their registered order; on a target of
    `shape`, those that fit it, a pushed event's first where the target pushes its rounds (the
    stream is such a target's own evidence)."""
    found = [op for op in all_operators().values() if op.validates(clause)]
    if shape is None:
        return found
    found = [op for op in found if op.applies(clause, shape)]
    return sorted(found, key=lambda op: not (shape.pushes and op.family == STREAMS))


def parse_mutant(text: str) -> Mutant:
    """`NAME@CLAUSE` as a Mutant; a clear error naming what to fix otherwise."""
    name, at, clause = text.partition("@")
    operators = all_operators()
    if not at or not clause:
        raise MutantError(f"a mutant is NAME@CLAUSE (payout-unit-off@SB-PAY-05), not {text!r}")
    if name not in operators:
        raise MutantError(f"no operator is named {name!r}; operators: {', '.join(operators)}")
    if not operators[name].validates(clause):
        raise MutantError(f"the operator {name} cannot validate {clause}")
    return Mutant(operators[name], clause)
