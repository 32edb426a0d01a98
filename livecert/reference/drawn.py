"""The drawn tables: one table per game whose rounds the shaker draws itself, made at start-up
by `livecert serve --drawn-rounds N`, so a lab can read a long history of outcomes nobody chose
(`GET /v1/tables/{table_id}/rounds`) and test it for fairness (REG-FAIR-01, REG-FAIR-02).

Each round is settled with no bets, its result drawn by `Shaker` with the server's seeded faults
(only the shaker's change anything), recorded in one transaction per table with executemany.
On an existing database a table is completed up to N: with the same seed the rounds added are
those one start drawing all N would have drawn (the draws already made are replayed first), so
a table never repeats its own beginning.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection
from typing import Any

from livecert.reference.games import GAMES
from livecert.reference.shaker import XOCDIA, Shaker
from livecert.reference.store import Store

SHAKER_NAME = "shaker-1"
DEALER_NAME = "dealer-1"
TABLE_NAME = "drawn by the shaker"
SPACING_MS = 40_000  # one round every 40 seconds, the last one ending at start-up


def drawn_table_id(game: str) -> str:
    """`drawn-sicbo`, `drawn-xocdia`."""
    return f"drawn-{game}"


def fill_drawn_tables(
    store: Store, rounds: int, seed: int | None, faults: Collection[str], now: int
) -> None:
    """Make (or complete) each game's drawn table up to `rounds` rounds; `seed` None draws
    from the system's randomness."""
    for game in GAMES:
        _fill(store, game, rounds, seed, faults, now)


def _fill(
    store: Store, game: str, rounds: int, seed: int | None, faults: Collection[str], now: int
) -> None:
    tid = drawn_table_id(game)
    with store.transaction():
        if store.table(tid) is None:
            store.insert_table(tid, game, TABLE_NAME, now)
        have, last = store.drawn_rounds(tid)
        missing = rounds - have
        if missing <= 0:
            return
        rng = random.Random(f"livecert-shaker:{seed}:{game}") if seed is not None else None
        shaker = Shaker(game, rng or random.Random(), faults)
        if rng is not None:
            for _ in range(have):  # the draws of the rounds already there, replayed
                shaker.draw()
        # the new rounds end at start-up, 40 s apart, or closer to fit after the table's last
        step = SPACING_MS if last is None else min(SPACING_MS, max(0, now - last) // missing)
        round_rows: list[tuple[Any, ...]] = []
        event_rows: list[tuple[Any, ...]] = []
        for number in range(have + 1, rounds + 1):
            rid = f"{tid}-{number:07d}"
            at = now - (rounds - number) * step
            result = json.dumps(shaker.draw())
            # a round with no betting period: opened, its betting over and settled at once
            round_rows.append((rid, tid, game, at, at, result, at, at, SHAKER_NAME, DEALER_NAME, 1))
            if game == XOCDIA:
                event_rows.append((rid, "shake", None, None, at))  # the bowl is shaken
            event_rows.append((rid, "result", None, None, at))
        store.insert_drawn_rounds(round_rows)
        store.insert_events(event_rows)
