"""Each scenario's checks judged against its tags."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from livecert.harness.round_clauses import IN_PASSING

from .features import (
    Pickle,
    PickleStep,
    StepDef,
    pickles,
    step_definitions,
)
from .interpreter import (
    Context,
    Interpreter,
    Summary,
)
from .project import (
    Project,
)
from .values import (
    EMPTY,
    OPAQUE,
    ROOT,
    Marker,
    Seq,
    elements,
    shape,
)


@dataclass
class Violation:
    where: str  # feature:line scenario: step
    clause: str
    origin: str  # the check's source line

    def __str__(self) -> str:
        return f"{self.where} -> {self.clause} (check at {self.origin})"


@dataclass
class Analysis:
    violations: list[Violation] = field(default_factory=list)
    unbound: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)
    unresolved: set = field(default_factory=set)


def row_clauses(game: str, labels: Iterable[str] | None) -> set[str]:
    """The paytable rows a settlement of these bets can name (every row when `labels` is None):
    the selection's clause, and the triple-loss clause where the selection loses on a triple."""
    from livecert.harness.vocabulary import paytable, selection_code

    table = paytable(game)
    if labels is None:
        selections = list(table.selections)
    else:
        selections = [table.selection(selection_code(label, game)) for label in labels]
    out = set()
    for selection in selections:
        out.add(selection.clause)
        if selection.loses_on_triple and table.triple_loss_clause:
            out.add(table.triple_loss_clause)
    return out


class Checker:
    """Binds the pickles to the steps and checks each scenario's clauses against its tags."""

    def __init__(self, root: Path = ROOT / "features") -> None:
        self.project = Project()
        self.interp = Interpreter(self.project)
        self.defs = step_definitions(self.project)
        self.pickles = pickles(root)

    def bind(self, step: PickleStep) -> list[tuple[StepDef, dict]]:
        matches = []
        for definition in self.defs:
            if definition.kind != step.kind:
                continue
            arguments = definition.arguments(step.text)
            if arguments is not None:
                matches.append((definition, arguments))
        return matches

    def run_step(self, ctx: Context, definition: StepDef, arguments: dict) -> Summary:
        params = [a.arg for a in definition.node.args.args]
        args = {}
        for name in params:
            if name == "scene":
                args[name] = frozenset({Marker("scene")})
            elif name in arguments:
                args[name] = frozenset({arguments[name]})
            else:
                args[name] = OPAQUE  # a fixture
        return self.interp.call(ctx, definition.module, definition.node, args)

    def _summaries(self, pickle: Pickle, bound: list, game: str) -> tuple[list, dict]:
        """Each bound step run for `game`, and what the steps write on the scene. Pass 1: which
        scene attributes the steps may write; pass 2: with only those, plain ones by value."""
        written, scalars = None, ()
        for _ in range(2):
            ctx = Context(game, pickle.tags, written, scalars)
            summaries = [
                (step, self.run_step(ctx, d, a)) for step, matches in bound for d, a in matches
            ]
            writes: dict = {}
            for _, summary in summaries:
                for attr, value in summary.writes.items():
                    writes[attr] = writes.get(attr, EMPTY) | value
            written = frozenset(writes)
            scalars = tuple(
                sorted(
                    (attr, value)
                    for attr, value in writes.items()
                    if all(isinstance(v, str | bool | int) or v is None for v in value)
                    and all(
                        isinstance(v, str | bool | int) or v is None
                        for v in self.interp.scene_defaults.get(attr, OPAQUE)
                    )
                )
            )
        return summaries, writes

    def analyse(self) -> Analysis:
        analysis = Analysis()
        for pickle in self.pickles:
            bound = []
            for step in pickle.steps:
                matches = self.bind(step)
                place = f"{pickle.path}:{step.line} {pickle.name}: {step.text}"
                if not matches:
                    analysis.unbound.append(place)
                    continue
                if len(matches) > 1:
                    analysis.ambiguous.append(
                        place + " <- " + ", ".join(d.where for d, _ in matches)
                    )
                bound.append((step, matches))
            summaries, writes = self._summaries(pickle, bound, pickle.game)
            # a step that sets the scene's game (a table feature's "at a Xoc Dia table"): the
            # scenario is followed once per game it may play
            games = {g for g in writes.get("game", EMPTY) if isinstance(g, str)} - {pickle.game}
            runs = [(pickle.game, summaries, writes)]
            runs += [(g, *self._summaries(pickle, bound, g)) for g in sorted(games)]
            for game, summaries, writes in runs:
                bets = set().union(*(s.bets for _, s in summaries)) if summaries else set()
                outcomes = set().union(*(s.outcomes for _, s in summaries)) if summaries else set()
                scenario = Scenario(pickle, game, writes, bets, outcomes)
                for step, summary in summaries:
                    analysis.unresolved |= summary.unresolved
                    for alternative, origin in summary.sinks:
                        for clauses in scenario.untagged(alternative):
                            where = f"{pickle.path}:{step.line} {pickle.name}: {step.text}"
                            analysis.violations.append(Violation(where, clauses, origin))
        return analysis


