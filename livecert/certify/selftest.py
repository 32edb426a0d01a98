"""`livecert selftest`: prove the harness on the reference implementation's seeded faults.

Certifies the clean reference (every clause, both games), then the reference with each seeded
fault, two at a time. A fault is run only on the clauses it lists and the game they name, which is
all that is needed to judge it; the clean run covers everything else. The report says, per
fault, which clauses were expected, which failed, whether it was detected, and any false alarm
(a failed clause the fault does not list). A fault of a duty certify cannot exercise (a server
restart) is judged by its own check instead.
"""

import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from livecert.harness.interruption import interrupt_and_finish

CLEAN = "(no fault)"
RESTART_FAULTS = {"interrupted-round-lost"}  # judged by restarting the reference, not by certify


@dataclass
class FaultRun:
    """One certification of the reference with one seeded fault (or none)."""

    fault: str
    expected: list[str]
    game: str
    verdict: str
    exit_status: int
    failed: list[str]
    seconds: float
    detected: bool
    false_alarms: list[str]
    how: str = "certify"
    output_tail: str = ""


@dataclass
class SelftestReport:
    clean: FaultRun
    runs: list[FaultRun] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        clean_ok = self.clean.verdict == "compliant" and self.clean.exit_status == 0
        return clean_ok and all(r.detected and not r.false_alarms for r in self.runs)


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
    done = livecert_command("serve", "--list-faults", timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"livecert serve --list-faults failed: {done.stderr.strip()}")
    return {
        name: clauses.split(",")
        for name, clauses in (line.split(" ") for line in done.stdout.splitlines())
    }


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


def _certify_run(fault: str, expected: list[str], folder: Path) -> FaultRun:
    game = "all" if fault == CLEAN else game_for(expected)
    args = ["certify", "--quiet", "--no-html", "--report-dir", str(folder), "--game", game]
    if fault != CLEAN:
        args += ["--clauses", ",".join(expected), "--reference-fault", fault]
    started = time.monotonic()
    done = livecert_command(*args)
    seconds = time.monotonic() - started
    written = folder / "certificate.json"
    if not written.exists():  # a usage error or a crash: an escape, with what it printed
        return FaultRun(
            fault=fault,
            expected=expected,
            game=game,
            verdict="no certificate",
            exit_status=done.returncode,
            failed=[],
            seconds=round(seconds, 1),
            detected=False,
            false_alarms=[],
            output_tail=(done.stdout + done.stderr)[-2000:],
        )
    certificate = json.loads(written.read_text(encoding="utf-8"))
    failed = sorted(c for c, row in certificate["clauses"].items() if row["status"] == "failed")
    detected = fault == CLEAN or (done.returncode == 1 and bool(expected) and expected[0] in failed)
    return FaultRun(
        fault=fault,
        expected=expected,
        game=game,
        verdict=certificate["verdict"],
        exit_status=done.returncode,
        failed=failed,
        seconds=round(seconds, 1),
        detected=detected,
        false_alarms=sorted(set(failed) - set(expected)),
        output_tail=(done.stdout + done.stderr)[-2000:],
    )


def _restart_run(fault: str, expected: list[str], folder: Path) -> FaultRun:
    started = time.monotonic()
    problems = interrupt_and_finish(folder / "reference.sqlite3", "result", faults=(fault,))
    return FaultRun(
        fault=fault,
        expected=expected,
        game="sicbo",
        verdict="non-compliant" if problems else "compliant",
        exit_status=1 if problems else 0,
        failed=[expected[0]] if problems else [],
        seconds=round(time.monotonic() - started, 1),
        detected=bool(problems),
        false_alarms=[],
        how="restart check",
        output_tail="; ".join(problems),
    )


def run_selftest(
    base: Path, faults: dict[str, list[str]] | None = None, workers: int = 2
) -> SelftestReport:
    """Certify clean and once per fault (in parallel), in sub-folders of `base`."""
    catalogue = list_faults() if faults is None else faults
    base.mkdir(parents=True, exist_ok=True)

    def run(name: str) -> FaultRun:
        folder = base / ("clean" if name == CLEAN else name)
        folder.mkdir(parents=True, exist_ok=True)
        if name in RESTART_FAULTS:
            return _restart_run(name, catalogue[name], folder)
        return _certify_run(name, catalogue.get(name, []), folder)

    names = [CLEAN, *catalogue]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(run, names))
    clean_problems = interrupt_and_finish(base / "clean" / "restart.sqlite3", "result")
    clean = results[0]
    if clean_problems:  # the clean reference must also survive a restart (REG-INTR-01)
        clean.verdict, clean.exit_status = "non-compliant", 1
        clean.output_tail += "\nrestart check: " + "; ".join(clean_problems)
    return SelftestReport(clean=clean, runs=results[1:])


def report_markdown(report: SelftestReport) -> str:
    lines = [
        "# livecert selftest",
        "",
        f"Clean reference: **{report.clean.verdict}** ({report.clean.seconds} s, both games, "
        "every clause; plus the restart check).",
        "",
        f"Faults: {len(report.runs)}, detected {sum(r.detected for r in report.runs)}, "
        f"with false alarms {sum(bool(r.false_alarms) for r in report.runs)}. "
        f"Overall: **{'PASS' if report.ok else 'FAIL'}**.",
        "",
        "| fault | expected clauses | failed clauses | detected | false alarms | how | time |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in report.runs:
        lines.append(
            f"| {r.fault} | {', '.join(r.expected)} | {', '.join(r.failed) or '-'} | "
            f"{'yes' if r.detected else '**NO**'} | {', '.join(r.false_alarms) or '-'} | "
            f"{r.how} ({r.game}) | {r.seconds} s |"
        )
    return "\n".join(lines) + "\n"


def write_report(report: SelftestReport, folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    as_json = {
        "ok": report.ok,
        "clean": asdict(report.clean),
        "faults": [asdict(r) for r in report.runs],
    }
    json_path, md_path = folder / "selftest.json", folder / "selftest.md"
    json_path.write_text(json.dumps(as_json, indent=2) + "\n", encoding="utf-8")
    md_path.write_text(report_markdown(report), encoding="utf-8")
    return json_path, md_path


def main(report_dir: Path | None, workers: int, only: list[str]) -> int:
    folder = report_dir or Path("reports") / "selftest"
    catalogue = list_faults()
    unknown = [name for name in only if name not in catalogue]
    if unknown:
        print(
            f"livecert selftest: unknown fault(s) {unknown}; `livecert serve --list-faults` "
            "lists them",
            file=sys.stderr,
        )
        return 3
    chosen = {name: catalogue[name] for name in only} if only else catalogue
    with tempfile.TemporaryDirectory(prefix="livecert-selftest-") as scratch:
        report = run_selftest(Path(scratch), chosen, workers)
    json_path, md_path = write_report(report, folder)
    print(report_markdown(report))
    print(f"written: {md_path} and {json_path}")
    return 0 if report.ok else 1
