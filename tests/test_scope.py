"""The certified scope, the feature tags and the seeded faults stay in step.

Every clause the harness claims to certify has scenarios tagged with it and at least one seeded
fault that breaks it; every clause tag in a feature is a real clause of the catalogue.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from livecert.certify.scope import IN_SCOPE, clauses_in_scope
from livecert.certify.selftest import list_faults
from livecert.certify.suite_command import feature_files
from livecert.contract import CONTRACT_CLAUSES
from livecert.rules import load_catalogue

ROOT = Path(__file__).resolve().parent.parent
TAG = re.compile(r"@((?:SB|XD|TBL|REG|DOC)-[A-Z]+-\d{2})\b")


GAME_TAG = re.compile(r"@(sicbo|xocdia)\b")


def feature_tags(game: str) -> set[str]:
    """Clause tags of a game's features and of the shared ones (whose Examples cover both); in a
    shared feature, a tag line that names a game (an Examples block's) counts for that game only."""
    tags: set[str] = set()
    for path in (ROOT / "features" / game).glob("*.feature"):
        tags |= set(TAG.findall(path.read_text(encoding="utf-8")))
    for path in (ROOT / "features" / "table").glob("*.feature"):
        for line in path.read_text(encoding="utf-8").splitlines():
            games = set(GAME_TAG.findall(line))
            if not games or game in games:
                tags |= set(TAG.findall(line))
    return tags


@pytest.mark.parametrize("game", [g for g, clauses in IN_SCOPE.items() if clauses])
def test_every_clause_in_scope_has_tagged_scenarios(game: str) -> None:
    missing = set(IN_SCOPE[game]) - feature_tags(game)
    assert not missing, f"{game}: clauses in scope with no scenario tagged: {sorted(missing)}"


@pytest.mark.parametrize("game", [g for g, clauses in IN_SCOPE.items() if clauses])
def test_every_tag_is_a_catalogue_clause_in_scope(game: str) -> None:
    tags = feature_tags(game)
    assert tags <= set(load_catalogue()), sorted(tags - set(load_catalogue()))
    assert tags <= set(IN_SCOPE[game]), (
        f"tagged but not in scope: {sorted(tags - set(IN_SCOPE[game]))}"
    )


def test_every_clause_in_scope_has_a_seeded_fault() -> None:
    faults = list_faults()
    broken = {c for clauses in faults.values() for c in clauses}
    for game in IN_SCOPE:
        missing = set(clauses_in_scope((game,))) - broken
        assert not missing, f"{game}: no seeded fault breaks {sorted(missing)}"


def test_the_fault_list_names_real_clauses_one_fault_per_line() -> None:
    faults = list_faults()
    assert len(faults) >= 8
    for name, clauses in faults.items():
        assert re.fullmatch(r"[a-z0-9-]+", name), name
        assert set(clauses) <= set(load_catalogue()) | set(CONTRACT_CLAUSES), (name, clauses)


SCENARIO = re.compile(r"^\s*Scenario(?: Outline)?:\s*(.+?)\s*$", re.MULTILINE)


@pytest.mark.parametrize(
    "path", sorted((ROOT / "features").glob("*/*.feature")), ids=lambda p: p.name
)
def test_no_two_scenarios_of_a_feature_share_a_name(path: Path) -> None:
    """pytest-bdd keys a feature's scenarios by name: a second scenario of the same name would
    silently replace the first, and its Examples would never run (it happened once)."""
    names = SCENARIO.findall(path.read_text(encoding="utf-8"))
    repeated = sorted({n for n in names if names.count(n) > 1})
    assert not repeated, f"{path.name}: scenarios sharing a name (one would never run): {repeated}"


def _scenario_tags() -> list[tuple[Path, set[str]]]:
    """Every scenario (each Examples block apart) with all the tags that select it."""
    from pytest_bdd.feature import get_features

    found = []
    for feature in get_features([str(ROOT / "features")]):
        for scenario in feature.scenarios.values():
            tags = feature.tags | scenario.tags
            for examples in scenario.examples or [None]:
                found.append(
                    (Path(feature.filename), tags | (examples.tags if examples else set()))
                )
    return found


@pytest.mark.parametrize("game", ["sicbo", "xocdia"])
def test_the_files_bound_for_a_selection_hold_every_scenario_it_selects(game: str) -> None:
    """certify parses only the feature files whose tags can match its selection
    (LIVECERT_FEATURE_FILES): no scenario a selection picks may be in a file left out."""
    scenarios = _scenario_tags()
    for clause in [None, *clauses_in_scope((game,), contract=False, outcomes=False)]:
        chosen = set(feature_files(ROOT / "features", (game,), [clause] if clause else []))
        picked = {p for p, tags in scenarios if game in tags and (clause is None or clause in tags)}
        assert picked, (game, clause)
        assert picked <= chosen, (game, clause, sorted(str(p) for p in picked - chosen))
    assert len(feature_files(ROOT / "features", (game,), ["SB-STAT-01"])) == (game == "sicbo")


def test_a_selection_runs_the_same_scenarios_in_the_same_order_from_its_files() -> None:
    """The files certify binds for `--clauses` give the very scenarios, in the very order, that
    binding every file gives (the sweep before the return to player, whose rounds it reuses)."""
    marker = "(sicbo) and (SB-PAY-09 or REG-RTP-01 or SB-STAT-01)"
    files = feature_files(ROOT / "features", ("sicbo",), ["SB-PAY-09", "REG-RTP-01", "SB-STAT-01"])

    def collected(env: dict[str, str]) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "features", "--collect-only", "-q", "-m", marker],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, **env},
        )
        return [line for line in done.stdout.splitlines() if "::" in line]

    everything = collected({"LIVECERT_FEATURE_FILES": ""})
    assert len(everything) > 216 and any("theoretical_share" in n for n in everything)
    assert collected({"LIVECERT_FEATURE_FILES": os.pathsep.join(map(str, files))}) == everything
