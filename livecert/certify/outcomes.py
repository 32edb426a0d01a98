"""`livecert outcomes` and certify's `--history`: a table's outcome history read (a lab's file, or
the target's round history page by page), the harness's own rounds left out, the battery run,
and the analysis written beside the report.

The rounds the harness played are found by their ids in the run's exchanges (every string an
answer or a request named, and every segment of a path): whatever adapter spoke to the target,
a round it entered a result for is named there.
"""

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import livecert.fairness as fairness  # its statistics imported when a history is analysed
from livecert.adapters import HistoryRound, TargetError
from livecert.adapters.errors import MappingAnswerError, Refused, Unsupported
from livecert.adapters.registry import AdapterOptions, build_adapter
from livecert.contract import ContractViolation
from livecert.fairness import HistoryError, build_history, read_history_file
from livecert.fairness.history import HistoryDisorder, Row, checked_rows, game_of
from livecert.harness.exchange_archive import read_archive
from livecert.harness.history_judge import HISTORY_CLAUSE
from livecert.report.manifest import sha256_of

HISTORY_CAPABILITY = "round-history"
PAGE_SIZE = 1000
MAX_PAGES = 5_000  # 5 million rounds at most: pages that never end are the target's fault
OUTCOMES_FOLDER = "outcomes"  # in a certify report
ANALYSIS_NAME = "outcome-analysis-{game}-{source}"  # .json, .txt (and .png), one per history


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, int) and not isinstance(value, bool):  # a vendor's numeric round id
        yield str(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


TABLE_SOURCE = "the round history of table "


def _name_of(source: str) -> str:
    """A file name's part for a history: its file's stem, or `table-<id>`."""
    raw = (
        f"table-{source.removeprefix(TABLE_SOURCE)}"
        if source.startswith(TABLE_SOURCE)
        else (Path(source).stem)
    )
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw).strip(".-")[:60] or "history"


def _unique(name: str, used: set[str]) -> str:
    candidate, number = name, 2
    while candidate in used:
        candidate, number = f"{name}-{number}", number + 1
    used.add(candidate)
    return candidate


def harness_round_ids(folder: Path) -> set[str]:
    """Every string the run's exchanges named (bodies' values, paths' segments): the ids of the
    rounds the harness opened, bet on, settled or forced are among them."""
    named: set[str] = set()
    for scenario in read_archive(folder):
        for exchange in scenario.get("exchanges", []):
            named.update(s for s in urlsplit(exchange.get("url") or "").path.split("/") if s)
            for body in (exchange.get("request_body"), exchange.get("response_body")):
                if not body:
                    continue
                try:
                    named.update(_strings(json.loads(body)))
                except ValueError:
                    continue
    return named


def _history_row(entry: HistoryRound) -> dict[str, Any]:
    return {
        "round_id": entry.round_id,
        "time": entry.time,
        "result": entry.result,
        "in_order": entry.in_order,
        "shaker": entry.shaker,
        "dealer": entry.dealer,
        "status": entry.state,
    }


def rows_from_target(adapter: Any, table_id: str, game: str | None) -> list[Row]:
    """Every finished round of `table_id`, read page by page (never a request per round), and
    checked as a file's rows are: a bad one is an error naming its place in the history."""
    if not hasattr(adapter, "round_history"):
        raise HistoryError(
            "this adapter cannot read a table's round history (the contract's optional "
            f"{HISTORY_CAPABILITY!r} operation, or a mapping's round_history)"
        )
    where = f"the round history of table {table_id}"

    def pages() -> Iterator[tuple[int, dict]]:
        after, number = None, 0
        for _ in range(MAX_PAGES):
            page = adapter.round_history(table_id, after=after, limit=PAGE_SIZE)
            if len(page.rounds) > PAGE_SIZE:
                raise HistoryError(
                    f"{where}: a page of {len(page.rounds)} rounds, over the {PAGE_SIZE} asked"
                )
            for entry in page.rounds:
                number += 1
                yield number, _history_row(entry)
            if page.next is None:
                return
            if not page.rounds:
                raise HistoryError(
                    f"{where}: an empty page that names a next one ({page.next!r}): the "
                    "history would end there without saying so"
                )
            if page.next == after:
                raise HistoryDisorder(f"{where}: the next page's cursor {after!r} came back again")
            after = page.next
        raise HistoryError(
            f"{where}: more than {MAX_PAGES * PAGE_SIZE:,} rounds; the pages never ended"
        )

    return checked_rows(pages(), game, where)


def analysis_of(
    rows: list[Row],
    source: str,
    game: str | None = None,
    harness_rounds: set[str] | frozenset[str] = frozenset(),
    detect: float | None = None,
) -> dict[str, Any]:
    """The battery over the rows (the game read from the first row's result if not given)."""
    game = game or game_of(rows)
    return fairness.analyse(build_history(rows, game, source, harness_rounds), detect)


def read_file(path: Path, game: str | None = None) -> list[Row]:
    return read_history_file(path, game)


