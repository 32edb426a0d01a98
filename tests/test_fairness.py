"""The fairness battery (livecert/fairness): each test against figures worked by hand, histories
read and refused row by row, biased shakers caught on their own duty, fair ones flagged at the
stated rate, and the power statement against simulation."""

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from livecert.fairness import HistoryError, analyse, build_history, read_history_file
from livecert.fairness.battery import (
    DISTRIBUTION,
    INDEPENDENCE,
    RED_P,
    TOTAL_P,
    TRIPLE_P,
    holm,
    judge,
    run_battery,
)
from livecert.fairness.history import History
from livecert.fairness.power import noncentrality_needed, power_of
from livecert.fairness.stat_tests import StatTest, chi_square, ljung_box, pool_cells, runs, serial

# Ways to roll each total 3..18 with three dice, counted by hand (1 way to make 3: 1-1-1; 3 ways
# to make 4: 1-1-2 in three orders; ... 27 ways each to make 10 and 11).
TOTAL_WAYS = [1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1]


def history(outcomes: np.ndarray, game: str, in_order: bool = True) -> History:
    n = len(outcomes)
    return History(
        game, "simulated", [f"R{i}" for i in range(n)], outcomes, in_order,
        np.zeros(n, np.int32), [("", "")], np.zeros(n, np.int32), n,
    )  # fmt: skip


