"""Whose word demands that a stake be refused: the rules, by its value, or a written format, by
its notation.

A stake that is no valid amount (no number at all, zero or less, finer than the minor unit,
more than the player holds) is refused by the rules (REG-INPUT-01) at any target. A valid amount
written another way ("+10.00", "010.00", "1e3", "1,000.00", " 10.00") differs only in its
*notation*, which no rule names: its refusal is demanded only where something written excludes
that notation (the contract's stake pattern at a canonical target; a mapping's money format
declared `strict`). Elsewhere a target that takes "+10.00" as 10.00 breaks nothing written, so
the example is not testable there (`Unsupported`, naming the notation and what would make it
testable). Every demand is returned as the sentence the check's message cites.
"""

import contextlib
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from livecert.adapters.errors import Unsupported
from livecert.adapters.mapping.wire_money import MoneyFormat, WireMoneyError, is_plain_amount
from livecert.contract import load_contract

CONTRACT, MAPPING, ADAPTER = "contract", "mapping", "adapter"
INPUT = "REG-INPUT-01"
# a number as most software reads one: a sign, leading zeros, a bare point, an exponent
_NUMERAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")  # "1,000.00": thousands grouped
_GROUPED_COMMA = re.compile(r"[+-]?\d{1,3}(\.\d{3})+(,\d*)?")  # "1.000,00"


@cache
def contract_stake_pattern() -> str:
    """The contract's pattern for a stake (BetRequest.stake in livecert/contract/openapi.yaml)."""
    schemas = load_contract().spec["components"]["schemas"]
    return schemas["BetRequest"]["properties"]["stake"]["pattern"]


@dataclass(frozen=True)
class Notation:
    """Who writes down how this target's stakes are spelled: the contract (the canonical
    adapter), a mapping file's money format, or nobody (another adapter)."""

    kind: str
    money: MoneyFormat | None = None

    @classmethod
    def of(cls, adapter: object, checks_contract: bool) -> "Notation":
        if checks_contract:
            return cls(CONTRACT)
        money = getattr(adapter, "money", None)  # the guards hand attributes on to the adapter
        return cls(MAPPING, money) if isinstance(money, MoneyFormat) else cls(ADAPTER)


def readings(raw: str, notation: Notation | None = None) -> tuple[Decimal, ...]:
    """Every amount `raw` may stand for as software reads numbers: spaces around it, a sign,
    leading zeros, an exponent; "," grouping thousands before a "." decimal point, or "."
    grouping them before a "," decimal comma ("1,000" is 1000 or 1.000), and the mapping's own
    locale. None where it stands for no amount in any of them. An amount in the contract's own
    notation ("1.001") is read as the contract reads it: that is the amount the adapters send."""
    if is_plain_amount(raw):
        return (Decimal(raw),)
    text = raw.strip()
    candidates = [text.replace(",", "") if _GROUPED.fullmatch(text) else text]
    if _GROUPED_COMMA.fullmatch(text) or re.fullmatch(r"[+-]?\d+,\d+", text):
        candidates.append(text.replace(".", "").replace(",", "."))
    found = {Decimal(c): None for c in candidates if _NUMERAL.fullmatch(c)}
    money = notation.money if notation else None
    if money is not None and money.format == "locale":
        own = MoneyFormat(format="locale", thousands=money.thousands, decimal=money.decimal)
        with contextlib.suppress(WireMoneyError, ArithmeticError):
            found.setdefault(own.read(raw), None)
    return tuple(found)


def denoted(raw: str) -> Decimal | None:
    """The one amount `raw` stands for where it is read alike everywhere, else None."""
    found = readings(raw)
    return found[0] if len(found) == 1 else None


def decimals(value: Decimal) -> int:
    """How many decimals the amount needs (10.50 needs 1, 1E+3 none); exact at any size."""
    _sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # a finite amount (denoted() reads no NaN nor Infinity)
    trailing = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return 0 if not any(digits) else max(0, -(exponent + trailing))


def written_decimals(raw: str) -> int:
    """How many decimals `raw` writes ("1.000": 3)."""
    text = raw.strip()
    return len(text.partition(".")[2]) if "." in text and "e" not in text.lower() else 0


def shown(value: Decimal) -> str:
    return f"{value:f}" if -30 < value.adjusted() < 30 else str(value)


def spelled(raw: str, minor_unit: int) -> str:
    """What sets `raw` apart from the contract's notation ("10.50"), in words."""
    text, marks = raw.strip(), []
    if text != raw:
        marks.append("spaces around it")
    if text.startswith("+"):
        marks.append("a sign")
    if re.search(r"[0-9][eE]", text):
        marks.append("an exponent")
    if _GROUPED.fullmatch(text) or _GROUPED_COMMA.fullmatch(text):
        marks.append("a thousands separator")
    elif "," in text:
        marks.append("a decimal comma")
    if re.match(r"[+-]?0[0-9]", text):
        marks.append("a leading zero")
    if re.match(r"[+-]?\.", text) or text.endswith("."):
        marks.append("a bare decimal point")
    if not marks and written_decimals(raw) > minor_unit:
        marks.append(f"zeros past the minor unit's {minor_unit} decimals")
    plain = "the contract's notation" if is_plain_amount(raw) else "another notation"
    return " and ".join(marks) or plain


