"""What method validation (`livecert certify --validate [N]`) costs, beside the certification.

Why it exists: a validation runs each passed clause's scenarios again once per answer mutant aimed
at it, each mutant in a run of its own; by default it takes as many mutants per clause as keep
it within about three certifications' time, estimated from the clauses' scenarios. This
certifies each game against the embedded reference with `--validate` (the default N, or the one
given), and prints the certification's time, the validation's, their ratio, the mutants run and
their outcomes, and the largest peak memory of one process of the run (the mutant runs'
pytest processes included).

    python benchmarks/validation.py                     # both games, the default N
    python benchmarks/validation.py --game xocdia --per-clause 10
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _peak_children_mib() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=("sicbo", "xocdia"))
    parser.add_argument("--per-clause", type=int, default=None, help="N (default: by the cost)")
    args = parser.parse_args(argv)
    for game in args.game or ["xocdia", "sicbo"]:
        with tempfile.TemporaryDirectory() as scratch:
            report = Path(scratch) / "report"
            command = [sys.executable, "-m", "livecert.cli", "certify", "--game", game]
            command += ["--no-html", "--quiet", "--report-dir", str(report), "--validate"]
            command += [str(args.per_clause)] if args.per_clause else []
            began = time.monotonic()
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            wall = time.monotonic() - began
            if done.returncode not in (0, 1):
                print(done.stdout + done.stderr, file=sys.stderr)
                return done.returncode
            certificate = json.loads((report / "certificate.json").read_text(encoding="utf-8"))
            validation = certificate["validation"]
            scenarios = certificate["run"]["duration_seconds"]
            seconds = validation["seconds"]
            outcomes = ", ".join(f"{o} {n}" for o, n in validation["outcomes"].items() if n)
            print(
                f"{game}: certification scenarios {scenarios} s; validation {seconds} s "
                f"({seconds / scenarios:.1f}x), {validation['mutants']} mutants at N="
                f"{validation['per_clause']} ({outcomes}); the whole command {wall:.1f} s; "
                f"peak memory of one process {_peak_children_mib():.0f} MiB"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
