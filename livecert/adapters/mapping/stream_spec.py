"""The `streams` section of a mapping file and the operations that use it: its schema, and what
the schema cannot say (an operation that waits for a message no event rule names, a stream the
file never says how to join, templates naming what the stream is not given). docs/mapping.md,
"Live tables that push their rounds", explains every key."""

from typing import Any

_STR = {"type": "string"}
# what the harness reads from a stream: the adapter's operations wait for the first three; a
# bet sent with no acknowledgement is confirmed by `bet_placed` (or refused by `bet_refused`)
EVENT_KINDS = (
    "round_opened", "betting_closed", "result", "settled", "balance", "error", "bet_placed",
    "bet_refused",
)  # fmt: skip
CONFIRMED_BY = "bet_placed"  # the one event a bet's confirmation may name
CONFIRM_READS = ("get_round", "bet_record")  # the reads a bet's confirmation may poll
WAITS = {"open_round": "round_opened", "close_betting": "betting_closed", "enter_result": "result"}
STREAM_ACTIONS = {
    "get_round": "round",  # the round as the stream showed it
    "connect": "open",  # the player's stream joined again
    "disconnect": "close",  # the player's stream closed
    "record_event": "by-table",  # the table's own dealer shakes every round: nothing to send
}
_PREDICATE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["path"],
    "properties": {"path": _STR, "equals": {}, "in": {"type": "array"}},
}


def event_rule(answer: dict) -> dict:
    """One message the file names: its event, direction, an optional test, how it is read."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["event", "answer"],
        "properties": {
            "event": _STR,
            "direction": {"enum": ["in", "ack"]},
            "when": _PREDICATE,
            "answer": answer,
        },
    }


_SIDE = {  # how one kind of stream is joined: the table's (anyone's) or a player's
    "type": "object",
    "additionalProperties": False,
    "properties": {
        # the table's stream joined with a role's credentials (its headers, its login's cookies)
        "role": {"enum": ["operator", "dealer"]},
        "auth": {},
        "headers": {"type": "object"},
        "query": {"type": "object"},
        "join": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"emit": _STR, "data": {}, "ok": _PREDICATE},
        },
    },
}


def streams_schema(answer: dict) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["protocol", "events"],
        "properties": {
            "protocol": {"enum": ["socketio", "websocket"]},
            "path": {"type": "string", "pattern": "^/"},
            "namespace": {"type": "string", "pattern": "^/"},
            "kind_key": _STR,
            "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600_000},
            "settle_ms": {"type": "integer", "minimum": 0, "maximum": 600_000},
            "table": _SIDE,
            "player": _SIDE,
            "events": {
                "type": "object",
                "propertyNames": {"enum": list(EVENT_KINDS)},
                "additionalProperties": event_rule(answer),
                "minProperties": 1,
            },
        },
    }


def wait_operation(hook: dict) -> dict:
    """An operation that sends nothing of its own and returns when its message comes."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["wait"],
        "properties": {
            "role": {"enum": ["operator", "dealer", "player", "anonymous"]},
            "wait": {
                "type": "object",
                "additionalProperties": False,
                "required": ["event"],
                "properties": {"event": {"enum": list(WAITS.values())}},
            },
            "before": {"type": "array", "items": hook},
            "then": {"type": "array", "items": hook},
        },
    }


