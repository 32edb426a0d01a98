"""The statistical tests of the battery, one function each, on numpy arrays (scipy.stats).

Each answers a `StatTest` with its statistic, degrees of freedom and p-value, or, where the
history is too small for the test's approximation, the reason it was not run. The level and the
correction for many tests are the battery's (`battery.py`), not these functions'.
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats

MIN_EXPECTED = 5.0  # the usual floor of a chi-square cell's expected count
MIN_RUNS_SIDE = 20  # each side of a runs test, for its normal approximation
LAGS = 10  # serial correlation over lags 1..10, as the issue and the state batteries ask


@dataclass
class StatTest:
    """One test of one part of the history, before and after the battery's correction."""

    name: str
    duty: str  # REG-FAIR-01 (distribution) or REG-FAIR-02 (independence)
    part: str
    method: str  # chi-square, contingency chi-square, runs, Ljung-Box
    n: int  # what the test counted (faces, rounds, pairs)
    statistic: float | None = None
    df: int | None = None
    p_value: float | None = None
    adjusted_p: float | None = None  # Holm's, over the battery's family
    passed: bool | None = None  # None: not run
    not_run: str | None = None  # why the test was not run
    observed: list[float] | None = None  # the cells, for the charts
    expected: list[float] | None = None
    labels: list[str] | None = None
    note: str = ""
    position: int | None = None  # the die or token (from 0) whose own outcomes it tests

    @property
    def one_position(self) -> bool:
        """Of one die's or one token's own outcomes (in order only)."""
        return self.position is not None

    @property
    def ran(self) -> bool:
        return self.not_run is None


