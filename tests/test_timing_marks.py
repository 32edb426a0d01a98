"""Every test whose verdict can hang on the machine's speed carries the `timing` mark.

Such a test reads a clock (an elapsed bound, a wait, a sleep), itself or through a helper or a
fixture of its module; `benchmarks/busy_machine.py` runs the marked tests beside a busy process
on every core, three times in a row (tests/README.md, "A busy machine"). A test that reads a
clock and is not marked would escape that run, so this file finds them statically: calls of
`time`'s clocks and sleep (however imported) and of `datetime.now`, in the test, a function of
its module it calls or a fixture of its module it takes. Clocks read in other modules (a fake
target's drip, a support module's start-up wait) and tests that depend on time without reading
a clock (a live table keeping its own, threads or processes at once) are marked by hand, their
whole module where the module is about that.
"""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "sleep", "monotonic_ns", "perf_counter_ns"}
DATETIME_CLOCKS = {"now", "utcnow", "today"}


def _time_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names the `time` module goes by (`import time as t`) and the names its clocks were
    imported as (`from time import monotonic as now`), wherever the import is."""
    modules, clocks = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name == "time"}
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            clocks |= {a.asname or a.name for a in node.names if a.name in CLOCKS}
    return modules, clocks


def _reads_a_clock(node: ast.AST, modules: set[str], clocks: set[str]) -> bool:
    """`time.monotonic()`, `time.sleep(...)`, `datetime.now(...)` and the like, or a clock
    imported from `time` by name."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if isinstance(func, ast.Name) and func.id in clocks:
            return True
        if not isinstance(func, ast.Attribute):
            continue
        owner = ast.unparse(func.value)
        if func.attr in CLOCKS and owner in modules:
            return True
        if func.attr in DATETIME_CLOCKS and owner.split(".")[-1] in {"datetime", "date"}:
            return True
    return False


def _is_timing(expression: ast.AST) -> bool:
    """`pytest.mark.timing`, alone, called, or among a list of marks."""
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == "timing"
        and ast.unparse(node.value).endswith("mark")
        for node in ast.walk(expression)
    )


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    return any(_is_timing(d) for d in node.decorator_list)


def _marks_all(body: list[ast.stmt]) -> bool:
    """A `pytestmark` of the module (or class) body naming the timing mark."""
    for node in body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        value = getattr(node, "value", None)
        named = any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets)
        if named and value is not None and _is_timing(value):
            return True
    return False


def unmarked_clock_readers(source: str) -> list[str]:
    """The test functions of `source` that read a clock (their own body, or a function or
    fixture of the module they call or take) and carry no `timing` mark, nor does their class
    or module."""
    tree = ast.parse(source)
    if _marks_all(tree.body):
        return []
    modules, clocks = _time_names(tree)
    helpers: dict[str, ast.AST] = {}  # the module's functions and fixtures, called by name
    tests: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, bool]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            helpers[node.name] = node
            if node.name.startswith("test_"):
                tests.append((node.name, node, _decorated(node)))
        elif isinstance(node, ast.ClassDef):
            whole = _marks_all(node.body) or _decorated(node)
            tests += [
                (f"{node.name}.{item.name}", item, whole or _decorated(item))
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and item.name.startswith("test_")
            ]
    reads = {name for name, f in helpers.items() if _reads_a_clock(f, modules, clocks)}

    def uses_reader(function: ast.AST) -> bool:
        used = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
        used |= {a.arg for a in function.args.args}  # type: ignore[attr-defined]
        return bool(used & reads)

    changed = True
    while changed:  # through the module's helpers and fixtures, however deep
        changed = False
        for name, function in helpers.items():
            if name not in reads and uses_reader(function):
                reads.add(name)
                changed = True
    return sorted(
        name
        for name, function, marked in tests
        if not marked and (_reads_a_clock(function, modules, clocks) or uses_reader(function))
    )


def test_every_test_reading_a_clock_is_marked_timing() -> None:
    unmarked = {
        str(path.relative_to(TESTS)): names
        for path in sorted(TESTS.rglob("test_*.py"))
        if (names := unmarked_clock_readers(path.read_text(encoding="utf-8")))
    }
    assert not unmarked, f"mark these @pytest.mark.timing (or their module): {unmarked}"


def test_the_check_finds_a_clock_read_directly_through_a_helper_or_a_fixture() -> None:
    source = """
import time as clock
from datetime import datetime
import pytest

def helper():
    return clock.monotonic()

@pytest.fixture
def started():
    from time import monotonic as now
    return now()

def test_direct():
    clock.sleep(0.1)

def test_by_the_date():
    assert datetime.now()

def test_through_helper():
    assert helper() > 0

def test_through_fixture(started):
    assert started

@pytest.mark.timing
def test_marked():
    clock.sleep(0.1)

@pytest.mark.parametrize("timing", [1])
def test_a_parameter_named_timing_is_no_mark(timing):
    clock.sleep(timing)

@pytest.mark.timing
class TestMarked:
    def test_in_a_marked_class(self):
        clock.sleep(0.1)

class TestPlain:
    def test_in_a_plain_class(self):
        assert helper()

    def test_no_clock(self):
        assert 1 + 1 == 2

def test_no_clock():
    assert 1 + 1 == 2
"""
    assert unmarked_clock_readers(source) == [
        "TestPlain.test_in_a_plain_class",
        "test_a_parameter_named_timing_is_no_mark",
        "test_by_the_date",
        "test_direct",
        "test_through_fixture",
        "test_through_helper",
    ]
    for whole in ("pytestmark = pytest.mark.timing", "pytestmark: list = [pytest.mark.timing]"):
        assert unmarked_clock_readers(f"import pytest\n{whole}\n" + source) == []
