"""Failures that name the clause they break.

A scenario can be tagged with many clauses (the sweep proves every paytable row); when it fails,
the step that found the problem knows which clauses the mismatch breaks. It raises ClauseFailure
with them, and the certificate fails exactly those clauses instead of every tag.
"""

from collections.abc import Iterable


class ClauseFailure(AssertionError):
    """A check failed; `clauses` are the clause IDs the failure is evidence against."""

    booked = False  # counted in a scenario's CheckLedger already

    def __init__(self, message: str, clauses: Iterable[str]) -> None:
        self.clauses = tuple(dict.fromkeys(clauses))
        super().__init__(f"{message} [breaks {', '.join(self.clauses)}]")


class HarnessError(RuntimeError):
    """The harness itself went wrong (a feature contradicting the oracle, a scenario asking for
    something it never set up): never a finding against the target; the verdict is
    `incomplete`."""


class ScenarioEnded(Exception):
    """The target took another way the rules allow, and the scenario's remaining steps do not
    apply to it: the scenario ends here, judged on the checks that ran (each clause tagged but
    unchecked is listed as not judged, with the scene's reason)."""
