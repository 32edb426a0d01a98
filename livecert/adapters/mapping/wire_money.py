"""Money as a vendor writes it: major units or minor units, as numbers, numeric strings or
locale-formatted strings ("1.234,50", "1,234.50", "1.234.000"). Always exact: JSON numbers are
read as Decimal (the adapter parses answers with `parse_float=Decimal`), never as floats.

A format says how amounts are written, not what the vendor refuses: only a format declared
`strict` says that an amount written any other way ("+10.00", "010.00", "1e3") is refused.
"""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

FORMATS = ("integer", "number", "string", "locale")
# an amount in the contract's own notation (its BetRequest.stake pattern; tests hold them equal):
# the one text stake the adapter re-writes in the vendor's format; any other is sent as written
PLAIN_AMOUNT = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]{1,6})?")


def is_plain_amount(text: str) -> bool:
    """Text writing an amount in the contract's notation ("-1.00", "0", "1.001"; not "+1",
    "010.00", "1e3", " 1.00")."""
    return bool(PLAIN_AMOUNT.fullmatch(text))


class WireMoneyError(ValueError):
    """An amount on the wire that the declared money format cannot read or write exactly."""


@dataclass(frozen=True)
class MoneyFormat:
    """How one field (or the whole API) writes amounts."""

    scale: str = "units"  # "units" (10.50) or "minor" (1050 for two decimals)
    format: str = "string"  # integer | number | string | locale
    minor_unit: int = 2
    thousands: str = ","
    decimal: str = "."
    strict: bool = False  # the vendor refuses an amount written any other way than this format

    def describe(self) -> str:
        """The format as the mapping declares it, for a check's message."""
        told = f"scale: {self.scale}, format: {self.format}"
        if self.format == "locale":
            told += f", thousands: {self.thousands!r}, decimal: {self.decimal!r}"
        return told + (", strict: true" if self.strict else "")

    def numeric(self) -> bool:
        """Amounts are JSON numbers on the wire (text is not an amount of this format)."""
        return self.format in ("integer", "number")

    def _factor(self) -> Decimal:
        return Decimal(10) ** self.minor_unit if self.scale == "minor" else Decimal(1)

    def write(self, amount: Decimal) -> Any:
        """Our exact amount as the vendor expects it on the wire."""
        value = amount * self._factor()
        if self.format == "integer" or (self.format == "number" and self.scale == "minor"):
            if value != value.to_integral_value():
                unit = "minor units" if self.scale == "minor" else "units"
                raise WireMoneyError(f"{amount} is not a whole number of {unit}")
            return int(value)
        if self.format == "number":
            return value  # serialised as a JSON number by the adapter's encoder
        places = Decimal(1).scaleb(-(self.minor_unit if self.scale == "units" else 0))
        if value == value.quantize(places):
            value = value.quantize(places)  # 10.5 is written "10.50"; 0.005 stays as it is
        text = format(value, "f")
        if self.format == "string":
            return text
        return self._localise(text)

    def _localise(self, text: str) -> str:
        sign = "-" if text.startswith("-") else ""
        whole, _, part = text.lstrip("-").partition(".")
        groups = []
        while len(whole) > 3:
            groups.insert(0, whole[-3:])
            whole = whole[:-3]
        grouped = self.thousands.join([whole, *groups])
        return sign + grouped + (self.decimal + part if part else "")

    def read(self, raw: Any) -> Decimal:
        """The vendor's amount as our exact Decimal in major units."""
        if isinstance(raw, bool) or raw is None:
            raise WireMoneyError(f"{raw!r} is not an amount")
        if isinstance(raw, float):
            raise WireMoneyError(f"{raw!r} was read as a float; amounts must stay exact")
        if isinstance(raw, int | Decimal):
            value = Decimal(raw)
        elif isinstance(raw, str):
            value = self._parse_text(raw)
        else:
            raise WireMoneyError(f"{raw!r} is not an amount")
        return value / self._factor() if self.scale == "minor" else value

    def _parse_text(self, raw: str) -> Decimal:
        text = raw.strip()
        if self.format == "locale":
            sep, dec = re.escape(self.thousands), re.escape(self.decimal)
            pattern = rf"-?\d{{1,3}}({sep}\d{{3}})*({dec}\d+)?|-?\d+({dec}\d+)?"
            if not re.fullmatch(pattern, text):
                raise WireMoneyError(
                    f"{raw!r} is not written with {self.thousands!r} for thousands and "
                    f"{self.decimal!r} for decimals"
                )
            text = text.replace(self.thousands, "").replace(self.decimal, ".")
        elif not re.fullmatch(r"-?\d+(\.\d+)?", text):
            raise WireMoneyError(f"{raw!r} is not a plain decimal amount")
        try:
            return Decimal(text)
        except InvalidOperation:
            raise WireMoneyError(f"{raw!r} is not an amount") from None
