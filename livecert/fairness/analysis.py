"""The outcome analysis as a lab reads it: the battery's tests, the duties, the power statement,
and what of the history was left out, as data (`outcome-analysis.json`) and as text."""

from dataclasses import asdict
from typing import Any

from livecert.fairness.battery import (
    DUTIES,
    LEVEL,
    MIN_ROUNDS,
    judge,
    rounds_per_part,
    run_battery,
)
from livecert.fairness.history import History
from livecert.fairness.power import power_of

SCHEMA = "livecert-outcome-analysis/1"
GAME_NAMES = {"sicbo": "Sic Bo", "xocdia": "Xoc Dia"}


def analyse(history: History, detect: float | None = None) -> dict[str, Any]:
    """Run the battery on `history`; the analysis as JSON-ready data."""
    tests = run_battery(history)
    verdicts = judge(history, tests)
    ran = [t for t in tests if t.ran]
    sizes = rounds_per_part(history).values()
    serial = [t for t in tests if t.method == "serial contingency"]
    pairs = min((t.n for t in serial), default=0) if serial and all(t.ran for t in serial) else 0
    power = power_of(
        history.game, history.in_order, min(sizes, default=0), len(ran), detect, len(sizes),
        pairs or None,
    )  # fmt: skip
    parts = []
    for index, (shaker, dealer) in enumerate(history.part_keys):
        count = int((history.parts == index).sum())
        parts.append({"shaker": shaker or None, "dealer": dealer or None, "rounds": count})
    return {
        "schema": SCHEMA,
        "game": history.game,
        "source": history.source,
        "rows_read": history.rows_read,
        "rounds_tested": len(history),
        "left_out": history.left_out,
        "in_order": history.in_order,
        "parts": parts,
        "level": LEVEL,
        "minimum_rounds": MIN_ROUNDS,
        "correction": (
            f"Holm's step-down method over the {len(ran)} tests that ran: a fair table is "
            f"flagged in about {LEVEL:.0%} of histories, not {LEVEL:.0%} per test"
        ),
        "tests": [_test_data(asdict(t)) for t in tests],
        "duties": {d: asdict(verdicts[d]) for d in DUTIES},
        "power": {
            "statement": power.statement(),
            "bias": power.bias,
            "probability": power.probability,
            "level": power.level,
            "detect": power.detect,
            "rounds_needed": power.rounds_needed,
            "repeat": power.repeat,
        },
    }


def _test_data(test: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in test.items() if v is not None and v != ""}


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"


def as_text(analysis: dict[str, Any]) -> str:
    """The analysis for a terminal or a text file: a line per test, the duties, the power."""
    game = GAME_NAMES[analysis["game"]]
    lines = [
        f"Outcome analysis of {game}: {analysis['rounds_tested']:,} rounds tested of "
        f"{analysis['rows_read']:,} read from {analysis['source']}",
    ]
    if "history" in analysis:
        kept = analysis["history"]
        lines.append(f"  the history analysed: {kept['file']} (sha256 {kept['sha256']})")
    for why, count in analysis["left_out"].items():
        lines.append(f"  left out: {count:,} {why}")
    if len(analysis["parts"]) > 1:
        for part in analysis["parts"]:
            lines.append(
                f"  part: shaker {part['shaker'] or '-'}, dealer {part['dealer'] or '-'}: "
                f"{part['rounds']:,} rounds"
            )
    lines.append(f"  {analysis['correction']}; each test at the 99% level")
    lines.append("")
    for test in analysis["tests"]:
        if "not_run" in test:
            lines.append(
                f"  not run  {test['duty']}  {test['name']} ({test['part']}): {test['not_run']}"
            )
            continue
        df = f", df {test['df']}" if "df" in test else ""
        verdict = "pass" if test["passed"] else "FAIL"
        lines.append(
            f"  {verdict:<7}  {test['duty']}  {test['name']} ({test['part']}): "
            f"{test['method']} {test['statistic']:.2f}{df}, p {_p(test['p_value'])}, "
            f"Holm {_p(test['adjusted_p'])}"
        )
    lines.append("")
    for duty, verdict in analysis["duties"].items():
        why = verdict["reason"] or "; ".join(verdict["failed_tests"])
        lines.append(f"  {duty}: {verdict['status']}" + (f" ({why})" if why else ""))
    if analysis["power"]["statement"]:
        lines += ["", "  " + analysis["power"]["statement"]]
    return "\n".join(lines) + "\n"
