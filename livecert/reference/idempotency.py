"""Idempotency keys of bet slips under their seeded faults: forgotten at close, recorded late."""

from __future__ import annotations

from livecert.reference.base import ServicePart


class Idempotency(ServicePart):
    """When a slip's key is forgotten, and recording keys after their slip."""

    def _key_forgotten(self, rid: str) -> bool:
        """Whether the keys of round `rid` are forgotten (only under the
        idempotency-key-forgotten-at-close fault, once betting is over)."""
        if "idempotency-key-forgotten-at-close" not in self.faults:
            return False
        row = self.store.round(rid)
        return row is not None and self._state(row, self.now()) != "betting"

    def remember_late(self, keys: list[tuple[str, str, str, str, int]]) -> None:
        """Record idempotency keys after their slip was placed, in a transaction of their own
        (only the idempotency-key-recorded-late fault): a re-send in between is placed again."""
        with self.store.transaction():  # FAULT idempotency-key-recorded-late
            for pid, key, fingerprint, answer, now in keys:
                if self.store.idempotency(pid, key) is None:
                    self.store.remember(pid, key, fingerprint, answer, now)
