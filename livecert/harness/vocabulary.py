"""The words of the features: bet names as the rules documents say them, and dealer entries.

"Pair of 3s", "Total 10", "Double and single 2-2-3" are the paytable's labels; this module turns
them into selection codes so feature files never carry codes, and says what it expected when a
feature uses a name the paytable does not know.
"""

import re
from functools import cache

from livecert.rules import Paytable, load_paytable


class VocabularyError(ValueError):
    """A feature names a bet or a result the harness does not understand."""


@cache
def _labels(game: str) -> dict[str, str]:
    table = load_paytable(game)
    return {_key(s.label): s.code for s in table.selections}


def _key(label: str) -> str:
    return re.sub(r"\s+", " ", label.strip().lower())


def selection_code(label: str, game: str = "sicbo") -> str:
    """The code of the selection a feature calls `label` ("Pair of 3s" -> "PAIR_3")."""
    try:
        return _labels(game)[_key(label)]
    except KeyError:
        examples = ", ".join(list(_labels(game))[:6])
        raise VocabularyError(
            f"bet={label!r} is not a {game} selection name; expected a paytable label such as "
            f"{examples}"
        ) from None


def selection_label(code: str, game: str = "sicbo") -> str:
    return load_paytable(game).selection(code).label


def parse_dice(text: str) -> tuple[int, ...]:
    """'3 3 3' or '3-3-3' -> (3, 3, 3); values are kept even when out of range (to test refusal)."""
    parts = re.split(r"[\s,-]+", text.strip())
    if not parts or not all(re.fullmatch(r"-?\d+", p) for p in parts):
        raise VocabularyError(f"dice={text!r} is not a list of numbers like '3 3 3'")
    return tuple(int(p) for p in parts)


def parse_tokens(text: str) -> tuple[str, ...]:
    """'w w r r' -> ('w', 'w', 'r', 'r'); kept as written, so a bad token can be refused."""
    return tuple(text.split())


def paytable(game: str = "sicbo") -> Paytable:
    return load_paytable(game)
