"""How long the reference's outcome histories take to draw: at start-up, and as a CSV file.

Why it exists: `livecert serve --drawn-rounds N` gives the fairness battery a table history to
read through the contract (`--history-from-target`), and the self-test starts the reference
with 10,000 rounds a game; `python -m livecert.reference.shaker` writes a history file for
`--history`. Both times were assertions of tests once, and timing belongs here. This creates the
reference's app with `--rounds` rounds a game on a fresh database, and has the shaker write
`--csv-rounds` Sic Bo rounds, `--repeats` times each, and prints the median and the slowest.

    python benchmarks/drawn_rounds.py                   # 10,000 and 1,000,000 rounds, 5 times
    python benchmarks/drawn_rounds.py --rounds 100000 --csv-rounds 100000 --repeats 3
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from livecert.reference import shaker
from livecert.reference.app import create_app
from livecert.reference.config import Config


def _summary(seconds: list[float]) -> str:
    return f"median {statistics.median(seconds):.3f} s, slowest {max(seconds):.3f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10_000, help="rounds drawn a game")
    parser.add_argument("--csv-rounds", type=int, default=1_000_000, help="the shaker's file")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    seconds, written = [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as folder:
            began = time.perf_counter()
            app = create_app(
                Config(db_path=str(Path(folder) / "drawn.sqlite3"), drawn_rounds=args.rounds)
            )
            seconds.append(time.perf_counter() - began)
            app.state.store.close()
            out = Path(folder) / "history.csv"
            began = time.perf_counter()
            command = ["--out", str(out), "--game", "sicbo", "--seed", "2"]
            if shaker.main([*command, "--rounds", str(args.csv_rounds)]) != 0:
                raise SystemExit("the shaker failed; its message is above")
            written.append(time.perf_counter() - began)
    print(
        f"{args.rounds:,} rounds a game drawn and recorded at start-up: {_summary(seconds)}; "
        f"{args.csv_rounds:,} Sic Bo rounds written by the shaker: {_summary(written)} "
        f"({args.repeats} times each)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
