"""JSON for money: numbers with a fraction read as Decimal and Decimals written exactly.

Python's `json` reads `10.10` as a float and cannot write a Decimal. An answer of a mapped target
and a stream's messages (python-socketio's packets, a plain WebSocket's frames) are read here,
so an amount a target writes as a JSON number is judged exactly, never through float, and a
slip's Decimal stakes are sent as written. A number no amount can be (an exponent past
MAX_EXPONENT, more than MAX_DIGITS digits) is refused as unreadable: `1e999999999` is 16 bytes
on the wire and a gigabyte written out.
"""

import json
import re
from decimal import Decimal
from typing import Any

MAX_DIGITS = 100
MAX_EXPONENT = 100
_MARK = "__livecert_exact_decimal__:"
_MARKED = re.compile('"' + re.escape(_MARK) + '([^"]*)"')


class NumberBeyondReason(ValueError):
    """A JSON number no amount or count can be: refused before it is written out."""


def _number(text: str) -> Decimal:
    number = Decimal(text)
    digits, exponent = len(number.as_tuple().digits), number.adjusted()
    if digits > MAX_DIGITS or abs(exponent) > MAX_EXPONENT:
        raise NumberBeyondReason(
            f"a number ({text[:40]}) of {digits} digits and order 10^{exponent}: beyond any "
            f"amount (at most {MAX_DIGITS} digits, orders 10^-{MAX_EXPONENT} to 10^{MAX_EXPONENT})"
        )
    return number


def loads(text: str | bytes, **options: Any) -> Any:
    """JSON text read with every number that has a fraction or an exponent as a Decimal;
    ValueError for text that is not JSON, NumberBeyondReason for a number beyond any amount."""
    return json.loads(text, parse_float=_number, **options)


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

    return _MARKED.sub(r"\1", json.dumps(mark(value), separators=separators, **options))