def emit_operation(answer: dict, responses: dict) -> dict:
    """A bet emitted on the player's stream, its acknowledgement read as the answer."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["emit"],
        "properties": {
            "role": {"const": "player"},
            "emit": {
                "type": "object",
                "additionalProperties": False,
                "required": ["event", "data"],
                "properties": {
                    "event": _STR,
                    "data": {},
                    "ack": {"type": "boolean"},  # false: the table answers the bet nothing
                    "answer_event": _STR,  # a plain WebSocket's answer: the next frame of a kind
                },
            },
            # how a bet sent with `ack: false` is seen taken: a pushed message, or a read
            "confirm": {
                "oneOf": [
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["event"],
                        "properties": {"event": {"const": CONFIRMED_BY}},
                    },
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["read"],
                        "properties": {
                            "read": {"enum": list(CONFIRM_READS)},
                            "every_ms": {"type": "integer", "minimum": 50, "maximum": 60_000},
                        },
                    },
                ]
            },
            "answer": answer,
            "responses": responses,
        },
    }


def stream_operation(action: str) -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["stream"],
        "properties": {"stream": {"const": action}},
    }


def stream_problems(data: dict[str, Any], names: Any, paths: Any) -> list[str]:
    """What the schema cannot say of the streams and the operations over them. `names` checks
    templates (TemplateNames), `paths` checks a field's paths (document._paths)."""
    problems: list[str] = []
    operations = data.get("operations", {})
    streams = data.get("streams")
    users = [
        name
        for name, op in operations.items()
        if isinstance(op, dict) and ({"wait", "emit", "stream"} & set(op))
    ]
    if streams is None:
        problems += [
            f"operations.{name}: goes over a stream, and the file has no streams section"
            for name in users
        ]
        return problems
    events = streams["events"]
    for name, op in operations.items():
        if not isinstance(op, dict):
            continue
        where = f"operations.{name}"
        if "wait" in op:
            wanted = WAITS.get(name)
            event = op["wait"]["event"]
            if wanted is None:
                problems.append(f"{where}.wait: only {', '.join(WAITS)} wait for a message")
            elif event != wanted:
                problems.append(f"{where}.wait.event: {name} waits for {wanted}, not {event}")
            elif event not in events:
                problems.append(
                    f"{where}.wait.event: streams.events names no {event} message to wait for"
                )
        if "stream" in op and STREAM_ACTIONS.get(name) != op["stream"]:
            problems.append(f"{where}.stream: {name} cannot be {op['stream']!r} on a stream")
        if "emit" in op:
            if name != "place_bets":
                problems.append(f"{where}.emit: only place_bets is emitted on a stream")
            else:
                problems += emit_problems(where, op, streams, operations)
            known = {"round_id", "game", "player", "bets", "bet", "idempotency_key"}
            names.check(op["emit"]["data"], known, f"{where}.emit.data", problems)
    if "settled" in events and "result" not in events:
        problems.append("streams.events.settled: settlements are awaited after a result message")
    for kind in ("error", "bet_refused"):
        if kind in events and not events[kind]["answer"].get("fields"):
            problems.append(
                f"streams.events.{kind}.answer: read the error's fields (code, message)"
            )
    if streams["protocol"] == "socketio" and "kind_key" in streams:
        problems.append("streams.kind_key: a Socket.IO event names itself (plain WebSocket only)")
    if streams["protocol"] == "websocket" and "namespace" in streams:
        problems.append("streams.namespace: a plain WebSocket has no namespace (Socket.IO only)")
    for side, known in (
        ("table", {"table_id", "game"}),
        ("player", {"player", "table_id", "game"}),
    ):
        spec = streams.get(side, {})
        role = spec.get("role")
        if role and side == "player":
            problems.append("streams.player.role: a player's stream is joined with its own token")
        elif role and role not in data.get("roles", {}):
            problems.append(f"streams.{side}.role: the file has no roles.{role} to join with")
        for part in ("auth", "headers", "query"):
            if part in spec:
                names.check(spec[part], known, f"streams.{side}.{part}", problems)
        join = spec.get("join")
        if join:
            names.check(join.get("data"), known, f"streams.{side}.join.data", problems)
            if streams["protocol"] == "socketio" and "emit" not in join:
                problems.append(f"streams.{side}.join: a Socket.IO join names the event it emits")
            if join.get("ok"):
                paths(join["ok"]["path"], f"streams.{side}.join.ok.path", problems)
    if "player" not in streams and any(
        "emit" in (op or {}) or (op or {}).get("stream") in ("open", "close")
        for op in operations.values()
        if isinstance(op, dict)
    ):
        problems.append(
            "streams.player: the file emits bets or reconnects players, so say how a player joins"
        )
    for kind, rule in events.items():
        place = f"streams.events.{kind}"
        if "when" in rule:
            paths(rule["when"]["path"], f"{place}.when.path", problems)
        for field_name, spec in rule["answer"].get("fields", {}).items():
            paths(spec, f"{place}.answer.fields.{field_name}", problems)
        if "from" in rule["answer"]:
            paths(rule["answer"]["from"], f"{place}.answer.from", problems)
    needs = {"round_opened": "round_id", "betting_closed": "round_id", "result": "round_id"}
    shapes = data.get("shapes", {})
    if CONFIRMED_BY in events:
        problems += _confirmation_problems(events[CONFIRMED_BY]["answer"], shapes)
    for kind, field_name in {**needs, "settled": "bet_id"}.items():
        if kind not in events:
            continue
        answer = events[kind]["answer"]
        read = answer.get("fields") or shapes.get(answer.get("shape"), {})
        if field_name not in read:
            problems.append(
                f"streams.events.{kind}.answer: reads no {field_name} (the harness tells the "
                "rounds and bets apart by it)"
            )
    if "result" in events:
        answer = events["result"]["answer"]
        if "result" not in (answer.get("fields") or shapes.get(answer.get("shape"), {})):
            problems.append("streams.events.result.answer: reads no result")
    return problems


