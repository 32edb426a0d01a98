"""The games this server offers, one module per game.

A game module provides NAME, RESHAKE_REASONS, EVENT_TYPES, RESULT_KEY, ResultError,
is_selection, parse_result, result_view, max_rtp, rounding_mode and settle (see sicbo.py).
"""

from __future__ import annotations

from types import ModuleType

from livecert.reference import sicbo, xocdia

GAMES: dict[str, ModuleType] = {sicbo.NAME: sicbo, xocdia.NAME: xocdia}
KNOWN_GAMES = ("sicbo", "xocdia")  # the contract's Game enum; only GAMES are offered
