"""The clock table certified as a lab would, clean and once per seeded fault, each run on its
game's whole suite through the table's mapping: the clean table (answering bets, and with
`--no-ack` through mapping-noack.yaml) must fail no clause, and each fault must fail exactly the
clauses it declares (`DECLARED`), no other. Prints a table per run and writes it as Markdown.

    python -m examples.clock_table.selftest                      # everything, 3 runs at a time
    python -m examples.clock_table.selftest --games xocdia --runs clean,late-ack --jobs 2

A run is a table of its own on a free port with its own lent accounts; the certify command's
report stays in `--out` (default reports/clock-table-selftest/). Exit status 1 where a run
escaped (a declared clause not failed), raised a false alarm (another clause failed) or did not
end in a verdict; 0 otherwise.
"""

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from examples.clock_table.tables import FAULTS

HERE = Path(__file__).resolve().parent
CLEAN, NO_ACK = "clean", "clean-no-ack"
# what each seeded fault breaks, per game (the module docstring of app.py says why)
DECLARED: dict[tuple[str, str], frozenset[str]] = {
    # the dice shown before betting ended: REG-COMMIT-01 and SB-RND-03 on the stream's order
    ("result-before-close", "sicbo"): frozenset({"REG-COMMIT-01", "SB-RND-03"}),
    # the tokens shown early void the round by XD-VOID-01, and this table pays it as usual; a bet
    # on the shown result (REG-COMMIT-01) is judged only where one lands in that moment, which
    # no scenario aims at
    ("result-before-close", "xocdia"): frozenset({"XD-VOID-01"}),
    ("double-settle-on-rejoin", "sicbo"): frozenset({"REG-MONEY-01", "TBL-DISC-02"}),
    ("double-settle-on-rejoin", "xocdia"): frozenset({"REG-MONEY-01", "TBL-DISC-02"}),
    ("late-ack", "sicbo"): frozenset({"SB-RND-01", "REG-COMMIT-01"}),
    ("late-ack", "xocdia"): frozenset({"XD-RND-01", "REG-COMMIT-01"}),
    # the player is told nothing: what the table owes is the disconnection's duty, since money
    # conservation cannot be judged on settlements never shown
    ("disconnected-bet-never-settled", "sicbo"): frozenset({"TBL-DISC-02"}),
    ("disconnected-bet-never-settled", "xocdia"): frozenset({"TBL-DISC-02"}),
    # the refunds told as wins: their rows, the settlement and the wallet, and the returns the
    # sweep measures from what the table told (REG-RTP-01, XD-RTP-01)
    ("refund-push-misreported", "xocdia"): frozenset(
        {"REG-SETTLE-01", "XD-PAY-09", "XD-PAY-10", "REG-MONEY-01", "REG-RTP-01", "XD-RTP-01"}
    ),
}
ACCOUNTS = 24
BALANCE = "4000.00,20000.00"  # every other account: enough for the slips at the limits


