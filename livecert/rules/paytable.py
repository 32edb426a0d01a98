"""Load a game's paytable file into selections the oracle can settle.

A paytable file (`sicbo.toml`) lists families of selections, each with its clause ID, its win
condition and its odds. Loading checks the file against the condition vocabulary so that a typo
in a profile is an error at load time, never a silent loss at settlement.
"""

import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from livecert.rules.conditions import CONDITIONS

if TYPE_CHECKING:  # profiles.py imports this module: the type only
    from livecert.rules.profiles import RuleProfile


class PaytableError(ValueError):
    """A paytable file does not describe a valid paytable."""


@dataclass(frozen=True)
class Selection:
    """One bet selection: its code, its words, its clause and how it wins."""

    code: str
    label: str
    family: str
    family_name: str
    clause: str
    condition: str
    params: dict[str, Any]
    odds_by_count: dict[int, Fraction]
    loses_on_triple: bool = False
    refund_condition: str | None = None  # the stake is returned when this condition holds
    refund_params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Paytable:
    """A game's selections in paytable order, and the clauses that frame them."""

    game: str
    name: str
    profile: str
    outcome: str
    general_clause: str
    rtp_clause: str
    declared_max_rtp_percent: str
    triple_loss_clause: str | None
    selections: tuple[Selection, ...]
    source_path: str
    by_code: dict[str, Selection] = field(default_factory=dict, compare=False)
    # the oracle's rulings, by selection and outcome in order: a sweep rules on the same pairs
    # again and again (216 Sic Bo rolls are 56 results); filled by `settlement.settle`
    rulings: dict[tuple[str, tuple], Any] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        self.by_code.update({s.code: s for s in self.selections})

    def selection(self, code: str) -> Selection:
        try:
            return self.by_code[code]
        except KeyError:
            raise PaytableError(
                f"selection={code!r} is not in the {self.name} paytable ({self.profile}); "
                f"expected one of its {len(self.selections)} codes, "
                f"e.g. {self.selections[0].code!r}"
            ) from None

    def family_clauses(self) -> list[str]:
        """Clause IDs of the paytable rows, in order, without repeats."""
        return list(dict.fromkeys(s.clause for s in self.selections))


def _odds(text: str, where: str) -> Fraction:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise PaytableError(f"{where}: odds={text!r} is not a number like '6' or '3/2'") from None
    if value <= 0:
        raise PaytableError(f"{where}: odds={text!r} must be above 0")
    return value


def parse_paytable(data: dict, source_path: str) -> Paytable:
    """Build a Paytable from a parsed paytable file, checking every family."""
    triple_loss = data.get("triple_loss") or {}
    losing_families = set(triple_loss.get("families", []))
    selections: list[Selection] = []
    for family in data.get("family", []):
        where = f"{source_path}: family {family.get('key')!r}"
        condition = family.get("condition")
        if condition not in CONDITIONS:
            raise PaytableError(
                f"{where}: condition={condition!r} is unknown; expected one of {sorted(CONDITIONS)}"
            )
        refund = dict(family.get("refund") or {})
        refund_condition = refund.pop("condition", None)
        if refund_condition is not None and refund_condition not in CONDITIONS:
            raise PaytableError(f"{where}: refund condition={refund_condition!r} is unknown")
        for entry in family["selections"]:
            params = {k: v for k, v in entry.items() if k != "odds"}
            if "odds_by_count" in family:
                odds = {int(k): _odds(v, where) for k, v in family["odds_by_count"].items()}
            else:
                odds = {1: _odds(entry.get("odds", family.get("odds", "")), where)}
            selections.append(
                Selection(
                    code=family["code"].format(**params),
                    label=family["label"].format(**params),
                    family=family["key"],
                    family_name=family["name"],
                    clause=family["clause"],
                    condition=condition,
                    params=params,
                    odds_by_count=odds,
                    loses_on_triple=family["key"] in losing_families,
                    refund_condition=refund_condition,
                    refund_params=refund,
                )
            )
    codes = [s.code for s in selections]
    if len(set(codes)) != len(codes):
        raise PaytableError(f"{source_path}: a selection code is listed twice")
    return Paytable(
        game=data["game"],
        name=data["name"],
        profile=data.get("profile", "documents"),
        outcome=data["outcome"],
        general_clause=data["general_clause"],
        rtp_clause=data["rtp_clause"],
        declared_max_rtp_percent=data["declared_max_rtp_percent"],
        triple_loss_clause=triple_loss.get("clause"),
        selections=tuple(selections),
        source_path=source_path,
    )


def load_paytable_file(path: Path) -> Paytable:
    with path.open("rb") as handle:
        return parse_paytable(tomllib.load(handle), str(path))


@cache
def load_documents_paytable(game: str) -> Paytable:
    """The paytable of the rules documents for `game` (`sicbo`, `xocdia`), shipped with livecert."""
    resource = resources.files("livecert.rules").joinpath(f"{game}.toml")
    if not resource.is_file():
        raise PaytableError(f"game={game!r} has no paytable; expected 'sicbo' or 'xocdia'")
    return parse_paytable(tomllib.loads(resource.read_text(encoding="utf-8")), f"{game}.toml")


_ACTIVE_PROFILE: list["RuleProfile"] = []  # the rule profile of this run (empty: documents)


def use_profile(profile: "RuleProfile | None") -> None:
    """Certify this process's run against `profile` (None: the documents)."""
    _ACTIVE_PROFILE[:] = [profile] if profile is not None else []
    load_paytable.cache_clear()


def active_profile() -> "RuleProfile | None":
    return _ACTIVE_PROFILE[0] if _ACTIVE_PROFILE else None


@cache
def load_paytable(game: str) -> Paytable:
    """The paytable this run certifies against: the documents', changed by the active profile."""
    table = load_documents_paytable(game)
    profile = active_profile()
    if profile is None:
        return table
    from livecert.rules.profiles import apply_profile

    return apply_profile(table, profile)
