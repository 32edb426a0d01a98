"""SQLite persistence: one WAL-mode file, one connection guarded by a lock, explicit transactions.

All money columns are integer minor units and all times integer epoch milliseconds. Callers group
their reads and writes in `with store.transaction():` so a slip or a settlement is one atomic
write (BEGIN IMMEDIATE .. COMMIT, with executemany for the bets).
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    token TEXT NOT NULL UNIQUE,
    name TEXT,
    balance INTEGER NOT NULL,
    connected INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS game_tables (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    name TEXT,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    table_id TEXT NOT NULL,
    game TEXT NOT NULL,
    state TEXT NOT NULL,
    paused_from TEXT,
    remaining_ms INTEGER,
    opened_at INTEGER NOT NULL,
    ends_at INTEGER NOT NULL,
    result TEXT,
    reason TEXT,
    settled_at INTEGER,
    finished_at INTEGER,
    shaker TEXT,
    dealer TEXT,
    in_order INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS rounds_by_table ON rounds (table_id, state, settled_at);
CREATE INDEX IF NOT EXISTS rounds_in_table_order ON rounds (table_id, seq);
CREATE TABLE IF NOT EXISTS bets (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    round_id TEXT NOT NULL,
    table_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    game TEXT NOT NULL,
    selection TEXT NOT NULL,
    stake INTEGER NOT NULL,
    placed_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT,
    win INTEGER,
    returned INTEGER,
    settled_at INTEGER
);
CREATE INDEX IF NOT EXISTS bets_by_round ON bets (round_id, player_id);
CREATE INDEX IF NOT EXISTS bets_by_player ON bets (player_id, round_id);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    round_id TEXT NOT NULL,
    type TEXT NOT NULL,
    reason TEXT,
    note TEXT,
    at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_round ON events (round_id);
CREATE TABLE IF NOT EXISTS player_rounds (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id TEXT NOT NULL,
    round_id TEXT NOT NULL,
    balance_before INTEGER NOT NULL,
    balance_after INTEGER,
    UNIQUE (player_id, round_id)
);
CREATE INDEX IF NOT EXISTS player_rounds_by_round ON player_rounds (round_id);
CREATE TABLE IF NOT EXISTS idempotency_keys (
    player_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, key)
);
"""

Row = sqlite3.Row

# a page of a table's round history; its plan is a search of rounds_in_table_order
HISTORY_PAGE = (
    "SELECT seq, id, state, game, result, settled_at, finished_at, shaker, dealer, in_order"
    " FROM rounds WHERE table_id = ? AND seq > ? AND state IN ('settled', 'cancelled', 'void')"
    " ORDER BY seq LIMIT ?"
)


def default_db_path() -> str:
    """A database file in a fresh temporary directory (nothing survives unless --db is given)."""
    return os.path.join(tempfile.mkdtemp(prefix="livecert-reference-"), "reference.sqlite3")