@dataclass(frozen=True)
class Outcome:
    run: str
    game: str
    declared: frozenset[str]
    failed: frozenset[str]
    verdict: str
    seconds: float
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict in ("compliant", "incomplete", "non-compliant") and (
            self.failed == self.declared
        )

    def row(self) -> str:
        escaped = sorted(self.declared - self.failed)
        alarms = sorted(self.failed - self.declared)
        return (
            f"| {self.run} | {self.game} | {', '.join(sorted(self.declared)) or '-'} | "
            f"{', '.join(sorted(self.failed)) or '-'} | {', '.join(escaped) or '-'} | "
            f"{', '.join(alarms) or '-'} | {self.verdict} | {self.seconds:.0f} s |"
            + (f" {self.note}" if self.note else "")
        )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def certify_once(run: str, game: str, out: Path, validate: int | None = None) -> Outcome:
    """One table started for the run, certified through its mapping on the game's suite (a
    clean run with `validate`: its method validated with up to that many mutants a clause)."""
    port, began = _free_port(), time.monotonic()
    accounts = ",".join(f"lab{n}:{secrets.token_urlsafe(9)}" for n in range(ACCOUNTS))
    env = {
        **os.environ,
        "CLOCK_TABLE_ADMIN_TOKEN": secrets.token_hex(12),
        "CLOCK_TABLE_ACCOUNTS": accounts,
    }
    server = [sys.executable, "-m", "examples.clock_table", "--port", str(port)]
    server += ["--balance", BALANCE, "--seed", "7"]
    mapping = HERE / "mapping.yaml"
    if run == NO_ACK:
        server.append("--no-ack")
        mapping = HERE / "mapping-noack.yaml"
    elif run != CLEAN:
        server += ["--fault", run]
    report = out / f"{run}-{game}"
    log = (out / f"{run}-{game}.server.log").open("wb")
    table = subprocess.Popen(server, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_until_up(port)
        done = subprocess.run(
            [sys.executable, "-m", "livecert.cli", "certify", "--adapter", str(mapping),
             "--target-url", f"http://127.0.0.1:{port}", "--game", game, "--no-html",
             "--no-progress", "--report-dir", str(report),
             *(["--validate", str(validate)] if validate and run in (CLEAN, NO_ACK) else [])],
            env=env, capture_output=True, text=True, timeout=4 * 3600, check=False,
        )  # fmt: skip
        (out / f"{run}-{game}.out").write_text(done.stdout + done.stderr, encoding="utf-8")
        certificate = json.loads((report / "certificate.json").read_text(encoding="utf-8"))
    finally:
        table.terminate()
        table.wait(10)
        log.close()
    failed = frozenset(c for c, r in certificate["clauses"].items() if r["status"] == "failed")
    errors = certificate.get("harness_errors") or certificate.get("target_errors") or []
    note = f"{len(errors)} harness/target error(s)" if errors else ""
    if "validation" in certificate:
        note += f"{'; ' if note else ''}{_validated(certificate['validation'])}"
    declared = DECLARED.get((run, game), frozenset())
    return Outcome(
        run, game, declared, failed, certificate["verdict"], time.monotonic() - began, note
    )


def _validated(section: dict) -> str:
    """The validation's outcome in a line: mutants killed of those run, and the others."""
    outcomes = section.get("outcomes", {})
    line = f"validation: {outcomes.get('killed', 0)} of {section.get('mutants', 0)} killed"
    others = [f"{n} {name}" for name, n in outcomes.items() if name != "killed" and n]
    return line + (f" ({', '.join(others)})" if others else "")


def _wait_until_up(port: int, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"the clock table did not listen on port {port} within {within:g} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.clock_table.selftest")
    parser.add_argument("--games", default="sicbo,xocdia")
    parser.add_argument("--runs", default=",".join((CLEAN, NO_ACK, *FAULTS)))
    parser.add_argument("--jobs", type=int, default=3, help="runs at once (each mostly waits)")
    parser.add_argument("--out", type=Path, default=Path("reports/clock-table-selftest"))
    parser.add_argument(
        "--validate", type=int, metavar="N",
        help="validate the clean runs' method with up to N answer mutants a clause",
    )  # fmt: skip
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    games, runs = args.games.split(","), args.runs.split(",")
    plan = [(run, game) for run in runs for game in games
            if run in (CLEAN, NO_ACK) or (run, game) in DECLARED]  # fmt: skip
    header = (
        "| run | game | declared | failed | escaped | false alarms | verdict | time |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    print(header, flush=True)
    outcomes = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for outcome in pool.map(lambda job: certify_once(*job, args.out, args.validate), plan):
            print(outcome.row(), flush=True)
            outcomes.append(outcome)
    table = "\n".join([header, *(o.row() for o in outcomes)])
    (args.out / "selftest.md").write_text(table + "\n", encoding="utf-8")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
