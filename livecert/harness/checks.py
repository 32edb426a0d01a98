"""The checks one scenario made, clause by clause: the ground of every verdict.

A clause passes only where a check *for it* ran and held, and fails only where a check *for it*
failed; a scenario's tags say which clauses it may judge. A check naming a clause the scenario is
not tagged with judges nothing there: it is kept apart (`untagged`), and when it failed the
certificate reports a harness error (a scenario that finds something it may not judge is a
tagging defect of the harness, never a pass). Two kinds of failed check judge their clauses
anywhere: one made `judge_untagged` (what the table's own answer says unambiguously: an action
refused, the round's state, a balance below zero) and, where a check names no tagged clause, the
duties every round shows in passing among its clauses (`in_passing`: every settlement is
REG-SETTLE-01's, every bet taken REG-COMMIT-01's). A check that held credits only the clauses
its scenario is tagged with. `tests/test_check_tags.py` shows statically that every check a step
can make is judged in its scenario. The record keeps, per clause, how many checks ran and held, the
evidence of every failed check and one sample of the held ones: a Sic Bo sweep makes 23,760
settlement checks, and one line each would drown the record.
"""

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from livecert.harness.findings import ClauseFailure

EVIDENCE_LIMIT = 2_000  # characters of one failed check's evidence kept in the run record


@dataclass
class ClauseTally:
    """The checks of one clause in one scenario."""

    ran: int = 0
    held: int = 0
    failures: list[str] = field(default_factory=list)
    sample: str | None = None

    @property
    def failed(self) -> int:
        return self.ran - self.held

    def as_record(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "held": self.held,
            "failed": self.failures,
            "sample": self.sample,
        }


class CheckLedger:
    """Counts the checks of one scenario per clause; `judged` are the clauses it may judge."""

    def __init__(self, judged: Iterable[str], in_passing: Iterable[str] = ()) -> None:
        self.judged = frozenset(judged)
        self.in_passing = frozenset(in_passing)
        self.clauses: dict[str, ClauseTally] = {}
        self.untagged: dict[str, ClauseTally] = {}
        self._lock = threading.RLock()  # several money sessions of a scenario book at once

    def __repr__(self) -> str:
        return f"CheckLedger({len(self.clauses)} clauses judged)"

    def _tallies(
        self, clauses: Iterable[str], failed: bool, judge_untagged: bool = False
    ) -> list[ClauseTally]:
        """The tallies a check of `clauses` is booked on: its tagged clauses. A failed check is
        also judged, made `judge_untagged`, on every clause it names; else, where it names no
        tagged clause, on the duties shown in passing among them. A check that held is judged
        only on tagged clauses: a clause is never credited by a scenario that is not about it."""
        tallies = []
        named = tuple(dict.fromkeys(clauses))
        passing = self.in_passing if failed and self.judged.isdisjoint(named) else frozenset()
        for clause in named:
            judged = clause in self.judged or clause in passing or (failed and judge_untagged)
            book = self.clauses if judged else self.untagged
            tallies.append(book.setdefault(clause, ClauseTally()))
        return tallies

    def held(self, clauses: Iterable[str], what: str) -> None:
        """A check for `clauses` ran and held; `what` says what it saw (kept once as a sample)."""
        self.held_times(clauses, 1, what)

    def held_times(self, clauses: Iterable[str], count: int, what: str) -> None:
        """`count` checks for `clauses` ran and held (the answers a scenario validated)."""
        with self._lock:
            for tally in self._tallies(clauses, failed=False) if count > 0 else []:
                tally.ran += count
                tally.held += count
                if tally.sample is None:
                    tally.sample = what[:EVIDENCE_LIMIT]

    def failed(
        self, clauses: Iterable[str], evidence: str, judge_untagged: bool = False
    ) -> ClauseFailure:
        """A check for `clauses` failed: recorded; the ClauseFailure to raise is returned."""
        failure = ClauseFailure(evidence, clauses)
        self.record_failure(failure, judge_untagged)
        return failure

    def record_failure(self, failure: ClauseFailure, judge_untagged: bool = False) -> None:
        """Book a ClauseFailure (once: a failure raised through `failed` is already booked).
        `judge_untagged` is for a finding of its own, like the contract's: an answer naming
        another round fails its operation's duty in whatever scenario met it."""
        with self._lock:
            if failure.booked:
                return
            failure.booked = True
            for tally in self._tallies(failure.clauses, True, judge_untagged):
                tally.ran += 1
                tally.failures.append(str(failure)[:EVIDENCE_LIMIT])

    def check(
        self,
        ok: bool,
        clauses: Iterable[str],
        failure: str,
        held: str = "",
        judge_untagged: bool = False,
    ) -> None:
        """One check: held when `ok`, else raise the ClauseFailure saying `failure`.
        `judge_untagged`: failed, the check judges its clauses in any scenario that makes it
        (see `record_failure`); held, only where they are tagged."""
        clauses = tuple(clauses)
        if ok:
            self.held(clauses, held or f"held: not {failure}")
            return
        raise self.failed(clauses, failure, judge_untagged)

    def ran_for(self, clause: str) -> int:
        tally = self.clauses.get(clause)
        return tally.ran if tally else 0

    def as_record(self) -> dict[str, Any]:
        return {
            "clauses": {c: t.as_record() for c, t in sorted(self.clauses.items())},
            "untagged": {c: t.as_record() for c, t in sorted(self.untagged.items())},
        }
