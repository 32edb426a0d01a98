"""JSON for money: numbers with a fraction read as Decimal and Decimals written exactly.

Python's `json` reads `10.10` as a float and cannot write a Decimal. An HTTP answer of a mapped
target is read with `parse_float=Decimal`; a stream's messages (python-socketio's packets, a
plain WebSocket's frames) go through this module, which has the two functions those libraries
call (`loads`, `dumps`), so an amount a live table writes as a JSON number is judged exactly,
never through float, and a slip's Decimal stakes are emitted as written.
"""

import json
from decimal import Decimal
from typing import Any

_MARK = "__livecert_exact_decimal__:"


def loads(text: str | bytes, **options: Any) -> Any:
    """JSON text read with every number that has a fraction or an exponent as a Decimal."""
    return json.loads(text, parse_float=Decimal, **options)


def dumps(value: Any, *, separators: tuple[str, str] = (",", ":"), **options: Any) -> str:
    """JSON text with each Decimal written as the exact number it holds."""

    def mark(node: Any) -> Any:
        if isinstance(node, Decimal):
            return _MARK + format(node, "f")
        if isinstance(node, dict):
            return {k: mark(v) for k, v in node.items()}
        if isinstance(node, list | tuple):
            return [mark(v) for v in node]
        return node

    text = json.dumps(mark(value), separators=separators, **options)
    while _MARK in text:
        start = text.index('"' + _MARK)
        end = text.index('"', start + 1)
        text = text[:start] + text[start + 1 + len(_MARK) : end] + text[end + 1 :]
    return text
