"""Bet translation: our selection codes to a vendor's and back, from the mapping's tables.

A row maps one of our codes, or a pattern such as `TOTAL_{t}`, to the vendor's code (a string
pattern like `SUM{t}`) or to an object (an enum plus a payload, like `{type: SUM, value: "{t}"}`).
A row mapped to null is a selection the vendor does not offer. A code matching no row is sent
unchanged, so the vendor's refusal of an unknown selection can still be tested.
"""

import re
from collections.abc import Mapping
from typing import Any

_PARAM = re.compile(r"\{([a-z])\}")


class NotOffered(LookupError):
    """The vendor does not offer this selection (its mapping row is null)."""


def _pattern(text: str) -> re.Pattern[str]:
    parts, last = [], 0
    for found in _PARAM.finditer(text):
        parts.append(re.escape(text[last : found.start()]))
        parts.append(rf"(?P<{found.group(1)}>\d+)")
        last = found.end()
    parts.append(re.escape(text[last:]))
    return re.compile("".join(parts))


def _fill(template: Any, params: Mapping[str, str]) -> Any:
    if isinstance(template, str):
        filled = _PARAM.sub(lambda m: params[m.group(1)], template)
        whole = _PARAM.fullmatch(template)
        return int(filled) if whole else filled
    if isinstance(template, Mapping):
        return {k: _fill(v, params) for k, v in template.items()}
    return template


def _match(template: Any, value: Any, params: dict[str, str]) -> bool:
    if isinstance(template, str):
        if _PARAM.fullmatch(template):
            if isinstance(value, int | str) and str(value).isdigit():
                params[_PARAM.fullmatch(template).group(1)] = str(value)
                return True
            return False
        found = _pattern(template).fullmatch(value) if isinstance(value, str) else None
        if found:
            params.update(found.groupdict())
        return found is not None
    if isinstance(template, Mapping):
        return (
            isinstance(value, Mapping)
            and set(template) == set(value)
            and all(_match(template[k], value[k], params) for k in template)
        )
    return template == value


class SelectionTable:
    """One game's rows, in the mapping file's order (the first matching row wins)."""

    def __init__(self, rows: Mapping[str, Any]) -> None:
        self.rows = [(ours, _pattern(ours), theirs) for ours, theirs in rows.items()]
        self._offered: dict[str, bool] = {}  # asked for every selection of every sweep round
        self.held: dict[str, str] = {}  # our code -> why the run holds it back

    def hold(self, code: str, reason: str) -> None:
        """Treat `code` as not offered for the rest of the run, saying `reason`: a code the
        run's first moments found never winning where it must (mapping or target)."""
        self.held[code] = reason
        self._offered[code] = False

    def to_vendor(self, code: str) -> Any:
        if code in self.held:
            raise NotOffered(self.held[code])
        for ours, pattern, theirs in self.rows:
            found = pattern.fullmatch(code)
            if found:
                if theirs is None:
                    raise NotOffered(f"the target does not offer the selection {code} ({ours})")
                return _fill(theirs, found.groupdict())
        return code

    def offered(self, code: str) -> bool:
        if code not in self._offered:
            try:
                self.to_vendor(code)
                self._offered[code] = True
            except NotOffered:
                self._offered[code] = False
        return self._offered[code]

    def from_vendor(self, value: Any) -> str:
        for ours, _, theirs in self.rows:
            params: dict[str, str] = {}
            if theirs is not None and _match(theirs, value, params):
                return _PARAM.sub(lambda m, found=params: found.get(m.group(1), m.group(0)), ours)
        return value if isinstance(value, str) else str(value)
