"""Reading a target's answers into the harness's views, through the mapping's shapes.

A path the mapping names must be in the answer, and the value there must be what the harness
reads it as (an id, an amount, an outcome, an object, a list); otherwise the mapping does not
fit the target's answers and `MappingAnswerError` says where, a harness error, never a finding
against the target. What the mapping's own rules let the target leave out is not an error:
a field with a `default`, a bet's outcome and amounts while the bet is open (or always, when
the mapping derives settlement from the balance), a round's result while it is not settled.
A null is the target's "no value" and is kept, except where the harness needs a value (an id,
a stake, a balance, a state).
"""

import re
import threading
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.jsonpath import MISSING, PathError, parse, read
from livecert.adapters.mapping.calls import Answer
from livecert.adapters.mapping.document import MappingFile
from livecert.adapters.mapping.sessions import PLAYER_TOKEN
from livecert.adapters.mapping.views import Views
from livecert.adapters.mapping.wire_money import MoneyFormat, WireMoneyError

# what the harness reads each field of its views as (the fields' names are the harness's, in
# whichever shape of the mapping they appear)
IDS = frozenset({"bet_id", "round_id", "player_id", "table_id"})
AMOUNTS = frozenset({"stake", "balance", "staked", "balance_before"})  # never null
NULLABLE_AMOUNTS = frozenset({"win", "returned", "net", "balance_after"})
# a bet's settlement written as a multiple of its stake ("small (Won x1)"): the net win's, or
# what it returned in all; a number, or null (views.py turns it into the amount)
MULTIPLIERS = frozenset({"win_multiplier", "return_multiplier"})
MULTIPLE = re.compile(r"\d+([.,]\d+)?")
TEXTS = frozenset({"state", "status", "selection"})  # never null
LISTS = frozenset({"bets", "rounds", "results", "events"})
# lists a table may give as one object where it holds one item (a one-bet slip acknowledged
# with `{bet: {...}}`): read, with a shape, as a list of one
ONE_OR_MANY = frozenset({"bets"})
OUTCOMES = ("win", "lose", "refund")
# the round states of the contract (docs/contract.md); a mapping's poll may name more, the
# target's transitional states it waits through
ROUND_STATES = ("betting", "closed", "paused", "settled", "cancelled", "void")
# a bet's, once it is settled
SETTLEMENT = frozenset({"outcome", "win", "returned", "net"}) | MULTIPLIERS
# fields the target may leave out of an answer while they are not due (see _not_due)
DEFERRED = SETTLEMENT | {"status", "result", "balance_after"}
_NAME = re.compile(r"[A-Za-z_][\w-]*")


def _show(where: str, steps: tuple[str | int, ...]) -> str:
    """The path `steps` below `where`, written as the mapping writes paths."""
    for step in steps:
        if isinstance(step, int):
            where += f"[{step}]"
        elif _NAME.fullmatch(step):
            where += f".{step}"
        else:
            where += f"['{step}']"
    return where


@dataclass(frozen=True)
class _Absent:
    """A field whose path is not in the answer: an error unless it is not due yet."""

    at: str
    part: str = ""  # the part of the field that reads it (a result's dice or tokens)
    there: str = ""  # what the object the path starts from holds instead

    @classmethod
    def of(cls, node: Any, where: str, at: str, part: str = "") -> "_Absent":
        """The path `at` read from `node` (at `where`), absent: with what `node` holds."""
        if isinstance(node, dict):
            there = f"; {where} holds: {', '.join(sorted(map(str, node))) or 'nothing'}"
        else:
            there = f"; {where} is {node!r}"
        return cls(at, part, there)


@dataclass(frozen=True)
class _Source:
    """The answer being read, for the errors: the operation and its text."""

    operation: str
    text: str
    secret: str = ""  # a player's token the answer carries: never quoted

    def error(self, path: str, problem: str) -> MappingAnswerError:
        text, problem = self.text, problem
        if self.secret:
            text = text.replace(self.secret, PLAYER_TOKEN)
            problem = problem.replace(self.secret, PLAYER_TOKEN)
        return MappingAnswerError(self.operation, path, problem, text)


def _token_in(fields: dict, node: Any) -> str:
    """The player token the answer carries where the mapping reads `token` (the adapter masks
    it once the player exists; an answer the mapping misreads must not quote it before)."""
    spec = fields.get("token")
    path = spec if isinstance(spec, str) else (spec or {}).get("path")
    if not isinstance(path, str):
        return ""
    try:
        value = read(node, parse(path)[1])
    except PathError:
        return ""
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""


