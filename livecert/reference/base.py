"""What the service's parts share: who is asking, new ids, and the state each part reads."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from livecert.reference.config import Config
from livecert.reference.store import Store


def _new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


@dataclass(frozen=True)
class Identity:
    """Who a bearer token stands for."""

    role: str
    player_id: str | None = None


class ServicePart:
    """One part of the Service (rounds, settlement, betting, ...). Service combines the parts,
    which call each other's methods through `self`; each reads the configuration, the store,
    the seeded faults and the clock that Service sets."""

    config: Config
    store: Store
    faults: frozenset[str]
    now: Callable[[], int]
    rejoined: set[str]  # bet ids credited twice at settlement (only rejoin-settles-twice)
