"""A mapping file, loaded and checked: the schema first, then what the schema cannot say
(operations the declared capabilities need, shapes and value tables that are named but missing,
paths and templates that cannot be parsed). Every problem is reported with where it is."""

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import yaml

from livecert.adapters.jsonpath import PathError, parse
from livecert.adapters.mapping.accounts import Account, AccountsError, parse_accounts
from livecert.adapters.mapping.history import ABSENT as HISTORY_ABSENT
from livecert.adapters.mapping.history import history_problems
from livecert.adapters.mapping.names import (
    ACCOUNT_LOGIN,
    OPERATION_CONTEXT,
    WAIT_CONTEXT,
    TemplateNames,
)
from livecert.adapters.mapping.schema import MAPPING_SCHEMA
from livecert.adapters.mapping.selections import SelectionTable
from livecert.adapters.mapping.stream_spec import stream_problems
from livecert.adapters.model import limits_from
from livecert.target_text import has_lone_surrogate, not_utf8, visible

REQUIRED_OPERATIONS = ("create_player", "create_table", "balance")
# what the harness needs each of them to read from its answer
ANSWER_NEEDS = {"create_player": "player_id", "create_table": "table_id", "balance": "balance"}
# a live round the harness drives: opened, bet on, closed and read. Every mapping maps them,
# unless its target plays instant rounds only (it declares instant-round and maps play_round).
LIVE_ROUND_OPERATIONS = ("open_round", "close_betting", "place_bets", "get_round")
# what an optional operation's absence means for the scenarios that need it (their skip reason)
ABSENCE_MEANS: dict[str, str] = {
    **dict.fromkeys(
        LIVE_ROUND_OPERATIONS,
        "the target plays instant rounds only: there is no live round to open, bet on, close "
        "or read",
    ),
    "enter_result": "the target cannot be told a live round's result (no outcome forcing "
    "there: the mapping has no enter_result)",
    "end_session": "a player's session cannot be ended (the mapping has no end_session): no "
    "expired session can be tried",
    "restart_target": "the target cannot be restarted mid-round through the mapping (it has "
    "no restart_target): interrupted games (REG-INTR-01) need --restart-hook instead",
    "round_history": HISTORY_ABSENT,
}
# what each capability needs the mapping to be able to do
CAPABILITY_OPERATIONS = {
    "pause": ("pause_round", "resume_round"),
    "statistics": ("statistics",),
    "disconnect": ("connect", "disconnect"),
    "reshake": ("record_reshake", "record_event"),
    "instant-round": ("play_round",),
    "round-history": ("round_history",),
}
# a slip sent twice with one key (REG-IDEMP-01): on a live round, an instant one, or both; each
# of them mapped must carry the key
IDEMPOTENT_OPERATIONS = ("place_bets", "play_round")
SHAPES = ("round", "bet", "record", "record_round", "chart_entry")
# what a `const` field may not have too: anything that reads the answer, and a default
CONST_EXCLUDES = ("path", "default", "cookie", "dice", "total", "tokens")
# what the harness judges: a constant there would make its check hold by construction (an id
# compared with the one asked, a state or status, an amount, an outcome, a selection)
NOT_CONSTANT = frozenset(
    {
        "round_id", "bet_id", "player_id", "table_id", "token", "state", "status", "outcome",
        "win", "returned", "net", "stake", "balance", "staked", "balance_before",
        "balance_after", "result", "selection", "bets", "rounds", "events", "results",
        "opened_at", "betting_ends_at", "win_multiplier", "return_multiplier",
    }
)  # fmt: skip


class MappingError(ValueError):
    """The mapping file cannot drive a target: it names where and what is wrong."""

    def __init__(self, source: str, problems: list[str]) -> None:
        listing = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"the mapping file {source} is not usable:\n{listing}")
        self.source, self.problems = source, problems


@dataclass
class MappingFile:
    """A checked mapping: the parsed document, where it came from, and its sha256."""

    data: dict[str, Any]
    source: str
    sha256: str
    selections: dict[str, SelectionTable] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    accounts: list[Account] = field(default_factory=list)  # pre-provisioned, lent per scenario

    @property
    def name(self) -> str:
        return self.data["name"]

    def operation(self, name: str) -> dict[str, Any] | None:
        return self.data["operations"].get(name)

    def logs_players_in(self) -> bool:
        """Whether create_player is a player's login (its answer reads the token from a
        cookie): its request is a login page, and a player made by it can log in again."""
        answer = (self.operation("create_player") or {}).get("answer") or {}
        fields = answer.get("fields") or {}
        return any(isinstance(f, dict) and "cookie" in f for f in fields.values())