class Reader(Views):
    """Turns judged answers into fields and views; remembers the rounds it has read (their
    games, for reading their bets' selections, and the results entered, for sorted dice)."""

    def __init__(self, mapping: MappingFile, money: MoneyFormat) -> None:
        self.mapping = mapping
        self.money = money
        # this thread's instant round being read (rounds run at the same moment each have
        # theirs): its result, and its slip's stakes by code, for a target that reports a bet's
        # result but not its stake (a settlement text), and the slip in order (for the
        # settlements a target lists in the slip's order)
        self._instant = threading.local()
        declares = mapping.data["declares"]
        self.minor_unit, self.rounding = int(declares["minor_unit"]), str(declares["rounding"])
        self.round_games: dict[str, str] = {}
        self.rounds_seen: set[str] = set()  # every round id an answer has shown
        self.entered: dict[str, tuple] = {}  # round id -> the result the harness entered
        # the operations whose settlement is read from the balance (a result's, or an instant
        # round's): their answers may leave each bet's settlement out, no other's
        self.from_balance = frozenset(
            name
            for name in ("enter_result", "play_round")
            if (mapping.operation(name) or {}).get("settlement") == "from-balance"
        )
        self.states = frozenset(ROUND_STATES) | {
            state
            for spec in (mapping.data.get("operations") or {}).values()
            if isinstance(spec, dict)
            for rule in ((spec.get("poll") or {}).get("while") or {},)
            for state in rule.get("state") or ()
        }

    def _settled_by_balance(self, name: str | None) -> bool:
        """Whether `name`'s answer may leave a bet's settlement out: an instant round settled
        from the balance, and, where live results are, every read of a live round (a poll's,
        the round read again, the record: the target never reports a bet's settlement)."""
        if name == "play_round" or (name is None and self.instant_result is not None):
            return "play_round" in self.from_balance
        return "enter_result" in self.from_balance

    @property
    def slip_stakes(self) -> dict[str, Decimal]:
        return getattr(self._instant, "stakes", {})

    @property
    def slip_bets(self) -> tuple[tuple[str, Decimal | None], ...]:
        return getattr(self._instant, "slip", ())

    @property
    def instant_result(self) -> tuple | None:
        return getattr(self._instant, "result", None)

    def reading_instant(
        self,
        result: tuple | None,
        stakes: dict[str, Decimal],
        slip: tuple[tuple[str, Decimal | None], ...] = (),
    ) -> None:
        """Set (or, with None, clear) this thread's instant round: its result, its stakes by
        code, and its bets in the order sent (a stake that is no amount: None)."""
        self._instant.result, self._instant.stakes, self._instant.slip = result, stakes, slip

    # -- answers into fields -------------------------------------------------------------------

    def answer(
        self,
        name: str,
        operation: str,
        spec: dict,
        answer: Answer,
        values: dict,
        none_yet: bool = False,
        waiting: bool = False,
        place: str | None = None,
    ) -> Any:
        """The fields (or shape) the operation's `answer` reads; None, with `none_yet`, when
        the answer holds no object (a table between rounds). `waiting`: read while a poll waits
        for the round to reach a state, so any state the target shows meanwhile is taken.
        `place` names where the file says how to read it (default `operations.NAME`; a stream
        message's `streams.events.KIND`)."""
        place = place or f"operations.{name}"
        reads = spec.get("answer", {})
        if not reads:
            return {}
        src = _Source(operation, answer.text)
        node, where = answer.data, answer.root
        if node is MISSING:
            raise src.error(where, f"responses.data reads {where}, which the answer does not have")
        if "from" in reads:
            steps = parse(reads["from"])[1]
            node, where = read(node, steps), _show(where, steps)
            if node is MISSING:
                raise src.error(
                    where,
                    f"{place}.answer.from reads {where}, which the answer does not have",
                )
        src = _Source(operation, answer.text, _token_in(reads.get("fields", {}), node))
        ctx = {
            "from_balance": self._settled_by_balance(name),
            "game": values.get("game"),
            "round_id": values.get("round_id"),
            "waiting": waiting,
            "cookies": answer.cookies or {},
        }
        if none_yet and node is None:  # null: a table between rounds (a missing path is an error)
            return None
        place = f"{place}.answer"
        if "shape" in reads:
            return self._shape(
                reads["shape"], node, {**ctx, "none_yet": none_yet}, where, place, src
            )
        out = {}
        for key, field in reads.get("fields", {}).items():
            value = self._field(field, node, ctx, key, where, f"{place}.fields.{key}", src)
            if isinstance(value, _Absent):
                where_read = f"{place}.fields.{key}{value.part}"
                raise src.error(value.at, self._absent(where_read, value))
            out[key] = value
        return out

    @staticmethod
    def _absent(place: str, missing: _Absent) -> str:
        return f"{place} reads {missing.at}, which the answer does not have{missing.there}"

    def _shape(self, name: str, node: Any, ctx: dict, where: str, place: str, src: _Source) -> dict:
        if not isinstance(node, dict):
            raise src.error(where, f"{place} reads {where} as a {name}: {node!r} is not an object")
        fields = self.mapping.data["shapes"][name]
        out: dict[str, Any] = {}
        ctx = dict(ctx)
        order = [k for k in ("round_id", "game") if k in fields]  # selections and results
        order += [k for k in fields if k not in order]  # depend on them: read first
        absent: dict[str, _Absent] = {}
        for key in order:
            value = self._field(fields[key], node, ctx, key, where, f"shapes.{name}.{key}", src)
            if isinstance(value, _Absent):
                if key not in DEFERRED:
                    raise src.error(
                        value.at, self._absent(f"shapes.{name}.{key}{value.part}", value)
                    )
                absent[key], value = value, None
            out[key] = value
            if key == "round_id" and ctx.get("none_yet") and value in (None, ""):
                return {"round_id": None}  # no round yet: the rest of it is not there either
            if key in ("game", "round_id"):
                ctx[key] = value
                if ctx.get("round_id") and not ctx.get("game"):  # a round met before: its game
                    ctx["game"] = self.round_games.get(str(ctx["round_id"]))
        for key, missing in absent.items():
            if key not in self._not_due(out, ctx):
                where_read = f"shapes.{name}.{key}{missing.part}"
                raise src.error(missing.at, self._absent(where_read, missing))
        return out

    def _not_due(self, out: dict, ctx: dict) -> set[str]:
        """The fields the mapping's own rules let the answer leave out, given what it says."""
        not_due: set[str] = set()
        if ctx.get("from_balance"):  # settlement is read from the balance, never from the bet
            not_due |= SETTLEMENT | {"status"}
        if out.get("status") == "open":  # a bet not settled yet has no outcome or payout
            not_due |= SETTLEMENT
        state = out.get("state")
        if isinstance(state, str) and state != "settled":  # nothing to show before settlement
            not_due |= {"result", "returned", "balance_after"}
        return not_due

    def _field(
        self, spec: Any, node: Any, ctx: dict, key: str, where: str, place: str, src: _Source
    ) -> Any:
        """One field's value, checked as the harness reads it; _Absent when its path is not
        in the answer and the field has no default. A `const` is taken as given (no path
        read), then converted and checked like a value read."""
        if isinstance(spec, str):
            spec = {"path": spec}
        if "const" in spec:
            return self._value(spec, spec["const"], ctx, key, "const", place, src)
        if spec.get("as") == "result":
            return self._result(spec, node, ctx, where, place, src)
        if "cookie" in spec:  # a cookie the answer set: a session a login opened
            value = ctx.get("cookies", {}).get(spec["cookie"])
            if not value:
                raise src.error(
                    where,
                    f"{place} reads the cookie {spec['cookie']}, which the answer did not set",
                )
            return self._checked(key, value, ctx, f"cookie {spec['cookie']}", place, src)
        if "path" not in spec:
            return spec.get("default")
        steps = parse(spec["path"])[1]
        at = _show(where, steps)
        value = read(node, steps)
        if value is MISSING:
            if "default" not in spec:
                return _Absent.of(node, where, at)
            value = spec["default"]
        if value is None:
            value = spec.get("default")
        return self._value(spec, value, ctx, key, at, place, src)

    def _value(
        self, spec: dict, value: Any, ctx: dict, key: str, at: str, place: str, src: _Source
    ) -> Any:
        """A field's value (read at `at`, or a constant) parsed, translated by its value table,
        converted and checked as the harness reads `key`."""
        if "pattern" in spec and value is not None:
            value = self._parsed(spec, value, at, place, src)
        table = spec.get("values")
        if isinstance(table, str):
            table = self.mapping.data["values"][table]
        if table is not None and value is not None:
            value = table.get(str(value), value)
        if value is not None:
            value = self._convert(spec, value, ctx, key, at, place, src)
        return self._checked(key, value, ctx, at, place, src)

    @staticmethod
    def _parsed(spec: dict, value: Any, at: str, place: str, src: _Source) -> Any:
        """A text the target writes its settlements in ("small (Won 10,00); big (Lost)"), as
        the named groups of `pattern`: one object, or with `split` one per part; a list of
        texts (`["small (Won x1)", "big (Lost)"]`) one object per text (each split too)."""
        texts = value if isinstance(value, list) else [value]
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                shown = f"{at}[{index}]" if isinstance(value, list) else at
                raise src.error(
                    shown, f"{place} parses {shown} with a pattern: {text!r} is not a text"
                )
        pattern = re.compile(spec["pattern"])
        parts = [
            part
            for text in texts
            for part in ([text] if "split" not in spec else text.split(spec["split"]))
            if part or "split" not in spec
        ]
        parsed = []
        for part in parts:
            found = pattern.fullmatch(part.strip())
            if found is None:
                raise src.error(
                    at, f"{place} parses {at}: {part!r} does not match {spec['pattern']!r}"
                )
            parsed.append({k: v for k, v in found.groupdict().items() if v is not None})
        return parsed if "split" in spec or isinstance(value, list) else parsed[0]

    def _convert(
        self, spec: dict, value: Any, ctx: dict, key: str, at: str, place: str, src: _Source
    ) -> Any:
        """The value read `as` the field says (money, a selection, an int, a nested shape)."""
        if "shape" in spec:
            inner = {**ctx, "none_yet": False}  # only the answer's own round may be absent
            if key in ONE_OR_MANY and isinstance(value, dict):
                return [self._one(spec["shape"], value, inner, at, place, src)]
            if key in LISTS:
                self._checked(key, value, ctx, at, place, src)  # a list, before its items
            if isinstance(value, list):
                read_items = [
                    self._shape(spec["shape"], item, inner, f"{at}[{i}]", place, src)
                    for i, item in enumerate(value)
                ]
                if spec.get("match") == "order":  # the i-th settlement is the slip's i-th bet
                    sent = len(self.slip_bets)
                    if sent and len(read_items) != sent:
                        raise src.error(
                            at,
                            f"{place} matches the settlements to the slip by order (match: "
                            f"order), and the answer lists {len(read_items)} for a slip of "
                            f"{sent} bet(s): they cannot be paired",
                        )
                    for index, item in enumerate(read_items):
                        item["slip_index"] = index
                return read_items
            return self._shape(spec["shape"], value, inner, at, place, src)
        if key in MULTIPLIERS:
            return self._multiple(value, at, place, src)
        kind = spec.get("as")
        if kind == "money":
            fmt = self.money
            if "money" in spec:
                fmt = MoneyFormat(**{**self.money.__dict__, **spec["money"]})
            try:
                return fmt.read(value)
            except WireMoneyError as error:
                raise src.error(at, f"{place} reads {at} as an amount: {error}") from None
        if kind == "selection":
            game = ctx.get("game")
            table = self.mapping.selections.get(game) if game else None
            return table.from_vendor(value) if table else value
        if kind == "int":
            try:
                return int(value)
            except (TypeError, ValueError):
                raise src.error(at, f"{place} reads {at} as an integer: {value!r}") from None
        if kind == "str":
            return str(value)
        return value

    @staticmethod
    def _multiple(value: Any, at: str, place: str, src: _Source) -> Decimal:
        """A multiplier as written: a JSON number (read exactly) or a text such as "1", "0.96"
        or "0,96"; anything else is the mapping's error."""
        if isinstance(value, Decimal | int) and not isinstance(value, bool):
            return Decimal(value)
        if isinstance(value, str) and MULTIPLE.fullmatch(value.strip()):
            return Decimal(value.strip().replace(",", "."))
        raise src.error(at, f"{place} reads {at}: {value!r}, where the harness needs a multiplier")

    def _one(self, shape: str, value: dict, ctx: dict, at: str, place: str, src: _Source) -> dict:
        """One object where the harness reads a list (a one-bet slip acknowledged as `{bet:
        {...}}`): the list of one it is, where it reads as one `shape`; else (bets keyed by id,
        say) the list the harness needs, with why it is not one."""
        try:
            return self._shape(shape, value, ctx, at, place, src)
        except MappingAnswerError as error:
            raise src.error(
                at,
                f"{place} reads {at}: {value!r}, where the harness needs a list, or one object "
                f"that the shape {shape} reads (read as one: {error.problem})",
            ) from None

    def _checked(self, key: str, value: Any, ctx: dict, at: str, place: str, src: _Source) -> Any:
        """`value` if it is what the harness reads `key` as; MappingAnswerError otherwise."""
        needs = None
        if key in IDS:
            if key == "round_id" and ctx.get("none_yet") and value in (None, ""):
                return value  # no round yet (a table between rounds)
            if isinstance(value, bool) or not isinstance(value, int | str) or value == "":
                needs = "an id"
        elif key in AMOUNTS or (key in NULLABLE_AMOUNTS | MULTIPLIERS and value is not None):
            if not isinstance(value, Decimal):
                needs = "an amount (read with as: money)"
        elif key == "outcome" and value is not None and value not in OUTCOMES:
            needs = (
                "an outcome: win, lose or refund (or null while the bet is open); translate "
                "the target's with a value table"
            )
        elif key in TEXTS and not isinstance(value, str):
            if not (value is None and key == "status" and ctx.get("from_balance")):
                needs = f"a {key}"
        elif key == "state" and not ctx.get("waiting") and value not in self.states:
            needs = (
                f"a round state: {', '.join(ROUND_STATES)} (or one a poll waits through); "
                "translate the target's with a value table"
            )
        elif key in LISTS and not isinstance(value, list | None):
            needs = "a list"
        if needs:
            shown = "null" if value is None else repr(value)
            raise src.error(at, f"{place} reads {at}: {shown}, where the harness needs {needs}")
        return value

    def _result(
        self, spec: dict, node: Any, ctx: dict, where: str, place: str, src: _Source
    ) -> Any:
        """The vendor's result as the harness's: dice in the order entered when the vendor sorts
        them (and they are the same dice), tokens as r/w, totals and counts; _Absent when the
        answer has no dice (or tokens) where the mapping reads them."""
        outcomes = self.mapping.data.get("outcomes", {})
        game = ctx.get("game")
        part = "dice" if game == "sicbo" else "tokens"
        if part not in spec:
            return None
        steps = parse(spec[part])[1]
        at = _show(where, steps)
        raw = read(node, steps)
        if raw is MISSING:
            return _Absent.of(node, where, at, f".{part}")
        if raw is None:
            return None
        if not isinstance(raw, list | str):
            raise src.error(at, f"{place}.{part} reads {at}: {raw!r} is not a list or a text")
        if game == "sicbo":
            dice = self._dice(raw)
            entered = self.entered.get(str(ctx.get("round_id") or "")) or self.instant_result
            if (
                outcomes.get("dice_order") == "sorted"
                and entered
                and sorted(entered) == sorted(dice)
            ):
                dice = list(entered)
            total: Any = sum(dice) if all(isinstance(d, int) for d in dice) else None
            if "total" in spec:
                total_steps = parse(spec["total"])[1]
                total = read(node, total_steps)
                if total is MISSING:
                    total_at = _show(where, total_steps)
                    missing = _Absent.of(node, where, total_at)
                    raise src.error(total_at, self._absent(f"{place}.total", missing))
            return {"dice": dice, "total": total}
        red, white = outcomes.get("red", "r"), outcomes.get("white", "w")
        symbols = list(raw) if isinstance(raw, str) else [str(t) for t in raw]
        tokens = ["r" if s == red else "w" if s == white else s for s in symbols]
        return {"tokens": tokens, "red": tokens.count("r"), "white": tokens.count("w")}

    @staticmethod
    def _dice(raw: Any) -> list:
        if isinstance(raw, str):
            parts = [p for p in raw.replace("-", ",").replace(" ", ",").split(",") if p]
            if len(parts) == 1 and len(parts[0]) == 3:
                parts = list(parts[0])
            return [int(p) if p.isdigit() else p for p in parts]
        return list(raw)
