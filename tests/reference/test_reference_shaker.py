"""The reference's shaker: fair dice and tokens at the frequencies worked out by hand, each
seeded fault's bias exactly where its catalogue entry says, the same draws for the same seed;
and the history generator's CSV and JSON lines, fast enough for a million rounds."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from livecert.reference import faults, serve, shaker
from livecert.reference.shaker import Shaker

N = 60_000  # throws per frequency check: a proportion's standard deviation is at most 0.2%
TOLERANCE = 0.01  # over four standard deviations: a fair seed passes, a fault does not hide

# -- hand-worked expectations ------------------------------------------------------------------
# a fair die: each face 1/6. Three fair dice: 216 equally likely rolls; total 10 is made by 27 of
# them (the permutations of 1-3-6, 1-4-5, 2-2-6, 2-3-5, 2-4-4, 3-3-4: 6+6+3+6+3+3), total 3 by
# one (1-1-1); a triple by 6. Four fair tokens: the number of reds is binomial(4, 1/2): 1, 4,
# 6, 4, 1 of 16. Two throws in a row show the same face on a die with probability 1/6.
TOTAL_10, TOTAL_3, TRIPLE = 27 / 216, 1 / 216, 6 / 216
REDS = {0: 1 / 16, 1: 4 / 16, 2: 6 / 16, 3: 4 / 16, 4: 1 / 16}
# loaded-die: the first die 6 with 0.25, each other face (1 - 0.25) / 5 = 0.15.
# sticky-die: the die repeats its last face with 0.10, else it is fair (a repeat 1/6 of the
# time), so a repeat is 0.10 + 0.90 x 1/6 = 1/6 + 0.10 x 5/6 = 0.25; its faces stay 1/6 each.
STICKY_REPEAT = 1 / 6 + 0.10 * 5 / 6


def _throws(game: str, faults_on: set[str], seed: int = 20260101, n: int = N) -> list[list]:
    device = Shaker(game, random.Random(seed), frozenset(faults_on))
    return [device.draw() for _ in range(n)]


def _share(count: int, n: int = N) -> float:
    return count / n


def test_fair_dice_show_each_face_a_sixth_of_the_time_on_every_die() -> None:
    rolls = _throws("sicbo", set())
    assert all(len(roll) == 3 and all(1 <= d <= 6 for d in roll) for roll in rolls)
    for position in range(3):
        faces = Counter(roll[position] for roll in rolls)
        for face in range(1, 7):
            assert abs(_share(faces[face]) - 1 / 6) < TOLERANCE, (position, face, faces)
    totals = Counter(sum(roll) for roll in rolls)
    assert abs(_share(totals[10]) - TOTAL_10) < TOLERANCE
    assert abs(_share(totals[3]) - TOTAL_3) < 0.002  # about 278 in 60,000: its own tighter bound
    triples = sum(1 for roll in rolls if roll[0] == roll[1] == roll[2])
    assert abs(_share(triples) - TRIPLE) < TOLERANCE
    repeats = sum(1 for a, b in pairwise(rolls) if a[0] == b[0])
    assert abs(repeats / (N - 1) - 1 / 6) < TOLERANCE


def test_fair_tokens_count_reds_binomially_and_each_position_is_red_half_the_time() -> None:
    throws = _throws("xocdia", set())
    assert all(len(t) == 4 and set(t) <= {"r", "w"} for t in throws)
    reds = Counter(t.count("r") for t in throws)
    for count, share in REDS.items():
        assert abs(_share(reds[count]) - share) < TOLERANCE, (count, reds)
    for position in range(4):
        red = sum(1 for t in throws if t[position] == "r")
        assert abs(_share(red) - 0.5) < TOLERANCE, position


def test_the_loaded_die_shows_six_a_quarter_of_the_time_on_the_first_die_only() -> None:
    rolls = _throws("sicbo", {"loaded-die"})
    first = Counter(roll[0] for roll in rolls)
    assert abs(_share(first[6]) - 0.25) < TOLERANCE
    for face in range(1, 6):
        assert abs(_share(first[face]) - 0.15) < TOLERANCE, (face, first)
    for position in (1, 2):
        faces = Counter(roll[position] for roll in rolls)
        assert all(abs(_share(faces[f]) - 1 / 6) < TOLERANCE for f in range(1, 7)), faces


def test_the_sticky_die_repeats_its_last_face_a_quarter_of_the_time_its_faces_still_fair() -> None:
    rolls = _throws("sicbo", {"sticky-die"})
    for position in range(3):
        repeats = sum(1 for a, b in pairwise(rolls) if a[position] == b[position])
        assert abs(repeats / (N - 1) - STICKY_REPEAT) < TOLERANCE, (position, repeats)
        faces = Counter(roll[position] for roll in rolls)
        assert all(abs(_share(faces[f]) - 1 / 6) < TOLERANCE for f in range(1, 7)), faces


def test_the_red_biased_token_lands_red_six_times_in_ten_the_others_fair() -> None:
    throws = _throws("xocdia", {"red-biased-token"})
    assert abs(_share(sum(1 for t in throws if t[0] == "r")) - 0.6) < TOLERANCE
    for position in (1, 2, 3):
        assert abs(_share(sum(1 for t in throws if t[position] == "r")) - 0.5) < TOLERANCE


def test_a_fault_of_the_other_game_or_not_the_shakers_changes_nothing() -> None:
    fair = _throws("sicbo", set(), n=500)
    assert _throws("sicbo", {"red-biased-token", "small-wins-on-triple"}, n=500) == fair
    assert _throws("xocdia", {"loaded-die", "sticky-die"}, n=500) == _throws("xocdia", set(), n=500)


def test_the_same_seed_draws_the_same_outcomes_and_another_seed_others() -> None:
    for game, faulty in (("sicbo", {"loaded-die", "sticky-die"}), ("xocdia", {"red-biased-token"})):
        for on in (set(), faulty):
            first = _throws(game, on, seed=5, n=200)
            assert _throws(game, on, seed=5, n=200) == first
            assert _throws(game, on, seed=6, n=200) != first


def test_a_draw_is_a_new_list_the_caller_may_keep() -> None:
    device = Shaker("sicbo", random.Random(1), frozenset({"sticky-die"}))
    kept = device.draw()
    kept[0] = 99
    assert all(1 <= d <= 6 for d in device.draw())
    with pytest.raises(ValueError, match="sicbo or xocdia"):
        Shaker("roulette", random.Random(1), frozenset())


def test_the_shaker_faults_are_in_the_catalogue_with_the_fairness_clauses() -> None:
    assert {name: faults.FAULTS[name].clauses for name in shaker.SHAKER_FAULTS} == {
        "loaded-die": ("REG-FAIR-01",),
        "sticky-die": ("REG-FAIR-02",),
        "red-biased-token": ("REG-FAIR-01",),
    }
    assert faults.check(["loaded-die", "sticky-die", "red-biased-token"])
    listed = "\n".join(faults.listing())
    assert "loaded-die REG-FAIR-01\nsticky-die REG-FAIR-02\nred-biased-token REG-FAIR-01" in listed


def test_serve_lists_the_shaker_faults_and_takes_its_drawn_table_options(capsys) -> None:  # type: ignore[no-untyped-def]
    assert serve.main(["--list-faults"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "red-biased-token REG-FAIR-01" in lines
    args = serve.build_parser().parse_args(["--drawn-rounds", "500", "--shaker-seed", "9"])
    assert (args.drawn_rounds, args.shaker_seed) == (500, 9)
    defaults = serve.build_parser().parse_args([])
    assert (defaults.drawn_rounds, defaults.shaker_seed) == (0, None)
    assert serve.main(["--drawn-rounds", "-1"]) == 3
    assert serve.main(["--drawn-rounds", "many"]) == 3
    assert "--drawn-rounds: 'many' is not a whole number" in capsys.readouterr().err
    assert serve.main(["--without-capability", "round-history", "--list-faults"]) == 0


# -- the history generator -----------------------------------------------------------------------

CSV_ROW = re.compile(
    r"R(\d{7}),(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ),([1-6] [1-6] [1-6]),true,"
    r"(shaker-\d+),(dealer-\d+),settled"
)
START = datetime(2026, 1, 1, tzinfo=UTC)


def _generate(tmp_path: Path, name: str, *options: str) -> Path:
    out = tmp_path / name
    assert shaker.main(["--out", str(out), *options]) == 0
    return out


def test_the_csv_history_has_the_header_and_one_settled_round_a_row(tmp_path: Path) -> None:
    out = _generate(
        tmp_path,
        "h.csv",
        *("--game", "sicbo", "--rounds", "1000", "--seed", "3"),
        *("--shaker-every", "300", "--dealer-every", "250"),
    )
    lines = out.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "round_id,time,result,in_order,shaker,dealer,status"
    assert lines[-1] == "" and len(lines) == 1002  # a newline ends the last row, no \r anywhere
    assert "\r" not in out.read_text(encoding="utf-8")
    rows = [CSV_ROW.fullmatch(line) for line in lines[1:-1]]
    assert all(rows), next(line for line, m in zip(lines[1:], rows, strict=False) if not m)
    ids = [m.group(1) for m in rows if m]
    assert ids == [f"{k:07d}" for k in range(1, 1001)] and len(set(ids)) == 1000
    first = rows[0]
    assert first is not None and first.group(2) == "2026-01-01T00:00:40Z"  # one spacing in
    last = rows[-1]
    assert last is not None
    assert last.group(2) == (START + timedelta(seconds=40_000)).strftime("%Y-%m-%dT%H:%M:%SZ")
    shakers = [m.group(4) for m in rows if m]
    dealers = [m.group(5) for m in rows if m]
    assert shakers[:300] == ["shaker-1"] * 300 and shakers[300] == "shaker-2"
    assert shakers[-1] == "shaker-4" and dealers[249:251] == ["dealer-1", "dealer-2"]
    assert dealers[-1] == "dealer-4"


def test_the_jsonl_history_holds_the_same_rounds_with_json_types(tmp_path: Path) -> None:
    base = ("--game", "xocdia", "--rounds", "1000", "--seed", "8", "--spacing-seconds", "60")
    csv = _generate(tmp_path, "h.csv", *base)
    jsonl = _generate(tmp_path, "h.jsonl", *base, "--format", "jsonl")
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 1000
    assert list(rows[0]) == ["round_id", "time", "result", "in_order", "shaker", "dealer", "status"]
    assert rows[0]["time"] == "2026-01-01T00:01:00Z"
    assert all(
        row["in_order"] is True
        and row["status"] == "settled"
        and row["shaker"] == "shaker-1"
        and row["dealer"] == "dealer-1"
        and len(row["result"]) == 4
        and set(row["result"]) <= {"r", "w"}
        for row in rows
    )
    assert len({row["round_id"] for row in rows}) == 1000
    csv_results = [line.split(",")[2] for line in csv.read_text(encoding="utf-8").splitlines()[1:]]
    assert csv_results == [" ".join(row["result"]) for row in rows]  # the same draws
    assert re.fullmatch(r"[rw] [rw] [rw] [rw]", csv_results[0])


def test_the_generator_is_deterministic_for_a_seed_and_its_faults_show(tmp_path: Path) -> None:
    options = ("--game", "sicbo", "--rounds", "20000", "--seed", "11", "--format", "jsonl")
    one = _generate(tmp_path, "a.jsonl", *options).read_bytes()
    assert _generate(tmp_path, "b.jsonl", *options).read_bytes() == one
    assert (
        _generate(tmp_path, "c.jsonl", *options[:-3], "12", "--format", "jsonl").read_bytes() != one
    )
    loaded = _generate(tmp_path, "d.jsonl", *options, "--fault", "loaded-die")
    dice = [json.loads(line)["result"] for line in loaded.read_text().splitlines()]
    assert all(isinstance(d, int) for roll in dice for d in roll)
    assert abs(sum(1 for roll in dice if roll[0] == 6) / 20_000 - 0.25) < 0.015


def test_the_generator_refuses_what_it_cannot_draw(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = str(tmp_path / "x.csv")
    base = ["--rounds", "10", "--seed", "1", "--out", out]
    assert shaker.main(["--game", "xocdia", "--fault", "loaded-die", *base]) == 3
    assert "loads the sicbo shaker, not the xocdia one" in capsys.readouterr().err
    assert shaker.main(["--game", "sicbo", "--fault", "small-wins-on-triple", *base]) == 3
    assert "is not the shaker's" in capsys.readouterr().err
    assert shaker.main(["--game", "sicbo", "--fault", "no-such", *base]) == 3
    assert shaker.main(["--game", "sicbo", "--start", "2026-01-01T00:00:00", *base]) == 3
    assert "needs its offset" in capsys.readouterr().err
    assert shaker.main(["--game", "sicbo", "--rounds", "0", "--seed", "1", "--out", out]) == 3
    assert shaker.main(["--game", "sicbo", *base[2:]]) == 3  # --rounds is required
    assert not Path(out).exists()
    assert shaker.main(["--game", "sicbo", *base[:4], "--out", str(tmp_path / "no" / "x")]) == 3


def test_the_module_runs_as_a_command_and_starts_where_told(tmp_path: Path) -> None:
    out = tmp_path / "h.csv"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "livecert.reference.shaker", "--game", "sicbo"),
            *("--rounds", "1000", "--seed", "4", "--out", str(out)),
            *("--start", "2026-03-01T12:00:00+01:00"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote 1000 sicbo rounds to {out}")
    assert out.read_text().splitlines()[1].startswith("R0000001,2026-03-01T11:00:40Z,")


def test_a_hundred_thousand_rounds_are_written_whole(tmp_path: Path) -> None:
    """How fast: benchmarks/drawn_rounds.py (a million rounds in 1.6 s on 2 cores); timing
    belongs in a benchmark, not in a test."""
    out = _generate(tmp_path, "big.csv", "--game", "sicbo", "--rounds", "100000", "--seed", "2")
    assert out.stat().st_size > 100_000 * 60
