"""The lab battery over a history: which tests run on which part, Holm's correction, the duties.

Per part of the history (one shaker or dice set and one dealer) the battery runs the tests the
state labs run at 99% (GLI-19 §3.4.2): goodness of fit for REG-FAIR-01, independence within a
round and across rounds for REG-FAIR-02. The whole family is corrected by Holm's method, so that
a fair table is flagged about once in a hundred histories, not once per test. A duty passes only
where its tests ran, none failed, and every device gave the 10,000 outcomes GLI-19 asks; a test
that fails on fewer still fails it (a bias found is found).
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

import numpy as np

from livecert.fairness.history import History
from livecert.fairness.stat_tests import (
    StatTest,
    chi_square,
    contingency,
    ljung_box,
    runs,
    serial,
)

DISTRIBUTION, INDEPENDENCE = "REG-FAIR-01", "REG-FAIR-02"
DUTIES = (DISTRIBUTION, INDEPENDENCE)
LEVEL = 0.01  # the 99% confidence level of the state batteries
MIN_ROUNDS = 10_000  # GLI-19 §3.4.2: outcomes of a physical device


def _exact(game_outcomes: list[tuple], key: Callable[[tuple], object], cells: list) -> np.ndarray:
    """Exact probabilities of `cells` over equally likely outcomes (fractions, then floats)."""
    counts = {cell: Fraction(0) for cell in cells}
    for outcome in game_outcomes:
        counts[key(outcome)] += Fraction(1, len(game_outcomes))
    return np.array([float(counts[c]) for c in cells])


ROLLS = list(product(range(1, 7), repeat=3))
TOKENS = list(product((0, 1), repeat=4))  # 1 = red
TOTALS = list(range(3, 19))
TOTAL_P = _exact(ROLLS, sum, TOTALS)
TRIPLE_CELLS = [1, 2, 3, 4, 5, 6, 0]  # the six triples, then no triple
TRIPLE_P = _exact(ROLLS, lambda r: r[0] if r[0] == r[1] == r[2] else 0, TRIPLE_CELLS)
RED_P = _exact(TOKENS, sum, [0, 1, 2, 3, 4])
FACE_LABELS = [str(f) for f in range(1, 7)]


def _part_name(history: History, index: int) -> str:
    shaker, dealer = history.part_keys[index]
    named = [f"shaker {shaker}" if shaker else "", f"dealer {dealer}" if dealer else ""]
    return ", ".join(n for n in named if n) or "the whole history"


def _faces(dice: np.ndarray) -> np.ndarray:
    return np.bincount(dice.ravel() - 1, minlength=6)[:6]


def _not_ordered(name: str, part: str, n: int) -> StatTest:
    """The within-round test a history without the order thrown cannot have: REG-FAIR-02 is
    then not tested (a dependence within a round cannot be told from one loaded die)."""
    test = StatTest(name, INDEPENDENCE, part, "contingency chi-square", n)
    test.not_run = (
        "not given in the order thrown (in_order): a dependence within a round cannot be told "
        "from one biased die or token"
    )
    return test


def sicbo_tests(history: History, part: str) -> list[StatTest]:
    dice, stretches = history.outcomes.astype(np.int64), history.stretches
    totals = dice.sum(axis=1)
    tests: list[StatTest] = []
    if history.in_order:
        for position in range(3):
            own = chi_square(
                f"faces of die {position + 1}",
                DISTRIBUTION,
                part,
                _faces(dice[:, [position]]),
                np.full(6, 1 / 6),
                FACE_LABELS,
            )
            own.position = position  # judges the distribution when the dice depend on each other
            tests.append(own)
    tests.append(
        chi_square(
            "faces of all dice pooled",
            DISTRIBUTION,
            part,
            _faces(dice),
            np.full(6, 1 / 6),
            FACE_LABELS,
        )
    )
    total_counts = np.bincount(totals - 3, minlength=16)[:16]
    tests.append(
        chi_square(
            "totals 3 to 18",
            DISTRIBUTION,
            part,
            total_counts,
            TOTAL_P,
            [str(t) for t in TOTALS],
            pool=True,
        )
    )
    triple_of = np.where((dice[:, 0] == dice[:, 1]) & (dice[:, 1] == dice[:, 2]), dice[:, 0], 0)
    triple_counts = np.array([np.sum(triple_of == c) for c in TRIPLE_CELLS])
    labels = [f"{c}-{c}-{c}" for c in TRIPLE_CELLS[:6]] + ["no triple"]
    tests.append(chi_square("triples", DISTRIBUTION, part, triple_counts, TRIPLE_P, labels))
    if history.in_order:
        for a, b in ((0, 1), (0, 2), (1, 2)):
            tests.append(
                contingency(
                    f"die {a + 1} against die {b + 1} in the same roll",
                    INDEPENDENCE,
                    part,
                    dice[:, a],
                    dice[:, b],
                )
            )
        for position in range(3):
            again = serial(
                f"die {position + 1} against itself one roll later",
                INDEPENDENCE,
                part,
                dice[:, position],
                stretches,
            )
            again.position = position
            tests.append(again)
    else:
        tests.append(_not_ordered("the dice of a roll against each other", part, len(dice)))
    not_triple = triple_of == 0
    small = (totals <= 10)[not_triple].astype(np.int8)
    tests.append(runs("runs of Small and Big", INDEPENDENCE, part, small, stretches[not_triple]))
    tests.append(
        runs(
            "runs of odd and even totals",
            INDEPENDENCE,
            part,
            (totals % 2).astype(np.int8),
            stretches,
        )
    )
    tests.append(
        ljung_box("serial correlation of totals, lags 1-10", INDEPENDENCE, part, totals, stretches)
    )
    for test in tests:
        if test.name == "triples":
            test.note = "each triple 1 in 216"
    return tests


def xocdia_tests(history: History, part: str) -> list[StatTest]:
    tokens, stretches = history.outcomes.astype(np.int64), history.stretches
    red = tokens.sum(axis=1)
    tests = [
        chi_square(
            "red count 0 to 4",
            DISTRIBUTION,
            part,
            np.bincount(red, minlength=5)[:5],
            RED_P,
            ["0", "1", "2", "3", "4"],
        )
    ]
    if history.in_order:
        for position in range(4):
            reds = int(tokens[:, position].sum())
            own = chi_square(
                f"token {position + 1} red or white",
                DISTRIBUTION,
                part,
                np.array([reds, len(tokens) - reds]),
                np.array([0.5, 0.5]),
                ["red", "white"],
            )
            own.position = position  # judges it when the tokens depend on each other
            tests.append(own)
    if history.in_order:
        for a, b in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
            tests.append(
                contingency(
                    f"token {a + 1} against token {b + 1} in the same round",
                    INDEPENDENCE,
                    part,
                    tokens[:, a] + 1,
                    tokens[:, b] + 1,
                    2,
                )
            )
        for position in range(4):
            again = serial(
                f"token {position + 1} against itself one round later",
                INDEPENDENCE,
                part,
                tokens[:, position] + 1,
                stretches,
                2,
            )
            again.position = position
            tests.append(again)
    else:
        tests.append(_not_ordered("the tokens of a round against each other", part, len(red)))
    tests.append(
        runs("runs of even and odd", INDEPENDENCE, part, (red % 2).astype(np.int8), stretches)
    )
    decided = red != 2  # two red two white is neither Big nor Small
    big = (red >= 3)[decided].astype(np.int8)
    tests.append(runs("runs of Big and Small", INDEPENDENCE, part, big, stretches[decided]))
    tests.append(
        ljung_box(
            "serial correlation of the red count, lags 1-10", INDEPENDENCE, part, red, stretches
        )
    )
    return tests


def holm(tests: list[StatTest], level: float = LEVEL) -> None:
    """Holm's step-down adjustment over the tests that ran; each passes at `level` or fails."""
    ran = sorted((t for t in tests if t.ran), key=lambda t: t.p_value or 0.0)
    m, running = len(ran), 0.0
    for rank, test in enumerate(ran):
        running = max(running, min(1.0, (m - rank) * float(test.p_value or 0.0)))
        test.adjusted_p = running
        test.passed = running >= level


