"""Interrupted games (REG-INTR-01, GLI-19 §4.16): the reference server is killed with SIGKILL after
bets are confirmed and started again on the same database; the bets are all there and the round
can be finished with a result or cancelled with refunds.

This restarts the target, so it is a self-test of the embedded reference, not a black-box
scenario. The seeded fault `interrupted-round-lost` must make the same check fail.
"""

from pathlib import Path

import pytest

from livecert.harness.interruption import interrupt_and_finish


@pytest.mark.parametrize("finish", ["result", "cancel"])
def test_an_interrupted_round_keeps_its_bets_and_can_be_finished(tmp_path: Path, finish) -> None:
    assert interrupt_and_finish(tmp_path / "reference.sqlite3", finish) == []


def test_the_seeded_fault_that_loses_interrupted_rounds_is_caught(tmp_path: Path) -> None:
    problems = interrupt_and_finish(
        tmp_path / "reference.sqlite3", "result", faults=("interrupted-round-lost",)
    )
    assert problems and "did not survive the restart" in problems[0], problems
