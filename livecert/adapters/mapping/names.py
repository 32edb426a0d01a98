"""The names a mapping's templates may use, and what each one holds.

Every `${name.part|filter}` of a mapping file is checked when the file is loaded, every dotted
part included: a misspelt name (`${round}`), a part its value does not have (`${bet.stak}` in
`each: bets, as: bet`), a part of a single value (`${round_id.id}`), a capture no operation
makes or an unknown filter is refused with its place and the names it could be, instead of
failing the run halfway through. What each name holds is what the adapter really gives its
templates (tests/test_mapping.py holds the two together).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from livecert.adapters.mapping.template import BASIC_FILTERS, FILTER, PLACEHOLDER

# the filters a template may use: the basic ones, and `money` and `lookup`, which the adapter
# adds (an amount in the mapping's money format; a row of one of its `values` tables)
FILTERS = frozenset({*BASIC_FILTERS, "money", "lookup"})

_ROUND = {"round_id", "game"}
# the names each operation's templates may use, besides `vars` and `captured` (docs/mapping.md);
# the adapter's methods give exactly these (tests/test_mapping.py holds the two together)
OPERATION_CONTEXT: dict[str, set[str]] = {
    "info": set(),
    "create_player": {"balance"},
    "create_table": {"game"},
    "open_round": {"table_id", "countdown_ms", "game"},
    "close_betting": _ROUND,
    "get_round": _ROUND | {"player"},
    "get_round_as_player": _ROUND | {"player"},
    "pause_round": _ROUND | {"reason"},
    "resume_round": _ROUND | {"reason"},
    "cancel_round": _ROUND | {"reason"},
    "void_round": _ROUND | {"reason"},
    "record_reshake": _ROUND | {"reason"},
    "record_event": _ROUND | {"event"},
    "enter_result": _ROUND | {"dice", "tokens", "outcome"},
    "place_bets": _ROUND | {"player", "bets", "idempotency_key"},
    "balance": {"player"},
    "connect": {"player"},
    "disconnect": {"player"},
    "end_session": {"player"},
    "withdraw_bet": {"player", "bet_id"},
    "bet_record": {"player", "round_id"},
    "statistics": {"table_id", "game"},
    "restart_target": set(),
    # a table's history of finished rounds, a page at a time (the fairness battery)
    "round_history": {"table_id", "game", "after", "limit"},
    "play_round": {
        "player",
        "table_id",
        "game",
        "bets",
        "idempotency_key",
        "dice",
        "tokens",
        "outcome",
    },
}

# what an operation that waits on a live table's stream (`wait:`, stream_spec.WAITS) knows
# besides its own names: its round's table, for a hook naming it (the lab's force hook posting
# the next outcome of that table); live_ops.py gives it to the hooks
WAIT_CONTEXT = frozenset({"table_id"})


@dataclass(frozen=True)
class Holds:
    """What a template name holds: named parts (an object), items (a list `each` walks), or
    anything at all (a value captured from an answer: its shape is the target's)."""

    what: str
    parts: Mapping[str, "Holds"] = field(default_factory=dict)
    items: "Holds | None" = None
    anything: bool = False


ANYTHING = Holds("a value from an answer", anything=True)
PLAYER = Holds(
    "a player",
    {"player_id": Holds("the player's id"), "token": Holds("the player's credential")},
)
SINGLE: dict[str, Holds] = {
    "balance": Holds("an amount in the wire money format"),
    "game": Holds("the game (sicbo or xocdia)"),
    "table_id": Holds("the table's id"),
    "countdown_ms": Holds("a number of milliseconds"),
    "round_id": Holds("the round's id"),
    "reason": Holds("the reason given"),
    "event": Holds("the dealer's event"),
    "bet_id": Holds("the bet's id"),
    "idempotency_key": Holds("the request's idempotency key"),
    "after": Holds("the cursor of the page to read (absent for the first page)"),
    "limit": Holds("the most rounds a page may hold (an integer)"),
    "dice": Holds("the dice", items=Holds("a die")),
    "tokens": Holds("the tokens, in the mapping's symbols", items=Holds("a token")),
    "outcome": Holds("the result, ours", items=Holds("a die or a token")),
    "player": PLAYER,
    "account": Holds(
        "a listed account",
        {"user": Holds("the account's user name"), "password": Holds("the account's password")},
    ),
}
# create_player where the mapping lists accounts: the login of one, its balance read, never set
ACCOUNT_LOGIN = {"account"}


def _vendor_value(rows: list[Any]) -> Holds:
    """What a vendor's selection code holds: the keys of the objects some rows send (an enum
    plus a payload), or nothing more (a code)."""
    objects = [row for row in rows if isinstance(row, Mapping)]
    if not objects:
        return Holds("the vendor's selection code")
    keys = sorted({key for row in objects for key in row})
    parts = {key: _vendor_value([row[key] for row in objects if key in row]) for key in keys}
    return Holds("the vendor's selection", parts)


def _captures(operations: Mapping[str, Any]) -> set[str]:
    """Every name a `capture:` of the mapping fills (any step of any operation)."""
    names: set[str] = set()
    for operation in operations.values():
        for step in [operation, *operation.get("before", []), *operation.get("then", [])]:
            names |= set(step.get("capture", {}))
    return names


class TemplateNames:
    """Checks the templates of one mapping file against the names they may use."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        rows = [v for table in data.get("selections", {}).values() for v in table.values()]
        bet = Holds(
            "a bet of the slip",
            {
                "selection": _vendor_value([row for row in rows if row is not None]),
                "stake": Holds("the stake in the wire money format"),
                "code": Holds("our selection code"),
            },
        )
        self.tables = frozenset(data.get("values", {}))  # what `lookup(...)` may name
        variables = {name: Holds("a variable's value") for name in data.get("variables", {})}
        captured = {name: ANYTHING for name in _captures(data.get("operations", {}))}
        self.names: dict[str, Holds] = {
            **SINGLE,
            "bets": Holds("the slip", items=bet),
            "bet": bet,  # the one bet of a slip emitted a bet at a time (a live table's stream)
            "vars": Holds("the mapping's variables", variables),
            "captured": Holds("the values captured from earlier answers", captured),
        }

    def check(self, template: Any, known: set[str], where: str, problems: list[str]) -> None:
        """Add a problem for every placeholder of `template` that names anything the
        operation (with names `known`, besides vars and captured) does not have."""
        scope = {name: self.names[name] for name in known | {"vars", "captured"}}
        self._walk(template, scope, where, problems)

    def _walk(self, template: Any, scope: dict[str, Holds], where: str, problems: list) -> None:
        if isinstance(template, str):
            for expression in PLACEHOLDER.findall(template):
                self._expression(expression, scope, where, problems)
        elif isinstance(template, Mapping):
            if "each" in template and "item" in template:
                held = self._expression(str(template["each"]), scope, where, problems)
                item = ANYTHING
                if held is not None and not held.anything:
                    if held.items is None:
                        problems.append(
                            f"{where}.each: {template['each']} is {held.what}, not a list"
                        )
                    else:
                        item = held.items
                inner = {**scope, str(template.get("as", "item")): item}
                self._walk(template["item"], inner, f"{where}.item", problems)
                return
            for key, value in template.items():
                self._walk(value, scope, f"{where}.{key}", problems)
        elif isinstance(template, list):
            for item in template:
                self._walk(item, scope, where, problems)

    def _expression(
        self, expression: str, scope: dict[str, Holds], where: str, problems: list[str]
    ) -> Holds | None:
        """What `expression` holds, or None (with the problem added) when it names nothing."""
        name, *chain = [part.strip() for part in expression.split("|")]
        for step in chain:
            found = FILTER.fullmatch(step)
            if found is None or found.group(1) not in FILTERS:
                problems.append(
                    f"{where}: ${{{expression}}} uses an unknown filter {step!r} "
                    f"(known: {', '.join(sorted(FILTERS))})"
                )
            elif found.group(1) == "lookup" and found.group(2) not in self.tables:
                problems.append(
                    f"{where}: ${{{expression}}} looks up {found.group(2)!r}, which is no table "
                    f"of `values` (tables: {', '.join(sorted(self.tables)) or 'none'})"
                )
        first, *parts = name.split(".")
        if first not in scope:
            others = sorted(set(scope) - {"vars", "captured"})
            allowed = ", ".join(others) or "only vars and captured"
            problems.append(
                f"{where}: ${{{expression}}} names nothing this operation has (it has: {allowed})"
            )
            return None
        held, dotted = scope[first], first
        for part in parts:
            if held.anything:
                return ANYTHING
            if part not in held.parts:
                problems.append(f"{where}: ${{{expression}}} {self._missing(dotted, held, part)}")
                return None
            held, dotted = held.parts[part], f"{dotted}.{part}"
        return held

    @staticmethod
    def _missing(dotted: str, held: Holds, part: str) -> str:
        """Why `dotted.part` names nothing, with what `dotted` could be followed by."""
        if dotted == "vars":
            return f"names no variable {part!r} (variables: {', '.join(held.parts) or 'none'})"
        if dotted == "captured":
            captured = ", ".join(sorted(held.parts)) or "none"
            return f"names nothing a capture: of the mapping fills (captured: {captured})"
        if not held.parts:
            return f"names a part {part!r} of {dotted}, which is {held.what} with no parts"
        return (
            f"names nothing {dotted} has ({dotted} is {held.what}; it has: "
            f"{', '.join(sorted(held.parts))})"
        )
