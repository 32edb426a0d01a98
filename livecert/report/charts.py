"""Pictures for people who would rather look than read: RTP per selection, the sweep as a heat
map, bets per clause. Each chart is a PNG (bytes), embedded in the certificate page and written
to the report's charts/ folder (the Allure report does not carry them: they are drawn from the
whole run, after its results); matplotlib draws off-screen (Agg), so no display is needed."""

import io
from collections import Counter
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from livecert.rules import load_paytable

PASSED, FAILED, NOT_PLAYED = 2, 1, 0
# Okabe and Ito's palette, told apart with every kind of colour vision; each colour has a shape
# or a word beside it too (a hatch, a cross, a label), so a grey print still reads
BLUE, ORANGE, VERMILLION, SKY = "#0072B2", "#E69F00", "#D55E00", "#56B4E9"
SWEEP_COLOURS = ("#e0e0e0", VERMILLION, SKY)  # not played, not as the paytable, as it
LABEL_POINTS = 8  # the smallest text of a chart, in points
ROWS_PER_PANEL = 40  # an RTP chart of more selections is drawn in side-by-side panels


@cache
def _pyplot() -> ModuleType:
    """matplotlib, off-screen, loaded when the first chart is drawn: importing it costs a second,
    which a run without pages (every self-test run) should not pay."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after choosing the off-screen backend above

    return plt


@dataclass(frozen=True)
class Chart:
    """One picture: its file name, its title and the PNG itself."""

    name: str
    title: str
    png: bytes


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    _pyplot().close(figure)
    return buffer.getvalue()


def _percent(text: str | None) -> float | None:
    return None if text is None else float(text.rstrip("%"))


def rtp_figure(game: str, rtp: dict):
    """The RTP chart's figure: theoretical and measured return per selection from 0 to 100%, the
    declared maximum as a line, a measured return unlike its theoretical one marked "≠"."""
    rows = rtp.get("selections") or {}
    codes = list(rows)
    theoretical = [_percent(rows[c]["theoretical_percent"]) or 0.0 for c in codes]
    measured = [_percent(rows[c]["measured_percent"]) or 0.0 for c in codes]
    panels = -(-len(codes) // ROWS_PER_PANEL)
    per_panel = -(-len(codes) // panels)
    height = max(3.0, 0.2 * per_panel + 1.4)
    figure, axes_list = _pyplot().subplots(
        1, panels, figsize=(6 * panels + 1, height), squeeze=False, layout="constrained"
    )
    declared = _percent(rtp.get("declared_max_percent"))
    for panel, axes in enumerate(axes_list[0]):
        part = range(panel * per_panel, min(len(codes), (panel + 1) * per_panel))
        positions = list(range(len(part)))
        axes.barh(
            [p - 0.2 for p in positions],
            [theoretical[i] for i in part],
            height=0.4,
            color=BLUE,
            label="theoretical",
        )
        axes.barh(
            [p + 0.2 for p in positions],
            [measured[i] for i in part],
            height=0.4,
            color=ORANGE,
            hatch="///",
            edgecolor="white",
            linewidth=0,
            label="measured",
        )
        for p, i in zip(positions, part, strict=True):
            if measured[i] != theoretical[i]:
                axes.text(
                    measured[i] + 1,
                    p + 0.2,
                    "≠",
                    va="center",
                    color=VERMILLION,
                    fontsize=LABEL_POINTS + 2,
                    fontweight="bold",
                )
        if declared is not None:
            axes.axvline(
                declared,
                color="black",
                linestyle="--",
                linewidth=1,
                label=f"declared maximum {declared}%",
            )
        axes.set_yticks(positions, [codes[i] for i in part], fontsize=LABEL_POINTS)
        axes.tick_params(axis="x", labelsize=LABEL_POINTS)
        axes.invert_yaxis()
        axes.set_xlim(0, max(105.0, *(m + 8 for m in measured)))  # from 0: a bar is its return
        axes.set_xlabel("return to player, % of stakes", fontsize=LABEL_POINTS + 1)
    handles, names = axes_list[0][0].get_legend_handles_labels()
    figure.legend(handles, names, loc="outside lower center", ncols=3, fontsize=LABEL_POINTS)
    figure.suptitle(f"{game}: RTP per selection over all {rtp.get('rolls')} outcomes")
    return figure


def rtp_chart(game: str, rtp: dict) -> Chart | None:
    """Theoretical versus measured RTP per selection, with the declared maximum as a line."""
    if not rtp.get("selections"):
        return None
    return Chart(f"rtp-{game}.png", f"{game}: RTP per selection", _png(rtp_figure(game, rtp)))


def sweep_matrix(game: str, sweeps: list[dict]) -> tuple[list[str], list[list[int]], list[str]]:
    """Rows (outcomes) x columns (selections): passed, failed or not played."""
    codes = [s.code for s in load_paytable(game).selections]
    outcomes = {" ".join(map(str, r["outcome"])): set(r["mismatched"]) for r in sweeps}
    labels = sorted(outcomes)
    matrix = [[FAILED if code in outcomes[label] else PASSED for code in codes] for label in labels]
    return labels, matrix, codes


def _every(count: int, most: int) -> int:
    """The step between tick labels so that at most `most` are written."""
    return max(1, -(-count // most))


def sweep_figure(game: str, sweeps: list[dict]):
    """The sweep heat map's figure: outcomes down, selections across, every settlement a cell
    (sky blue as the paytable says, vermillion and crossed where not), ticks on both axes and a
    legend."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    labels, matrix, codes = sweep_matrix(game, sweeps)
    figure, axes = _pyplot().subplots(figsize=(10, max(3.5, 0.04 * len(labels) + 2.5)))
    axes.imshow(
        matrix,
        aspect="auto",
        cmap=ListedColormap(list(SWEEP_COLOURS)),
        vmin=0,
        vmax=2,
        interpolation="none",
    )
    crosses = [
        (x, y) for y, row in enumerate(matrix) for x, cell in enumerate(row) if cell == FAILED
    ]
    if crosses:
        axes.scatter(
            [x for x, _ in crosses],
            [y for _, y in crosses],
            marker="x",
            s=14,
            color="black",
            linewidths=0.8,
        )
    rows, columns = _every(len(labels), 36), _every(len(codes), 28)
    axes.set_yticks(range(0, len(labels), rows), labels[::rows], fontsize=LABEL_POINTS)
    axes.set_xticks(
        range(0, len(codes), columns),
        codes[::columns],
        rotation=60,
        ha="right",
        fontsize=LABEL_POINTS,
    )
    failed = len(crosses)
    axes.set_xlabel(
        f"{len(codes)} selections (paytable order; every {columns} named)"
        if columns > 1
        else f"{len(codes)} selections"
    )
    axes.set_ylabel(f"{len(labels)} outcomes" + (f" (every {rows} named)" if rows > 1 else ""))
    axes.legend(
        handles=[
            Patch(color=SKY, label="settled as the paytable says"),
            Patch(
                facecolor=VERMILLION,
                edgecolor="black",
                hatch="xx",
                label=f"not as the paytable says (x): {failed}",
            ),
            Patch(color=SWEEP_COLOURS[NOT_PLAYED], label="not played"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=LABEL_POINTS,
    )
    axes.set_title(
        f"{game} sweep: {len(labels) * len(codes)} settlements, {failed} not as the paytable says"
    )
    return figure


def sweep_heatmap(game: str, sweeps: list[dict]) -> Chart | None:
    """Every outcome against every selection, each settlement a cell."""
    if not sweeps:
        return None
    return Chart(
        f"sweep-{game}.png",
        f"{game}: the sweep, outcomes x selections",
        _png(sweep_figure(game, sweeps)),
    )


def bets_per_clause(game: str, sweeps: list[dict]) -> dict[str, int]:
    """How many bets the sweep settled under each payout clause: one per selection per outcome."""
    per_clause = Counter(s.clause for s in load_paytable(game).selections)
    return {clause: count * len(sweeps) for clause, count in per_clause.items() if sweeps}


def clause_chart(game: str, sweeps: list[dict]) -> Chart | None:
    """Bets settled per payout clause in the sweep."""
    counts = bets_per_clause(game, sweeps)
    if not counts:
        return None
    clauses = sorted(counts)
    figure, axes = _pyplot().subplots(figsize=(8, 0.3 * len(clauses) + 1.2))
    axes.barh(clauses, [counts[c] for c in clauses], color=BLUE)
    axes.tick_params(labelsize=LABEL_POINTS)
    axes.invert_yaxis()
    axes.set_xlabel("bets settled and checked in the sweep")
    for y, clause in enumerate(clauses):
        axes.text(counts[clause], y, f" {counts[clause]}", va="center", fontsize=LABEL_POINTS)
    axes.set_title(f"{game}: bets per clause")
    return Chart(f"bets-per-clause-{game}.png", f"{game}: bets per clause", _png(figure))


def charts_for(certificate: dict, records: list[dict]) -> list[Chart]:
    """Every chart the run's data supports, game by game."""
    charts = []
    for game in certificate["scope"]["games"]:
        sweeps = [r for r in records if r["type"] == "sweep" and r["game"] == game]
        for chart in (
            rtp_chart(game, certificate["rtp"].get(game, {})),
            sweep_heatmap(game, sweeps),
            clause_chart(game, sweeps),
        ):
            if chart is not None:
                charts.append(chart)
    from livecert.report.outcome_charts import outcome_chart  # it draws with this module's parts

    for analysis in certificate.get("outcome_analysis") or []:
        if (chart := outcome_chart(analysis)) is not None:
            charts.append(chart)
    return charts
