"""The table's round history judged against the rounds the dealer played at a new table: every
finished round once, in the order it finished, with its state and result (REG-RECALL-01, the
clause docs/contract.md names for `getRoundHistory`), the results' totals and colour counts on
the game's clause. Read a few rounds a page, so that the pages' cursors are crossed many times.
"""

from functools import partial

import pytest
from pytest_bdd import given, parsers, then

from livecert.adapters.errors import Unsupported
from livecert.harness.dealer import open_round
from livecert.harness.history_judge import (
    DERIVED_CLAUSE,
    HISTORY_CLAUSE,
    SHOWN_PROBLEMS,
    HistoryTooLong,
    PlayedRound,
    derived_problems,
    history_problems,
    read_history,
    shows_derived,
)
from livecert.harness.round_clauses import CANCEL, RESULT, SETTLE
from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.scene import Scene

OPERATION = "read the table's history of rounds"


@pytest.fixture
def history_played() -> list[PlayedRound]:
    """The rounds the scenario's dealer finished, in order: what the history must show."""
    return []


def history_result(game: str, index: int) -> tuple:
    """A varied, repeatable result for the index-th round (neighbours differ)."""
    if game == "sicbo":
        return (index % 6 + 1, (index * 2 + 1) % 6 + 1, (index * 5 + 3) % 6 + 1)
    code = (index * 5 + 3) % 16
    return tuple("rw"[(code >> bit) & 1] for bit in range(4))


@given(
    parsers.re(
        r"the dealer has finished (?P<count>\d+) rounds at it, cancelling round (?P<nth>\d+)"
    )
)
def dealer_finishes_rounds(
    scene: Scene, history_played: list[PlayedRound], count: str, nth: str
) -> None:
    """Whole rounds at the scenario's table: open, close, result; the `nth` cancelled instead.
    A dealer's action refused is a finding on its own clause (`Scene.act`), not the history's."""
    for number in range(1, int(count) + 1):
        opened = open_round(scene.adapter, scene.game, scene.table())
        rid = opened.round_id
        if number == int(nth):
            cancel = partial(scene.adapter.dealer_action, rid, "cancel", "malfunction")
            scene.act((CANCEL,), "a cancel", cancel)
            history_played.append(PlayedRound(rid, "cancelled", None))
            continue
        outcome = history_result(scene.game, number)
        scene.act(scene.window_clauses(), "closing", partial(scene.adapter.close_betting, rid))
        result = partial(scene.adapter.enter_result, rid, outcome)
        scene.act((RESULT[scene.game], SETTLE), f"the result {outcome}", result)
        history_played.append(PlayedRound(rid, "settled", outcome))


@then(
    parsers.re(
        r"the table's round history, read (?P<limit>\d+) rounds a page, shows each of them once, "
        r"in order, with its result"
    )
)
def history_shows_played(scene: Scene, history_played: list[PlayedRound], limit: str) -> None:
    fetch = getattr(scene.adapter, "round_history", None)
    if fetch is None:
        raise Unsupported(OPERATION, "the adapter has no round history (a mapping's round_history)")
    try:
        read = read_history(fetch, scene.table(), int(limit), 4 * len(history_played) + 8)
    except HistoryTooLong as error:
        raise Unsupported(OPERATION, str(error)) from None
    attach_text(
        "\n".join(
            f"page {s.page}: {s.entry.round_id} {s.entry.state} {s.entry.result}"
            for s in read.shown
        ),
        name="round history as read",
    )
    # both judged before either fails the step: each clause on its own check
    failures = []
    problems = history_problems(scene.game, history_played, read)
    if problems:
        failures.append(
            scene.checks.failed(
                (HISTORY_CLAUSE,),
                f"the round history ({read.pages} pages of {limit}) is wrong in {len(problems)} "
                f"way(s): {'; '.join(problems[:SHOWN_PROBLEMS])}",
            )
        )
    else:
        scene.checks.held(
            (HISTORY_CLAUSE,),
            f"the round history shows the {len(history_played)} rounds played once each, in "
            f"order, with their results ({read.pages} pages of {limit})",
        )
    if shows_derived(scene.game, read):
        derived = derived_problems(scene.game, read)
        clause = DERIVED_CLAUSE[scene.game]
        if derived:
            failures.append(
                scene.checks.failed(
                    (clause,), f"the round history's results: {'; '.join(derived[:SHOWN_PROBLEMS])}"
                )
            )
        else:
            scene.checks.held((clause,), "the round history's totals or colour counts are right")
    if failures:
        raise failures[0]