class Store:
    """The single connection to the database file, serialised by a lock."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or default_db_path()
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=OFF")
        self._conn.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Add columns a database written by an older reference lacks."""
        columns = {row["name"] for row in self._conn.execute("PRAGMA table_info(rounds)")}
        for column, kind in (
            ("finished_at", "INTEGER"),
            ("shaker", "TEXT"),  # who drew the result: the drawn tables' device and dealer
            ("dealer", "TEXT"),
            ("in_order", "INTEGER NOT NULL DEFAULT 0"),  # the dice as thrown, tokens by position
        ):
            if column not in columns:
                self._conn.execute(f"ALTER TABLE rounds ADD COLUMN {column} {kind}")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Hold the lock and one write transaction; commit on success, roll back on any error."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the lock for a consistent multi-statement read."""
        with self._lock:
            yield

    # -- players -------------------------------------------------------------------------------
    def insert_player(self, pid: str, token: str, name: str | None, balance: int, now: int) -> None:
        self._conn.execute(
            "INSERT INTO players (id, token, name, balance, connected, created_at)"
            " VALUES (?, ?, ?, ?, 1, ?)",
            (pid, token, name, balance, now),
        )

    def player_by_token(self, token: str) -> Row | None:
        return self._conn.execute("SELECT * FROM players WHERE token = ?", (token,)).fetchone()

    def player(self, pid: str) -> Row | None:
        return self._conn.execute("SELECT * FROM players WHERE id = ?", (pid,)).fetchone()

    def set_balance(self, pid: str, balance: int) -> None:
        self._conn.execute("UPDATE players SET balance = ? WHERE id = ?", (balance, pid))

    def credit(self, credits: Iterable[tuple[int, str]]) -> None:
        self._conn.executemany("UPDATE players SET balance = balance + ? WHERE id = ?", credits)

    def debit_unlocked(self, pid: str, balance: int) -> None:
        """Write a balance outside any transaction (only the lost-update fault does this)."""
        with self._lock:
            self._conn.execute("UPDATE players SET balance = ? WHERE id = ?", (balance, pid))

    def set_connected(self, pid: str, connected: bool) -> None:
        self._conn.execute("UPDATE players SET connected = ? WHERE id = ?", (int(connected), pid))

    # -- tables --------------------------------------------------------------------------------
    def insert_table(self, tid: str, game: str, name: str | None, now: int) -> None:
        self._conn.execute(
            "INSERT INTO game_tables (id, game, name, created_at) VALUES (?, ?, ?, ?)",
            (tid, game, name, now),
        )

    def table(self, tid: str) -> Row | None:
        return self._conn.execute("SELECT * FROM game_tables WHERE id = ?", (tid,)).fetchone()

    # -- rounds --------------------------------------------------------------------------------
    def insert_round(self, rid: str, tid: str, game: str, opened_at: int, ends_at: int) -> None:
        self._conn.execute(
            "INSERT INTO rounds (id, table_id, game, state, opened_at, ends_at)"
            " VALUES (?, ?, ?, 'betting', ?, ?)",
            (rid, tid, game, opened_at, ends_at),
        )

    def round(self, rid: str) -> Row | None:
        return self._conn.execute("SELECT * FROM rounds WHERE id = ?", (rid,)).fetchone()

    def unfinished_round(self, tid: str) -> Row | None:
        return self._conn.execute(
            "SELECT * FROM rounds WHERE table_id = ? AND state IN ('betting', 'closed', 'paused')",
            (tid,),
        ).fetchone()

    def update_round(self, rid: str, **fields: Any) -> None:
        names = ", ".join(f"{name} = ?" for name in fields)
        self._conn.execute(f"UPDATE rounds SET {names} WHERE id = ?", (*fields.values(), rid))

    def settled_rounds(self, tid: str, limit: int) -> list[Row]:
        return self._conn.execute(
            "SELECT * FROM rounds WHERE table_id = ? AND state = 'settled'"
            " ORDER BY settled_at DESC, seq DESC LIMIT ?",
            (tid, limit),
        ).fetchall()

    def finished_rounds(self, tid: str, limit: int) -> list[Row]:
        """The newest finished rounds (settled, cancelled or void) of a table."""
        return self._conn.execute(
            "SELECT * FROM rounds WHERE table_id = ? AND state IN ('settled', 'cancelled', 'void')"
            " ORDER BY finished_at DESC, seq DESC LIMIT ?",
            (tid, limit),
        ).fetchall()

    def history_page(self, tid: str, after_seq: int, limit: int) -> list[Row]:
        """Up to `limit` finished rounds of a table after the round numbered `after_seq`, in the
        order they finished: a table has one unfinished round at a time, so the order they
        were opened in (seq). Keyset paging on (table_id, seq): a page costs its own rows."""
        return self._conn.execute(HISTORY_PAGE, (tid, after_seq, limit)).fetchall()

    def drawn_rounds(self, tid: str) -> tuple[int, int | None]:
        """How many rounds of the table a shaker drew, and when the table's last round ended."""
        row = self._conn.execute(
            "SELECT COUNT(shaker) AS drawn, MAX(finished_at) AS last FROM rounds"
            " WHERE table_id = ?",
            (tid,),
        ).fetchone()
        return row["drawn"], row["last"]

    def insert_drawn_rounds(self, rows: list[tuple[Any, ...]]) -> None:
        """Settled rounds with no bets. rows: (id, table_id, game, opened_at, ends_at, result,
        settled_at, finished_at, shaker, dealer, in_order)."""
        self._conn.executemany(
            "INSERT INTO rounds (id, table_id, game, state, opened_at, ends_at, result,"
            " settled_at, finished_at, shaker, dealer, in_order)"
            " VALUES (?, ?, ?, 'settled', ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def unfinished_round_ids(self) -> list[str]:
        return [
            r["id"]
            for r in self._conn.execute(
                "SELECT id FROM rounds WHERE state IN ('betting', 'closed', 'paused')"
            )
        ]

    def delete_unfinished_rounds(self) -> None:
        """Drop every unfinished round with its bets and records (the interrupted-round fault)."""
        unfinished = "SELECT id FROM rounds WHERE state IN ('betting', 'closed', 'paused')"
        for table in ("bets", "events", "player_rounds"):
            self._conn.execute(f"DELETE FROM {table} WHERE round_id IN ({unfinished})")
        self._conn.execute(f"DELETE FROM rounds WHERE id IN ({unfinished})")

    def delete_last_unfinished_bets(self) -> None:
        """Drop the last bet placed in each unfinished round (the interrupted-bet fault)."""
        self._conn.execute(
            "DELETE FROM bets WHERE seq IN (SELECT MAX(b.seq) FROM bets b JOIN rounds r ON "
            "r.id = b.round_id WHERE r.state IN ('betting', 'closed', 'paused') "
            "GROUP BY b.round_id)"
        )

    # -- bets ----------------------------------------------------------------------------------
    def insert_bets(self, rows: list[tuple[Any, ...]]) -> None:
        """rows: (id, round_id, table_id, player_id, game, selection, stake, placed_at)."""
        self._conn.executemany(
            "INSERT INTO bets (id, round_id, table_id, player_id, game, selection, stake,"
            " placed_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open')",
            rows,
        )

    def bets_of_round(self, rid: str, player_id: str | None = None) -> list[Row]:
        if player_id is None:
            return self._conn.execute(
                "SELECT * FROM bets WHERE round_id = ? ORDER BY seq", (rid,)
            ).fetchall()
        return self._conn.execute(
            "SELECT * FROM bets WHERE round_id = ? AND player_id = ? ORDER BY seq",
            (rid, player_id),
        ).fetchall()

    def open_bets(self, rid: str) -> list[Row]:
        return self._conn.execute(
            "SELECT id, player_id, selection, stake FROM bets"
            " WHERE round_id = ? AND status = 'open' ORDER BY seq",
            (rid,),
        ).fetchall()

    def bets_of_player(self, pid: str, round_id: str | None = None) -> list[Row]:
        if round_id is None:
            return self._conn.execute(
                "SELECT * FROM bets WHERE player_id = ? ORDER BY seq DESC", (pid,)
            ).fetchall()
        return self._conn.execute(
            "SELECT * FROM bets WHERE player_id = ? AND round_id = ? ORDER BY seq DESC",
            (pid, round_id),
        ).fetchall()

    def all_bets(self, round_id: str | None = None) -> list[Row]:
        """Every player's bets, newest first (only the record-shows-other-players fault)."""
        if round_id is None:
            return self._conn.execute("SELECT * FROM bets ORDER BY seq DESC").fetchall()
        return self._conn.execute(
            "SELECT * FROM bets WHERE round_id = ? ORDER BY seq DESC", (round_id,)
        ).fetchall()

    def open_bets_of_player(self, pid: str) -> list[Row]:
        return self._conn.execute(
            "SELECT id, round_id, player_id, stake FROM bets"
            " WHERE player_id = ? AND status = 'open' ORDER BY seq",
            (pid,),
        ).fetchall()

    def bet(self, bid: str) -> Row | None:
        return self._conn.execute("SELECT * FROM bets WHERE id = ?", (bid,)).fetchone()

    def finish_bets(self, rows: list[tuple[Any, ...]]) -> None:
        """rows: (status, outcome, win, returned, settled_at, id)."""
        self._conn.executemany(
            "UPDATE bets SET status = ?, outcome = ?, win = ?, returned = ?, settled_at = ?"
            " WHERE id = ?",
            rows,
        )

    # -- the player's record of rounds ---------------------------------------------------------
    def start_record(self, pid: str, rid: str, balance_before: int) -> None:
        """Note the balance before the player's first bet of the round (later slips keep it)."""
        self._conn.execute(
            "INSERT OR IGNORE INTO player_rounds (player_id, round_id, balance_before)"
            " VALUES (?, ?, ?)",
            (pid, rid, balance_before),
        )

    def finish_records(self, rid: str) -> None:
        """Note every player's balance just after the round settled or was refunded."""
        self._conn.execute(
            "UPDATE player_rounds SET balance_after ="
            " (SELECT balance FROM players WHERE players.id = player_rounds.player_id)"
            " WHERE round_id = ?",
            (rid,),
        )

    def record_rounds(self, pid: str, round_id: str | None = None) -> list[Row]:
        """The player's rounds, newest first, with their stakes and returns summed."""
        query = (
            "SELECT r.id AS round_id, r.table_id, r.game, r.state, r.opened_at, r.ends_at,"
            " r.result, r.finished_at, pr.balance_before, pr.balance_after,"
            " (SELECT COALESCE(SUM(b.stake), 0) FROM bets b"
            "   WHERE b.round_id = r.id AND b.player_id = pr.player_id) AS staked,"
            " (SELECT COALESCE(SUM(b.returned), 0) FROM bets b"
            "   WHERE b.round_id = r.id AND b.player_id = pr.player_id) AS returned"
            " FROM player_rounds pr JOIN rounds r ON r.id = pr.round_id"
            " WHERE pr.player_id = ?"
        )
        args: tuple[Any, ...] = (pid,)
        if round_id is not None:
            query += " AND pr.round_id = ?"
            args = (pid, round_id)
        return self._conn.execute(query + " ORDER BY r.seq DESC", args).fetchall()

    # -- events --------------------------------------------------------------------------------
    def insert_event(
        self, rid: str, kind: str, reason: str | None, note: str | None, at: int
    ) -> None:
        self._conn.execute(
            "INSERT INTO events (round_id, type, reason, note, at) VALUES (?, ?, ?, ?, ?)",
            (rid, kind, reason, note, at),
        )

    def insert_events(self, rows: list[tuple[Any, ...]]) -> None:
        """rows: (round_id, type, reason, note, at)."""
        self._conn.executemany(
            "INSERT INTO events (round_id, type, reason, note, at) VALUES (?, ?, ?, ?, ?)", rows
        )

    def events_of_round(self, rid: str) -> list[Row]:
        return self._conn.execute(
            "SELECT type, reason, note, at FROM events WHERE round_id = ? ORDER BY seq", (rid,)
        ).fetchall()

    # -- idempotency ---------------------------------------------------------------------------
    def idempotency(self, pid: str, key: str) -> Row | None:
        return self._conn.execute(
            "SELECT fingerprint, response FROM idempotency_keys WHERE player_id = ? AND key = ?",
            (pid, key),
        ).fetchone()

    def remember(self, pid: str, key: str, fingerprint: str, response: str, now: int) -> None:
        self._conn.execute(
            "INSERT INTO idempotency_keys (player_id, key, fingerprint, response, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (pid, key, fingerprint, response, now),
        )
