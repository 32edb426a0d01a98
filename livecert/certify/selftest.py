"""`livecert selftest`: prove the harness on the reference implementation's seeded faults.

Certifies the clean reference (every clause, both games), then the reference with each seeded
fault, two at a time. By default a fault is run only on the clauses it declares and the game they
name, its sweep narrowed to the selections of its paytable clauses, or to one selection when it
declares none (see `sweep_only_for`); the clean run covers everything else. With `full=True`
(`livecert selftest --full`) each fault is certified on its game's whole suite instead, so a
clause failing anywhere is seen.

A fault is detected only when every clause it declares failed. The report says, per fault, the
declared clauses, the failed ones, the escapes (a declared clause that did not fail) and the false
alarms (a failed clause the fault does not declare); the self-test passes only when every fault
was detected with no false alarm and the clean run is compliant. Interrupted games (REG-INTR-01)
are certified like any clause: the harness restarts the embedded reference mid-round itself.
"""

import json
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from livecert.certify.fault_draws import Range, drawn_catalogue, draws_table, family
from livecert.certify.runner import CertifyError, CertifyOptions, certify
from livecert.certify.scope import OUTCOME_DUTIES
from livecert.harness.sweep import sweep_clauses
from livecert.rules import load_paytable

CLEAN = "(no fault)"
# the clause families whose scenarios play a game's whole sweep (or the RTP over every outcome)
_SWEEP_PREFIXES = ("SB-PAY-", "SB-GEN-", "SB-RTP-", "XD-PAY-", "XD-GEN-", "XD-RTP-")
_SWEEP_DUTIES = ("REG-SETTLE-01", "REG-RTP-01")


@dataclass
class FaultRun:
    """One certification of the reference with one seeded fault (or none)."""

    fault: str
    expected: list[str]  # the clauses the fault declares
    game: str
    verdict: str
    exit_status: int
    failed: list[str]
    seconds: float
    detected: bool  # every declared clause failed (and the run said non-compliant)
    false_alarms: list[str]  # failed, not declared
    escapes: list[str] = field(default_factory=list)  # declared, not failed
    scope: str = "declared"  # "declared": on the fault's clauses; "full": the game's whole suite
    how: str = "certify"
    output_tail: str = ""

    @property
    def ok(self) -> bool:
        """Detected, with no escape and no false alarm."""
        return self.detected and not self.false_alarms and not self.escapes


@dataclass
class SelftestReport:
    clean: FaultRun | None  # None when the caller certified the clean reference elsewhere
    runs: list[FaultRun] = field(default_factory=list)
    full: bool = False
    seed: int | None = None  # the draws' seed, when faults with a parameter were drawn

    @property
    def clean_ok(self) -> bool:
        if self.clean is None:
            return True
        return self.clean.verdict == "compliant" and self.clean.exit_status == 0

    @property
    def ok(self) -> bool:
        return self.clean_ok and all(r.ok for r in self.runs)


def judge(
    expected: list[str], failed: list[str], exit_status: int
) -> tuple[bool, list[str], list[str]]:
    """(detected, false alarms, escapes) of a fault run: detected only when every declared
    clause failed and the run ended non-compliant (exit status 1)."""
    escapes = [c for c in expected if c not in failed]
    false_alarms = sorted(set(failed) - set(expected))
    detected = exit_status == 1 and bool(expected) and not escapes
    return detected, false_alarms, escapes


