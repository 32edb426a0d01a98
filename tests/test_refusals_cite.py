"""Every refusal a scenario demands cites the rule or the contract section that requires it.

A step that demands a refusal (its words say "refused") says in its docstring which clause of
RULES.md, or which section of the contract, requires the target to refuse: demanding what
neither says is a false alarm against a correct implementation (0.1.0 demanded a Xoc Dia re-shake
during betting be refused, which neither says).
"""

import ast
import re
from pathlib import Path

import pytest

from livecert.rules import load_catalogue

STEPS = Path(__file__).resolve().parent.parent / "steps"
CLAUSE = re.compile(r"\b(?:SB|XD|TBL|REG)-[A-Z]+-\d{2}\b")


def refusal_steps() -> list[tuple[str, ast.FunctionDef]]:
    found = []
    for path in sorted(STEPS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            words = " ".join(
                ast.unparse(d) for d in node.decorator_list if "then" in ast.unparse(d)
            )
            if "refused" in words:
                found.append((f"{path.name}:{node.name}", node))
    return found


def test_the_refusal_steps_are_found() -> None:
    assert len(refusal_steps()) >= 9


@pytest.mark.parametrize("name,node", refusal_steps(), ids=[n for n, _ in refusal_steps()])
def test_a_demanded_refusal_cites_its_clause(name: str, node: ast.FunctionDef) -> None:
    doc = ast.get_docstring(node) or ""
    cited = set(CLAUSE.findall(doc))
    assert cited or "contract" in doc, f"{name} demands a refusal but cites no clause: {doc!r}"
    assert cited <= set(load_catalogue()), f"{name} cites unknown clauses {cited}"
