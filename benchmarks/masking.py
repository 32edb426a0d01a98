"""How long masking a run's secrets takes on a sweep answer, as players' tokens accumulate.

Every field of every exchange is masked for the run's secrets before it becomes evidence, and a
run registers a token per player between maskings (livecert/adapters/secrets.py). This registers
2,000 random tokens and, after 216 (a Sic Bo sweep's players), 1,000 and 2,000 of them, times
masking a 28 kB answer of 110 bets (none of the tokens in it) and the registering so far.

    python benchmarks/masking.py
"""

import json
import secrets
import time

from livecert.adapters.secrets import SecretRegistry

ANSWER = json.dumps(
    {
        "bets": [
            {"bet_id": f"bt-{i:012d}", "round_id": "rd-0001234abcd", "player_id": "pl-0001234abcd",
             "selection": f"TOTAL_{i}", "stake": "1.00", "status": "settled", "outcome": "lose",
             "win": "0.00", "returned": "0.00"}
            for i in range(110)
        ]
    }
)  # fmt: skip
MASKINGS = 300


def main() -> None:
    registry = SecretRegistry()
    tokens = [secrets.token_urlsafe(24) for _ in range(2000)]
    done, registering = 0, 0.0
    print(f"answer: {len(ANSWER)} characters")
    for players in (216, 1000, 2000):
        started = time.perf_counter()
        for token in tokens[done:players]:
            registry.register_player_token(token)
        registering += time.perf_counter() - started
        done = players
        started = time.perf_counter()
        for _ in range(MASKINGS):
            registry.mask(ANSWER)
        each = (time.perf_counter() - started) / MASKINGS * 1e6
        print(f"{players:5d} players: registered in {registering:.3f} s, one masking {each:.0f} us")


if __name__ == "__main__":
    main()