@cache
def _validator():
    """The schema compiled once, on first use: compiling takes about two seconds, which every
    run without a mapping file (and every self-test run) should not pay."""
    return fastjsonschema.compile(MAPPING_SCHEMA)


def _schema_problem(error: fastjsonschema.JsonSchemaValueException) -> str:
    where = error.path[1:] if error.path and error.path[0] == "data" else error.path
    location = ".".join(str(p) for p in where) or "(top level)"
    message = error.message.replace(error.name, "").strip() if error.name else error.message
    return f"{location}: {message}"


def _paths(node: Any, where: str, problems: list[str]) -> None:
    """Every `path:` and bare-string field of the shapes must parse as a path; a `const`
    field reads nothing."""
    if isinstance(node, str):
        try:
            parse(node)
        except PathError as error:
            problems.append(f"{where}: {error}")
    elif isinstance(node, dict):
        clashing = [key for key in CONST_EXCLUDES if key in node]
        key = where.rsplit(".", 1)[-1]
        if "const" in node and key in NOT_CONSTANT:
            problems.append(
                f"{where}: a constant {key} would make the harness's check of it hold by "
                "construction: read it from the answer (only what the harness does not judge, "
                "such as the game, may be constant)"
            )
        if (
            "default" in node
            and key in NOT_CONSTANT
            and not any(k in node for k in ("path", "cookie", "dice", "total", "tokens"))
        ):
            problems.append(
                f"{where}: a default with no path is a constant {key}, whose check would hold "
                "by construction: read it from the answer, or leave it out (a bet's status is "
                'then its round\'s state; docs/mapping.md, "Fields and shapes")'
            )
        if "const" in node and clashing:
            problems.append(
                f"{where}: const is the value as given, so it cannot have "
                f"{' or '.join(clashing)} too (a constant reads nothing and is never absent)"
            )
        if "path" in node:
            _paths(node["path"], f"{where}.path", problems)
        if "match" in node and (key != "bets" or "shape" not in node):
            problems.append(
                f"{where}.match: says how a round's bets meet the slip's, so it belongs on a "
                "`bets` field read with a shape"
            )
        if "pattern" in node:
            try:
                if not re.compile(node["pattern"]).groupindex:
                    problems.append(f"{where}.pattern: names no group, so it reads nothing")
            except re.error as error:
                problems.append(f"{where}.pattern: not a regular expression ({error})")
        for key in ("dice", "total", "tokens"):
            if key in node and isinstance(node[key], str):
                _paths(node[key], f"{where}.{key}", problems)


def requests_of(operation: dict) -> dict[str, dict]:
    """The operation's requests by their place: `request`, or with `per_game` one per game
    (`request.per_game.sicbo`, ...)."""
    request = operation["request"]
    if "per_game" not in request:
        return {"request": request}
    return {f"request.per_game.{game}": r for game, r in request["per_game"].items()}


def may_resend(operation: dict, request: dict | None = None) -> bool:
    """Whether `request` (by default every request of the operation) may be sent again (a
    read, unless the file says)."""
    sent = [request] if request is not None else list(requests_of(operation).values())
    return operation.get("resend_safe", all(r["method"] == "GET" for r in sent))


def _answer_fields(operation: dict, shapes: dict) -> dict:
    """The fields an operation reads from its answer: its own, or its shape's."""
    answer = operation.get("answer", {})
    return answer.get("fields") or shapes.get(answer.get("shape"), {})


def _steps(operation: dict) -> list[dict]:
    """The operation's own request step, then its `before` and `then` hooks."""
    return [operation, *operation.get("before", []), *operation.get("then", [])]


