"""The dealer opening a round the way each game's procedure requires.

In Xoc Dia the dealer shakes the covered plate during the betting period (XD-RND-01); a round with
no shake is void (XD-VOID-01). Every harness path that opens a round to play it goes through here,
so the procedure lives in one place.
"""

from livecert.adapters.base import TargetAdapter
from livecert.adapters.model import RoundView

DEFAULT_COUNTDOWN_MS = 60_000


def open_round(
    adapter: TargetAdapter,
    game: str,
    table_id: str,
    countdown_ms: int = DEFAULT_COUNTDOWN_MS,
    shake: bool = True,
) -> RoundView:
    """Open a round; for Xoc Dia also record the shake during betting unless `shake` is False."""
    opened = adapter.open_round(table_id, countdown_ms=countdown_ms)
    if game == "xocdia" and shake:
        return adapter.record_event(opened.round_id, "shake")
    return opened
