"""Failures that name the clause they break.

A scenario can be tagged with many clauses (the sweep proves every paytable row); when it fails,
the step that found the problem knows which clauses the mismatch breaks. It raises ClauseFailure
with them, and the certificate fails exactly those clauses instead of every tag.
"""

import re
from collections.abc import Iterable

# the clauses a failure's words end by naming (ClauseFailure's message), read back by the
# certificate's findings to list one defect once with every clause it breaks
_CLAUSE = r"[A-Z]+(?:-[A-Z]+)?-\d\d"
_BREAKS = re.compile(rf"\[breaks ({_CLAUSE}(?:, {_CLAUSE})*)\]\s*$")


class ClauseFailure(AssertionError):
    """A check failed; `clauses` are the clause IDs the failure is evidence against."""

    booked = False  # counted in a scenario's CheckLedger already

    def __init__(self, message: str, clauses: Iterable[str]) -> None:
        self.clauses = tuple(dict.fromkeys(clauses))
        super().__init__(f"{message} [breaks {', '.join(self.clauses)}]")


def clauses_broken(words: str) -> tuple[str, ...]:
    """The clauses a failure's words say it breaks (none where they do not end so)."""
    found = _BREAKS.search(words)
    return tuple(found.group(1).split(", ")) if found else ()


class HarnessError(RuntimeError):
    """The harness itself went wrong (a feature contradicting the oracle, a scenario asking for
    something it never set up): never a finding against the target; the verdict is
    `incomplete`."""


class ScenarioEnded(Exception):
    """The target took another way the rules allow, and the scenario's remaining steps do not
    apply to it: the scenario ends here, judged on the checks that ran (each clause tagged but
    unchecked is listed as not judged, with the scene's reason)."""


LATE_TRIES = 3  # rounds a table's clock may close before a first bet or a slip reaches one


def late_for_the_table(doing: str, code: str, late: str) -> str:
    """Why a refusal of `doing` by a live table that closed betting before it arrived (`late`,
    the adapter's reason) is the harness's lateness, never a finding."""
    return (
        f"{doing} was refused ({code}), but {late}: the harness was late, and the refusal says "
        "nothing of the target"
    )