def _operation_problems(
    name: str,
    op: dict,
    operations: dict,
    shapes: dict,
    names: TemplateNames,
    problems: list[str],
    known: set[str] | None = None,
) -> None:
    """What is wrong in one operation: its shape, the paths it reads, the names its templates
    use (`known`, or the operation's own), and what its polling re-sends."""
    where = f"operations.{name}"
    answer = op.get("answer", {})
    if answer.get("shape") and answer["shape"] not in shapes:
        problems.append(f"{where}.answer.shape: no shape named {answer['shape']!r}")
    responses = op.get("responses", {})
    if "data" in responses:
        _paths(responses["data"], f"{where}.responses.data", problems)
    for key, path in {**responses.get("error", {}), **responses.get("success", {})}.items():
        if key in ("path", "code", "message"):
            _paths(path, f"{where}.responses.{key}", problems)
    if "from" in answer:
        _paths(answer["from"], f"{where}.answer.from", problems)
    for field_name, spec in answer.get("fields", {}).items():
        _paths(spec, f"{where}.answer.fields.{field_name}", problems)
    known = OPERATION_CONTEXT.get(name, set()) if known is None else known
    for index, step in enumerate(_steps(op)):
        for captured, path in step.get("capture", {}).items():
            _paths(path, f"{where}.capture.{captured}", problems)
        label = where if index == 0 else f"{where} (hook {index})"
        if "command" in step:
            names.check(step["command"], known, f"{label}.command", problems)
            for secret in set(step.get("secret", [])) - set(step.get("capture", {})):
                problems.append(f"{label}.secret: {secret!r} is not one of its captures")
            continue
        if "request" in step:  # (an operation over a stream sends none of its own)
            names.check(step["request"], known, f"{label}.request", problems)
    poll = op.get("poll")
    if not poll:
        return
    new_round = poll.get("new_round", False)
    polled = poll.get("operation", name if new_round else "get_round")
    if polled not in operations:
        problems.append(f"{where}.poll.operation: no operation {polled!r}")
        return
    if new_round:
        if name != "open_round":
            problems.append(f"{where}.poll.new_round: only open_round waits for a new round")
        elif not may_resend(operations[polled]):
            problems.append(
                f"{where}.poll.new_round: it sends {polled} again and again, which must be "
                "a read (GET) or marked resend_safe: true"
            )
    if polled != name:
        # the polled request is filled in with this operation's names (and the round's id,
        # unless it waits for a new round)
        filled = known if new_round else known | {"round_id"}
        for step in _steps(operations[polled]):
            template = step["command"] if "command" in step else step["request"]
            names.check(template, filled, f"{where}.poll ({polled})", problems)


def _per_game_problems(name: str, op: dict, games: list[str], problems: list[str]) -> None:
    """A request per game: only for an operation given the game, and exactly one for each
    game the file declares."""
    per_game = op["request"].get("per_game")
    if per_game is None:
        return
    where = f"operations.{name}.request.per_game"
    if "game" not in OPERATION_CONTEXT.get(name, set()):
        problems.append(
            f"{where}: {name} is not given the game, so it cannot choose a request per game "
            "(only an operation whose names include game can)"
        )
        return
    for game in games:
        if game not in per_game:
            problems.append(f"{where}: names no request for {game}, which declares.games lists")
    for game in per_game:
        if game not in games:
            problems.append(f"{where}.{game}: {game} is not a game declares.games lists")


def _lone_surrogate_at(data: Any, where: str = "the file") -> str | None:
    """Where in the parsed file a key or a string holds a lone surrogate, or None: a request
    holding one cannot be sent, so the adapter names the target's value that does (an id it
    gave), and the file's own is refused here."""
    if isinstance(data, str):
        return where if has_lone_surrogate(data) else None
    if isinstance(data, dict):
        for key, value in data.items():
            place = f"{where}.{visible(key)}" if where != "the file" else visible(key)
            if isinstance(key, str) and has_lone_surrogate(key):
                return place
            if (found := _lone_surrogate_at(value, place)) is not None:
                return found
    if isinstance(data, list):
        for index, value in enumerate(data):
            if (found := _lone_surrogate_at(value, f"{where}[{index}]")) is not None:
                return found
    return None


