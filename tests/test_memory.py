"""The suite's long-lived objects are frozen out of the garbage collector's full sweeps
(livecert/suite/fixtures/memory.py): once the suite is collected, and again every FREEZE_EVERY
scenarios, after a scenario has let go of what it held. Runs of plain tests with the plugin show
both, as each test sees the count of frozen objects and whether an earlier one's garbage went."""

import subprocess
import sys
import textwrap
from pathlib import Path

from livecert.suite.fixtures.memory import FREEZE_EVERY, UNFREEZE_EVERY

# a plugin holding a cycle for the FREEZE_EVERY-th test and letting go of it once the test has
# run, as the evidence plugin lets go of a scenario's scene and exchanges
HOLDER = """
import pytest

HELD = {}

@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item):
    try:
        return (yield)
    finally:
        HELD.clear()
"""

TESTS = """
import gc
import weakref

import pytest

import holder

SEEN = []
GONE = []


class Cycle:
    def __init__(self):
        self.me = self


@pytest.mark.parametrize("index", range({count}))
def test_one(index):
    SEEN.append(gc.get_freeze_count())
    if index == {every} - 1:
        cycle = Cycle()
        holder.HELD["cycle"] = cycle
        GONE.append(weakref.ref(cycle))
    if index == {count} - 1:
        gc.collect()
        freed = GONE[0]() is None
        print("FROZEN", SEEN[0], SEEN[{every} - 1], SEEN[{every}], freed)


LATE = {{}}
LATE_GONE = []


@pytest.mark.parametrize("index", range({late}))
def test_late(index):
    # a cycle alive at a freeze (kept by LATE) and let go of after: garbage among the frozen,
    # kept until the freezes come round to a full collection
    if index == 0:
        LATE["cycle"] = Cycle()
        LATE_GONE.append(weakref.ref(LATE["cycle"]))
    if index == {every} + 1:
        LATE.clear()
    if index in ({every} + 2, {late} - 1):
        gc.collect()
        print("LATE", index, LATE_GONE[0]() is None)
"""


def _run(folder: Path, count: int, late: int = 0) -> str:
    (folder / "holder.py").write_text(textwrap.dedent(HOLDER))
    (folder / "test_frozen.py").write_text(
        textwrap.dedent(TESTS.format(count=count, every=FREEZE_EVERY, late=late))
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "livecert.suite.fixtures.memory",
         "-p", "holder", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
         str(folder / "test_frozen.py")],
        cwd=folder, capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_the_collected_suite_is_frozen_and_refrozen_as_scenarios_finish(tmp_path: Path) -> None:
    first, before, after, freed = _run(tmp_path, FREEZE_EVERY + 5).split("FROZEN ")[1].split()[:4]
    assert int(first) > 0  # frozen once the tests were collected
    assert int(before) <= int(first)  # nothing added (frozen objects freed since are gone)
    assert int(after) > int(before)  # then frozen again, with what the run made meanwhile
    # the FREEZE_EVERY-th test's cycle, let go of as that test ended, was not frozen with it
    assert freed == "True"


def test_garbage_among_the_frozen_is_freed_when_the_freezes_come_round(tmp_path: Path) -> None:
    # the late tests run after the first FREEZE_EVERY + 5: freezes at 50, 100, ... the
    # UNFREEZE_EVERY-th (collection's counted) after FREEZE_EVERY * (UNFREEZE_EVERY - 1) tests
    late = FREEZE_EVERY * (UNFREEZE_EVERY - 1) + 10
    out = _run(tmp_path, FREEZE_EVERY + 5, late)
    assert f"LATE {FREEZE_EVERY + 2} False" in out  # frozen while kept: not freed at once
    assert f"LATE {late - 1} True" in out  # freed once everything was unfrozen and collected