def pool_cells(
    observed: np.ndarray, expected: np.ndarray, labels: list[str]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Merge a cell whose expected count is under 5 into its neighbour towards the middle,
    from both ends inwards (the totals' tails: 3 and 18 are 1 in 216)."""
    obs, exp, names = list(observed.astype(float)), list(expected.astype(float)), list(labels)
    while len(exp) > 2 and min(exp) < MIN_EXPECTED:
        i = int(np.argmin(exp))
        j = i + 1 if i < len(exp) / 2 else i - 1  # towards the middle
        lo, hi = min(i, j), max(i, j)
        obs[lo : hi + 1] = [obs[lo] + obs[hi]]
        exp[lo : hi + 1] = [exp[lo] + exp[hi]]
        first, last = names[lo].split("-")[0], names[hi].split("-")[-1]
        names[lo : hi + 1] = [f"{first}-{last}"]
    return np.array(obs), np.array(exp), names


def chi_square(
    name: str,
    duty: str,
    part: str,
    counts: np.ndarray,
    probabilities: np.ndarray,
    labels: list[str],
    pool: bool = False,
) -> StatTest:
    """Goodness of fit of `counts` to `probabilities` (df = cells - 1)."""
    n = int(counts.sum())
    expected = probabilities * n
    observed, labels_used = counts.astype(float), labels
    if pool:
        observed, expected, labels_used = pool_cells(observed, expected, labels)
    result = StatTest(name, duty, part, "chi-square", n, labels=labels_used)
    result.observed, result.expected = observed.tolist(), expected.tolist()
    if n == 0 or expected.min() < MIN_EXPECTED or len(expected) < 2:
        smallest = 0.0 if n == 0 else float(expected.min())
        result.not_run = (
            f"too few rounds: the smallest expected count is {smallest:.1f}, under "
            f"{MIN_EXPECTED:g} (chi-square's approximation does not hold)"
        )
        return result
    statistic, p_value = stats.chisquare(observed, expected)
    result.statistic, result.df, result.p_value = (
        float(statistic),
        len(observed) - 1,
        float(p_value),
    )
    return result


def contingency(
    name: str, duty: str, part: str, a: np.ndarray, b: np.ndarray, faces: int = 6
) -> StatTest:
    """Independence of two dice (or tokens) of the same rounds: a faces x faces table (values
    1..faces), chi-square on its margins."""
    table = np.zeros((faces, faces))
    np.add.at(table, (a - 1, b - 1), 1)
    result = StatTest(name, duty, part, "contingency chi-square", len(a))
    expected = np.outer(table.sum(1), table.sum(0)) / max(len(a), 1)
    if len(a) == 0 or expected.min() < MIN_EXPECTED:
        result.not_run = (
            f"too few rounds: a cell of the {faces} x {faces} table expects under "
            f"{MIN_EXPECTED:g} rounds"
        )
        return result
    found = stats.chi2_contingency(table, correction=False)
    result.statistic, result.df = float(found.statistic), int(found.dof)
    result.p_value = float(found.pvalue)
    return result


def runs(name: str, duty: str, part: str, series: np.ndarray, stretches: np.ndarray) -> StatTest:
    """Wald-Wolfowitz runs test of a binary series, given its counts, within each stretch of
    contiguous rounds (a stretch's runs, means and variances add up; no run crosses a change
    of shaker or dealer). Two-sided: too few runs (streaks) or too many (alternation)."""
    result = StatTest(name, duty, part, "runs", len(series))
    total_runs, mean, variance, ones, zeros = 0, 0.0, 0.0, 0, 0
    for stretch in np.unique(stretches):
        x = series[stretches == stretch]
        n1, n2 = int(x.sum()), int(len(x) - x.sum())
        ones, zeros = ones + n1, zeros + n2
        if n1 == 0 or n2 == 0:
            total_runs += 1 if len(x) else 0
            mean += 1 if len(x) else 0
            continue
        n = n1 + n2
        total_runs += 1 + int(np.count_nonzero(x[1:] != x[:-1]))
        mean += 2 * n1 * n2 / n + 1
        variance += 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    result.observed, result.expected = [float(total_runs)], [mean]
    if min(ones, zeros) < MIN_RUNS_SIDE or variance <= 0:
        result.not_run = (
            f"too few rounds: each side needs {MIN_RUNS_SIDE} rounds for the runs test's "
            f"normal approximation ({ones} and {zeros})"
        )
        return result
    z = (total_runs - mean) / np.sqrt(variance)
    result.statistic, result.df = float(z), None
    result.p_value = float(2 * stats.norm.sf(abs(z)))
    result.note = f"{total_runs} runs, {mean:.1f} expected"
    return result


def ljung_box(
    name: str, duty: str, part: str, series: np.ndarray, stretches: np.ndarray, lags: int = LAGS
) -> StatTest:
    """Serial correlation over lags 1..`lags` (Ljung-Box Q, chi-square with `lags` df): one
    test for the family rather than ten, and the lab's "lags 1 to 10" in one figure. Pairs
    across a change of shaker or dealer are not counted."""
    result = StatTest(name, duty, part, "Ljung-Box", len(series))
    n = len(series)
    if n < 10 * lags:
        result.not_run = f"too few rounds: {n}, under the {10 * lags} serial correlation needs"
        return result
    x = series.astype(float) - series.mean()
    denominator = float(np.dot(x, x))
    if denominator == 0:
        result.not_run = "the series never changes: no correlation to measure"
        return result
    q, correlations = 0.0, []
    for k in range(1, lags + 1):
        same = stretches[k:] == stretches[:-k]
        r = float(np.dot(x[k:][same], x[:-k][same])) / denominator
        correlations.append(r)
        q += r * r / (n - k)
    q *= n * (n + 2)
    result.statistic, result.df = q, lags
    result.p_value = float(stats.chi2.sf(q, lags))
    result.observed = correlations
    result.expected = [0.0] * lags
    result.labels = [f"lag {k}" for k in range(1, lags + 1)]
    result.note = "lag 1 correlation " + f"{correlations[0]:+.4f}"
    return result


def serial(
    name: str, duty: str, part: str, series: np.ndarray, stretches: np.ndarray, faces: int = 6
) -> StatTest:
    """One die's (or one token's) value against its own value one round later (lag 1): a
    faces x faces table of consecutive pairs within a stretch (none across a change of shaker or
    dealer), chi-square on its margins. A die that shows its last face again more often than
    chance fills the diagonal; the totals' serial correlation cannot see it (a repeated face
    moves a total by a third)."""
    same = stretches[1:] == stretches[:-1]
    result = contingency(name, duty, part, series[:-1][same], series[1:][same], faces)
    result.method = "serial contingency"
    return result
