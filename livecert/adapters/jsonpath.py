"""The small JSONPath a mapping file uses to read answers: `$.a.b[0].c`, `a.b`, `$['odd key']`.

A path starting with `$` reads from the whole answer; any other from the operation's data root.
No filters or wildcards: a mapping names one value per field, and a list is mapped with `each`.
"""

import re
from decimal import Decimal
from typing import Any

_TOKEN = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]|^([A-Za-z_][\w-]*)")
MISSING = object()


class PathError(ValueError):
    """A path the mapping file wrote that this reader cannot parse."""


def parse(path: str) -> tuple[bool, tuple[str | int, ...]]:
    """(absolute, steps) of `path`; raises PathError on anything outside the grammar."""
    absolute = path.startswith("$")
    rest = path[1:] if absolute else path
    steps: list[str | int] = []
    position = 0
    while position < len(rest):
        found = _TOKEN.match(rest, position) if position or not absolute else None
        if found is None and position == 0 and absolute:
            found = _TOKEN.match(rest, 0)
        if found is None or (found.group(4) and position):
            raise PathError(f"cannot read the path {path!r} at {rest[position:]!r}")
        name, index, quoted, first = found.groups()
        steps.append(int(index) if index is not None else (name or quoted or first))
        position = found.end()
    return absolute, tuple(steps)


def read(document: Any, steps: tuple[str | int, ...]) -> Any:
    """The value at `steps`, or MISSING when any step is absent."""
    here = document
    for step in steps:
        if isinstance(step, int):
            if not isinstance(here, list) or step >= len(here):
                return MISSING
            here = here[step]
        else:
            if not isinstance(here, dict) or step not in here:
                return MISSING
            here = here[step]
    return here


def holds(rule: dict, value: Any) -> bool:
    """Whether `value`, read at a `{path, equals | in}` rule's path, is what the rule wants: equal
    to `equals`, one of `in`, or (neither given) present and true. A mapping's success predicate
    and a login's `logged_in.body` both judge this way. An answer's numbers with a fraction are
    Decimals and the file's are floats: each is compared as the decimal the file writes."""
    if "equals" in rule:
        return _equal(value, rule["equals"])
    if "in" in rule:
        return any(_equal(value, wanted) for wanted in rule["in"])
    return value is not MISSING and bool(value)


def _equal(value: Any, wanted: Any) -> bool:
    """`value == wanted`, a float of the mapping file (YAML's 0.1) against an answer's Decimal
    compared as the decimal the file writes."""
    if isinstance(wanted, float) and isinstance(value, Decimal):
        return value == Decimal(repr(wanted))
    return value == wanted
