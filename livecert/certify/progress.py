"""What a person at a terminal sees while a run goes: a banner, a bar per game with its
scenarios, how many of its clauses a check has judged so far and the time left, each failure
on one line as it happens, and each phase after the scenarios named while it runs (rich).

It is driven from the run record, which every process of a run appends to, so it shows a run
over workers as one. pytest's own output then goes to `pytest-output.txt` in the report folder.
A terminal that is not one (a CI log, a pipe) or `--no-progress` keeps pytest's lines.
"""

import json
import threading
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from livecert.target_text import visible

GAME_WORDS = {"sicbo": "Sic Bo", "xocdia": "Xoc Dia", "table": "Both games"}
POLL_SECONDS = 0.2


def failure_line(record: dict) -> str:
    """A failed scenario in one line: the clauses the suite judged it to fail (its own checks
    that failed, and the contract's clause an answer broke; not every clause its message
    names), its name, the first line of why."""
    clauses = ", ".join(record.get("judged_failed") or []) or "no clause it judges"
    why = (record.get("message") or "").strip().splitlines()[:1]
    word = "FAILED" if record.get("outcome") == "failed" else "ERROR"
    return visible(f"{word} {clauses}: {record.get('name')}" + (f": {why[0]}" if why else ""))


class RunProgress:
    """Follows a run record as it grows and shows it; `start` before the run, `stop` after."""

    def __init__(self, record: Path, console: Console | None = None) -> None:
        self.record = record
        self.console = console or Console()
        self.progress = Progress(  # one line of about 75 characters a game
            TextColumn("{task.description:<10}"),
            BarColumn(bar_width=10),
            MofNCompleteColumn(),
            TextColumn("scenarios, {task.fields[failed]} failed,"),
            TextColumn("{task.fields[judged]}/{task.fields[clauses]} clauses judged,"),
            TimeRemainingColumn(),
            TextColumn("left"),
            console=self.console,
            transient=False,
        )
        self.tasks: dict[str, int] = {}
        self.clauses: dict[str, set[str]] = {}  # a game's clauses, its scenarios' tags
        self.judged: dict[str, set[str]] = {}  # those a check has judged so far
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._offset = 0

    def _task(self, game: str, total: int | None = None) -> int:
        if game not in self.tasks:
            words = GAME_WORDS.get(game, game)
            self.tasks[game] = self.progress.add_task(
                words, total=total, failed=0, judged=0, clauses="?"
            )
        elif total is not None:
            current = self.progress.tasks[self.tasks[game]].total or 0
            self.progress.update(self.tasks[game], total=max(current, total))
        return self.tasks[game]

    def take(self, record: dict) -> None:
        """One record of the run: a game's count of scenarios, or a scenario done."""
        if record.get("type") == "collected":
            for game, total in (record.get("games") or {}).items():
                task = self._task(game, total)
                self.clauses.setdefault(game, set()).update(
                    (record.get("clauses") or {}).get(game, [])
                )
                self.progress.update(task, clauses=len(self.clauses[game]))
        elif record.get("type") == "scenario":
            game = record.get("game") or "table"
            task = self._task(game)
            failed = record.get("outcome") in ("failed", "error")
            ran = {c for c, t in (record.get("checks") or {}).items() if t.get("ran")}
            judged = self.judged.setdefault(game, set())
            judged.update(ran & self.clauses.get(game, ran))
            fields = self.progress.tasks[task].fields
            self.progress.update(
                task, advance=1, failed=fields["failed"] + failed, judged=len(judged)
            )
            if failed:
                self.progress.console.print(
                    failure_line(record), markup=False, highlight=False, no_wrap=True,
                    overflow="ellipsis",
                )  # fmt: skip

    def _read(self) -> None:
        if not self.record.is_file():
            return
        with self.record.open("rb") as stream:
            stream.seek(self._offset)
            data = stream.read()
        whole = data[: data.rfind(b"\n") + 1]  # a line being written waits for its end
        self._offset += len(whole)
        for line in whole.splitlines():
            try:
                self.take(json.loads(line))
            except ValueError:
                continue

    def _follow(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self._read()

    def start(self) -> None:
        self.progress.start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._read()  # the last records
        self.progress.stop()
