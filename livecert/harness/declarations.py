"""A `/v1/info` outside its schema: the target's finding (CONTRACT-02), and the run goes on with
what is readable.

The canonical adapter refuses an answer outside the contract (a ContractViolation). For the
target's declarations that would end the run before its first scenario, incomplete; but a
declaration sent wrong is a finding like any other answer sent wrong. So the answer is read
again, leaving out each value outside its schema (a game's maximum RTP or limits sent as a
number, say): the clauses that depend on a value left out are not testable, with the reason,
and the rest of the run is judged as usual. Where what is left out is what every scenario needs
(the games, the currency, its minor unit, the rounding rule), the run still stops.
"""

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from livecert.adapters.evidence import Exchange
from livecert.adapters.model import TableLimits, TargetInfo, limits_from
from livecert.contract import Contract, ContractViolation
from livecert.rules.money import MoneyError, parse_money

INFO_PATH = "/v1/info"
# what no scenario can do without: outside its schema, the run stops (the finding recorded)
ESSENTIAL = ("implementation", "contract_version", "games", "currency", "minor_unit", "rounding")
PER_GAME = ("max_rtp", "limits")  # read game by game: one game's value wrong leaves the others
UNREAD = "not testable: GET /v1/info sent {field} outside its schema ({problem}; CONTRACT-02)"


@dataclass
class Declarations:
    """What the target declared, as far as it is readable, and each value left out (its
    place, `max_rtp.sicbo`, to what its schema wants there)."""

    info: TargetInfo | None
    unread: dict[str, str] = field(default_factory=dict)

    def reason(self, place: str) -> str | None:
        """Why a clause depending on the value at `place` is not testable, if it was left out."""
        for field_name in (place, place.partition(".")[0]):
            if field_name in self.unread:
                return UNREAD.format(field=field_name, problem=self.unread[field_name])
        return None


def info_answer(exchanges: list[Exchange]) -> Any:
    """The body of the last `/v1/info` answer among `exchanges` (the adapter's evidence)."""
    for exchange in reversed(exchanges):
        asked = exchange.method == "GET" and exchange.url.split("?")[0].endswith(INFO_PATH)
        if asked and exchange.status == 200 and exchange.response_body:
            # numbers read exactly: a limit sent as a number is still the harness's to keep
            return json.loads(exchange.response_body, parse_float=Decimal)
    return None


def read_declarations(contract: Contract, body: Any) -> Declarations:
    """`body` (a 200 answer to GET /v1/info) read with every value outside its schema left out;
    `info` None where an essential one is."""
    if not isinstance(body, dict):
        return Declarations(None, {"(the body)": "must be object"})
    kept = {k: (dict(v) if k in PER_GAME and isinstance(v, dict) else v) for k, v in body.items()}
    unread: dict[str, str] = {}
    kept_apart: dict[str, Any] = {}  # a game's limits outside their schema, for stake fitting
    for path, problem in contract.body_problems("GET", INFO_PATH, 200, body):
        if not path:  # a field missing: the schema names it, not the path
            name = problem.rpartition("must contain ")[2].strip("'")
            unread[name if name in body or name in ESSENTIAL else "(the body)"] = problem
            continue
        top = str(path[0])
        if top in PER_GAME and len(path) > 1 and isinstance(kept.get(top), dict):
            value = kept[top].pop(path[1], None)
            if top == "limits" and value is not None:
                kept_apart[str(path[1])] = value
            unread[f"{top}.{path[1]}"] = problem
        else:
            kept.pop(top, None)
            unread[top] = problem
    if any(name in unread or name not in kept for name in ESSENTIAL):
        return Declarations(None, unread)
    try:
        info = TargetInfo(
            name=kept["implementation"]["name"],
            version=kept["implementation"]["version"],
            contract_version=kept["contract_version"],
            games=tuple(kept["games"]),
            currency=kept["currency"],
            minor_unit=int(kept["minor_unit"]),
            rounding=kept["rounding"],
            max_rtp={g: parse_money(v) for g, v in (kept.get("max_rtp") or {}).items()},
            capabilities=tuple(kept.get("capabilities") or ()),
            limits={**_limits_kept_apart(kept_apart), **limits_from(kept.get("limits"))},
            instance=kept.get("instance"),
        )
    except (KeyError, TypeError, ValueError, MoneyError):  # pragma: no cover: the schema's
        return Declarations(None, unread)
    return Declarations(info, unread)


def _limits_kept_apart(raw: dict[str, Any]) -> dict[str, TableLimits]:
    """Limits sent outside their schema (numbers, say) as far as they still name amounts: no
    stake is sent outside what the table meant to declare, though REG-LIMIT-01 is not judged
    on them (`Declarations.reason`). A game whose limits name no amount is left without."""
    kept: dict[str, TableLimits] = {}
    for game, bounds in raw.items():
        try:
            kept.update(limits_from({game: bounds}))
        except (ArithmeticError, AttributeError, TypeError, ValueError):
            continue
    return kept


def declarations_despite(
    violation: ContractViolation, contract: Contract, exchanges: list[Exchange]
) -> Declarations | None:
    """What is readable of the `/v1/info` answer the `violation` was raised for (a body outside
    its schema, CONTRACT-02), or None when it is not such an answer."""
    body = info_answer(exchanges)
    if body is None or violation.status != 200:
        return None
    return read_declarations(contract, body)
