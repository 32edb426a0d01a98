"""Whether an instant round was played on the result the lab forced.

An instant round's result is forced by a test-lab parameter (a seed, a header, a field). Where the
forcing does not reach the target, the round is played on another result, and every settlement
then looks wrong against the forced one: findings that are the mapping's (or the test build's),
not the target's. So bets settled not as on the forced result but exactly as on the one the
answer reports (or, where it reports none, a slip of every selection settled exactly as another
result would be) stop the scenario as a harness error (`incomplete`), never as payout findings;
bets settled as on the forced result are judged, and a result misreported is the general
clause's finding.
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


def forcing_failed(
    forced: Outcome,
    reported: tuple | None,
    settled_as: Callable[[Outcome], bool],
    outcomes: Sequence[Outcome] | None = None,
) -> str | None:
    """Why the bets were settled on another result than `forced` (None: they were not, or
    nothing tells). `settled_as(o)`: every bet is settled exactly as on `o`.

    Bets settled as on the forced result: None, whatever the answer reports (a result
    misreported is the general clause's finding, judged where it is read). Otherwise the forcing
    failed where the bets are settled exactly as on the result the answer reports, or, where it
    reports none and `outcomes` is given (a slip of every selection, which tells the results
    apart), as on another of them. Bets that fit no result are wrong: None, and they are judged
    on the result forced."""
    if settled_as(forced):
        return None
    if reported is not None:
        fits = [reported] if not _same(reported, forced) and settled_as(reported) else []
    elif outcomes is not None:
        fits = [o for o in outcomes if not _same(o, forced) and settled_as(o)]
    else:
        fits = []
    if not fits:
        return None
    return (
        f"the bets are settled exactly as on {tuple(fits[0])}, not on the result forced "
        f"{tuple(forced)}: the outcome forcing does not reach the target (check the mapping's "
        "forcing, its seed table or the test build)"
    )
