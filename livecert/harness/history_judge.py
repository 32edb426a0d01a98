"""A table's round history judged against the rounds the harness played there.

The contract's `getRoundHistory` (capability `round-history`; a mapping's `round_history`) lists
every finished round of the table exactly once over its pages, in the order the rounds finished,
oldest first, each with its state and result. The history is the table's record of its rounds
(their id, time and outcome), so what it shows wrong is a finding on REG-RECALL-01 ("the record
of a round shows its ID, time, outcome ..."), the clause docs/contract.md names for the
operation: a round shown twice, a played round missing, played rounds out of order, a round
shown with a state or a result other than the one it finished with. What a result derives (a
Sic Bo total, a Xoc Dia colour count) is judged against the dice or tokens shown, on the
game's clause, as everywhere else.

Rounds the harness did not play (a lent table's earlier rounds) are judged only for repeats: the
harness knows nothing else of them.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from livecert.adapters.model import HistoryPage, HistoryRound

HISTORY_CLAUSE = "REG-RECALL-01"
DERIVED_CLAUSE = {"sicbo": "SB-GEN-01", "xocdia": "XD-GEN-01"}
SHOWN_PROBLEMS = 3  # problems quoted in a failed check's evidence (all are counted)


@dataclass(frozen=True)
class PlayedRound:
    """A round the harness played to its end: its id, how it finished and the result entered
    (None for a cancelled round)."""

    round_id: str
    state: str  # "settled" or "cancelled"
    result: tuple | None


@dataclass(frozen=True)
class ShownRound:
    """A round as one page of the history showed it (page 1 the first)."""

    page: int
    entry: HistoryRound


@dataclass
class HistoryRead:
    """Every round the pages showed, in order, and what the paging itself did wrong."""

    shown: list[ShownRound] = field(default_factory=list)
    pages: int = 0
    paging: list[str] = field(default_factory=list)  # findings on the pages' cursors


class HistoryTooLong(RuntimeError):
    """The pages did not end within the reads the harness allows: not judged (incomplete)."""


def read_history(
    fetch: Callable[..., HistoryPage], table_id: str, limit: int, max_pages: int
) -> HistoryRead:
    """Every page of the table's history, `limit` rounds a page, following `next` to the end.
    A cursor that names the page just read again would repeat it for ever: a finding, and the
    read stops there."""
    read, after = HistoryRead(), None
    while read.pages < max_pages:
        page = fetch(table_id, after=after, limit=limit)
        read.pages += 1
        read.shown += [ShownRound(read.pages, entry) for entry in page.rounds]
        if page.next is None:
            return read
        if page.next == after:
            read.paging.append(
                f"page {read.pages} names as its next the cursor it was read with "
                f"({after!r}): the same page again"
            )
            return read
        after = page.next
    raise HistoryTooLong(
        f"the round history of table {table_id} did not end within {max_pages} pages of "
        f"{limit}: the rounds this scenario played could not all be read"
    )


def _entered(game: str, result: dict | None) -> list | None:
    if not isinstance(result, dict):
        return None
    return result.get("dice" if game == "sicbo" else "tokens")


def _outcome(items: list | None) -> list | None:
    """A result as the outcome it is: the dice or tokens in any order (a history may sort them,
    saying with `in_order` false that their order means nothing; what settles never depends on
    it)."""
    if not isinstance(items, list):
        return None
    return sorted(items, key=str)


def _finished_as(game: str, played: PlayedRound, entry: HistoryRound) -> str | None:
    """How a played round's entry differs from how it finished, if it does."""
    expected = None if played.result is None else list(played.result)
    shown = _entered(game, entry.result)
    if entry.state != played.state or _outcome(shown) != _outcome(expected):
        what = "no result" if expected is None else expected
        return (
            f"round {played.round_id} is shown {entry.state} with "
            f"{'no result' if shown is None else shown}; it finished {played.state} with {what}"
        )
    return None


def _derived(game: str, entry: HistoryRound) -> str | None:
    """A shown result's derived fields (where the target gives them) against its own dice or
    tokens: a total is the sum of the dice shown, the colours count the tokens shown (what the
    round settled with is the history's clause, judged apart)."""
    items = _entered(game, entry.result)
    if not isinstance(items, list) or not isinstance(entry.result, dict):
        return None
    if game == "sicbo":
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in items):
            return None
        expected = {"total": sum(items)}
    else:
        red = sum(1 for token in items if token == "r")
        expected = {"red": red, "white": len(items) - red}
    shown = {k: entry.result[k] for k in expected if k in entry.result}
    wrong = {k: v for k, v in shown.items() if v != expected[k]}
    return f"round {entry.round_id} shows {wrong} for {items}" if wrong else None


def repeats(shown: list[ShownRound]) -> list[str]:
    """Every round shown more than once, with the pages it was shown on."""
    pages: dict[str, list[int]] = {}
    for item in shown:
        pages.setdefault(item.entry.round_id, []).append(item.page)
    return [
        f"round {rid} is shown {len(on)} times (pages {', '.join(map(str, on))})"
        for rid, on in pages.items()
        if len(on) > 1
    ]


def history_problems(game: str, played: list[PlayedRound], read: HistoryRead) -> list[str]:
    """The history's findings on HISTORY_CLAUSE: its paging, repeats, played rounds missing or
    out of order, and played rounds shown otherwise than they finished."""
    problems = list(read.paging) + repeats(read.shown)
    order = {p.round_id: index for index, p in enumerate(played)}
    seen: list[str] = []
    for item in read.shown:
        rid = item.entry.round_id
        if rid in order and rid not in seen:
            seen.append(rid)
    missing = [p.round_id for p in played if p.round_id not in seen]
    if missing:
        problems.append(
            f"{len(missing)} of the {len(played)} rounds played are not shown: "
            + ", ".join(missing[:SHOWN_PROBLEMS])
        )
    late = next((i for i in range(1, len(seen)) if order[seen[i]] < order[seen[i - 1]]), None)
    if late is not None:
        problems.append(
            f"round {seen[late]} (played {order[seen[late]] + 1} of {len(played)}) is shown "
            f"after round {seen[late - 1]} (played {order[seen[late - 1]] + 1}): not in the "
            "order the rounds finished"
        )
    by_id = {p.round_id: p for p in played}
    for item in read.shown:
        if item.entry.round_id in by_id:
            wrong = _finished_as(game, by_id[item.entry.round_id], item.entry)
            if wrong:
                problems.append(f"{wrong} (page {item.page})")
    return problems


def shows_derived(game: str, read: HistoryRead) -> bool:
    """Whether any shown result gives a derived field (a mapping's may give none): only then is
    the game's clause judged here."""
    keys = ("total",) if game == "sicbo" else ("red", "white")
    return any(
        isinstance(item.entry.result, dict) and any(k in item.entry.result for k in keys)
        for item in read.shown
    )


def derived_problems(game: str, read: HistoryRead) -> list[str]:
    """What the shown results derive, judged on the game's clause (DERIVED_CLAUSE)."""
    found = (_derived(game, item.entry) for item in read.shown)
    return [problem for problem in found if problem]
