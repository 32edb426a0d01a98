"""Rule profiles: which paytable a run certifies against.

The default profile is the rules documents (RULES.md, `sicbo.toml` and `xocdia.toml` as they
are). A vendor that publishes its own paytable certifies against it with `--rules PROFILE`: a
profile file (TOML, `profiles/*.toml` shipped, or any path) changes odds by family or by
selection, the families that lose on a triple, and the maximum RTP the rules then state. The
certificate names the profile and its sha256; everything the profile does not change is the
documents'.
"""

import hashlib
import re
import tomllib
from dataclasses import dataclass, field, replace
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

from livecert.rules.paytable import Paytable, PaytableError, _odds, load_documents_paytable

DEFAULT_PROFILE = "documents"


class ProfileError(ValueError):
    """A profile that cannot be applied: unknown name, bad file, unknown family or selection."""


@dataclass(frozen=True)
class RuleProfile:
    """A named set of changes to the documents' paytables."""

    name: str
    title: str
    source: str
    sha256: str
    games: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def is_documents(self) -> bool:
        return not self.games

    def as_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "title": self.title,
            "source": self.source,
            "sha256": self.sha256,
        }


def shipped_profiles() -> list[str]:
    folder = resources.files("livecert.rules").joinpath("profiles")
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def load_profile(choice: str | None) -> RuleProfile:
    """A shipped profile by name (`documents`, `variant-150`, ...) or a profile file by path."""
    choice = choice or DEFAULT_PROFILE
    if choice.endswith(".toml") or "/" in choice:
        path = Path(choice)
        if not path.is_file():
            raise ProfileError(f"--rules {choice}: no such profile file")
        raw, source = path.read_bytes(), str(path)
    else:
        resource = resources.files("livecert.rules").joinpath("profiles", f"{choice}.toml")
        if not resource.is_file():
            known = ", ".join(shipped_profiles())
            raise ProfileError(f"--rules {choice}: no such profile (shipped: {known})")
        raw, source = resource.read_bytes(), f"livecert/rules/profiles/{choice}.toml"
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ProfileError(f"{source}: not valid TOML: {error}") from None
    for key in ("profile", "title"):
        if not isinstance(data.get(key), str):
            raise ProfileError(f"{source}: `{key}` must be a string")
    unknown = set(data) - {"profile", "title", "published", "sicbo", "xocdia"}
    if unknown:
        raise ProfileError(f"{source}: unknown keys {sorted(unknown)}")
    games = {g: data[g] for g in ("sicbo", "xocdia") if g in data}
    shipped = resources.files("livecert.rules").joinpath("profiles", f"{data['profile']}.toml")
    if shipped.is_file() and shipped.read_bytes() != raw:
        raise ProfileError(
            f"{source}: calls itself {data['profile']!r}, the name of a shipped profile, but "
            "changes it; give it a name of its own"
        )
    profile = RuleProfile(
        data["profile"], data["title"], source, hashlib.sha256(raw).hexdigest(), games
    )

    for game in games:
        apply_profile(load_documents_paytable(game), profile)  # every change must apply
    return profile


def apply_profile(table: Paytable, profile: RuleProfile) -> Paytable:
    """`table` with the profile's changes for its game (unchanged when it has none)."""
    changes = profile.games.get(table.game)
    if not changes:
        return replace(table, profile=profile.name) if not profile.is_documents else table
    where = f"{profile.source} [{table.game}]"
    allowed = {
        "declared_max_rtp_percent", "odds", "selection_odds", "triple_loss_families",
        "not_offered",
    }  # fmt: skip
    unknown = set(changes) - allowed
    if unknown:
        raise ProfileError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(allowed)})")
    families = {s.family for s in table.selections}
    codes = {s.code for s in table.selections}
    by_family = changes.get("odds", {})
    by_code = changes.get("selection_odds", {})
    for family in by_family:
        if family not in families:
            raise ProfileError(f"{where}: no family {family!r} (families: {sorted(families)})")
    for code in by_code:
        if code not in codes:
            raise ProfileError(f"{where}: no selection {code!r}")
    counted = {s.family for s in table.selections if len(s.odds_by_count) > 1}
    for family in set(by_family) & counted:
        raise ProfileError(
            f"{where}: the family {family!r} pays by how many dice match; one odds value cannot "
            "replace its table"
        )
    not_offered = changes.get("not_offered", [])
    for name in not_offered:
        if name not in families and name not in codes:
            raise ProfileError(f"{where}: not_offered names no family or selection {name!r}")
    for family in changes.get("triple_loss_families", []):
        if family not in families:
            raise ProfileError(f"{where}: triple_loss_families names no family {family!r}")
    try:
        selections = []
        for s in table.selections:
            odds = s.odds_by_count
            if s.code in by_code:
                odds = {1: _odds(by_code[s.code], f"{where} {s.code}")}
            elif s.family in by_family:
                odds = {1: _odds(by_family[s.family], f"{where} {s.family}")}
            losing = s.loses_on_triple
            if "triple_loss_families" in changes:
                losing = s.family in changes["triple_loss_families"]
            selections.append(replace(s, odds_by_count=odds, loses_on_triple=losing))
    except PaytableError as error:
        raise ProfileError(str(error)) from None
    declared = changes.get("declared_max_rtp_percent", table.declared_max_rtp_percent)
    if not isinstance(declared, str) or not re.fullmatch(r"\d{1,3}\.\d\d", declared):
        raise ProfileError(
            f"{where}: declared_max_rtp_percent = {declared!r} must be a percentage with two "
            'decimals, written as text (e.g. "97.22"): a TOML number is not exact'
        )
    profiled = replace(
        table,
        profile=profile.name,
        selections=tuple(selections),
        declared_max_rtp_percent=declared,
        by_code={},
    )
    from livecert.rules.rtp import as_percent, theoretical_rtp  # rtp settles with the table

    # the table publishes its maximum over what it offers: selections it does not offer
    # (`not_offered`, families or codes) keep their odds but count for no maximum
    offered = [
        s for s in profiled.selections if s.family not in not_offered and s.code not in not_offered
    ]
    if not offered:
        raise ProfileError(f"{where}: not_offered leaves no selection offered")
    best = max(theoretical_rtp(profiled, s.code) for s in offered)
    if as_percent(best, 2) != Decimal(declared):
        over = " offered" if not_offered else ""
        raise ProfileError(
            f"{where}: declared_max_rtp_percent = {declared!r}, but the profile's own odds give "
            f"a highest return{over} of {as_percent(best, 2)}%: a target paying them could never "
            "match it (a selection the table does not offer: list it in not_offered)"
        )
    return profiled