@dataclass
class DutyVerdict:
    status: str  # passed, failed, not-tested
    reason: str = ""
    failed_tests: list[str] = field(default_factory=list)


def run_battery(history: History) -> list[StatTest]:
    """Every test on every part, corrected together."""
    per_game = sicbo_tests if history.game == "sicbo" else xocdia_tests
    tests: list[StatTest] = []
    for index in range(len(history.part_keys)):
        tests += per_game(history.part(index), _part_name(history, index))
    holm(tests)
    return tests


def rounds_per_part(history: History) -> dict[str, int]:
    """Rounds per part (one shaker and one dealer): each is tested on its own, so each must
    hold the outcomes GLI-19 asks of a physical device."""
    return {
        _part_name(history, index): int(np.sum(history.parts == index))
        for index in range(len(history.part_keys))
    }


def _held_back_reason(history: History, held_back: set[tuple[str, int | None]]) -> str:
    """Why the distribution is not judged on the dice or tokens that repeat their own past."""
    one, many = ("die", "dice") if history.game == "sicbo" else ("token", "tokens")
    parts: dict[str, list[int]] = {}
    for part, position in sorted(held_back, key=lambda held: (held[0], held[1] or 0)):
        parts.setdefault(part, []).append((position or 0) + 1)
    which = "; ".join(
        f"{part}: {one if len(numbers) == 1 else many} {', '.join(map(str, numbers))}"
        for part, numbers in parts.items()
    )
    return (
        f"a {one} depends on its own earlier outcomes ({which}; REG-FAIR-02), so the chi-square "
        f"tests, which assume independent rounds, cannot judge it, nor the tests pooling it; "
        f"only the other {many}' own tests can judge the distribution there"
    )


