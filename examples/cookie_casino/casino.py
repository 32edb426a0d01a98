"""The casino's pages over one SQLite file (shared with the admin command), and its faults."""

import json
import random
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .paytable import CODES, settle

FAULTS = {
    "negative-stake-in-slip": "a slip is checked by its total only, so a negative stake beside "
    "a positive one is taken (REG-INPUT-01)",
    "unoffered-code-accepted": "a code outside the paytable (total3, total18, anything) is "
    "taken and its stake kept (REG-INPUT-01)",
    "lost-update": "the balance is read, the round played, and the balance read plus the net "
    "written back: rounds of one player at once from several logins lose updates (each "
    "session's requests run one at a time, as PHP's session lock has them) (REG-MONEY-01)",
    "stake-over-balance": "the balance is not checked: a slip over it is taken and the balance "
    "goes below zero (REG-BAL-01)",
    "total10-pays-5": "Total 10 pays 5:1 instead of 6:1 (SB-PAY-08)",
    "four-colour-never-paid": "Four of a colour (4mau), a code it knows, never wins: the run "
    "must judge it, not hold it back as a possible mapping mistake (XD-PAY-06)",
    "logout-keeps-session": "logging out leaves the session valid: a session the player ended "
    "still plays (REG-ACCESS-01)",
}
SCHEMA = """
create table if not exists players (user text primary key, password text, balance integer);
create table if not exists sessions (sid text primary key, user text);
create table if not exists rounds (id integer primary key autoincrement, user text, game text,
                                   result text, staked integer, returned integer);
"""
AMOUNT = re.compile(r"\d{1,3}(\.\d{3})*(,\d{1,2})?|\d+(,\d{1,2})?")


class CasinoError(Exception):
    """A page's error: HTTP 200 with {"status": "error", "message": ...}."""


@contextmanager
def connect(db: Path, create: bool = False) -> Iterator[sqlite3.Connection]:
    """One request's connection (autocommit; a round takes its own transaction), closed after;
    `create` makes the tables first (once, at start: not under every page's lock)."""
    con = sqlite3.connect(db, timeout=30, isolation_level=None)
    try:
        if create:
            con.executescript(SCHEMA)
        yield con
    finally:
        if con.in_transaction:
            con.execute("rollback")
        con.close()


def money(cents: int) -> str:
    """1234567 as "12.345,67"."""
    whole, part = divmod(abs(cents), 100)
    return f"{'-' if cents < 0 else ''}{whole:,}".replace(",", ".") + f",{part:02d}"


def cents_of(text: str) -> int:
    """ "1.234,5" as 123450; CasinoError unless it is written the casino's way."""
    if not isinstance(text, str) or not AMOUNT.fullmatch(text.strip()):
        raise CasinoError(f"amount {text!r} is not written like 10,00")
    whole, _, part = text.strip().replace(".", "").partition(",")
    return int(whole) * 100 + int((part + "00")[:2])


def outcome_of(game: str, seed: str) -> list:
    """The test build's RNG: the seed fixes the round (dice, or tokens R/W)."""
    if not re.fullmatch(r"\d{1,9}", seed or ""):
        raise CasinoError("seed must be a number")
    rng = random.Random(int(seed))
    if game == "sicbo":
        return [rng.randint(1, 6) for _ in range(3)]
    return [rng.choice("RW") for _ in range(4)]