@dataclass
class Scenario:
    """One pickle with what its steps wrote, bet on and entered: a check judged against it."""

    pickle: Pickle
    game: str
    writes: dict
    bets: set
    outcomes: set

    def untagged(self, alternative: object, depth: int = 0) -> list[str]:
        """For a check that may name no tagged clause, the clauses it may name, else nothing."""
        if isinstance(alternative, Marker) and alternative.kind == "attr":
            found = []
            for written in self.writes.get(alternative.name, EMPTY):
                if depth < 5 and not (isinstance(written, Seq) and not written.items):
                    found += self.untagged(written, depth + 1)
            return found
        shaped = shape(alternative)
        if shaped is None:  # a scene attribute written with something the analysis cannot follow
            return [f"(clauses not followed: {alternative!r:.80})"]
        sure, may = shaped
        tags = self.pickle.tags
        clauses = set()
        for atom in may:
            clauses |= self.values(atom, depth)
        for element in sure:
            values = set()
            for atom in element:
                values |= self.values(atom, depth)
            if values and values <= tags | {TAGGED}:
                return []  # judged here: it surely names a clause the scenario is tagged with
            if values and values <= set(IN_PASSING):
                return []  # judged here, failed: it surely names a duty shown in passing
        return [", ".join(sorted(clauses - tags - {TAGGED})) or "(no clause)"]

    def values(self, atom: object, depth: int) -> set:
        if isinstance(atom, str):
            return {atom}
        if atom.kind == "tags":
            return {TAGGED}
        if atom.kind == "rows":
            return self.rows(atom.name == "placed")
        out = set()
        for written in self.writes.get(atom.name, EMPTY):
            if depth < 5:
                out |= {c for c in elements(frozenset({written})) if isinstance(c, str)}
        return out

    def rows(self, placed: bool) -> set[str]:
        """The paytable rows a settlement here can name: of each bet placed on each result
        entered (the oracle's own ruling), or of every selection where the harness draws them."""
        from livecert.harness.vocabulary import paytable, selection_code
        from livecert.rules.settlement import OutcomeError, settle

        game = self.game
        table = paytable(game)
        codes = (
            [selection_code(label, game) for label in self.bets]
            if placed
            else [s.code for s in table.selections]
        )
        out = set()
        for code in codes:
            if placed and self.outcomes and None not in self.outcomes:
                for outcome in self.outcomes:
                    with contextlib.suppress(OutcomeError):  # a result tried, never settled
                        out |= set(settle(table, code, outcome).clauses)
                continue
            selection = table.selection(code)
            out.add(selection.clause)
            if selection.loses_on_triple and table.triple_loss_clause:
                out.add(table.triple_loss_clause)
        return out


TAGGED = "(a clause of the scenario's own tags)"