def refusal_demand(
    raw: str, notation: Notation, minor_unit: int, rest: Decimal, held: Decimal
) -> str:
    """Whose word demands the refusal of a slip holding the stake `raw` (its other stakes come
    to `rest`, the player holds `held`): the rules by the value, the notation's own source, or
    the rules by the balance, in that order. Raises Unsupported where nothing written does."""
    values = readings(raw, notation)
    faults = [_value_fault(raw, value, minor_unit) for value in values]
    if not values:
        return f"{INPUT} by its value: {raw!r} is no amount in any notation"
    if all(faults):
        return str(faults[0])  # whichever way it is read, it is no stake
    valid = [value for value, fault in zip(values, faults, strict=True) if fault is None]
    excluded = _notation_excluded(raw, valid, notation, minor_unit)
    if excluded:
        return excluded
    # each reading over what the player holds (one alone first: 1e999999999 overflows a sum)
    if all(value > held or rest + value > held for value in valid):
        value = valid[0]
        staked = (
            shown(value) if value > held else f"{shown(value)}, and the slip {shown(rest + value)}"
        )
        return (
            f"{INPUT} by its value: {raw!r} stakes {staked}, more than the {held} the player holds"
        )
    raise Unsupported(f"refuse the stake {raw!r}", _why_not(raw, valid[0], notation, minor_unit))


def _value_fault(raw: str, value: Decimal, minor_unit: int) -> str | None:
    """REG-INPUT-01 by the value, in any notation: none above zero, or one finer than the
    currency's minor unit (declares `minor_unit`), is no stake at all."""
    if value <= 0:
        return f"{INPUT} by its value: {raw!r} is {shown(value)}, not an amount above zero"
    if decimals(value) > minor_unit:
        return (
            f"{INPUT} by its value: {raw!r} is {shown(value)}, finer than the declared minor "
            f"unit ({minor_unit} decimals)"
        )
    return None


def _notation_excluded(
    raw: str, valid: list[Decimal], notation: Notation, minor_unit: int
) -> str | None:
    """The source excluding the notation of `raw` (a valid amount, read as any of `valid`),
    or None where none does."""
    how = spelled(raw, minor_unit)
    if notation.kind == CONTRACT:
        pattern = contract_stake_pattern()
        if not re.search(pattern, raw):
            return (
                f"the contract's stake pattern {pattern} (BetRequest.stake, "
                f"livecert/contract/openapi.yaml) excludes {raw!r}: {how}"
            )
        if written_decimals(raw) > minor_unit:
            return (
                f'docs/contract.md, "Money and rounding": {raw!r} writes more decimals than the '
                f"minor unit ({minor_unit}), and such a stake is refused"
            )
        return None
    money = notation.money
    if notation.kind != MAPPING or money is None or not money.strict or is_plain_amount(raw):
        return None  # a plain amount is written in the vendor's format: its notation is lost
    declared = f"the mapping's declared money format ({money.describe()})"
    if money.numeric():
        return f"{declared}: amounts are JSON numbers, and {raw!r} is text, so it is refused"
    written = [_written(money, value) for value in valid]
    if raw in written:
        return None  # the format's own writing of an amount it stands for
    shows = written[0] if written[0] is not None else "no text (it cannot write it)"
    return f"{declared} writes {shown(valid[0])} as {shows!r}; {raw!r} ({how}) is refused"


def _written(money: MoneyFormat, value: Decimal) -> object:
    try:
        return money.write(value)
    except (WireMoneyError, ArithmeticError):  # an amount it cannot write is none of its own
        return None


def _why_not(raw: str, value: Decimal, notation: Notation, minor_unit: int) -> str:
    """Why nothing written demands the refusal of `raw`, and what would make it testable."""
    amount, how = shown(value), spelled(raw, minor_unit)
    money = notation.money
    if notation.kind == CONTRACT:
        return (
            f"{raw!r} is {amount}, a valid stake within the balance: no clause demands its refusal"
        )
    if notation.kind == MAPPING and money is not None and is_plain_amount(raw):
        return (
            f"{raw!r} is the valid stake {amount}, and the mapping writes it in the target's "
            f"money format ({money.describe()}): its notation never reaches the target"
        )
    if notation.kind == MAPPING and money is not None:
        reading = (
            "sent as text it would try how the target reads a string where its API takes a "
            "JSON number, not the notation of a stake"
            if money.numeric()
            else f"the target may read it as {amount}"
        )
        return (
            f"{raw!r} writes the valid stake {amount} with {how}; neither the rules nor the "
            f"mapping's money format ({money.describe()}) refuse that notation, and {reading} "
            "(testable where the mapping declares `money: {strict: true}`, the vendor's "
            "documentation refusing any other notation of an amount)"
        )
    return (
        f"{raw!r} writes the valid stake {amount} with {how}; neither the rules nor this adapter "
        "declare that notation refused, so the target may read it as the amount it stands for"
    )
