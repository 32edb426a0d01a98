"""The physical device simulated: a Sic Bo shaker of three dice or a Xoc Dia bowl of four tokens,
fair unless a seeded fault loads it; and, run as a module, a table's history of outcomes it drew.

The fairness battery (REG-FAIR-01, REG-FAIR-02) needs outcomes nobody chose: the drawn tables of
`livecert serve --drawn-rounds N` and the history files written by

    python -m livecert.reference.shaker --game sicbo --rounds 1000000 --seed 7 --out h.csv

take theirs from here. Every draw is an exact integer draw (`randrange`, `getrandbits`), so a
fair face has probability exactly 1/6 and each fault exactly the bias its catalogue entry states.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime, timedelta
from typing import TextIO

from livecert.reference import faults as fault_catalogue

SICBO, XOCDIA = "sicbo", "xocdia"
# the shaker's own faults and the game whose device each loads
SHAKER_FAULTS = {"loaded-die": SICBO, "sticky-die": SICBO, "red-biased-token": XOCDIA}
STICKY_ONE_IN = 10  # sticky-die: a die shows its previous face again one roll in ten
_TOKEN_SETS = tuple(
    tuple("r" if bits >> (3 - i) & 1 else "w" for i in range(4)) for bits in range(16)
)


def _loaded_first_die(rng: random.Random) -> int:
    """loaded-die: 6 with probability 5/20 = 0.25, each other face 3/20 = 0.15."""
    draw = rng.randrange(20)
    return 6 if draw < 5 else 1 + (draw - 5) // 3


class Shaker:
    """One device of one table: `draw()` is a throw of its three dice in the order thrown (Sic
    Bo) or its four tokens by position (Xoc Dia). Faults of the other game's device, and every
    fault that is not the shaker's, change nothing here (a server passes all it was given)."""

    def __init__(self, game: str, rng: random.Random, faults: Collection[str]) -> None:
        if game not in (SICBO, XOCDIA):
            raise ValueError(f"game={game!r}: a shaker is for {SICBO} or {XOCDIA}")
        self.game = game
        self._rng = rng
        self.loaded = game == SICBO and "loaded-die" in faults  # FAULT loaded-die
        self.sticky = game == SICBO and "sticky-die" in faults  # FAULT sticky-die
        self.red_biased = game == XOCDIA and "red-biased-token" in faults  # FAULT red-biased-token
        self._previous: list[int] | None = None  # the last roll, which a sticky die may repeat

    def draw(self) -> list[int] | list[str]:
        """One throw: three dice 1..6 in the order thrown, or four tokens 'r'/'w' by position."""
        return self._tokens() if self.game == XOCDIA else self._dice()

    def _dice(self) -> list[int]:
        rng = self._rng
        if not (self.loaded or self.sticky):
            roll = rng.randrange(216)  # the three dice at once: one draw, each of 216 rolls 1/216
            return [roll // 36 + 1, roll // 6 % 6 + 1, roll % 6 + 1]
        previous, dice = self._previous, []
        for index in range(3):
            if self.sticky and previous is not None and rng.randrange(STICKY_ONE_IN) == 0:
                dice.append(previous[index])  # FAULT sticky-die: the face of the last roll
            elif index == 0 and self.loaded:
                dice.append(_loaded_first_die(rng))  # FAULT loaded-die
            else:
                dice.append(rng.randrange(6) + 1)
        self._previous = dice
        return list(dice)

    def _tokens(self) -> list[str]:
        rng = self._rng
        if not self.red_biased:
            return list(_TOKEN_SETS[rng.getrandbits(4)])
        first = "r" if rng.randrange(5) < 3 else "w"  # FAULT red-biased-token: red 3/5 = 0.6
        return [first, *_TOKEN_SETS[rng.getrandbits(3)][1:]]


def check_shaker_faults(names: Sequence[str], game: str) -> frozenset[str]:
    """The faults a history of `game` may be drawn with; ValueError naming what is wrong."""
    for name in names:
        device = SHAKER_FAULTS.get(name)
        if device is None:
            what = "is not the shaker's" if name in fault_catalogue.FAULTS else "is unknown"
            raise ValueError(
                f"fault {name!r} {what}; the shaker's faults are {', '.join(SHAKER_FAULTS)}"
            )
        if device != game:
            raise ValueError(f"fault {name!r} loads the {device} shaker, not the {game} one")
    return frozenset(names)


# -- the history generator ----------------------------------------------------------------------

CSV_HEADER = "round_id,time,result,in_order,shaker,dealer,status\n"
DEFAULT_START = "2026-01-01T00:00:00Z"
DEFAULT_SPACING_S = 40
_CHUNK = 20_000  # rows joined per write


def parse_start(text: str) -> int:
    """`--start` as epoch seconds: an ISO 8601 time with its offset (Z for UTC), whole seconds."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--start {text!r} is not a time such as {DEFAULT_START}") from None
    if moment.tzinfo is None:
        raise ValueError(f"--start {text!r} needs its offset: Z for UTC ({DEFAULT_START})")
    if moment.microsecond:
        raise ValueError(f"--start {text!r} must be whole seconds")
    return int(moment.timestamp())


def _clock() -> Callable[[int], str]:
    """Epoch seconds as `2026-01-01T00:00:40Z`, fast: a date string per day, a table of the
    86,400 times of day (strftime per row would be most of a million rows' time)."""
    times = [f"{h:02d}:{m:02d}:{s:02d}Z" for h in range(24) for m in range(60) for s in range(60)]
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    days: dict[int, str] = {}

    def at(seconds: int) -> str:
        day, second = divmod(seconds, 86_400)
        date = days.get(day)
        if date is None:
            date = days[day] = (epoch + timedelta(days=day)).strftime("%Y-%m-%dT")
        return date + times[second]

    return at


def write_history(
    out: TextIO,
    game: str,
    rounds: int,
    seed: int,
    faults: Collection[str] = frozenset(),
    form: str = "csv",
    shaker_every: int = 0,
    dealer_every: int = 0,
    start: int = 1_767_225_600,  # 2026-01-01T00:00:00Z
    spacing: int = DEFAULT_SPACING_S,
) -> None:
    """Write `rounds` settled rounds drawn by the shaker (a new one, `shaker-2`, ..., every
    `shaker_every` rounds; 0 never), oldest first, round k at `start` + k x `spacing` seconds."""
    rng = random.Random(seed)
    joiner = " " if form == "csv" else ","
    quote = "" if game == SICBO or form == "csv" else '"'
    texts: dict[tuple, str] = {}  # a result as written, per outcome (216 or 16 of them)
    clock = _clock()
    width = max(7, len(str(rounds)))
    if form == "csv":
        out.write(CSV_HEADER)
    shaker, shaker_part, dealer_part = Shaker(game, rng, faults), 1, 1
    shaker_name, dealer_name = "shaker-1", "dealer-1"
    lines: list[str] = []
    for number in range(1, rounds + 1):
        if shaker_every and (number - 1) // shaker_every + 1 != shaker_part:
            shaker_part += 1
            shaker_name = f"shaker-{shaker_part}"
            shaker = Shaker(game, rng, faults)  # another device: no memory of the last one's roll
        if dealer_every and (number - 1) // dealer_every + 1 != dealer_part:
            dealer_part += 1
            dealer_name = f"dealer-{dealer_part}"
        outcome = tuple(shaker.draw())
        text = texts.get(outcome)
        if text is None:
            text = texts[outcome] = joiner.join(f"{quote}{item}{quote}" for item in outcome)
        round_id, moment = f"R{number:0{width}d}", clock(start + number * spacing)
        if form == "csv":
            lines.append(f"{round_id},{moment},{text},true,{shaker_name},{dealer_name},settled\n")
        else:
            lines.append(
                f'{{"round_id":"{round_id}","time":"{moment}","result":[{text}],'
                f'"in_order":true,"shaker":"{shaker_name}","dealer":"{dealer_name}",'
                '"status":"settled"}\n'
            )
        if len(lines) == _CHUNK:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of at least 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    from livecert.reference.serve import _Parser  # the command's usage errors exit 3, as serve's

    parser = _Parser(
        prog="python -m livecert.reference.shaker",
        description="Write a table's history of outcomes drawn by the reference's shaker (fair "
        "unless a shaker fault is given), for the fairness battery (REG-FAIR-01, REG-FAIR-02): "
        "one settled round a row, oldest first, the same for the same seed.",
    )
    parser.add_argument("--game", required=True, choices=(SICBO, XOCDIA), help="the game")
    parser.add_argument("--rounds", required=True, type=_positive, help="how many rounds")
    parser.add_argument("--seed", required=True, type=int, help="the random seed (an integer)")
    parser.add_argument(
        "--fault",
        metavar="NAME",
        nargs="+",
        action="extend",
        default=[],
        help=f"load the shaker with a seeded fault (repeatable: {', '.join(SHAKER_FAULTS)})",
    )
    parser.add_argument(
        "--format",
        choices=("csv", "jsonl"),
        default="csv",
        help="CSV with a header line, or JSON lines (default csv)",
    )
    parser.add_argument("--out", metavar="FILE", required=True, help="the file to write")
    parser.add_argument(
        "--shaker-every",
        metavar="K",
        type=_positive,
        default=0,
        help="a new shaker (shaker-2, shaker-3, ...) every K rounds (default: never)",
    )
    parser.add_argument(
        "--dealer-every",
        metavar="K",
        type=_positive,
        default=0,
        help="a new dealer (dealer-2, dealer-3, ...) every K rounds (default: never)",
    )
    parser.add_argument(
        "--start",
        default=DEFAULT_START,
        help=f"the time the history starts, the first round one spacing later (default "
        f"{DEFAULT_START})",
    )
    parser.add_argument(
        "--spacing-seconds",
        metavar="S",
        type=_positive,
        default=DEFAULT_SPACING_S,
        help=f"seconds between rounds (default {DEFAULT_SPACING_S})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options and write the history; answers the process exit status."""
    from livecert.reference.serve import USAGE_ERROR

    try:
        args = build_parser().parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # --help or a usage error (argparse has printed it)
        return int(exc.code or 0)
    try:
        chosen = check_shaker_faults(args.fault, args.game)
        start = parse_start(args.start)
    except ValueError as exc:
        print(f"livecert shaker: error: {exc}", file=sys.stderr, flush=True)
        return USAGE_ERROR
    began = time.perf_counter()
    try:
        with open(args.out, "w", encoding="utf-8", newline="\n") as out:
            write_history(
                out,
                args.game,
                args.rounds,
                args.seed,
                chosen,
                args.format,
                args.shaker_every,
                args.dealer_every,
                start,
                args.spacing_seconds,
            )
    except OSError as exc:
        print(f"livecert shaker: error: cannot write {args.out}: {exc}", file=sys.stderr)
        return USAGE_ERROR
    took = time.perf_counter() - began
    faulty = f" with {', '.join(sorted(chosen))}" if chosen else ""
    print(f"wrote {args.rounds} {args.game} rounds{faulty} to {args.out} in {took:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