def emit_problems(where: str, op: dict, streams: dict, operations: dict) -> list[str]:
    """What the schema cannot say of a bet sent on the player's stream: how its answer comes
    (an acknowledgement, a plain WebSocket's next frame of a kind, or none and a confirmation),
    each said where the file says it."""
    emit, problems = op["emit"], []
    socketio = streams["protocol"] == "socketio"
    answered = emit.get("ack", True)
    confirm = op.get("confirm")
    if answered and confirm is not None:
        problems.append(
            f"{where}.confirm: a bet answered by its acknowledgement is confirmed by it; "
            "confirm is for emit.ack: false"
        )
    if not answered:
        if confirm is None:
            problems.append(
                f"{where}.confirm: a bet the table does not answer (emit.ack: false) must say how "
                f"it is seen taken: confirm: {{event: {CONFIRMED_BY}}} or {{read: get_round}}"
            )
        for key in ("answer", "responses"):
            if key in op:
                problems.append(
                    f"{where}.{key}: a bet the table does not answer (emit.ack: false) has no "
                    f"answer to read; its confirmation is read by streams.events.{CONFIRMED_BY}"
                )
        if "answer_event" in emit:
            problems.append(f"{where}.emit.answer_event: emit.ack: false waits for no answer")
    if socketio and "answer_event" in emit:
        problems.append(
            f"{where}.emit.answer_event: a Socket.IO emit is answered by its acknowledgement "
            "(answer_event is a plain WebSocket's)"
        )
    if not socketio and answered and "answer_event" not in emit:
        problems.append(
            f"{where}.emit: an emit with its acknowledgement needs a Socket.IO stream: on a plain "
            "WebSocket say which frame answers the bet (answer_event: its kind), or send it "
            "with ack: false and a confirm"
        )
    if not socketio:
        data, key = emit["data"], streams.get("kind_key", "type")
        if not isinstance(data, dict):
            problems.append(f"{where}.emit.data: a plain WebSocket's frame is an object here")
        elif key in data and data[key] != emit["event"]:
            problems.append(
                f"{where}.emit.data.{key}: the frame's kind is emit.event ({emit['event']!r}), "
                f"not {data[key]!r}"
            )
    if confirm and "event" in confirm and confirm["event"] not in streams["events"]:
        problems.append(
            f"{where}.confirm.event: streams.events names no {confirm['event']} message to "
            "confirm the bet by"
        )
    if confirm and "read" in confirm:
        read = operations.get(confirm["read"])
        if not isinstance(read, dict):
            problems.append(f"{where}.confirm.read: the file has no {confirm['read']} operation")
        elif "request" not in read:
            problems.append(
                f"{where}.confirm.read: {confirm['read']} sends no request (a round as the "
                "stream showed it is the harness's own: it cannot confirm a bet)"
            )
    return problems


def _confirmation_problems(answer: dict, shapes: dict) -> list[str]:
    """A pushed confirmation reads each bet's id, selection and stake: one bet's fields, or a
    `bets` list (or one object) through a shape; the harness tells the bet sent by them."""
    fields = answer.get("fields") or shapes.get(answer.get("shape"), {})
    place = f"streams.events.{CONFIRMED_BY}.answer"
    bets = fields.get("bets")
    if isinstance(bets, dict) and "shape" in bets:
        fields, place = shapes.get(bets["shape"], {}), f"shapes.{bets['shape']}"
    missing = [name for name in ("bet_id", "selection", "stake") if name not in fields]
    if not missing:
        return []
    return [
        f"{place}: reads no {', '.join(missing)} (a confirmation names each bet it shows taken, "
        "its selection and its stake: read them as fields, or bets with a shape)"
    ]
