"""No check without its tag: every check a step can make is judged in its scenario, proven
statically over features/ and steps/ (issue 36).

A check is judged in a scenario when it names a clause the scenario is tagged with (scenario,
Rule and Feature tags), when it is made `judge_untagged` (the round's state, an action refused),
or when it names a duty every round shows in passing (`round_clauses.IN_PASSING`). At run time a
failed check judged nowhere turns the verdict incomplete (a harness error) instead of being a
finding; this test finds such a check before any run. tests/clause_flow/ binds each scenario's
steps to their functions and follows the clauses into every check they can make; see its
docstring for what it models.
"""

import shutil
from pathlib import Path

import pytest
from clause_flow import ROOT, Checker


@pytest.fixture(scope="module")
def analysis():
    return Checker().analyse()


def test_every_step_binds(analysis) -> None:
    assert not analysis.unbound, "\n".join(analysis.unbound)


def test_every_check_resolves(analysis) -> None:
    unresolved = sorted(f"{origin}: {expr}" for origin, expr in analysis.unresolved)
    assert not unresolved, "checks whose clauses the analysis cannot follow:\n" + "\n".join(
        unresolved
    )


def test_every_check_is_judged_in_its_scenario(analysis) -> None:
    violations = sorted({str(v) for v in analysis.violations})
    assert not violations, f"{len(violations)} checks judged nowhere:\n" + "\n".join(
        violations[:200]
    )


def _one_feature(tmp_path: Path, feature: str, old: str, new: str) -> Path:
    """A copy of one feature with `old` replaced by `new`, alone in a features folder."""
    root = tmp_path / "features"
    copy = root / feature
    copy.parent.mkdir(parents=True)
    shutil.copy(ROOT / "features" / feature, copy)
    text = copy.read_text()
    assert old in text
    copy.write_text(text.replace(old, new, 1))
    return root


def test_a_tag_removed_from_a_scenario_is_found(tmp_path: Path) -> None:
    """The void feature's first void without XD-VOID-01: its refund checks are judged nowhere."""
    root = _one_feature(
        tmp_path,
        "xocdia/voids.feature",
        "    @XD-VOID-01 @REG-RECALL-01\n    Scenario: The bowl is lifted",
        "    @REG-RECALL-01\n    Scenario: The bowl is lifted",
    )
    found = {(v.clause, v.origin.split(":")[0]) for v in Checker(root).analyse().violations}
    assert ("XD-VOID-01", "steps/refunds.py") in found, found


def test_a_check_a_scenario_is_not_tagged_for_is_found(tmp_path: Path) -> None:
    """A withdrawal tried in a scenario tagged only with a paytable row: SB-RND-04 judged
    nowhere."""
    root = _one_feature(
        tmp_path,
        "sicbo/totals.feature",
        "      Then the Total <total> bet wins <win>",
        "      When the player tries to withdraw the Total <total> bet\n"
        "      Then the withdrawal is refused\n"
        "      Then the Total <total> bet wins <win>",
    )
    found = {v.clause for v in Checker(root).analyse().violations}
    assert "SB-RND-04" in found, found


def test_a_check_judged_anywhere_is_not_a_violation(tmp_path: Path) -> None:
    """The same scenario with the round's state checked (a pause, judged wherever it runs) and
    its tags unchanged: the pause's own refusal check is found, the state checks are not."""
    root = _one_feature(
        tmp_path,
        "sicbo/totals.feature",
        "      Then the Total <total> bet wins <win>",
        "      When the dealer pauses the round for a malfunction\n"
        "      Then the Total <total> bet wins <win>",
    )
    origins = {v.origin for v in Checker(root).analyse().violations}
    assert not any(o.startswith("fixtures/scene.py") for o in origins), origins
