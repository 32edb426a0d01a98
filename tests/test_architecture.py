"""The layers of ARCHITECTURE.md, enforced: who may import whom.

The oracle and the reference implementation must share no code (a bug in a shared function would
certify itself), and the scenarios must reach the target only through the adapter.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# layer -> the project modules it may import (prefixes); the package root `livecert` is allowed
# to everyone for __version__, and `livecert.target_text` (the target's words shown, never
# obeyed) to every layer but the reference and the features.
TEXT = "livecert.target_text"
ALLOWED: dict[str, tuple[str, ...]] = {
    "livecert": (),
    TEXT: (),
    "livecert.rules": ("livecert.rules", TEXT),
    "livecert.contract": ("livecert.contract", TEXT),
    "livecert.adapters": ("livecert.adapters", "livecert.rules", "livecert.contract", TEXT),
    "livecert.harness": (
        TEXT,
        "livecert.harness",
        "livecert.adapters",
        "livecert.rules",
        "livecert.contract",
    ),
    "livecert.report": ("livecert.report", "livecert.rules", "livecert.contract", TEXT),
    "livecert.fairness": ("livecert.fairness",),  # numpy and scipy: the battery, no I/O of runs
    "livecert.certify": (
        TEXT,
        "livecert.certify",
        "livecert.report",
        "livecert.fairness",
        "livecert.harness",
        "livecert.adapters",
        "livecert.rules",
        "livecert.contract",
        "livecert.suite.location",  # where the features are; the suite runs in a subprocess
        "livecert.settings",  # the settings' variables, kept from the suite's run
    ),
    "livecert.load": (  # drives the target on Locust; imported only by `livecert load`
        TEXT,
        "livecert.load",
        "livecert.harness",
        "livecert.adapters",
        "livecert.rules",
        "livecert.contract",
    ),
    "livecert.settings": (),
    "livecert.__main__": ("livecert.cli",),
    "livecert.cli": (
        TEXT,
        "livecert.cli",
        "livecert.settings",
        "livecert.certify",
        "livecert.fairness",  # `livecert outcomes` prints the analysis
        "livecert.load",  # `livecert load`, imported when that command runs (Locust's gevent)
        "livecert.rules",
        "livecert.contract",
        "livecert.reference.serve",
        "livecert.harness.restart_options",  # the restart options, one definition (stdlib only)
        "livecert.report.signing",  # `livecert sign` and `verify`: a finished report's files
    ),
    "livecert.reference": ("livecert.reference",),
    # the suite: features/, steps/ and fixtures/ in the repository, livecert.suite.* installed
    "livecert.suite": (),
    "livecert.suite.location": (),
    "livecert.suite.plugin": ("livecert.suite.fixtures.options",),
    "livecert.suite.fixtures": (
        TEXT,
        "livecert.suite.fixtures",
        "livecert.harness",
        "livecert.adapters",
        "livecert.rules",
        "livecert.contract",
    ),
    "livecert.suite.steps": (
        TEXT,
        "livecert.suite.steps",
        "livecert.suite.fixtures",
        "livecert.harness",
        "livecert.adapters",
        "livecert.rules",
        "livecert.contract",
    ),
    "livecert.suite.features": (),
}
PROJECT = ("livecert", "fixtures", "steps", "features")


SUITE_FOLDERS = ("features", "steps", "fixtures")  # installed as livecert.suite.<folder>


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts[0] in SUITE_FOLDERS:
        parts = ["livecert", "suite", *parts]
    return ".".join(parts)


def _layer(module: str) -> str:
    return max(
        (layer for layer in ALLOWED if module == layer or module.startswith(layer + ".")), key=len
    )


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return [n for n in names if n.split(".")[0] in PROJECT]


SOURCES = sorted(
    p for folder in PROJECT for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_layers(path: Path) -> None:
    module = _module_name(path)
    layer = _layer(module)
    allowed = ALLOWED[layer]
    bad = [
        name
        for name in _imports(path)
        if name != "livecert" and not any(name == a or name.startswith(a + ".") for a in allowed)
    ]
    assert not bad, f"{module} (layer {layer}) imports {bad}; ARCHITECTURE.md allows {allowed}"


def test_the_oracle_and_the_reference_share_nothing() -> None:
    """Both directions, spelled out: the check above would allow neither, this names why."""
    for folder, other in (
        ("livecert/rules", "livecert.reference"),
        ("livecert/reference", "livecert.rules"),
    ):
        for path in (ROOT / folder).rglob("*.py"):
            assert not [n for n in _imports(path) if n.startswith(other)], (
                f"{path} imports {other}: the oracle and the reference must stay independent"
            )


def test_nothing_in_features_or_steps_mentions_the_reference_server() -> None:
    for folder in SUITE_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            assert not [n for n in _imports(path) if n.startswith("livecert.reference")], path
