"""The suite's step lookup (fixtures/step_lookup.py, installed as
livecert.suite.fixtures.step_lookup) picks, for every step, the
definition pytest-bdd's own lookup picks: a step whose text only one example's values match, a
definition one module overrides and another does not, each step type. The same small project
runs with and without the plugin, each step writing down which definition ran it."""

import subprocess
import sys
import textwrap
from pathlib import Path

FEATURE = """
Feature: A roll
  Scenario Outline: The dealer enters a roll
    Given a table
    When the dealer enters <dice>
    Then the roll is recorded
    And a table

    Examples:
      | dice  |
      | 1 2 3 |
      | 6 6 6 |
      | 2 2 5 |
      | 6 6 5 |
"""

CONFTEST = """
import importlib
from pathlib import Path

from pytest_bdd import given, parsers, then, when

RAN = Path(__file__).parent / "ran.txt"


def ran(what):
    with RAN.open("a", encoding="utf-8") as out:
        out.write(what + "\\n")


def pytest_sessionstart(session):
    # by module path: `pytest_bdd.scenario` as an attribute is the package's decorator
    lookup = importlib.import_module("pytest_bdd.scenario").find_fixturedefs_for_step
    ran(f"lookup {lookup.__module__}.{lookup.__name__}")


@given("a table")
def a_table():
    ran("given: a table")


@then("a table")
def a_table_then():
    ran("then: a table")


@when(parsers.re(r"the dealer enters (?P<dice>\\d \\d \\d)"))
def any_roll(dice):
    ran(f"when any roll: {dice}")


@then("the roll is recorded")
def recorded():
    ran("then: conftest")
"""

OVERRIDING = """
from pytest_bdd import parsers, scenarios, then, when

from conftest import ran

scenarios("roll.feature")


@then("the roll is recorded")
def recorded_here():
    ran("then: {name}")
"""

TRIPLE = """

@when(parsers.re(r"the dealer enters (?P<dice>6 6 6)"))
def a_triple_six(dice):
    ran(f"when a triple six: {dice}")
"""

PLAIN = """
from pytest_bdd import scenarios

scenarios("roll.feature")
"""


def _run(folder: Path, with_plugin: bool) -> list[str]:
    (folder / "ran.txt").unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "pytest_bdd"]
    command += ["-p", "livecert.suite.fixtures.step_lookup"] if with_plugin else []
    done = subprocess.run(
        [*command, str(folder)], cwd=folder, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return (folder / "ran.txt").read_text(encoding="utf-8").splitlines()


def test_each_step_runs_the_definition_pytest_bdd_itself_would_pick(tmp_path: Path) -> None:
    (tmp_path / "roll.feature").write_text(FEATURE, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST), encoding="utf-8")
    (tmp_path / "test_a_overrides.py").write_text(OVERRIDING.format(name="a"), encoding="utf-8")
    (tmp_path / "test_b_plain.py").write_text(PLAIN, encoding="utf-8")
    overriding_more = OVERRIDING.format(name="c") + TRIPLE  # a roll's own definition too
    (tmp_path / "test_c_overrides.py").write_text(overriding_more, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nbdd_features_base_dir = .\n", encoding="utf-8")

    cached, own = _run(tmp_path, True), _run(tmp_path, False)

    assert cached[0] == "lookup livecert.suite.fixtures.step_lookup._find_once"
    assert own[0] == "lookup pytest_bdd.scenario.find_fixturedefs_for_step"
    assert cached[1:] == own[1:]
    # what pytest-bdd picks, as the project is written: each module's own "then" where it has
    # one, the triple's own definition in the module that has one, and only for its text
    assert own.count("then: a") == own.count("then: c") == own.count("then: conftest") == 4
    assert own.count("when a triple six: 6 6 6") == 1
    assert own.count("when any roll: 6 6 6") == 2
    assert own.count("when any roll: 1 2 3") == own.count("when any roll: 6 6 5") == 3
    # the same text as a Given and as a Then: each type its own definition
    assert own.count("given: a table") == own.count("then: a table") == 12
