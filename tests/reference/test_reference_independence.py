"""The reference implementation imports nothing from livecert outside livecert.reference."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "livecert" / "reference"


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                names.append("livecert.reference")  # relative: stays inside the package
            elif node.module:
                names.append(node.module)
    return names


def test_reference_imports_only_itself_from_livecert() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) >= 8
    offending = [
        (path.name, name)
        for path in files
        for name in _imports(path)
        if (name == "livecert" or name.startswith("livecert."))
        and not (name == "livecert.reference" or name.startswith("livecert.reference."))
    ]
    assert offending == []


def test_reference_does_not_read_the_contract_file() -> None:
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert "openapi.yaml" not in text and "livecert.contract" not in text, path.name
