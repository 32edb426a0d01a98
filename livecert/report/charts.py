"""Pictures for people who would rather look than read: RTP per selection, the sweep as a heat
map, bets per clause. Each chart is a PNG (bytes), embedded in the certificate page and attached
to Allure; matplotlib draws off-screen (Agg), so no display is needed."""

import io
from collections import Counter
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from livecert.rules import load_paytable

PASSED, FAILED, NOT_PLAYED = 2, 1, 0
SWEEP_COLOURS = ("#d9d9d9", "#c62828", "#2e7d32")  # not played, not as the paytable, as it


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


def rtp_chart(game: str, rtp: dict) -> Chart | None:
    """Theoretical versus measured RTP per selection, with the declared maximum as a line."""
    rows = rtp.get("selections") or {}
    if not rows:
        return None
    codes = list(rows)
    theoretical = [_percent(rows[c]["theoretical_percent"]) or 0.0 for c in codes]
    measured = [_percent(rows[c]["measured_percent"]) or 0.0 for c in codes]
    height = max(3.0, 0.16 * len(codes) + 1.2)
    figure, axes = _pyplot().subplots(figsize=(8.5, height))
    positions = range(len(codes))
    axes.barh([p + 0.2 for p in positions], theoretical, height=0.4, label="theoretical")
    axes.barh([p - 0.2 for p in positions], measured, height=0.4, label="measured")
    declared = _percent(rtp.get("declared_max_percent"))
    if declared is not None:
        axes.axvline(declared, color="#c62828", linestyle="--", label=f"declared max {declared}%")
    axes.set_yticks(list(positions), codes, fontsize=6 if len(codes) > 30 else 9)
    axes.invert_yaxis()
    axes.set_xlabel("return to player, % of stakes")
    low = min(theoretical + measured)
    axes.set_xlim(max(0.0, low - 5), 100)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    axes.set_title(f"{game}: RTP per selection over all {rtp.get('rolls')} outcomes")
    return Chart(f"rtp-{game}.png", f"{game}: RTP per selection", _png(figure))


def sweep_matrix(game: str, sweeps: list[dict]) -> tuple[list[str], list[list[int]], list[str]]:
    """Rows (outcomes) x columns (selections): passed, failed or not played."""
    codes = [s.code for s in load_paytable(game).selections]
    outcomes = {" ".join(map(str, r["outcome"])): set(r["mismatched"]) for r in sweeps}
    labels = sorted(outcomes)
    matrix = [[FAILED if code in outcomes[label] else PASSED for code in codes] for label in labels]
    return labels, matrix, codes


def sweep_heatmap(game: str, sweeps: list[dict]) -> Chart | None:
    """Every outcome against every selection: green settled as the paytable says, red not."""
    if not sweeps:
        return None
    labels, matrix, codes = sweep_matrix(game, sweeps)
    figure, axes = _pyplot().subplots(figsize=(9, max(3.0, 0.035 * len(labels) + 2)))
    from matplotlib.colors import ListedColormap

    colours = ListedColormap(list(SWEEP_COLOURS))
    axes.imshow(matrix, aspect="auto", cmap=colours, vmin=0, vmax=2, interpolation="none")
    failed = sum(row.count(FAILED) for row in matrix)
    axes.set_xlabel(f"{len(codes)} selections (paytable order)")
    axes.set_ylabel(f"{len(labels)} outcomes")
    if len(labels) <= 20:
        axes.set_yticks(range(len(labels)), labels, fontsize=8)
    else:
        axes.set_yticks([])
    if len(codes) <= 20:
        axes.set_xticks(range(len(codes)), codes, rotation=60, ha="right", fontsize=7)
    else:
        axes.set_xticks([])
    axes.set_title(
        f"{game} sweep: {len(labels) * len(codes)} settlements, {failed} not as the paytable says"
    )
    return Chart(f"sweep-{game}.png", f"{game}: the sweep, outcomes x selections", _png(figure))


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
    axes.barh(clauses, [counts[c] for c in clauses], color="#1565c0")
    axes.invert_yaxis()
    axes.set_xlabel("bets settled and checked in the sweep")
    for y, clause in enumerate(clauses):
        axes.text(counts[clause], y, f" {counts[clause]}", va="center", fontsize=8)
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
    return charts
