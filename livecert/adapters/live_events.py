"""What a stream's messages mean, in the harness's words: a round opened, betting closed, the
result, a bet acknowledged or refused, a bet settled, a balance.

A live table says these things in its own words (`round:open`, `{"type": "tx.end"}`, ...). An
`EventRule` names which message means which, and where in it the round, the bet and the amount
are (the mapping file's JSONPath). An acknowledgement is read as `{"sent": what was sent,
"answer": its answer}`, since an answer seldom repeats the round it was about. `read_events`
turns a stream's log into `LiveEvent`s in the order they were seen. A message no rule names is
kept in the log as evidence and means nothing here; a message a rule names whose field cannot be
read is a `MappingAnswerError` (the rule's mistake or the target's answer, said with the
message), never silently skipped.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.jsonpath import MISSING, parse, read
from livecert.adapters.streams import ACK, IN, StreamLog, StreamMessage

ROUND_OPENED, BETTING_CLOSED, RESULT = "round_opened", "betting_closed", "result"
BET_ACKED, BET_REFUSED, SETTLED, BALANCE = "bet_acked", "bet_refused", "settled", "balance"
KINDS = (ROUND_OPENED, BETTING_CLOSED, RESULT, BET_ACKED, BET_REFUSED, SETTLED, BALANCE)
FIELDS = (
    "round_id", "bet_id", "selection", "amount", "returned", "balance", "server_time", "result",
)  # fmt: skip
MONEY_FIELDS = ("amount", "returned", "balance")


@dataclass(frozen=True)
class EventRule:
    """Which message means `kind`: its event name, the direction it travels (a pushed message,
    or the acknowledgement of a sent one), an optional test (`when`: a path and the value it
    must hold, e.g. an acknowledgement's `ok` true) and where each field is."""

    kind: str
    event: str
    paths: dict[str, str] = field(default_factory=dict)
    direction: str = IN
    when: tuple[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.kind!r} is not one of {', '.join(KINDS)}")
        unknown = set(self.paths) - set(FIELDS)
        if unknown:
            raise ValueError(f"{self.kind}: no field {', '.join(sorted(unknown))}")


@dataclass(frozen=True)
class LiveEvent:
    """One message read as what it means; `seq` and `stream` place it in the log."""

    kind: str
    stream: str
    seq: int
    at: float
    round_id: str | None = None
    bet_id: str | None = None
    selection: str | None = None  # the bet's code, in the harness's words
    amount: Decimal | None = None  # a bet's stake
    returned: Decimal | None = None  # what a settlement returns (stake and win)
    balance: Decimal | None = None
    server_time: float | None = None  # the target's own clock, where the message carries it
    result: Any = None


def _document(log: StreamLog, message: StreamMessage) -> Any:
    if message.direction == ACK and message.answers is not None:
        return {"sent": log.message(message.answers).data, "answer": message.data}
    return message.data


def _field(
    document: Any,
    message: StreamMessage,
    rule: EventRule,
    name: str,
    money: Callable[[Any], Decimal],
) -> Any:
    value = read(document, parse(rule.paths[name])[1])
    if value is MISSING or value is None:
        raise MappingAnswerError(
            f"reading the stream's {rule.event!r}",
            f"{rule.kind}.{name}",
            f"{rule.kind}.{name} reads {rule.paths[name]}, which message {message.seq} of stream "
            f"{message.stream} does not have",
            repr(message.data)[:500],
        )
    try:
        if name in MONEY_FIELDS:
            return money(value)
        if name == "server_time":
            return float(value)
    except (ArithmeticError, ValueError, TypeError) as error:
        raise MappingAnswerError(
            f"reading the stream's {rule.event!r}", f"{rule.kind}.{name}",
            f"{rule.kind}.{name} reads {value!r} in message {message.seq}: {error}",
            repr(message.data)[:500],
        ) from None  # fmt: skip
    return value if name == "result" else str(value)


def _holds(document: Any, message: StreamMessage, rule: EventRule) -> bool:
    if message.event != rule.event or message.direction != rule.direction:
        return False
    if rule.when is None:
        return True
    path, wanted = rule.when
    return read(document, parse(path)[1]) == wanted


def _decimal(value: Any) -> Decimal:
    """An amount as written: a JSON number through its text, never through a float's bits."""
    return Decimal(str(value))


def read_events(
    log: StreamLog, rules: list[EventRule], money: Callable[[Any], Decimal] = _decimal
) -> list[LiveEvent]:
    """Every message of the log a rule names, read as its event, in the log's order."""
    events = []
    for message in log.messages():
        document = _document(log, message)
        for rule in rules:
            if not _holds(document, message, rule):
                continue
            values = {name: _field(document, message, rule, name, money) for name in rule.paths}
            events.append(LiveEvent(rule.kind, message.stream, message.seq, message.at, **values))
    return events
