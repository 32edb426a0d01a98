"""`python -m examples.clock_table --port 8791 [--betting-ms 1000] [--settle-ms 1000]
[--accounts 16] [--balance 4000.00[,20000.00...]] [--fault NAME ...] [--no-ack] [--seed N]`:
the clock table, its admin token taken from CLOCK_TABLE_ADMIN_TOKEN; its lent accounts from
CLOCK_TABLE_ACCOUNTS (`user:password,...`) where it is set, else made up and printed as that
variable's line."""

import argparse
import os
import secrets
import sys

import uvicorn

from examples.clock_table.app import FAULTS, ClockTables, Timing, build
from examples.second_server.money import parse_cents

ACCOUNTS_ENV = "CLOCK_TABLE_ACCOUNTS"


def _accounts(count: int) -> dict[str, str]:
    """The lent accounts: the environment's, or `count` made up and printed for the lab."""
    listed = os.environ.get(ACCOUNTS_ENV, "").strip()
    if listed:
        pairs = [p.strip().partition(":") for p in listed.replace("\n", ",").split(",")]
        return {user: password for user, _, password in pairs if user}
    made = {f"player{n}": secrets.token_urlsafe(9) for n in range(1, count + 1)}
    print(f"{ACCOUNTS_ENV}=" + ",".join(f"{u}:{p}" for u, p in made.items()), flush=True)
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.clock_table")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--betting-ms", type=int, default=1000, help="betting time of a round")
    parser.add_argument(
        "--settle-ms",
        type=int,
        default=1000,
        help="how long a round with bets waits after its close for the lab's outcome",
    )
    parser.add_argument("--accounts", type=int, default=16, help="accounts made up to lend")
    parser.add_argument(
        "--balance",
        default="4000.00",
        help="the accounts' starting balances, given in turn (4000.00,20000.00: every other "
        "account holds enough for the slips at and beyond the table limits)",
    )
    parser.add_argument("--seed", type=int, default=None, help="the outcomes' random seed")
    parser.add_argument("--fault", action="append", default=[], choices=FAULTS)
    parser.add_argument("--no-ack", action="store_true", help="bets get no acknowledgement")
    args = parser.parse_args(argv)
    token = os.environ.get("CLOCK_TABLE_ADMIN_TOKEN", "")
    if len(token) < 16:
        print("set CLOCK_TABLE_ADMIN_TOKEN (16 characters or more)", file=sys.stderr)
        return 2
    balance = [parse_cents(amount.strip()) for amount in args.balance.split(",")]
    if not balance or None in balance:
        print("--balance is an amount like 4000.00, or several: 4000.00,20000.00", file=sys.stderr)
        return 2
    tables = ClockTables(
        token,
        _accounts(args.accounts),
        balance,
        Timing(betting_ms=args.betting_ms, settle_ms=args.settle_ms),
        frozenset(args.fault),
        args.seed,
        args.no_ack,
    )
    print(f"clock tables on http://{args.host}:{args.port} (WebSocket /ws)", flush=True)
    uvicorn.run(build(tables), host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
