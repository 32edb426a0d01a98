"""Speed of the outcome analysis: a million outcomes read, checked and tested; a table's 10,000
rounds read from a target a page at a time (requests counted).

    python benchmarks/outcomes.py                 # 1,000,000 Sic Bo rounds, 10,000 from a target
    python benchmarks/outcomes.py --rounds 200000 --game xocdia
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from livecert.adapters import HttpAdapter
from livecert.certify.outcomes import rows_from_target
from livecert.fairness import analyse, build_history, read_history_file
from livecert.harness.embedded import EmbeddedServer


def from_file(game: str, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.csv"
        command = [sys.executable, "-m", "livecert.reference.shaker", "--game", game]
        started = time.perf_counter()
        subprocess.run(
            [*command, "--rounds", str(rounds), "--seed", "7", "--out", str(path)], check=True
        )
        written = time.perf_counter() - started
        started = time.perf_counter()
        rows = read_history_file(path)
        read = time.perf_counter() - started
        started = time.perf_counter()
        history = build_history(rows, game, path.name)
        built = time.perf_counter() - started
        started = time.perf_counter()
        analysis = analyse(history, 0.01)
        tested = time.perf_counter() - started
    print(
        f"{rounds:,} {game} rounds: written {written:.2f} s; read and checked {read:.2f} s, "
        f"as arrays {built:.2f} s, battery ({len(analysis['tests'])} tests) and power "
        f"{tested:.2f} s; analysis in all {read + built + tested:.2f} s"
    )


def from_target(game: str, rounds: int) -> None:
    with EmbeddedServer(drawn_rounds=rounds, shaker_seed=7) as server:
        adapter = HttpAdapter(server.url, server.operator_token, server.dealer_token)
        started = time.perf_counter()
        rows = rows_from_target(adapter, f"drawn-{game}", game)
        seconds = time.perf_counter() - started
        requests = adapter.recorder.count
        adapter.close()
    print(
        f"{len(rows):,} rounds of drawn-{game} read from the embedded reference: {requests} "
        f"requests (pages of 1,000), {seconds:.2f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("sicbo", "xocdia"), default="sicbo")
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--target-rounds", type=int, default=10_000)
    args = parser.parse_args(argv)
    from_file(args.game, args.rounds)
    from_target(args.game, args.target_rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