def livecert_command(
    *args: str, timeout: float = 900, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "livecert.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def list_faults() -> dict[str, list[str]]:
    """The reference's fault catalogue, as `livecert serve --list-faults` prints it."""
    return fault_listing()[0]


def fault_listing() -> tuple[dict[str, list[str]], dict[str, Range]]:
    """The reference's fault catalogue (name: clauses) and the ranges of the faults that take
    a parameter, as `livecert serve --list-faults` prints them."""
    done = livecert_command("serve", "--list-faults", timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"livecert serve --list-faults failed: {done.stderr.strip()}")
    catalogue: dict[str, list[str]] = {}
    ranges: dict[str, Range] = {}
    for line in done.stdout.splitlines():
        name, clauses, *parameter = line.split(" ")
        catalogue[name] = clauses.split(",")
        if parameter:
            ranges[name] = Range.parse(parameter[0])
    return catalogue, ranges


def game_for(clauses: list[str]) -> str:
    """The game a fault's clauses name; Xoc Dia (the shorter run) for faults of shared duties,
    which both games' scenarios prove."""
    games = {
        g
        for prefix, g in (("SB-", "sicbo"), ("XD-", "xocdia"))
        if any(c.startswith(prefix) for c in clauses)
    }
    if len(games) == 2:
        return "all"
    return games.pop() if games else "xocdia"


def sweep_only_for(clauses: list[str]) -> list[str]:
    """The paytable clauses a fault's run narrows the sweep to (`--sweep-only`; every outcome
    is still played): those it declares or, when it declares none, the game's clause of fewest
    selections, since its clauses are judged on each round's result or on what the target
    declares, not on which selections were bet. A narrowed run still fails a maximum-RTP clause
    when a swept selection returns more than the maximum (steps/sweep.py)."""
    named: list[str] = []
    for game in ("sicbo", "xocdia"):
        table = load_paytable(game)
        named += [c for c in clauses if c in sweep_clauses(table)]
    if named:
        return named
    game = game_for(clauses)
    for each in ("sicbo", "xocdia") if game == "all" else (game,):
        counts = Counter(s.clause for s in load_paytable(each).selections)
        named.append(min(sorted(counts), key=lambda c: counts[c]))
    return named


HISTORY_ROUNDS = 10_000  # GLI-19's least: the duties pass on no fewer
HISTORY_SEED = 18  # a fixed seed: the clean run's fair histories are the same every time


def outcome_histories(fault: str | None, folder: Path) -> list[Path]:
    """A history per game drawn by the reference's shaker (its generator, a subprocess: the
    harness never imports the reference), loaded with `fault` in the game whose shaker it
    loads and fair in the other (the generator refuses it there)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for game in ("sicbo", "xocdia"):
        path = folder / f"history-{game}.csv"
        command = [sys.executable, "-m", "livecert.reference.shaker", "--game", game]
        command += ["--rounds", str(HISTORY_ROUNDS), "--seed", str(HISTORY_SEED)]
        command += ["--out", str(path)]
        done = None
        if fault is not None:  # a drawn fault's parameter is no shaker's: its name says enough
            done = subprocess.run(
                [*command, "--fault", family(fault)], capture_output=True, text=True
            )
        if done is None or done.returncode != 0:
            if done is not None and "shaker, not the" not in done.stderr:
                raise RuntimeError(f"the history generator failed: {done.stderr.strip()}")
            fair = subprocess.run(command, capture_output=True, text=True)
            if fair.returncode != 0:
                raise RuntimeError(f"the history generator failed: {fair.stderr.strip()}")
        written.append(path)
    return written


def _certify_run(fault: str, expected: list[str], folder: Path, full: bool) -> FaultRun:
    """Certify the reference with `fault` (in this process: only pytest and the reference run
    apart, which spares each run starting the livecert command)."""
    of_outcomes = fault == CLEAN or bool(set(expected) & set(OUTCOME_DUTIES))
    game = "all" if fault == CLEAN or of_outcomes else game_for(expected)
    options = CertifyOptions(game=game, report_dir=folder, quiet=True, html=False)
    options.output = folder.parent / f"{folder.name}.output.txt"  # beside, not in, the report
    if of_outcomes:  # the clean run's fair histories, a shaker fault's loaded one
        shaker_fault = None if fault == CLEAN else fault
        options.histories = outcome_histories(
            shaker_fault, folder.parent / f"{folder.name}.histories"
        )
    if fault != CLEAN:
        if not full:
            options.clauses = tuple(expected)
            options.sweep_only = tuple(sweep_only_for(expected))
        options.reference_faults = [fault]
    scope = "full" if full or fault == CLEAN else "declared"
    started = time.monotonic()
    try:
        exit_status, certificate, _ = certify(options)
        problem = ""
    except CertifyError as error:  # a usage error: an escape, with what it said
        exit_status, certificate, problem = 3, None, f"livecert certify: {error}"
    seconds = round(time.monotonic() - started, 1)
    output = options.output.read_text(encoding="utf-8") if options.output.exists() else ""
    output_tail = (output + problem)[-2000:]
    if certificate is None:
        return FaultRun(
            fault=fault,
            expected=expected,
            game=game,
            verdict="no certificate",
            exit_status=exit_status,
            failed=[],
            seconds=seconds,
            detected=False,
            false_alarms=[],
            escapes=list(expected),
            scope=scope,
            output_tail=output_tail,
        )
    failed = sorted(c for c, row in certificate["clauses"].items() if row["status"] == "failed")
    if fault == CLEAN:
        detected, false_alarms, escapes = True, [], []  # judged by its verdict instead
    else:
        detected, false_alarms, escapes = judge(expected, failed, exit_status)
    return FaultRun(
        fault=fault,
        expected=expected,
        game=game,
        verdict=certificate["verdict"],
        exit_status=exit_status,
        failed=failed,
        seconds=seconds,
        detected=detected,
        false_alarms=false_alarms,
        escapes=escapes,
        scope=scope,
        output_tail=output_tail,
    )


def expected_cost(name: str, clauses: list[str], full: bool) -> int:
    """A rough rank of a run's length, to start the long runs first so that the pool does not
    end on one long run while the other worker idles (the order of the report is unchanged)."""
    if name == CLEAN:
        return 4
    game = game_for(clauses)
    whole = full or any(c.startswith("CONTRACT-") for c in clauses)  # a contract clause: all
    sweep = any(c.startswith(_SWEEP_PREFIXES) or c in _SWEEP_DUTIES for c in clauses)
    if game != "xocdia" and (whole or sweep):  # the Sic Bo sweep: 216 rounds of 110 bets
        return 3 if game == "sicbo" else 4
    return 2 if whole else 1


def run_selftest(
    base: Path,
    faults: dict[str, list[str]] | None = None,
    workers: int = 2,
    full: bool = False,
    clean: bool = True,
) -> SelftestReport:
    """Certify clean (unless `clean` is False) and once per fault, `workers` at a time, in
    sub-folders of `base`; `full` certifies each fault on its game's whole suite."""
    catalogue = list_faults() if faults is None else faults
    base.mkdir(parents=True, exist_ok=True)
    done: dict[str, FaultRun] = {}

    def run(name: str) -> None:
        folder = base / ("clean" if name == CLEAN else name)
        folder.mkdir(parents=True, exist_ok=True)
        done[name] = _certify_run(name, catalogue.get(name, []), folder, full)

    names = [*([CLEAN] if clean else []), *catalogue]
    order = sorted(names, key=lambda n: -expected_cost(n, catalogue.get(n, []), full))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(run, order))  # raises what a run raised
    return SelftestReport(clean=done.get(CLEAN), runs=[done[name] for name in catalogue], full=full)


