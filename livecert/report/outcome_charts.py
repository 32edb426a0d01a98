"""The outcome analysis in pictures: observed against expected counts with a 99% band, and the
serial correlation by lag with its band, for each history the run analysed (REG-FAIR-01/02).

The bands are each cell's own 99% range under fair dice or tokens (binomial, normal
approximation); the verdicts are the battery's, corrected for the whole family, so a bar just
outside its band is not by itself a failure: the table beside the chart says what failed.
"""

from math import sqrt

from livecert.report.charts import BLUE, LABEL_POINTS, ORANGE, VERMILLION, Chart, _png, _pyplot

Z99 = 2.5758  # two-sided 99%
SHOWN = ("faces of all dice pooled", "totals 3 to 18", "red count 0 to 4")
SERIAL = "serial correlation"


def _counts_panel(axes, test: dict) -> None:
    observed, expected = test["observed"], test["expected"]
    n = sum(observed)
    labels = test.get("labels") or [str(i) for i in range(len(observed))]
    positions = range(len(observed))
    band = [Z99 * sqrt(e * (1 - e / n)) if n else 0.0 for e in expected]
    axes.bar(positions, observed, color=BLUE, label="observed")
    axes.errorbar(
        positions, expected, yerr=band, fmt="_", color=ORANGE, markersize=14, capsize=4,
        label="expected (fair), 99% band",
    )  # fmt: skip
    axes.set_xticks(list(positions), labels, fontsize=LABEL_POINTS)
    axes.set_ylim(bottom=0)
    axes.set_title(f"{test['name']} ({'pass' if test.get('passed') else 'FAIL'})", fontsize=9)
    axes.tick_params(labelsize=LABEL_POINTS)


def _serial_panel(axes, test: dict, rounds: int) -> None:
    correlations = test["observed"]
    lags = range(1, len(correlations) + 1)
    band = Z99 / sqrt(rounds) if rounds else 0.0
    colours = [VERMILLION if abs(r) > band else BLUE for r in correlations]
    axes.bar(lags, correlations, color=colours, label="correlation")
    axes.axhspan(-band, band, color=ORANGE, alpha=0.25, label="99% band if independent")
    axes.axhline(0, color="black", linewidth=0.6)
    axes.set_xticks(list(lags), [str(k) for k in lags], fontsize=LABEL_POINTS)
    axes.set_xlabel("lag (rounds)", fontsize=LABEL_POINTS)
    axes.set_title(f"{test['name']} ({'pass' if test.get('passed') else 'FAIL'})", fontsize=9)
    axes.tick_params(labelsize=LABEL_POINTS)


def outcome_chart(analysis: dict) -> Chart | None:
    """One figure per analysed history: its pooled distributions and its serial correlation."""
    ran = [t for t in analysis["tests"] if "not_run" not in t and t.get("observed")]
    panels = [t for t in ran if t["name"] in SHOWN and t["part"] == ran[0]["part"]] if ran else []
    parts = len(analysis.get("parts") or [])
    first = ran[0]["part"] if ran else None  # the first part: a chart per part would be a wall
    serial = [t for t in ran if t["name"].startswith(SERIAL) and t["part"] == first][:1]
    if not panels and not serial:
        return None
    count = len(panels) + len(serial)
    figure, axes = _pyplot().subplots(1, count, figsize=(4.2 * count, 3.4), squeeze=False)
    for place, test in zip(axes[0], panels, strict=False):
        _counts_panel(place, test)
    if serial:
        _serial_panel(axes[0][-1], serial[0], serial[0]["n"])  # the band of its own part
    axes[0][0].legend(  # below the bars: over them it would hide a short one
        fontsize=LABEL_POINTS, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2
    )
    game = analysis["game"]
    figure.suptitle(
        f"{game}: {analysis['rounds_tested']:,} outcomes against fair {game} "
        f"({first}{f'; the first of {parts} parts' if parts > 1 else ''})",
        fontsize=10,
    )
    return Chart(
        f"outcomes-{game}.png",
        f"{game}: outcomes observed against fair, with 99% bands",
        _png(figure),
    )