def _kept(source: str, rows: list[Row], out: Path, name: str) -> dict[str, str]:
    """Where the history analysed is kept, and its sha256: a lab's file is named with its
    hash; a history read from a target is written beside the analysis (JSON lines, as read),
    so that the analysis can be run again on the very rows."""
    if source.startswith(TABLE_SOURCE):
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"history-{name}.jsonl"
        with path.open("w", encoding="utf-8") as stream:
            for row in rows:
                data = row._asdict()
                del data["line"]
                data["result"] = list(data.pop("outcome")) or None
                stream.write(json.dumps(data) + "\n")
        return {"file": path.name, "sha256": sha256_of(path)}
    return {"file": source, "sha256": sha256_of(Path(source))}


def write_analysis(folder: Path, analysis: dict[str, Any]) -> list[Path]:
    """The analysis as JSON and as text, named by game and source, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    name = ANALYSIS_NAME.format(game=analysis["game"], source=analysis["name"])
    data, text = folder / f"{name}.json", folder / f"{name}.txt"
    data.write_text(json.dumps(analysis, indent=2) + "\n", encoding="utf-8")
    text.write_text(fairness.as_text(analysis), encoding="utf-8")
    return [data, text]


def write_chart(folder: Path, analysis: dict[str, Any]) -> Path | None:
    """The analysis in a picture (the certificate's outcome chart), beside its JSON and text:
    `livecert outcomes` only (certify draws it among the report's charts)."""
    from livecert.report.outcome_charts import outcome_chart  # matplotlib: only when drawn

    chart = outcome_chart(analysis)
    if chart is None:
        return None
    name = ANALYSIS_NAME.format(game=analysis["game"], source=analysis["name"])
    path = folder / f"{name}.png"
    path.write_bytes(chart.png)
    return path


def histories_given(paths: list[Path]) -> list[tuple[str, list[Row]]]:
    """The history files certify was given, each read and checked before the run (a bad row is
    a usage error naming its line: nothing is run on a history that cannot be read)."""
    return [(str(path), read_history_file(path)) for path in paths]


def history_records(
    histories: list[tuple[str, list[Row]]],
    out: Path,
    detect: float | None,
    tables: list[str] = (),  # type: ignore[assignment]
    adapter: Any = None,
    harness_rounds: set[str] | frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """The run record's lines for the histories: an analysis each (written beside the report
    too), the harness's own rounds of this run left out. A history that could not be read is
    an `outcome_history_error` (the duties are then not tested, with it); one whose rounds
    repeat or go back in time is also a `history_finding` on HISTORY_CLAUSE (the operation
    promises every finished round once, oldest first); a mapping's mistake is a harness error
    too, never the target's."""
    records: list[dict[str, Any]] = []
    given = list(histories)
    for table in tables:
        try:
            rows = rows_from_target(adapter, table, None)
            given.append((f"{TABLE_SOURCE}{table}", rows))
            continue
        except HistoryDisorder as error:
            problem = str(error)
            finding = f"{HISTORY_CLAUSE}: the round history breaks its operation's promise: {error}"
            records.append(
                {"type": "history_finding", "clause": HISTORY_CLAUSE, "message": finding}
            )
        except HistoryError as error:
            problem = str(error)
        except (TargetError, ContractViolation, Refused, Unsupported) as error:
            problem = f"reading table {table}'s history: {error}"
        except MappingAnswerError as error:
            problem = str(error)
            records.append({"type": "harness_error", "message": problem})
        records.append({"type": "outcome_history_error", "message": problem})
    names: set[str] = set()
    for source, rows in given:
        analysis = analysis_of(rows, source, None, harness_rounds, detect)
        analysis["name"] = _unique(_name_of(source), names)
        analysis["history"] = _kept(source, rows, out, analysis["name"])
        write_analysis(out, analysis)
        records.append({"type": "outcome_analysis", "analysis": analysis})
    return records


def history_source_problem(adapter_choice: str | None, options: AdapterOptions) -> str | None:
    """Why a target's round history cannot be read, found before a run (a mapping without the
    operation, a target that does not declare the capability, or one that cannot be reached),
    or None."""
    try:
        adapter = build_adapter(adapter_choice, options)[0]
    except Exception as error:  # the run itself says the same, with more, if it starts
        return f"the adapter could not be built: {error}"
    try:
        if not hasattr(adapter, "round_history"):
            return "the mapping file describes no round_history operation (docs/mapping.md)"
        declared = adapter.info().capabilities
        if HISTORY_CAPABILITY not in declared:
            return (
                f"the target does not declare the capability {HISTORY_CAPABILITY!r} in "
                "/v1/info: its round history is an optional operation it does not offer"
            )
    except (TargetError, ContractViolation, MappingAnswerError, Refused, Unsupported) as error:
        return f"the target's declarations could not be read: {error}"
    finally:
        adapter.close()
    return None


def outcome_records(
    histories: list[tuple[str, list[Row]]],
    tables: list[str],
    adapter_choice: str | None,
    adapter_options: AdapterOptions,
    out: Path,
    detect: float | None,
    harness_rounds: set[str] | frozenset[str],
) -> list[dict[str, Any]]:
    """The analyses of the files and of the tables read from the target (through the adapter
    the run uses: the canonical one, a mapping, a plugin)."""
    if not histories and not tables:
        return []
    adapter = build_adapter(adapter_choice, adapter_options)[0] if tables else None
    try:
        return history_records(histories, out, detect, tables, adapter, harness_rounds)
    finally:
        if adapter is not None:
            adapter.close()
