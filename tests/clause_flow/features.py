"""The features as pytest-bdd runs them: pickles (Examples expanded, tags inherited) and the
step definitions they bind to."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from .project import (
    Module,
    Project,
)
from .values import (
    CLAUSE,
    ROOT,
)

# -- features bound to steps -----------------------------------------------------------------------

KINDS = {"given": "Context", "when": "Action", "then": "Outcome"}


@dataclass(frozen=True)
class StepDef:
    kind: str  # Context, Action or Outcome
    pattern: re.Pattern | None
    text: str | None
    module: Module
    node: ast.FunctionDef

    def arguments(self, text: str) -> dict[str, str | None] | None:
        if self.text is not None:
            return {} if text == self.text else None
        match = self.pattern.fullmatch(text)
        return None if match is None else match.groupdict()

    @property
    def where(self) -> str:
        return f"{self.module.rel}:{self.node.lineno} {self.node.name}"


def step_definitions(project: Project) -> list[StepDef]:
    """Every @given/@when/@then of steps/*.py with its parser, evaluated from the AST."""
    found = []
    for module in project.modules.values():
        if not module.rel.startswith("steps/"):
            continue
        for node in module.tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                if not (
                    isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") in KINDS
                ):
                    continue
                kind = KINDS[decorator.func.id]
                arg = decorator.args[0]
                if isinstance(arg, ast.Call):  # parsers.re(pattern)
                    source = compile(ast.Expression(arg.args[0]), "", "eval")
                    pattern = re.compile(eval(source, dict(module.ns)))
                    found.append(StepDef(kind, pattern, None, module, node))
                else:
                    text = eval(compile(ast.Expression(arg), "", "eval"), dict(module.ns))
                    found.append(StepDef(kind, None, text, module, node))
    return found


@dataclass
class PickleStep:
    text: str
    kind: str
    line: int


@dataclass
class Pickle:
    path: str
    line: int
    name: str
    tags: frozenset
    game: str
    steps: list[PickleStep]


def pickles(root: Path = ROOT / "features") -> list[Pickle]:
    """Every scenario (and Examples row) of every feature, as the Gherkin compiler makes it."""
    from gherkin.parser import Parser
    from gherkin.pickles.compiler import Compiler

    out = []
    for path in sorted(root.rglob("*.feature")):
        document = Parser().parse(path.read_text())
        document["uri"] = str(path)
        lines = _ast_lines(document)
        for pickle in Compiler().compile(document):
            tags = {t["name"].lstrip("@") for t in pickle["tags"]}
            game = "xocdia" if "xocdia" in tags else "sicbo"
            clause_tags = frozenset(t for t in tags if CLAUSE.match(t))
            steps, kind = [], "Context"
            for step in pickle["steps"]:
                kind = step.get("type") if step.get("type") in KINDS.values() else kind
                steps.append(PickleStep(step["text"], kind, lines[step["astNodeIds"][0]]))
            ids = pickle["astNodeIds"]
            line = lines[ids[-1]] if len(ids) > 1 else lines[ids[0]]
            rel = path.relative_to(root.parent).as_posix()
            out.append(Pickle(rel, line, pickle["name"], clause_tags, game, steps))
    return out


def _ast_lines(node: object, found: dict | None = None) -> dict[str, int]:
    found = {} if found is None else found
    if isinstance(node, dict):
        if "id" in node and "location" in node:
            found[node["id"]] = node["location"]["line"]
        for value in node.values():
            _ast_lines(value, found)
    elif isinstance(node, list):
        for value in node:
            _ast_lines(value, found)
    return found