# the methods that look at rounds one after another
ACROSS_ROUNDS = ("runs", "Ljung-Box", "serial contingency")


def _not_run(tests: list[StatTest]) -> list[str]:
    return [f"{t.name} ({t.part}): {t.not_run}" for t in tests if not t.ran]


def judge(history: History, tests: list[StatTest]) -> dict[str, DutyVerdict]:
    """Each duty from its own tests: failed where one failed; passed only where every one of
    its tests ran and held on every part, each of at least 10,000 rounds; otherwise not tested,
    with the reason. A part whose rounds depend on earlier ones (REG-FAIR-02's runs or serial
    correlation failed there) cannot be judged by the chi-square tests, which assume
    independent rounds: its distribution is not tested rather than failed for it."""
    short = {p: n for p, n in rounds_per_part(history).items() if n < MIN_ROUNDS}
    broken = [t for t in tests if t.duty == INDEPENDENCE and t.ran and not t.passed]
    # a dependence on earlier rounds: of one die or token (its own serial test failed), which
    # the whole round's tests (runs, Ljung-Box) then show too and which leaves the other
    # positions' own tests to judge; or of the whole round with no position to blame
    held_back = {
        (t.part, t.position) for t in broken if t.method in ACROSS_ROUNDS and t.position is not None
    }
    across_one = {part for part, _ in held_back}
    across = {
        t.part
        for t in broken
        if t.method in ACROSS_ROUNDS and t.position is None and t.part not in across_one
    }
    within = {t.part for t in broken if t.method not in ACROSS_ROUNDS} - across

    def judgeable(test: StatTest) -> bool:
        """A distribution test whose assumptions the independence tests did not break."""
        if test.duty == INDEPENDENCE:
            return True
        if test.part in across:
            return False
        if test.part in across_one:
            return test.one_position and (test.part, test.position) not in held_back
        return test.part not in within or test.one_position

    verdicts = {}
    for duty in DUTIES:
        own = [t for t in tests if t.duty == duty]
        judged = [t for t in own if judgeable(t)]
        failed = [f"{t.name} ({t.part})" for t in judged if t.ran and not t.passed]
        reasons = []
        if duty == DISTRIBUTION and across:
            reasons.append(
                f"the rounds of {'; '.join(sorted(across))} depend on earlier rounds "
                "(REG-FAIR-02), so the chi-square tests, which assume independent rounds, "
                "cannot judge their distribution"
            )
        if duty == DISTRIBUTION and held_back:
            reasons.append(_held_back_reason(history, held_back))
        if duty == DISTRIBUTION and within:
            reasons.append(
                f"the dice or tokens of a round of {'; '.join(sorted(within))} depend on each "
                "other (REG-FAIR-02), so only the tests of one die or token at a time can judge "
                "their distribution"
            )
        if failed:
            verdicts[duty] = DutyVerdict("failed", "", failed)
            continue
        if not_run := _not_run(judged):
            reasons.append("not run: " + "; ".join(not_run))
        if short:
            named = "; ".join(f"{p}: {n:,}" for p, n in short.items())
            reasons.append(
                f"fewer outcomes than the {MIN_ROUNDS:,} GLI-19 §3.4.2 asks of a physical "
                f"device ({named}); no test failed"
            )
        verdicts[duty] = (
            DutyVerdict("not-tested", "; ".join(reasons)) if reasons else DutyVerdict("passed")
        )
    return verdicts