def _clauses(clauses: list[str]) -> str:
    return ", ".join(clauses) or "-"


def declared_vs_failed_table(report: SelftestReport) -> list[str]:
    """Per fault, its declared clauses against those that failed, as a markdown table (the one
    tests/README.md keeps for the whole catalogue run with `livecert selftest --full`)."""
    lines = [
        "| fault | game | declared clauses | failed clauses | false alarms | escapes | ok |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in report.runs:
        lines.append(
            f"| {r.fault} | {r.game} | {_clauses(r.expected)} | {_clauses(r.failed)} | "
            f"{_clauses(r.false_alarms)} | {_clauses(r.escapes)} | "
            f"{'yes' if r.ok else '**NO**'} |"
        )
    return lines


def report_markdown(report: SelftestReport) -> str:
    scope = (
        "each fault on its game's whole suite (`--full`)"
        if report.full
        else "each fault on the clauses it declares"
    )
    clean = report.clean
    if clean is None:
        clean_line = "Clean reference: not run here (certified by the caller's own clean run)."
    else:
        clean_line = (
            f"Clean reference: **{clean.verdict}** ({clean.seconds} s, both games, every clause)."
        )
    runs = report.runs
    lines = [
        "# livecert selftest",
        "",
        clean_line,
        "",
        f"Faults: {len(runs)}, certified {scope}; detected (every declared clause failed) "
        f"{sum(r.detected for r in runs)}, with escapes {sum(bool(r.escapes) for r in runs)}, "
        f"with false alarms {sum(bool(r.false_alarms) for r in runs)}. "
        f"Overall: **{'PASS' if report.ok else 'FAIL'}**.",
        "",
        "## Declared against failed clauses",
        "",
        *declared_vs_failed_table(report),
        "",
        *_draws_section(report),
        "## Runs",
        "",
        "| fault | verdict | exit status | how | time |",
        "|---|---|---|---|---|",
    ]
    for r in runs:
        how = r.how
        if how == "certify":
            how = "certify, whole suite" if r.scope == "full" else "certify, declared clauses"
        lines.append(f"| {r.fault} | {r.verdict} | {r.exit_status} | {how} | {r.seconds} s |")
    return "\n".join(lines) + "\n"


def _draws_section(report: SelftestReport) -> list[str]:
    """The faults run at drawn values of their parameter, per fault (empty when none were)."""
    table = draws_table([(r.fault, r.ok) for r in report.runs])
    if not table:
        return []
    return [
        "## Faults drawn over their range",
        "",
        f"Seed {report.seed} (`--seed {report.seed}` draws the same values again); a run is "
        "caught when every declared clause failed and no other.",
        "",
        *table,
        "",
    ]


def write_report(report: SelftestReport, folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    as_json = {
        "ok": report.ok,
        "full": report.full,
        "seed": report.seed,
        "clean": asdict(report.clean) if report.clean is not None else None,
        "faults": [asdict(r) for r in report.runs],
    }
    json_path, md_path = folder / "selftest.json", folder / "selftest.md"
    json_path.write_text(json.dumps(as_json, indent=2) + "\n", encoding="utf-8")
    md_path.write_text(report_markdown(report), encoding="utf-8")
    return json_path, md_path


def main(
    report_dir: Path | None,
    workers: int,
    only: list[str],
    full: bool = False,
    draws: int = 0,
    seed: int | None = None,
) -> int:
    folder = report_dir or Path("reports") / ("selftest-full" if full else "selftest")
    catalogue, ranges = fault_listing()
    unknown = [name for name in only if family(name) not in catalogue]
    if unknown:
        print(
            f"livecert selftest: unknown fault(s) {unknown}; `livecert serve --list-faults` "
            "lists them",
            file=sys.stderr,
        )
        return 3
    # a fault named NAME=VALUE runs at that value only; a bare one with a range is drawn
    chosen = {name: catalogue[family(name)] for name in dict.fromkeys(only)} if only else catalogue
    drawn = draws and any(name in ranges for name in chosen)
    if drawn:
        seed = secrets.randbelow(1 << 32) if seed is None else seed
        print(f"livecert selftest: drawing {draws} values of each fault's parameter, seed {seed}")
        chosen = drawn_catalogue(chosen, ranges, draws, seed)
    with tempfile.TemporaryDirectory(prefix="livecert-selftest-") as scratch:
        report = run_selftest(Path(scratch), chosen, workers, full=full)
    report.seed = seed if drawn else None
    json_path, md_path = write_report(report, folder)
    print(report_markdown(report))
    print(f"written: {md_path} and {json_path}")
    return 0 if report.ok else 1
