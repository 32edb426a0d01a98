"""Idempotency keys of bet slips: where a slip's first answer is kept and found again, and the
seeded faults that keep it wrongly (forgotten at close or after a delay, recorded late, shared by
a table's players)."""

from __future__ import annotations

import threading
from typing import Any

from livecert.reference.base import ServicePart

FORGOTTEN_AFTER = "idempotency-key-forgotten-after"
PER_TABLE = "idempotency-key-per-table"
_CACHE_LOCK = threading.Lock()


class Idempotency(ServicePart):
    """When a slip's key is found again or forgotten, and recording keys after their slip."""

    def _key_forgotten(self, rid: str) -> bool:
        """Whether the keys of round `rid` are forgotten (only under the
        idempotency-key-forgotten-at-close fault, once betting is over)."""
        if "idempotency-key-forgotten-at-close" not in self.faults:
            return False
        row = self.store.round(rid)
        return row is not None and self._state(row, self.now()) != "betting"

    def _key_cache(self) -> dict[tuple[str, str], tuple[str, str, int]]:
        """Keys held in memory only, (scope, key) -> (fingerprint, answer, first use in ms):
        used by the two faults of a key cache with a lifetime, never by the clean server."""
        return self.__dict__.setdefault("_idempotency_cache", {})

    def _cached(self, scope: str, key: str, lifetime_ms: int) -> dict[str, Any] | None:
        with _CACHE_LOCK:
            held = self._key_cache().get((scope, key))
        if held is None or self.now() - held[2] > lifetime_ms:
            return None
        return {"fingerprint": held[0], "response": held[1]}

    def _table_of(self, rid: str) -> str | None:
        row = self.store.round(rid)
        return None if row is None else f"table:{row['table_id']}"

    def recall_key(self, pid: str, key: str, rid: str) -> Any:
        """The fingerprint and first answer of the player's `key`, or None when it is new."""
        if PER_TABLE in self.faults:
            # FAULT idempotency-key-per-table: a cache in front of the player's keys holds each
            # key for the whole table for N ms, so another player's slip with it is answered
            # the first player's answer (the same slip) or refused as a conflict (another one)
            table = self._table_of(rid)
            shared = None if table is None else self._cached(table, key, self._lifetime(PER_TABLE))
            if shared is not None:
                return shared
        if FORGOTTEN_AFTER in self.faults:
            # FAULT idempotency-key-forgotten-after: keys live in memory only, N ms after first
            # use: a slip re-sent later is taken as a new one
            return self._cached(pid, key, self._lifetime(FORGOTTEN_AFTER))
        return self.store.idempotency(pid, key)

    def keep_key(
        self, pid: str, key: str, rid: str, fingerprint: str, answer: str, now: int
    ) -> None:
        """Remember the player's `key` with the slip's fingerprint and its first answer."""
        if PER_TABLE in self.faults:  # FAULT idempotency-key-per-table
            table = self._table_of(rid)
            if table is not None:
                with _CACHE_LOCK:
                    self._key_cache()[(table, key)] = (fingerprint, answer, now)
        if FORGOTTEN_AFTER in self.faults:  # FAULT idempotency-key-forgotten-after
            with _CACHE_LOCK:
                self._key_cache()[(pid, key)] = (fingerprint, answer, now)
            return
        self.store.remember(pid, key, fingerprint, answer, now)

    def _lifetime(self, fault: str) -> int:
        """How long (ms) a fault's cache keeps a key: its parameter."""
        return self.faults.number(fault)  # type: ignore[attr-defined]

    def remember_late(self, keys: list[tuple[str, str, str, str, int]]) -> None:
        """Record idempotency keys after their slip was placed, in a transaction of their own
        (only the idempotency-key-recorded-late fault): a re-send in between is placed again."""
        with self.store.transaction():  # FAULT idempotency-key-recorded-late
            for pid, key, fingerprint, answer, now in keys:
                if self.store.idempotency(pid, key) is None:
                    self.store.remember(pid, key, fingerprint, answer, now)
