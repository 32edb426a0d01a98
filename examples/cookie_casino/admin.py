"""The casino's admin command: `python -m examples.cookie_casino.admin --db FILE create`.

Creates an account with a fresh name and password and the balance given (written like 1.234,50
or 1234.50), and prints them as JSON: what a lab runs to provision a test player.
"""

import argparse
import json
import secrets
from decimal import Decimal
from pathlib import Path

from .casino import connect


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m examples.cookie_casino.admin")
    parser.add_argument("--db", type=Path, required=True)
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="create an account with a balance")
    create.add_argument("--balance", required=True)
    args = parser.parse_args(argv)
    text = args.balance.replace(".", "").replace(",", ".") if "," in args.balance else args.balance
    cents = int(Decimal(text) * 100)
    user, password = f"p{secrets.token_hex(5)}", secrets.token_urlsafe(12)
    with connect(args.db, create=True) as con:
        con.execute("insert into players values (?, ?, ?)", (user, password, cents))
    print(json.dumps({"user": user, "password": password}))


if __name__ == "__main__":
    main()