def load_mapping(path: str | Path, environ: dict[str, str] | None = None) -> MappingFile:
    """Read, validate and check a mapping file; raise MappingError listing every problem."""
    source = str(path)
    environ = dict(os.environ) if environ is None else environ
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise MappingError(source, [f"cannot read it: {error.strerror}"]) from None
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as error:
        raise MappingError(source, [f"not valid YAML: {error}"]) from None
    if (where := _lone_surrogate_at(data)) is not None:
        raise MappingError(
            source,
            [
                f'{where}: holds a lone surrogate (YAML\'s "\\ud800"), which is '
                "not valid Unicode: no request can carry it"
            ],
        )
    try:
        _validator()(data)
    except fastjsonschema.JsonSchemaValueException as error:
        raise MappingError(source, [_schema_problem(error)]) from None
    problems: list[str] = []
    # a game with no max_rtp is one whose table publishes none: never filled in with the rules'
    # (the check of the declared maximum would hold by construction)
    data["declares"].setdefault("max_rtp", {})
    operations = data["operations"]
    for game in data["declares"]["games"]:
        fixed = (operations.get("create_table") or {}).get("fixed")
        if fixed is not None and game not in fixed:
            problems.append(
                f"operations.create_table.fixed: names no table for {game}, which "
                "declares.games lists"
            )
    for name in REQUIRED_OPERATIONS:
        if name not in operations:
            problems.append(f"operations.{name}: missing (every mapping needs it)")
        elif "fixed" in operations[name]:
            continue  # a fixed table: nothing to read
        elif ANSWER_NEEDS[name] not in _answer_fields(operations[name], data.get("shapes", {})):
            problems.append(
                f"operations.{name}.answer.fields: reads no {ANSWER_NEEDS[name]} (the harness "
                "needs it from this answer)"
            )
    live = [name for name in LIVE_ROUND_OPERATIONS if name in operations]
    instant_only = "instant-round" in data["declares"].get("capabilities", []) and not live
    if not instant_only:
        for name in LIVE_ROUND_OPERATIONS:
            if name not in operations:
                problems.append(
                    f"operations.{name}: missing (a live round needs all of "
                    f"{', '.join(LIVE_ROUND_OPERATIONS)}; a target that plays instant rounds only "
                    "maps none of them, declares instant-round and maps play_round)"
                )
    for game, bounds in (data["declares"].get("limits") or {}).items():
        problem = limits_from({game: bounds})[game].problem()
        if problem:
            problems.append(f"declares.limits.{game}: {problem}")
    for op_name, op in operations.items():
        if "settlement" in op and op_name not in ("enter_result", "play_round"):
            problems.append(
                f"operations.{op_name}.settlement: only enter_result and play_round settle bets"
            )
    declared = data["declares"].get("capabilities", [])
    if "idempotency" in declared:
        _idempotency_problems(operations, problems)
    for capability in declared:
        for name in CAPABILITY_OPERATIONS.get(capability, ()):
            if name not in operations:
                problems.append(
                    f"declares.capabilities: '{capability}' needs operations.{name}, which is "
                    "missing"
                )
    if "batch-bets" in declared and not {"place_bets", "play_round"} & set(operations):
        problems.append(
            "declares.capabilities: 'batch-bets' needs operations.place_bets or "
            "operations.play_round (a slip of several bets in one request), and both are missing"
        )
    problems += history_problems(data)
    problems += stream_problems(data, TemplateNames(data), _paths)
    accounts_spec = data.get("accounts")
    shapes = data.get("shapes", {})
    tables = data.get("values", {})
    sessions = data.get("sessions", {})
    names = TemplateNames(data)
    for op_name, op in operations.items():
        if "request" in op:  # (a fixed table has none)
            login = ACCOUNT_LOGIN if op_name == "create_player" and accounts_spec else None
            _operation_problems(op_name, op, operations, shapes, names, problems, login)
            _per_game_problems(op_name, op, data["declares"]["games"], problems)
        elif "wait" in op or "emit" in op:  # its hooks and its answer, over a stream
            waits = OPERATION_CONTEXT.get(op_name, set()) | WAIT_CONTEXT if "wait" in op else None
            _operation_problems(op_name, op, operations, shapes, names, problems, waits)
    for name, session in sessions.items():
        names.check(session["login"], set(), f"sessions.{name}.login", problems)
        body = session.get("logged_in", {}).get("body")
        if body:
            _paths(body["path"], f"sessions.{name}.logged_in.body.path", problems)
    for role, auth in data.get("roles", {}).items():
        if auth.get("session") and auth["session"] not in sessions:
            problems.append(f"roles.{role}.session: no session named {auth['session']!r}")
        known = {"player"} if role == "player" else set()
        names.check(auth.get("headers", {}), known, f"roles.{role}", problems)
    for shape_name, fields in shapes.items():
        for field_name, spec in fields.items():
            where = f"shapes.{shape_name}.{field_name}"
            _paths(spec, where, problems)
            if isinstance(spec, dict):
                if isinstance(spec.get("values"), str) and spec["values"] not in tables:
                    problems.append(f"{where}.values: no value table named {spec['values']!r}")
                if spec.get("shape") and spec["shape"] not in shapes:
                    problems.append(f"{where}.shape: no shape named {spec['shape']!r}")
    for game in data["declares"]["games"]:
        if game not in data.get("selections", {}):
            problems.append(f"selections.{game}: missing (the mapping declares {game})")
    accounts = _accounts(accounts_spec, environ, problems) if accounts_spec else []
    login = json.dumps(operations.get("create_player") or {})
    if accounts_spec and "${account.user" not in login:
        problems.append(
            "operations.create_player: with accounts it is the login of one, and must send "
            "${account.user} (each lent account logs in as itself)"
        )
    variables: dict[str, str] = {}
    for name, spec in data.get("variables", {}).items():
        value = environ.get(spec["env"], spec.get("default"))
        if value is None:
            problems.append(f"variables.{name}: the environment variable {spec['env']} is not set")
        elif (bad := not_utf8(value)) is not None:
            problems.append(f"variables.{name}: the environment variable {spec['env']} {bad}")
        else:
            variables[name] = value
    if problems:
        raise MappingError(source, problems)
    selections = {g: SelectionTable(rows) for g, rows in data.get("selections", {}).items()}
    digest = hashlib.sha256(raw).hexdigest()
    return MappingFile(data, source, digest, selections, variables, accounts)


