"""Issue 36, point 3: a round history that repeats, skips or reorders rounds across pages, or
shows a round with another result than it settled with, is the target's finding on the clause
of the operation (REG-RECALL-01), never an unreadable history.

The judge by hand; every value of each seeded history fault's range caught by the suite's read
(13 rounds, 2 a page, through the canonical adapter's page reader, in process); a history read
for the fairness battery that repeats or goes back in time a finding in the certificate; and
the fault end to end through `livecert certify`, once per fault.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import certify_through
from fastapi.testclient import TestClient

from livecert.adapters.history_call import read_round_history
from livecert.adapters.model import HistoryPage, HistoryRound
from livecert.certify.certificate import build_certificate
from livecert.certify.outcomes import history_records
from livecert.fairness.history import HistoryDisorder, HistoryError, checked_rows
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.history_judge import (
    HISTORY_CLAUSE,
    HistoryRead,
    HistoryTooLong,
    PlayedRound,
    ShownRound,
    derived_problems,
    history_problems,
    read_history,
)
from livecert.reference.app import create_app
from livecert.reference.config import DEFAULT_DEALER_TOKEN, DEFAULT_OPERATOR_TOKEN, Config
from livecert.reference.faults import FAULTS, check

HISTORY_FAULTS = ("history-repeats-round", "history-skips-round", "history-shows-wrong-result")
ROUNDS, CANCELLED, PAGE = 13, 7, 2  # as features/table/round_history.feature plays and reads


def _played(count: int = 5) -> list[PlayedRound]:
    return [
        PlayedRound(f"r{n}", "settled", (n % 6 + 1, 2, 3))
        if n != 3
        else PlayedRound("r3", "cancelled", None)
        for n in range(1, count + 1)
    ]


def _entry(played: PlayedRound, result: Any = "same") -> HistoryRound:
    if result == "same":
        result = (
            None
            if played.result is None
            else {"dice": list(played.result), "total": sum(played.result)}
        )
    return HistoryRound(played.round_id, played.state, result, "2026-01-01T00:00:00.000Z")


def _read(*pages: list[HistoryRound]) -> HistoryRead:
    return HistoryRead(
        [ShownRound(number, entry) for number, page in enumerate(pages, 1) for entry in page],
        len(pages),
    )


def test_a_history_showing_each_round_played_once_in_order_has_no_problem() -> None:
    played = _played()
    entries = [_entry(p) for p in played]
    foreign = HistoryRound("before", "settled", {"dice": [1, 1, 1], "total": 3}, None)
    read = _read([foreign, *entries[:2]], entries[2:4], entries[4:])
    assert history_problems("sicbo", played, read) == []
    assert derived_problems("sicbo", read) == []
    # a history that sorts the dice (`in_order` false: their order says nothing) shows the same
    flipped = PlayedRound("r9", "settled", (5, 1, 3))
    sorted_dice = HistoryRound(
        "r9", "settled", {"dice": [1, 3, 5], "total": 9}, None, in_order=False
    )
    assert history_problems("sicbo", [flipped], _read([sorted_dice])) == []


def test_each_way_a_history_goes_wrong_is_a_problem_naming_the_round() -> None:
    played = _played()
    e = [_entry(p) for p in played]
    cases = {
        "repeat": (_read(e[:2], e[1:3], e[3:]), "round r2 is shown 2 times (pages 1, 2)"),
        "skip": (_read(e[:2], e[3:]), "1 of the 5 rounds played are not shown: r3"),
        "reorder": (
            _read(e[:2], [e[3], e[2]], e[4:]),
            "round r3 (played 3 of 5) is shown after round r4",
        ),
        "result": (
            _read(e[:4], [_entry(played[4], {"dice": [1, 2, 3], "total": 6})]),
            "round r5 is shown settled with [1, 2, 3]; it finished settled with [6, 2, 3] (page 2)",
        ),
        "state": (
            _read(e[:2], [_entry(PlayedRound("r3", "settled", (1, 1, 2)))], e[3:]),
            "round r3 is shown settled with [1, 1, 2]; it finished cancelled with no result",
        ),
        "foreign repeat": (
            _read(
                [HistoryRound("x", "void", None, None)], e, [HistoryRound("x", "void", None, None)]
            ),
            "round x is shown 2 times (pages 1, 3)",
        ),
    }
    for name, (read, expected) in cases.items():
        problems = history_problems("sicbo", played, read)
        assert any(expected in p for p in problems), (name, problems)


def test_a_wrong_total_or_colour_count_is_the_game_s_problem_not_the_history_s() -> None:
    played = _played()
    wrong = _entry(played[0], {"dice": list(played[0].result), "total": 99})
    read = _read([wrong, *[_entry(p) for p in played[1:]]])
    assert history_problems("sicbo", played, read) == []
    assert derived_problems("sicbo", read) == ["round r1 shows {'total': 99} for [2, 2, 3]"]
    shown = HistoryRound(
        "t1", "settled", {"tokens": ["r", "r", "w", "r"], "red": 3, "white": 2}, None
    )
    assert derived_problems("xocdia", _read([shown])) == [
        "round t1 shows {'white': 2} for ['r', 'r', 'w', 'r']"
    ]


def test_the_reader_follows_the_cursors_and_a_cursor_naming_its_own_page_is_a_problem() -> None:
    e = [_entry(p) for p in _played()]
    pages = {
        None: HistoryPage(tuple(e[:2]), "c2"),
        "c2": HistoryPage(tuple(e[2:4]), "c4"),
        "c4": HistoryPage(tuple(e[4:]), None),
    }
    read = read_history(lambda table, after, limit: pages[after], "t", 2, 10)
    assert (read.pages, [s.entry.round_id for s in read.shown], read.paging) == (
        3,
        ["r1", "r2", "r3", "r4", "r5"],
        [],
    )
    pages["c2"] = HistoryPage(tuple(e[2:4]), "c2")
    looped = read_history(lambda table, after, limit: pages[after], "t", 2, 10)
    assert looped.paging == [
        "page 2 names as its next the cursor it was read with ('c2'): the same page again"
    ]
    endless = {None: HistoryPage(tuple(e[:2]), "a")} | {
        k: HistoryPage(tuple(e[:2]), k + "a") for k in ("a", "aa", "aaa")
    }
    with pytest.raises(HistoryTooLong):
        read_history(lambda table, after, limit: endless[after], "t", 2, 3)


# -- the seeded faults, every value of their ranges --------------------------------------------


class _Reference:
    """The reference in process, played and read as the scenario does."""

    def __init__(self, tmp_path: Path, faults: tuple[str, ...]) -> None:
        config = Config(
            db_path=str(tmp_path / f"{'-'.join(faults) or 'clean'}.sqlite3"),
            faults=check(list(faults)),
        )
        self.client = TestClient(create_app(config))
        self.operator = {"Authorization": f"Bearer {DEFAULT_OPERATOR_TOKEN}"}
        self.dealer = {"Authorization": f"Bearer {DEFAULT_DEALER_TOKEN}"}

    def close(self) -> None:
        self.client.close()
        self.client.app.state.store.close()

    def post(self, path: str, body: dict | None = None, who: dict | None = None) -> dict:
        answer = self.client.post(path, json=body, headers=who or self.dealer)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def play(self, game: str) -> tuple[str, list[PlayedRound]]:
        table = self.post("/v1/tables", {"game": game}, self.operator)["table_id"]
        played = []
        for number in range(1, ROUNDS + 1):
            rid = self.post(f"/v1/tables/{table}/rounds", {"countdown_ms": 60_000})["round_id"]
            if game == "xocdia":
                self.post(f"/v1/rounds/{rid}/events", {"type": "shake"})
            if number == CANCELLED:
                self.post(f"/v1/rounds/{rid}/cancel", {"reason": "jam"})
                played.append(PlayedRound(rid, "cancelled", None))
                continue
            self.post(f"/v1/rounds/{rid}/close")
            result = (
                (number % 6 + 1, 2, 5)
                if game == "sicbo"
                else tuple("rwwr" if number % 2 else "wwrr")
            )
            self.post(
                f"/v1/rounds/{rid}/result", {"dice" if game == "sicbo" else "tokens": list(result)}
            )
            played.append(PlayedRound(rid, "settled", result))
        return table, played

    def call(self, what: str, method: str, path: str, role: str, params: dict) -> Any:
        answer = self.client.get(path, params=params, headers=self.operator)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def problems(self, game: str) -> tuple[list[str], list[str]]:
        """The history's problems, and its derived fields' (the game's clause)."""
        table, played = self.play(game)
        read = read_history(
            lambda tid, after, limit: read_round_history(self.call, tid, after, limit),
            table,
            PAGE,
            4 * ROUNDS,
        )
        return history_problems(game, played, read), derived_problems(game, read)


def test_the_clean_reference_s_history_shows_every_round_played(tmp_path: Path) -> None:
    reference = _Reference(tmp_path, ())
    try:
        assert reference.problems("sicbo") == reference.problems("xocdia") == ([], [])
    finally:
        reference.close()


@pytest.mark.parametrize("fault", HISTORY_FAULTS)
def test_every_value_of_a_history_fault_s_range_is_caught_by_the_suite_s_read(
    tmp_path: Path, fault: str
) -> None:
    parameter = FAULTS[fault].parameter
    assert parameter is not None and FAULTS[fault].clauses == (HISTORY_CLAUSE,)
    missed = []
    for value in range(int(parameter.low), int(parameter.high) + 1):
        reference = _Reference(tmp_path, (f"{fault}={value}",))
        games = (
            ("sicbo", "xocdia")
            if value in (int(parameter.low), int(parameter.high))
            else ("sicbo",)
        )
        for game in games:
            history, derived = reference.problems(game)
            if not history or derived:  # caught, and on the history's clause alone
                missed.append((value, game, history, derived))
        reference.close()
    assert missed == []


# -- the history read for the fairness battery -------------------------------------------------


def test_a_repeat_or_a_step_back_in_time_is_a_disorder_still_a_history_error_for_a_file() -> None:
    row = {"round_id": "a", "result": "1 2 3", "time": "2026-01-01T00:00:02Z"}
    later = {**row, "round_id": "b", "time": "2026-01-01T00:00:01Z"}
    with pytest.raises(HistoryDisorder, match="round 'a' is also on line 1"):
        checked_rows([(1, row), (2, {**row, "time": ""})], None, "h")
    with pytest.raises(HistoryDisorder, match="is before line 1's"):
        checked_rows([(1, row), (2, later)], None, "h")
    assert issubclass(HistoryDisorder, HistoryError)
    with pytest.raises(HistoryError) as bad:
        checked_rows([(1, {**row, "result": "7 1 1"})], None, "h")
    assert not isinstance(bad.value, HistoryDisorder)


class _RepeatingTarget:
    """A target whose history repeats a round on its second page."""

    def round_history(self, table_id: str, after: str | None, limit: int) -> HistoryPage:
        first = HistoryRound("r1", "settled", {"dice": [1, 2, 3]}, "2026-01-01T00:00:01Z")
        second = HistoryRound("r2", "settled", {"dice": [4, 5, 6]}, "2026-01-01T00:00:02Z")
        return HistoryPage((first, second), "r2") if after is None else HistoryPage((second,), None)


def test_a_history_read_for_the_battery_that_repeats_a_round_fails_the_clause(
    tmp_path: Path,
) -> None:
    records = history_records([], tmp_path, None, ["t7"], _RepeatingTarget())
    kinds = [r["type"] for r in records]
    assert kinds == ["history_finding", "outcome_history_error"]
    assert (
        records[0]["clause"] == HISTORY_CLAUSE
        and "round 'r2' is also on line 2" in records[0]["message"]
    )
    target = {"type": "target", "adapter": {"kind": "http", "name": "http"}}
    certificate = build_certificate([target, *records], ("sicbo",), {})
    row = certificate["clauses"][HISTORY_CLAUSE]
    assert (row["status"], certificate["verdict"]) == ("failed", "non-compliant")
    assert "round 'r2' is also on line 2" in row["checks"]["first_failure"]
    assert certificate["clauses"]["REG-FAIR-01"]["status"] == "not-tested"
    # a run that did not select the clause does not judge it
    narrowed = build_certificate([target, *records], ("sicbo",), {}, ["REG-FAIR-01"])
    assert narrowed["clauses"][HISTORY_CLAUSE]["status"] != "failed"


# -- end to end, once per fault (the in-process test above covers every value) ------------------


@pytest.mark.parametrize(
    ("spec", "evidence"),
    [
        ("history-repeats-round=1", "is shown 2 times (pages 1, 2)"),
        ("history-skips-round=12", "1 of the 13 rounds played are not shown"),
        ("history-shows-wrong-result=12", "(page 1)"),
    ],
)
def test_a_history_fault_fails_exactly_its_clause_through_certify(
    tmp_path: Path, spec: str, evidence: str
) -> None:
    with EmbeddedServer(faults=(spec,)) as server:
        status, cert, output = certify_through(
            tmp_path / "report",
            server.url,
            server,
            "all",
            f"{HISTORY_CLAUSE},SB-GEN-01,XD-GEN-01",
            "--",
            "-k",
            "Thirteen",
        )
    failed = sorted(c for c, row in cert["clauses"].items() if row["status"] == "failed")
    assert (status, failed, cert["harness_errors"]) == (1, [HISTORY_CLAUSE], []), output
    assert evidence in cert["clauses"][HISTORY_CLAUSE]["checks"]["first_failure"]
    assert {cert["clauses"][c]["status"] for c in ("SB-GEN-01", "XD-GEN-01")} == {"passed"}
