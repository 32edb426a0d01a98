"""Request templates of a mapping file: `${expression}` placeholders filled from the call.

A string that is exactly one placeholder keeps the value's type (a number stays a number, a list
a list); otherwise placeholders are written into the string. An expression is a dotted name with
filters: `${player.token}`, `${game|upper}`, `${bets|each(slip_item)}`. A value that renders to
None is left out of its form, query, headers or JSON object, so optional arguments vanish.
Two structured forms: `{json: TEMPLATE}` sends the rendered value as a JSON string (JSON inside a
form field) and `{each: EXPRESSION, as: NAME, item: TEMPLATE}` renders a list.
"""

import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from livecert.adapters import exact_json

PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")
FILTER = re.compile(r"([a-z_]+)(?:\((.*)\))?$")  # a filter and its argument: `join(,)`


class TemplateError(ValueError):
    """A placeholder that names nothing in the call, or an unknown filter."""


Filter = Callable[[Any, str | None], Any]


def _text(value: Any) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


BASIC_FILTERS: dict[str, Filter] = {
    "upper": lambda v, _: _text(v).upper(),
    "lower": lambda v, _: _text(v).lower(),
    "str": lambda v, _: _text(v),
    "int": lambda v, _: int(v),
    "join": lambda v, arg: (arg if arg is not None else ",").join(_text(x) for x in v),
    "json": lambda v, _: dump_json(v),
    "default": lambda v, arg: arg if v is None else v,
}


def dump_json(value: Any) -> str:
    """JSON text with Decimals written as exact numbers (never through float); anything else
    JSON cannot write as its text."""
    return exact_json.dumps(value, default=_text)


def lookup(context: Mapping[str, Any], name: str) -> Any:
    here: Any = context
    for part in name.split("."):
        if here is None:
            return None  # an absent optional value (no player on a dealer's read): absent too
        if isinstance(here, Mapping) and part in here:
            here = here[part]
        elif hasattr(here, part) and not part.startswith("_"):
            here = getattr(here, part)
        else:
            raise TemplateError(f"${{{name}}} names nothing known here ({part!r} is missing)")
    return here


def evaluate(expression: str, context: Mapping[str, Any], filters: Mapping[str, Filter]) -> Any:
    name, *chain = [p.strip() for p in expression.split("|")]
    value = lookup(context, name)
    for step in chain:
        found = FILTER.fullmatch(step)
        if found is None or found.group(1) not in filters:
            known = ", ".join(sorted(filters))
            raise TemplateError(f"unknown filter {step!r} in ${{{expression}}} (known: {known})")
        if value is None and found.group(1) != "default":
            continue  # an absent optional argument stays absent
        value = filters[found.group(1)](value, found.group(2))
    return value


def render(template: Any, context: Mapping[str, Any], filters: Mapping[str, Filter]) -> Any:
    """The template with every placeholder filled; None values dropped from objects."""
    if isinstance(template, str):
        whole = PLACEHOLDER.fullmatch(template)
        if whole:
            return evaluate(whole.group(1), context, filters)
        return PLACEHOLDER.sub(lambda m: _text(evaluate(m.group(1), context, filters)), template)
    if isinstance(template, Mapping):
        if set(template) == {"json"}:
            return dump_json(render(template["json"], context, filters))
        if "each" in template and "item" in template:
            items = evaluate(template["each"], context, filters)
            name = template.get("as", "item")
            return [render(template["item"], {**context, name: item}, filters) for item in items]
        out = {}
        for key, value in template.items():
            rendered = render(value, context, filters)
            if rendered is not None:
                out[key] = rendered
        return out
    if isinstance(template, list):
        return [render(item, context, filters) for item in template]
    return template


def lookup_value(tables: Mapping[str, Mapping[str, Any]], table: str | None, value: Any) -> Any:
    """`${outcome|join(,)|lookup(seeds)}`: the row of a `values` table the value names (an RNG
    seed per outcome, a vendor's code per name); a value the table lacks is a mapping error."""
    if not table or table not in tables:
        raise TemplateError(f"lookup({table}) names no table of `values`")
    key = _text(value)
    if key not in tables[table]:
        raise TemplateError(f"values.{table} has no row {key!r}")
    return tables[table][key]
