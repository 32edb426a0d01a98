"""python -m examples.cookie_casino.seeds: the RNG seed of every outcome (the mapping's `seeds`).

The test build plays the round its seed gives; a lab forces an outcome by sending the first seed
that gives it. Keys are the outcome as livecert writes it: dice "1,2,3", tokens "r,w,r,w".
"""

import itertools

from .casino import outcome_of


def seed_table() -> dict[str, int]:
    wanted = [",".join(map(str, d)) for d in itertools.product(range(1, 7), repeat=3)]
    wanted += [",".join(t) for t in itertools.product("rw", repeat=4)]
    found: dict[str, int] = {}
    seed = 0
    while len(found) < len(wanted):
        dice = ",".join(map(str, outcome_of("sicbo", str(seed))))
        tokens = ",".join(t.lower() for t in outcome_of("xocdia", str(seed)))
        for key in (dice, tokens):
            found.setdefault(key, seed)
        seed += 1
    return {key: found[key] for key in wanted}


if __name__ == "__main__":
    print("  seeds:")
    for key, seed in seed_table().items():
        print(f'    "{key}": "{seed}"')