@dataclass
class Casino:
    db: Path
    faults: frozenset[str] = frozenset()

    def login(self, form: dict) -> tuple[dict, str]:
        """Every visit opens a PHP session; the answer says whether it is logged in."""
        sid = secrets.token_hex(16)
        with connect(self.db) as con:
            row = con.execute(
                "select password from players where user = ?", (form.get("user", ""),)
            ).fetchone()
            if row is None or not secrets.compare_digest(row[0], form.get("password", "")):
                return {"status": "error", "message": "Sai mật khẩu (wrong password)"}, sid
            con.execute("insert into sessions values (?, ?)", (sid, form["user"]))
        return {"status": "ok", "user": form["user"]}, sid

    def logout(self, sid: str | None) -> dict:
        """The session ends: its cookie is worth nothing from now on."""
        with connect(self.db) as con:
            self.user(con, sid)
            if "logout-keeps-session" not in self.faults:  # FAULT logout-keeps-session
                con.execute("delete from sessions where sid = ?", (sid or "",))
        return {"status": "ok"}

    def user(self, con: sqlite3.Connection, sid: str | None) -> str:
        row = con.execute("select user from sessions where sid = ?", (sid or "",)).fetchone()
        if row is None:
            raise CasinoError("login required")
        return row[0]

    def balance(self, sid: str | None) -> dict:
        with connect(self.db) as con:
            user = self.user(con, sid)
            (cents,) = con.execute("select balance from players where user = ?", (user,)).fetchone()
        return {"status": "ok", "balance": money(cents)}

    def _slip(self, game: str, text: str) -> list[tuple[str, int]]:
        try:
            items = json.loads(text)
        except ValueError:
            raise CasinoError("bets must be a JSON array") from None
        if not isinstance(items, list) or not items:
            raise CasinoError("bets must be a non-empty JSON array of {type, amount}")
        slip = []
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                raise CasinoError("each bet is {type, amount}")
            amount = str(item.get("amount", ""))
            negative = amount.startswith("-") and "negative-stake-in-slip" in self.faults
            stake = -cents_of(amount[1:]) if negative else cents_of(amount)
            if stake == 0 or (stake < 0 and not negative):
                raise CasinoError(f"amount {amount!r} must be above zero")
            code = item["type"]
            if code not in CODES[game] and "unoffered-code-accepted" not in self.faults:
                raise CasinoError(f"no bet {code!r} at {game}")
            slip.append((code, stake))
        if sum(s for _, s in slip) <= 0:
            raise CasinoError("the slip stakes nothing")
        return slip

    def play(self, sid: str | None, form: dict) -> dict:
        """One instant round: the slip staked, the seed's outcome, every bet settled."""
        game = form.get("game", "")
        if game not in CODES:
            raise CasinoError("game must be sicbo or xocdia")
        lost_update = "lost-update" in self.faults
        with connect(self.db) as con:
            if not lost_update:
                con.execute("begin immediate")  # the round's read and write are one
            user = self.user(con, sid)
            slip = self._slip(game, form.get("bets", ""))
            outcome = outcome_of(game, form.get("seed", ""))
            (balance,) = con.execute(
                "select balance from players where user = ?", (user,)
            ).fetchone()
            staked = sum(s for _, s in slip)
            if staked > balance and "stake-over-balance" not in self.faults:
                raise CasinoError(f"Insufficient balance: {money(balance)}")
            log, returned = [], 0
            for code, stake in slip:
                if code not in CODES[game]:  # FAULT unoffered-code-accepted: the stake kept
                    log.append(f"{code} (Lost)")
                    continue
                word, times, back = settle(game, code, outcome, stake, self.faults)
                log.append(f"{code} ({word} {times})" if times else f"{code} ({word})")
                returned += back
            if lost_update:
                time.sleep(0.02)  # FAULT lost-update: the write-back of a stale read
            con.execute(
                "update players set balance = ? where user = ?",
                (balance - staked + returned, user),
            )
            con.execute(
                "insert into rounds (user, game, result, staked, returned) values (?, ?, ?, ?, ?)",
                (user, game, json.dumps(outcome), staked, returned),
            )
            if not lost_update:
                con.execute("commit")
        # no round or bet id: each bet's result is a text, in the slip's order
        return {
            "status": "ok",
            "game": game,
            "dice": outcome if game == "sicbo" else None,
            "tokens": "".join(outcome) if game == "xocdia" else None,
            "balance": money(balance - staked + returned),
            "bets": log,
        }