def fair_dice(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(1, 7, size=(n, 3)).astype(np.int8)


def loaded_dice(rng: np.random.Generator, n: int, six: float) -> np.ndarray:
    """Die 1 shows 6 with probability `six`, its other faces share the rest."""
    dice = fair_dice(rng, n)
    p = [(1 - six) / 5] * 5 + [six]
    dice[:, 0] = rng.choice(np.arange(1, 7), size=n, p=p)
    return dice


def sticky_dice(rng: np.random.Generator, n: int, repeat: float) -> np.ndarray:
    """Each die shows its last face again with probability `repeat`."""
    dice = fair_dice(rng, n)
    again = rng.random((n, 3)) < repeat
    for i in range(1, n):
        dice[i][again[i]] = dice[i - 1][again[i]]
    return dice


def tokens(rng: np.random.Generator, n: int, first_red: float = 0.5) -> np.ndarray:
    red = (rng.random((n, 4)) < 0.5).astype(np.int8)
    red[:, 0] = rng.random(n) < first_red
    return red


def failed_duties(found: History) -> set[str]:
    verdicts = judge(found, run_battery(found))
    return {duty for duty, verdict in verdicts.items() if verdict.status == "failed"}


# -- the exact probabilities -----------------------------------------------------------------


def test_the_exact_probabilities_match_the_hand_counts() -> None:
    assert [Fraction(p).limit_denominator(216) for p in TOTAL_P] == [
        Fraction(w, 216) for w in TOTAL_WAYS
    ]
    assert list(TRIPLE_P * 216) == pytest.approx([1, 1, 1, 1, 1, 1, 210])
    assert list(RED_P * 16) == pytest.approx([1, 4, 6, 4, 1])


# -- each test against a figure worked by hand ------------------------------------------------


def test_chi_square_of_10_20_30_against_uniform_is_10_with_p_e_to_the_minus_5() -> None:
    # expected 20 each: (10-20)^2/20 + 0 + (30-20)^2/20 = 10; with 2 df, p = exp(-10/2)
    found = chi_square(
        "t", DISTRIBUTION, "p", np.array([10, 20, 30]), np.full(3, 1 / 3), list("abc")
    )
    assert (found.statistic, found.df) == (pytest.approx(10.0), 2)
    assert found.p_value == pytest.approx(math.exp(-5))


def test_a_cell_expecting_under_five_is_pooled_towards_the_middle() -> None:
    observed, expected, labels = pool_cells(
        np.array([1, 9, 30, 10]), np.array([2.0, 8.0, 30.0, 10.0]), ["3", "4", "5", "6"]
    )
    assert list(observed) == [10, 30, 10]
    assert list(expected) == [10.0, 30.0, 10.0]
    assert labels == ["3-4", "5", "6"]


def test_too_few_rounds_for_chi_square_is_a_test_not_run_with_the_reason() -> None:
    found = chi_square("t", DISTRIBUTION, "p", np.array([1, 2, 1]), np.full(3, 1 / 3), list("abc"))
    assert not found.ran and "expected count" in found.not_run


def test_runs_of_a_strictly_alternating_series_are_far_too_many() -> None:
    # 100 rounds alternating: 100 runs; mean 2*50*50/100 + 1 = 51; variance
    # 2*50*50*(2*50*50 - 100) / (100^2 * 99) = 24.7475; z = 49 / sqrt(24.7475) = 9.850
    series = np.tile([0, 1], 50).astype(np.int8)
    found = runs("t", INDEPENDENCE, "p", series, np.zeros(100, np.int32))
    assert found.observed == [100.0] and found.expected == [pytest.approx(51.0)]
    assert found.statistic == pytest.approx(49 / math.sqrt(2 * 2500 * 4900 / (10000 * 99)))
    assert found.statistic == pytest.approx(9.850, abs=1e-3)


def test_runs_do_not_cross_a_change_of_shaker() -> None:
    # two stretches of 0..0 1..1 (2 runs each): 4 runs, none across the change
    series = np.array([0] * 25 + [1] * 25 + [0] * 25 + [1] * 25, dtype=np.int8)
    stretches = np.array([0] * 50 + [1] * 50, dtype=np.int32)
    found = runs("t", INDEPENDENCE, "p", series, stretches)
    assert found.observed == [4.0]
    # each stretch: mean 2*25*25/50 + 1 = 26
    assert found.expected == [pytest.approx(52.0)]


def test_ljung_box_of_an_alternating_series_matches_the_hand_sum() -> None:
    # x alternates +1/-1 (mean 0): r_k = (-1)^k (n - k) / n, so
    # Q = n (n + 2) sum (n - k) / n^2 = (n + 2) / n * sum_{k=1..10} (n - k)
    n = 200
    series = np.tile([1, -1], n // 2)
    found = ljung_box("t", INDEPENDENCE, "p", series, np.zeros(n, np.int32))
    assert found.df == 10
    assert found.statistic == pytest.approx((n + 2) / n * sum(n - k for k in range(1, 11)))
    assert found.statistic == pytest.approx(1964.45)


def test_holm_adjusts_step_down_and_fails_only_what_stays_under_one_percent() -> None:
    tests = [
        StatTest(str(p), DISTRIBUTION, "p", "chi-square", 1, 0.0, 1, p)
        for p in (0.03, 0.001, 0.004)
    ]
    holm(tests)
    # sorted 0.001, 0.004, 0.03 -> 3 x 0.001, 2 x 0.004, 1 x 0.03 = 0.003, 0.008, 0.03
    assert [t.adjusted_p for t in tests] == pytest.approx([0.03, 0.003, 0.008])
    assert [t.passed for t in tests] == [True, False, False]


# -- histories read and refused ----------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD = "round_id,time,result,in_order,shaker,dealer,status\n"


@pytest.mark.parametrize(
    ("row", "says"),
    [
        (
            "R2,2026-01-01T00:00:00Z,1 7 3,true,s,d,settled",
            "die '7' is not a whole number from 1 to 6",
        ),
        ("R2,2026-01-01T00:00:00Z,1 2,true,s,d,settled", "three dice, this one 2"),
        (
            "R2,2026-01-01T00:00:00Z,1 2 3,maybe,s,d,settled",
            "in_order='maybe' is not true or false",
        ),
        ("R2,2026-01-01T00:00:00Z,1 2 3,true,s,d,lost", "status='lost' is not one of"),
        ("R1,2026-01-01T00:00:00Z,1 2 3,true,s,d,settled", "round 'R1' is also on line 2"),
        (",2026-01-01T00:00:00Z,1 2 3,true,s,d,settled", "round_id is missing"),
        (
            "R2,2026-01-01T00:00:00Z,1 2 3,true,s,d,settled,extra",
            "more fields than the header names",
        ),
        ("R2,2026-01-01T00:00:00Z,r w w r,true,s,d,settled", "three dice, this one 4"),
    ],
)
def test_a_bad_row_is_refused_with_its_line(tmp_path: Path, row: str, says: str) -> None:
    path = write(
        tmp_path, "h.csv", GOOD + "R1,2026-01-01T00:00:00Z,1 2 3,true,s,d,settled\n" + row + "\n"
    )
    with pytest.raises(HistoryError) as error:
        read_history_file(path)
    assert f"{path}:3: " in str(error.value) and says in str(error.value)


def test_json_lines_and_token_results_read_and_refused_by_line(tmp_path: Path) -> None:
    rows = [{"round_id": "A", "result": ["r", "w", "w", "r"]}, {"round_id": "B", "result": "rwwr"}]
    path = write(tmp_path, "h.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    read = read_history_file(path)
    assert [r.outcome for r in read] == [("r", "w", "w", "r")] * 2
    bad = write(
        tmp_path, "bad.jsonl", json.dumps(rows[0]) + '\n{"round_id": "C", "result": "rwxr"}\n'
    )
    with pytest.raises(HistoryError, match=r"bad.jsonl:2: token 'x' is not r"):
        read_history_file(bad)
    broken = write(tmp_path, "broken.jsonl", json.dumps(rows[0]) + "\n{not json\n")
    with pytest.raises(HistoryError, match=r"broken.jsonl:2: not JSON"):
        read_history_file(broken)


def test_a_header_without_the_result_column_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match=r"h\.csv:1: the header lacks result"):
        read_history_file(write(tmp_path, "h.csv", "round_id,time\nR1,t\n"))


def test_void_cancelled_and_the_harness_rounds_are_left_out_and_counted(tmp_path: Path) -> None:
    text = GOOD + "".join(
        f"R{i},2026-01-01T00:00:00Z,1 2 3,true,s{1 + i // 4},d,{status}\n"
        for i, status in enumerate(["settled", "void", "cancelled", "reshaken"] * 2)
    )
    rows = read_history_file(write(tmp_path, "h.csv", text))
    built = build_history(rows, "sicbo", "h.csv", harness_rounds={"R3"})
    assert built.round_ids == ["R0", "R4", "R7"]
    assert built.left_out == {
        "void rounds": 2,
        "cancelled rounds": 2,
        "rounds whose result the harness entered": 1,
    }
    assert built.part_keys == [("s1", "d"), ("s2", "d")]
    assert list(built.parts) == [0, 1, 1] and list(built.stretches) == [0, 1, 1]


# -- the duties, the faults, the false alarms -----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "make", "game", "duty"),
    [
        ("a loaded die (6 at 0.25)", lambda r: loaded_dice(r, 10_000, 0.25), "sicbo", DISTRIBUTION),
        (
            "a sticky die (repeats 10%)",
            lambda r: sticky_dice(r, 10_000, 0.10),
            "sicbo",
            INDEPENDENCE,
        ),
        ("a token red at 0.6", lambda r: tokens(r, 10_000, 0.6), "xocdia", DISTRIBUTION),
    ],
)
def test_each_biased_shaker_at_10000_rounds_fails_its_own_duty_only(name, make, game, duty) -> None:
    for seed in range(3):
        found = history(make(np.random.default_rng(seed)), game)
        assert failed_duties(found) == {duty}, (name, seed)


def test_the_loaded_die_is_found_without_the_order_thrown_too() -> None:
    found = history(loaded_dice(np.random.default_rng(5), 10_000, 0.25), "sicbo", in_order=False)
    assert failed_duties(found) == {DISTRIBUTION}


def test_fair_histories_are_flagged_at_about_the_stated_rate() -> None:
    """50 fixed seeds of each game (the 200-seed measurement runs by command: tests/README.md):
    at 1% a history, about one in a hundred; at most 3 of 50 holds."""
    for game in ("sicbo", "xocdia"):
        flagged = 0
        for seed in range(50):
            rng = np.random.default_rng(1000 + seed)
            outcomes = fair_dice(rng, 10_000) if game == "sicbo" else tokens(rng, 10_000)
            flagged += bool(failed_duties(history(outcomes, game)))
        assert flagged <= 3, (game, flagged)


def test_fewer_than_10000_rounds_pass_nothing_but_a_bias_found_still_fails() -> None:
    rng = np.random.default_rng(7)
    fair = history(fair_dice(rng, 5_000), "sicbo")
    verdicts = judge(fair, run_battery(fair))
    assert {v.status for v in verdicts.values()} == {"not-tested"}
    assert "fewer outcomes than the 10,000 GLI-19" in verdicts[DISTRIBUTION].reason
    loaded = history(loaded_dice(rng, 5_000, 0.3), "sicbo")
    assert judge(loaded, run_battery(loaded))[DISTRIBUTION].status == "failed"


def test_the_analysis_names_the_correction_and_the_duties() -> None:
    analysis = analyse(history(fair_dice(np.random.default_rng(11), 10_000), "sicbo"), 0.01)
    # counted by hand: each die's faces, all faces, totals, triples (6); the three pairs of dice,
    # each die against itself one roll later, two runs tests, Ljung-Box (9)
    assert analysis["correction"].startswith("Holm's step-down method over the 15 tests")
    assert {d: v["status"] for d, v in analysis["duties"].items()} == {
        DISTRIBUTION: "passed",
        INDEPENDENCE: "passed",
    }
    assert "would be found with 90% power" in analysis["power"]["statement"]
    assert analysis["power"]["rounds_needed"] > 10_000


# -- power, computed and simulated ---------------------------------------------------------------


def test_the_noncentrality_for_90_percent_power_at_1_percent_with_1_df() -> None:
    # a 1-df chi-square is a squared normal: power 0.9 at two-sided 1% needs
    # sqrt(lambda) = z(0.995) + z(0.9) = 2.5758 + 1.2816 (the far tail adds under 1e-9)
    assert math.sqrt(noncentrality_needed(1, 0.01)) == pytest.approx(2.5758 + 1.2816, abs=1e-3)


SIMULATIONS = 400
MARGIN = 0.05  # 400 histories: the detection rate's standard error is 0.015 at 0.9


def detection_rate(game: str, n: int, bias: float, level: float) -> float:
    """The share of simulated histories with the bias that the test on its position finds."""
    rng = np.random.default_rng(2026)
    found = 0
    for _ in range(SIMULATIONS):
        if game == "sicbo":
            faces = loaded_dice(rng, n, 1 / 6 + bias)[:, 0]
            counts = np.bincount(faces - 1, minlength=6)
            test = chi_square("d", DISTRIBUTION, "p", counts, np.full(6, 1 / 6), list("123456"))
        else:
            reds = int(tokens(rng, n, 0.5 + bias)[:, 0].sum())
            test = chi_square(
                "t", DISTRIBUTION, "p", np.array([reds, n - reds]), np.full(2, 0.5), ["r", "w"]
            )
        found += test.p_value < level
    return found / SIMULATIONS


@pytest.mark.parametrize(("game", "tests"), [("sicbo", 12), ("xocdia", 8)])
def test_the_stated_smallest_bias_is_found_with_90_percent_power_in_simulation(game, tests) -> None:
    power = power_of(game, True, 10_000, tests)
    rate = detection_rate(game, 10_000, power.bias, power.level)
    assert abs(rate - 0.9) <= MARGIN, (game, power.bias, rate)


def copying(rng: np.random.Generator, n: int, share: float, faces: int) -> np.ndarray:
    """One position that copies its own last value in `share` of rounds, otherwise fair."""
    values = rng.integers(1, faces + 1, size=n)
    again = rng.random(n) < share
    for i in range(1, n):
        if again[i]:
            values[i] = values[i - 1]
    return values


@pytest.mark.parametrize(("game", "faces", "tests"), [("sicbo", 6, 15), ("xocdia", 2, 18)])
def test_the_stated_serial_power_holds_in_simulation(game: str, faces: int, tests: int) -> None:
    """The share of copied rounds the power statement names is found by the position's own
    serial test (at the statement's level) in 90% of simulated histories (the battery's own
    families: 15 tests for Sic Bo, 18 for Xoc Dia, in order)."""
    power = power_of(game, True, 10_000, tests, serial_pairs=9_999)
    assert power.repeat is not None
    rng, found = np.random.default_rng(2027), 0
    for _ in range(SIMULATIONS):
        values = copying(rng, 10_000, power.repeat, faces)
        test = serial("s", INDEPENDENCE, "p", values, np.zeros(10_000, np.int32), faces)
        found += test.p_value < power.level
    assert abs(found / SIMULATIONS - 0.9) <= MARGIN, (game, power.repeat, found)
    assert f" in {power.repeat:.1%} of rounds or more, and is otherwise fair" in power.statement()


def test_the_serial_test_pairs_no_rounds_across_a_change_of_shaker() -> None:
    """10,000 rounds in two stretches: 9,998 consecutive pairs, not 9,999; and a die that
    repeats only across the change is not a die that repeats."""
    values = np.tile(np.arange(1, 7), 1_700)[:10_000]  # 1..6 over and over: never a repeat
    stretches = np.repeat([0, 1], 5_000)
    test = serial("s", INDEPENDENCE, "p", values, stretches)
    assert test.n == 9_998


def test_no_serial_power_is_stated_where_the_serial_tests_did_not_run() -> None:
    """150 rolls fill a 6 x 6 table of pairs too thinly: the serial tests are not run, and the
    statement names no share of copied rolls."""
    found = analyse(history(fair_dice(np.random.default_rng(4), 150), "sicbo"))
    assert found["power"]["repeat"] is None
    assert "copies" not in found["power"]["statement"]


def test_the_rounds_a_lab_needs_for_a_named_bias_find_it_with_90_percent_power() -> None:
    power = power_of("sicbo", True, 10_000, 12, detect=0.03)
    assert power.rounds_needed is not None
    rate = detection_rate("sicbo", power.rounds_needed, 0.03, power.level)
    assert abs(rate - 0.9) <= MARGIN, (power.rounds_needed, rate)
    assert "a bias of 0.03" in power.statement()


# -- what may not pass -------------------------------------------------------------------------


def verdicts_of(found: History) -> dict[str, tuple[str, str]]:
    return {d: (v.status, v.reason) for d, v in judge(found, run_battery(found)).items()}


def test_each_part_is_held_to_10000_rounds_and_the_power_to_the_smallest() -> None:
    """12,000 rounds with a new dealer every 1,000: twelve parts each tested on its own; nothing
    passes, and the power statement is the smallest part's, not the whole history's."""
    rng = np.random.default_rng(21)
    found = history(fair_dice(rng, 12_000), "sicbo")
    found.parts = np.repeat(np.arange(12, dtype=np.int32), 1_000)
    found.stretches = found.parts.copy()
    found.part_keys = [("s1", f"d{i}") for i in range(12)]
    verdicts = verdicts_of(found)
    assert {status for status, _ in verdicts.values()} == {"not-tested"}
    assert "shaker s1, dealer d0: 1,000" in verdicts[DISTRIBUTION][1]
    analysis = analyse(found)
    assert analysis["power"]["statement"].startswith(
        "On each of the 12 parts (each tested on its own; the smallest has 1,000 rounds)"
    )
    assert analysis["power"]["probability"] > 0.22  # a thousand rolls find only a heavy bias


def test_without_the_order_thrown_independence_is_not_tested_but_a_loaded_die_still_fails() -> None:
    found = history(loaded_dice(np.random.default_rng(5), 10_000, 0.25), "sicbo", in_order=False)
    verdicts = verdicts_of(found)
    assert verdicts[DISTRIBUTION][0] == "failed"
    assert verdicts[INDEPENDENCE][0] == "not-tested"
    assert "the dice of a roll against each other" in verdicts[INDEPENDENCE][1]
    fair = history(tokens(np.random.default_rng(6), 10_000), "xocdia", in_order=False)
    assert verdicts_of(fair)[INDEPENDENCE][0] == "not-tested"


def test_a_token_that_copies_another_fails_independence() -> None:
    red = tokens(np.random.default_rng(8), 10_000)
    copy = np.random.default_rng(9).random(10_000) < 0.1
    red[copy, 1] = red[copy, 0]  # token 2 lands as token 1 one round in ten
    assert failed_duties(history(red, "xocdia")) == {INDEPENDENCE}


def tilted_bowl(rng: np.random.Generator, n: int) -> np.ndarray:
    """Each round the bowl leans red or white with equal odds (a token red at 0.63 or 0.43):
    P(red) = 0.53, and the tokens of a round depend on each other."""
    lean = np.where(rng.random(n) < 0.5, 0.63, 0.43)
    return (rng.random((n, 4)) < lean[:, None]).astype(np.int8)


def test_a_tilted_bowl_fails_the_distribution_on_each_tokens_own_test() -> None:
    """The tokens of a round depend on each other (REG-FAIR-02 fails), so the red count cannot
    judge REG-FAIR-01; each token's own test still can, and it finds P(red) = 0.53. Before,
    REG-FAIR-01 came out not tested: the exemption of one position's tests never applied."""
    for seed in range(3):
        found = history(tilted_bowl(np.random.default_rng(seed), 10_000), "xocdia")
        verdicts = judge(found, run_battery(found))
        assert verdicts[DISTRIBUTION].status == "failed", seed
        assert all(t.startswith("token ") for t in verdicts[DISTRIBUTION].failed_tests), seed


def test_a_die_that_copies_its_own_last_face_fails_independence() -> None:
    """Die 1 copies the previous roll's die 1 in 8% of rolls, otherwise fair: the totals'
    serial correlation hardly sees it; die 1's own serial test does."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        dice = fair_dice(rng, 10_000)
        dice[:, 0] = copying(rng, 10_000, 0.08, 6)
        verdicts = judge(history(dice, "sicbo"), run_battery(history(dice, "sicbo")))
        assert verdicts[INDEPENDENCE].status == "failed", seed
        assert "die 1 against itself one roll later (the whole history)" in (
            verdicts[INDEPENDENCE].failed_tests
        )


def test_a_die_repeating_itself_leaves_the_other_dice_to_judge_the_distribution() -> None:
    """Die 1 copies its last face (REG-FAIR-02 fails on its own serial test): its own faces and
    the pooled tests cannot judge REG-FAIR-01, but dice 2 and 3 still can, and die 2 shows 6 in
    22% of rolls: REG-FAIR-01 fails on die 2's own test. Before, the whole part went untested."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        dice = fair_dice(rng, 10_000)
        dice[:, 0] = copying(rng, 10_000, 0.3, 6)
        dice[:, 1] = loaded_dice(rng, 10_000, 0.22)[:, 0]
        found = history(dice, "sicbo")
        verdicts = judge(found, run_battery(found))
        assert verdicts[INDEPENDENCE].status == "failed", seed
        assert verdicts[DISTRIBUTION].status == "failed", seed
        assert verdicts[DISTRIBUTION].failed_tests == ["faces of die 2 (the whole history)"], seed
    # with die 2 fair the distribution is not tested, and the reason names die 1
    rng = np.random.default_rng(7)
    dice = fair_dice(rng, 10_000)
    dice[:, 0] = copying(rng, 10_000, 0.3, 6)
    found = history(dice, "sicbo")
    verdict = judge(found, run_battery(found))[DISTRIBUTION]
    assert verdict.status == "not-tested"
    assert "a die depends on its own earlier outcomes (the whole history: die 1;" in verdict.reason


def test_rounds_that_depend_on_earlier_ones_leave_the_distribution_not_tested() -> None:
    found = history(sticky_dice(np.random.default_rng(3), 10_000, 0.3), "sicbo")
    verdicts = verdicts_of(found)
    assert verdicts[INDEPENDENCE][0] == "failed"
    assert verdicts[DISTRIBUTION][0] == "not-tested"
    assert "(the whole history: dice 1, 2, 3; REG-FAIR-02)" in verdicts[DISTRIBUTION][1]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (GOOD + "R1,2026-01-01T00:00:00Z,1 ² 3\n", "die '²' is not a whole number from 1 to 6"),
        (GOOD + "R1,2026-01-01T00:00:00Z,1 ١ 3\n", "die '١' is not a whole number from 1 to 6"),
        (GOOD + "R1,yesterday,1 2 3\n", "time='yesterday' is not an ISO 8601 time"),
        (
            GOOD + "R1,2026-01-02T00:00:00Z,1 2 3\nR2,2026-01-01T00:00:00Z,1 2 3\n",
            "time 2026-01-01T00:00:00Z is before line 2's",
        ),
        (GOOD + "R1,,1 2\n", "three dice or four tokens, this one has 2 items"),
        (GOOD + 'R1,,"' + "1" * 200_000 + '"\n', "not CSV (field larger than field limit"),
    ],
)
def test_hostile_rows_are_refused_with_their_line(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(HistoryError) as error:
        read_history_file(write(tmp_path, "h.csv", text))
    assert says in str(error.value) and "h.csv:" in str(error.value)


def test_a_json_array_and_a_huge_number_are_named(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="a JSON array; write one JSON object a line"):
        read_history_file(write(tmp_path, "a.json", '[{"round_id": "R1", "result": [1, 2, 3]}]'))
    huge = '{"round_id": ' + "9" * 5000 + ', "result": [1, 2, 3]}\n'
    with pytest.raises(HistoryError, match=r"h\.jsonl:1: not JSON"):
        read_history_file(write(tmp_path, "h.jsonl", huge))


@pytest.mark.parametrize(("game", "in_order", "tests"), [("sicbo", False, 9), ("xocdia", False, 4)])
def test_the_pooled_and_red_count_models_hold_in_simulation(game, in_order, tests) -> None:
    """Without the order thrown the bias is seen through all faces pooled (one die of three
    loaded) or the red count (one token of four biased): the stated bias found 90% of the time."""
    power = power_of(game, in_order, 10_000, tests)
    rng, found = np.random.default_rng(77), 0
    for _ in range(SIMULATIONS):
        if game == "sicbo":
            faces = loaded_dice(rng, 10_000, 1 / 6 + power.bias).ravel()
            counts = np.bincount(faces - 1, minlength=6)
            test = chi_square("f", DISTRIBUTION, "p", counts, np.full(6, 1 / 6), list("123456"))
        else:
            red = tokens(rng, 10_000, 0.5 + power.bias).sum(axis=1)
            test = chi_square(
                "r", DISTRIBUTION, "p", np.bincount(red, minlength=5), RED_P, list("01234")
            )
        found += test.p_value < power.level
    assert abs(found / SIMULATIONS - 0.9) <= MARGIN, (game, power.bias, found)


def test_the_statistics_are_imported_when_a_history_is_analysed_not_with_certify() -> None:
    """`livecert certify` without a history does not pay scipy's import (about a second)."""
    probe = (
        "import sys\n"
        "import livecert.certify.runner, livecert.cli.commands\n"
        "before = 'scipy.stats' in sys.modules\n"
        "from livecert.fairness import analyse, as_text\n"
        "print(before, 'scipy.stats' in sys.modules, callable(analyse) and callable(as_text))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["False", "True", "True"]
