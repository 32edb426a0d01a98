"""Whether an instant round was played on the result the lab forced.

An instant round's result is forced by a test-lab parameter (a seed, a header, a field). Where the
forcing does not reach the target, the round is played on another result, and every settlement
then looks wrong against the forced one: findings that are the mapping's (or the test build's),
not the target's. So a round answered with another result, or, where the answer gives no result,
a slip of every selection settled exactly as another result would be, stops the scenario as a
harness error (`incomplete`), never as payout findings.
"""

from collections.abc import Callable, Sequence

from livecert.adapters.model import RoundView
from livecert.rules.conditions import Outcome


def result_played(view: RoundView) -> tuple | None:
    """The result the answer says was played (dice, or tokens), or None where it says none."""
    result = view.result
    if not isinstance(result, dict):
        return None
    for part in ("dice", "tokens"):
        if result.get(part) is not None:
            return tuple(result[part])
    return None


def _same(one: Sequence, other: Sequence) -> bool:
    """The same result: the dice, or the tokens, in any order (no bet depends on the order)."""
    return sorted(str(x) for x in one) == sorted(str(x) for x in other)


def forcing_problem(view: RoundView, forced: Outcome) -> str | None:
    """Why the round was not played on `forced`, by what it says it played (None: it was, or
    it does not say)."""
    played = result_played(view)
    if played is None or _same(played, forced):
        return None
    return (
        f"the target played {played}, not the result forced {tuple(forced)}: the outcome "
        "forcing does not reach it (check the mapping's forcing, its seed table or the test build)"
    )


def forcing_problem_by_settlements(
    forced: Outcome, outcomes: Sequence[Outcome], settled_as: Callable[[Outcome], bool]
) -> str | None:
    """Where the answer gives no result: why the settlements say another result was played.
    `settled_as(o)`: every bet of the slip is settled exactly as on `o`. Meant for a slip of
    every selection, which tells the results apart; a slip that does not (one where no result or
    several fit) says nothing, and the settlements are judged on the forced result."""
    if settled_as(forced):
        return None
    fits = [o for o in outcomes if not _same(o, forced) and settled_as(o)]
    if not fits:
        return None  # no result explains them: the settlements themselves are wrong
    return (
        f"the target's settlements are exactly those of {tuple(fits[0])}, not of the result "
        f"forced {tuple(forced)}: the outcome forcing does not reach it (check the mapping's "
        "forcing, its seed table or the test build)"
    )