def _accounts(spec: dict, environ: dict[str, str], problems: list[str]) -> list[Account]:
    """The accounts the environment variable `spec.env` lists (a problem where it cannot)."""
    text = environ.get(spec["env"])
    if text is None:
        problems.append(
            f"accounts: the environment variable {spec['env']} is not set (the accounts the "
            "run may use, as user:password separated by commas)"
        )
        return []
    if (bad := not_utf8(text)) is not None:
        problems.append(f"accounts: the environment variable {spec['env']} {bad}")
        return []
    try:
        return parse_accounts(text, f"accounts: the environment variable {spec['env']}")
    except AccountsError as error:
        problems.append(str(error))
        return []


def _idempotency_problems(operations: dict[str, Any], problems: list[str]) -> None:
    """A declared idempotency needs a bet operation, and each one mapped sends the key."""
    mapped = [name for name in IDEMPOTENT_OPERATIONS if name in operations]
    if not mapped:
        problems.append(
            "declares.capabilities: 'idempotency' needs operations.place_bets or "
            "operations.play_round, and neither is mapped"
        )
    for name in mapped:
        if "emit" in operations[name]:
            if "idempotency_key" not in json.dumps(operations[name]["emit"]):
                problems.append(
                    f"declares.capabilities: 'idempotency' needs operations.{name}.emit.data "
                    "to send ${idempotency_key}: the target cannot know a resent bet without it"
                )
            continue
        for place, request in requests_of(operations[name]).items():  # each game's, per game
            if "idempotency_key" not in json.dumps(request):
                problems.append(
                    f"declares.capabilities: 'idempotency' needs operations.{name}.{place} to "
                    "send ${idempotency_key} (a header or a form field): the target cannot "
                    "know a resent slip without it"
                )


def shared_state(adapter: str | None) -> str | None:
    """Why the target's tables or players cannot be given to each worker of a run (--workers,
    pytest -n) or each table in play of its own: a mapping that plays at fixed tables, or that
    lends pre-provisioned accounts; None for any other adapter (or a file the run itself will
    say is wrong)."""
    if not adapter or not adapter.endswith((".yaml", ".yml")):
        return None
    try:
        mapping = load_mapping(adapter)
    except (MappingError, OSError):
        return None
    name = Path(adapter).name
    if (mapping.operation("create_table") or {}).get("fixed"):
        return f"the mapping {name} plays at fixed tables (create_table.fixed)"
    if mapping.data.get("accounts"):
        return f"the mapping {name} lends pre-provisioned accounts (accounts)"
    return None
