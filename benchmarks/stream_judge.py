"""The stream's judge over a live table's many rounds: how long one judgement takes.

A live table pushes every round it plays; a sweep or a return-to-player scenario there plays
216 Sic Bo rounds, each with a bet on many selections, and the judge reads the whole stream
again each time it waits for a settlement. This builds such a stream (each round opened, its
bets acknowledged, closed, resulted and settled on one player's stream) and times
`judge_stream` on it.

    python benchmarks/stream_judge.py                 # 216 rounds of 50 bets
    python benchmarks/stream_judge.py --rounds 1000 --bets 110
"""

import argparse
import time
from decimal import Decimal

from livecert.adapters.live_events import (
    BET_ACKED,
    BETTING_CLOSED,
    RESULT,
    ROUND_OPENED,
    SETTLED,
    LiveEvent,
)
from livecert.harness.stream_judge import judge_stream
from livecert.rules import load_paytable


def stream(rounds: int, bets: int) -> list[LiveEvent]:
    codes = [s.code for s in load_paytable("sicbo").selections][:bets]
    events: list[LiveEvent] = []

    def add(kind: str, round_id: str, **fields: object) -> None:
        events.append(LiveEvent(kind, "player", len(events) + 1, len(events), round_id, **fields))  # type: ignore[arg-type]

    for n in range(rounds):
        round_id = f"round-{n}"
        add(ROUND_OPENED, round_id)
        for k, code in enumerate(codes):
            add(BET_ACKED, round_id, bet_id=f"{round_id}-{k}", selection=code, amount=Decimal(1))
        add(BETTING_CLOSED, round_id)
        add(RESULT, round_id, result=[1, 2, 3])
        for k in range(len(codes)):
            add(SETTLED, round_id, bet_id=f"{round_id}-{k}", returned=Decimal(0))
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=216)
    parser.add_argument("--bets", type=int, default=50)
    args = parser.parse_args()
    events = stream(args.rounds, args.bets)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        verdict = judge_stream(events, load_paytable("sicbo"))
        times.append(time.perf_counter() - started)
    print(
        f"{len(events):,} events, {len(verdict.checks):,} checks: best of 3 {min(times):.3f} s, "
        f"slowest {max(times):.3f} s"
    )


if __name__ == "__main__":
    main()
