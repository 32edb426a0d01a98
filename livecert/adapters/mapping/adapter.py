"""The mapping adapter: drives a vendor-shaped API as a mapping file describes it, no Python.

Each adapter operation the steps call is one operation of the mapping file: a request rendered
from templates (with optional requests before and after it), sent in the role's session, judged
by the mapping's success predicate (not the HTTP status), and read back into the harness's model
through the file's shapes, value tables, money format, selection table and outcome rules. Every
request and answer is recorded as evidence, with secrets shown as the variables that hold them.
"""

import copy
import json
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any
from urllib.parse import quote, quote_plus, urlencode

import requests

from livecert.adapters.errors import CredentialsError, Refused, TargetError, Unsupported
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.http import DEFAULT_TIMEOUT
from livecert.adapters.mapping.document import (
    ABSENCE_MEANS,
    MappingError,
    MappingFile,
    may_resend,
)
from livecert.adapters.mapping.jsonpath import MISSING, parse, read
from livecert.adapters.mapping.selections import NotOffered
from livecert.adapters.mapping.template import BASIC_FILTERS, TemplateError, dump_json, render
from livecert.adapters.mapping.wire_money import MoneyFormat, WireMoneyError
from livecert.adapters.model import (
    BetRecord,
    BetView,
    PlayerHandle,
    RecordRound,
    RoundView,
    TargetInfo,
)
from livecert.adapters.transport import send_recorded

PLAIN_DECIMAL = re.compile(r"-?\d+(\.\d+)?")
DEALER_ACTIONS = {
    "pause": "pause_round",
    "resume": "resume_round",
    "cancel": "cancel_round",
    "void": "void_round",
}


def _form_value(value: Any) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, dict | list):
        return dump_json(value)
    return str(value)


class MappingAdapter:
    """A TargetAdapter for any HTTP API a mapping file describes."""

    def __init__(
        self,
        mapping: MappingFile,
        base_url: str | None = None,
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
        recorder: ExchangeRecorder | None = None,
    ) -> None:
        self.mapping = mapping
        data = mapping.data
        url = base_url or data.get("base_url")
        if not url:
            raise MappingError(mapping.source, ["base_url: missing, and no --target-url given"])
        self.base_url = url.rstrip("/")
        self.timeout = timeout
        self.recorder = recorder or ExchangeRecorder()
        declares = data["declares"]
        money = dict(data.get("money", {}))
        self.money = MoneyFormat(minor_unit=declares["minor_unit"], **money)
        self._jars: dict[str, requests.Session] = {}
        self._plain = self._new_session()
        self._forced: tuple[str, str] | None = None  # ("role", name) or ("token", value)
        self._logged_in: set[str] = set()
        self._captured: dict[str, Any] = {}
        self._round_games: dict[str, str] = {}
        self._rounds_seen: set[str] = set()  # every round id an answer has shown
        self._table_games: dict[str, str] = {}
        self._entered: dict[str, tuple] = {}
        self._player_tokens: set[str] = set()
        # round -> player -> (handle, bets placed): for settlement derived from balances
        self._holdings: dict[str, dict[str, tuple[PlayerHandle, list[BetView]]]] = {}
        self._filters = {
            **BASIC_FILTERS,
            "money": lambda v, _: None if v is None else self.money.write(Decimal(v)),
        }

    # -- sessions and credentials --------------------------------------------------------------

    def _new_session(self) -> requests.Session:
        session = requests.Session()
        session.trust_env = False
        session.proxies.update(requests.utils.get_environ_proxies(self.base_url))
        session.headers.update({"User-Agent": "livecert-harness", "Accept": "application/json"})
        return session

    def _jar(self, name: str) -> requests.Session:
        if name not in self._jars:
            self._jars[name] = self._new_session()
        return self._jars[name]

    def _login(self, name: str) -> None:
        spec = self.mapping.data["sessions"][name]
        operation = f"log in as {name}"
        jar = self._jar(name)
        jar.cookies.clear()
        response, exchange = self._http(
            operation, name, jar, spec["login"], self._context({}), auth_headers={}
        )
        wanted = spec.get("logged_in", {})
        cookie = wanted.get("cookie")
        statuses = wanted.get("status")
        problem = None
        if statuses and response.status_code not in statuses:
            problem = f"it answered {response.status_code}, not one of {statuses}"
        elif cookie and cookie not in response.cookies and cookie not in jar.cookies:
            problem = f"it set no {cookie} cookie"
        elif response.status_code >= 400:
            problem = f"it answered {response.status_code}"
        if problem:
            raise CredentialsError(
                operation,
                f"the target did not accept the login ({problem}; it answered: "
                f"{self._masked(response.text[:200])!r}); check the variables the mapping's "
                f"sessions.{name}.login uses",
                f"{exchange.method} {exchange.url}",
            )
        if spec.get("secure_cookies_over_http"):
            for item in jar.cookies:
                item.secure = False  # a test lab over plain http: send the Secure cookie anyway
        self._logged_in.add(name)

    def info(self) -> TargetInfo:
        declares = self.mapping.data["declares"]
        implementation = dict(declares.get("implementation", {}))
        if self.mapping.operation("info"):
            fields = self._run("info", "read the implementation's identity", {})
            implementation.update({k: str(v) for k, v in fields.items() if v is not None})
        return TargetInfo(
            name=implementation.get("name", self.mapping.name),
            version=implementation.get("version", "unknown"),
            contract_version="mapping:" + self.mapping.sha256[:12],
            games=tuple(declares["games"]),
            currency=declares["currency"],
            minor_unit=declares["minor_unit"],
            rounding=declares["rounding"],
            max_rtp={g: Decimal(v) for g, v in declares["max_rtp"].items()},
            capabilities=tuple(declares.get("capabilities", [])),
        )

    def check_credentials(self) -> None:
        """Log in every session the roles use; CredentialsError names the one refused."""
        roles = self.mapping.data.get("roles", {})
        for role in ("operator", "dealer", "player", "anonymous"):
            name = roles.get(role, {}).get("session")
            if name and name not in self._logged_in:
                self._login(name)

    def as_role(self, role: str) -> "MappingAdapter":
        """This adapter sending `role`'s credentials for every call (access checks)."""
        clone = copy.copy(self)
        clone._forced = ("role", role)
        return clone

    def with_credential(self, token: str) -> "MappingAdapter":
        """This adapter sending `token` as the player credential for every call, and no session;
        "" sends no credential at all."""
        clone = copy.copy(self)
        clone._forced = ("token", token)
        return clone

    def close(self) -> None:
        for jar in self._jars.values():
            jar.close()
        self._plain.close()

    # -- rendering and sending -----------------------------------------------------------------

    def _context(self, values: dict[str, Any]) -> dict[str, Any]:
        return {"vars": self.mapping.variables, "captured": self._captured, **values}

    def _auth(
        self, role: str, context: dict, forced: tuple[str, str] | None
    ) -> tuple[requests.Session, dict, str | None]:
        """The session (cookie jar), headers and login-session name a call is sent with;
        `forced` is an access check's credential (another role's, or a player token)."""
        roles = self.mapping.data.get("roles", {})
        if forced and forced[0] == "token":
            # a forged, absent or other player's credential: no session, no stored cookies
            token = forced[1]
            if not token:
                return self._new_session(), {}, None
            spec = roles.get("player", {})
            player = {"token": token, "player_id": ""}
            headers = render(spec.get("headers", {}), {**context, "player": player}, self._filters)
            return self._new_session(), headers, None
        if forced:
            role = forced[1]
        spec = roles.get(role, {})
        name = spec.get("session")
        session = self._jar(name) if name else self._plain
        if name and name not in self._logged_in:
            self._login(name)
        try:
            headers = render(spec.get("headers", {}), context, self._filters)
        except TemplateError as error:
            if not forced:
                raise MappingError(
                    self.mapping.source, [f"roles.{role}.headers: {error}"]
                ) from None
            headers = {}  # acting as a player outside a player's call: no credential to send
        return session, headers, name

    def _masked(self, text: str | None) -> str | None:
        if text is None:
            return None
        for name, value in self.mapping.variables.items():
            if value:
                env = self.mapping.data["variables"][name]["env"]
                for spelling in {value, quote(value, safe=""), quote_plus(value, safe="")}:
                    text = text.replace(spelling, "$" + env)
        for token in self._player_tokens:
            text = text.replace(token, "$PLAYER_TOKEN")
        return text

    def _http(
        self,
        operation: str,
        role: str,
        session: requests.Session,
        spec: dict,
        context: dict,
        auth_headers: dict,
        resend_safe: bool = True,
    ) -> tuple[requests.Response, Exchange]:
        try:
            path = render(spec["path"], context, self._filters)
            query = render(spec.get("query", {}), context, self._filters)
            headers = {**auth_headers, **render(spec.get("headers", {}), context, self._filters)}
            body, content_type = None, None
            if "json" in spec:
                body = dump_json(render(spec["json"], context, self._filters))
                content_type = "application/json"
            elif "form" in spec:
                form = render(spec["form"], context, self._filters)
                body = urlencode({k: _form_value(v) for k, v in form.items()})
                content_type = "application/x-www-form-urlencoded"
        except (TemplateError, WireMoneyError, TypeError, ValueError) as error:
            raise MappingError(self.mapping.source, [f"{operation}: {error}"]) from None
        headers = {k: _form_value(v) for k, v in headers.items()}
        if content_type:
            headers["Content-Type"] = content_type
        url = self.base_url + path
        if query:
            url += "?" + urlencode({k: _form_value(v) for k, v in query.items()})
        jar_cookies = "; ".join(f"{c.name}=$SESSION_{role.upper()}" for c in session.cookies)
        shown = {k: self._masked(v) or "" for k, v in headers.items() if k != "Content-Type"}
        if jar_cookies:
            shown["Cookie"] = jar_cookies
        method, shown_url, shown_body = spec["method"], self._masked(url), self._masked(body)
        return send_recorded(
            lambda: session.request(
                method,
                url,
                data=body.encode() if body is not None else None,
                headers=headers,
                timeout=self.timeout,
                allow_redirects=False,
            ),
            lambda: Exchange(
                self.recorder.next_seq(),
                operation,
                role,
                method,
                shown_url,
                shown_body,
                None,
                None,
                0.0,
                headers=shown,
                content_type=content_type,
            ),
            self.recorder,
            operation=operation,
            request_line=f"{method} {shown_url}",
            resend_safe=resend_safe,
            base_url=self.base_url,
            timeout=self.timeout,
        )

    def _expired(self, session_name: str | None, response: requests.Response) -> bool:
        """True when the answer is the session's "log in again" (any session's, when the call
        was sent without one: an access check)."""
        sessions = self.mapping.data.get("sessions", {})
        names = [session_name] if session_name else list(sessions)
        for name in names:
            rule = sessions[name].get("expired")
            if not rule or response.status_code not in rule.get("status", [401]):
                continue
            needle = rule.get("location_contains")
            if not needle or needle in response.headers.get("location", ""):
                return True
        return False

    def _expired_error(self, session_name: str | None, refused: Refused) -> bool:
        """True when a call sent with a login session was refused with one of the codes the
        session lists as "log in again" (targets that answer an expired session with their
        usual error body, not a 401 or a redirect). Calls without a session (a forged or absent
        player credential) are never this; a call acting as another role is retried once after
        a fresh login, and a second refusal is then the refusal its access check looks for."""
        if session_name is None:
            return False
        rule = self.mapping.data.get("sessions", {}).get(session_name, {}).get("expired", {})
        return refused.code in rule.get("error_code", [])

    def _responses(self, spec: dict) -> dict:
        merged = dict(self.mapping.data.get("responses", {}))
        merged.update(spec.get("responses", {}))
        return merged

    def _judge(self, operation: str, spec: dict, response: requests.Response, exchange: Exchange):
        """The answer's data root, or Refused / TargetError as the mapping defines them."""
        where = f"{exchange.method} {exchange.url}"
        status = response.status_code
        if status >= 500:
            raise TargetError(
                operation, f"answered {status}: {self._masked(response.text[:300])!r}", where
            )
        if 300 <= status < 400:
            raise TargetError(
                operation,
                f"answered {status}, redirecting to {response.headers.get('location')!r}",
                where,
            )
        try:
            body = json.loads(response.text, parse_float=Decimal)
        except ValueError:
            raise TargetError(
                operation,
                f"answered {status} with a body that is not JSON: "
                f"{self._masked(response.text[:300])!r}",
                where,
            ) from None
        rules = self._responses(spec)
        success = rules.get("success", {})
        ok = 200 <= status < 300
        if "status" in success:
            ok = status in success["status"]
        if ok and "path" in success:
            value = read(body, parse(success["path"])[1])
            if "equals" in success:
                ok = value == success["equals"]
            elif "in" in success:
                ok = value in success["in"]
            else:
                ok = value is not MISSING and bool(value)
        if not ok:
            error = rules.get("error", {})
            code = read(body, parse(error["code"])[1]) if "code" in error else None
            message = read(body, parse(error["message"])[1]) if "message" in error else None
            if message is MISSING or message is None:
                message = response.text[:300]
            if status < 400 and not success:
                raise TargetError(operation, f"answered {status}", where)
            raise Refused(
                operation,
                status,
                str(code if code not in (None, MISSING) else status),
                str(message),
            )
        root = rules.get("data")
        if root:
            data = read(body, parse(root)[1])
            if data is MISSING:
                raise TargetError(
                    operation,
                    f"the answer has no {root}: {self._masked(response.text[:300])!r}",
                    where,
                )
            return body, data
        return body, body

    def _step(
        self,
        operation: str,
        spec: dict,
        role: str,
        context: dict,
        resend_safe: bool,
        judged: bool = True,
    ) -> Any:
        """Send one request of an operation, logging in again once if the session expired.
        Only the judged request carries an access check's forced credential; hooks are the
        run's own setup and go with their own role's."""
        forced = self._forced if judged else None
        for attempt in (1, 2):
            session, headers, session_name = self._auth(role, context, forced)
            response, exchange = self._http(
                operation, role, session, spec["request"], context, headers, resend_safe
            )
            if self._expired(session_name, response):
                if session_name is None:  # sent without a session (a forged or no credential)
                    raise Refused(
                        operation,
                        response.status_code,
                        "LOGIN_REQUIRED",
                        "the target sent the call to its login page",
                    )
                if attempt == 1:
                    self._login(session_name)
                    continue
                raise TargetError(
                    operation,
                    "the target sent the run back to its login page right after it logged in "
                    f"again as {session_name}: its session changed under the run",
                    f"{exchange.method} {exchange.url}",
                )
            try:
                body, data = self._judge(operation, spec, response, exchange)
            except Refused as refused:
                if not self._expired_error(session_name, refused):
                    raise
                if attempt == 1:
                    self._login(session_name)
                    continue
                if forced:
                    raise  # acting as another role and refused again after a fresh login: a refusal
                raise TargetError(
                    operation,
                    f"the target answered {refused.code} right after the run logged in again "
                    f"as {session_name}: its session changed under the run",
                    f"{exchange.method} {exchange.url}",
                ) from None
            break
        for name, path in spec.get("capture", {}).items():
            absolute, steps = parse(path)
            value = read(body if absolute else data, steps)
            if value is not MISSING:
                self._captured[name] = value
                context["captured"] = self._captured
        return data

    def _run(
        self, name: str, operation: str, values: dict[str, Any], none_yet: bool = False
    ) -> Any:
        """Perform the mapping's operation `name`; answer its fields or its shape (or None, with
        `none_yet`, when the answer holds no object: a table between rounds)."""
        spec = self.mapping.operation(name)
        if spec is None:
            raise Unsupported(
                operation, ABSENCE_MEANS.get(name, f"the mapping has no operation {name}")
            )
        setup = self._context(values)  # the hooks' context: the run's own player
        if self._forced and isinstance(values.get("player"), PlayerHandle):
            token = self._forced[1] if self._forced[0] == "token" else ""
            values = {**values, "player": PlayerHandle(values["player"].player_id, token)}
        context = self._context(values)
        role = spec.get("role", "anonymous")
        for extra in spec.get("before", []):
            self._hook(operation, extra, role, setup)
        data = self._step(operation, spec, role, context, may_resend(spec))
        for extra in spec.get("then", []):
            self._hook(operation, extra, role, setup)
        return self._answer(name, spec, data, values, none_yet)

    def _hook(self, operation: str, extra: dict, role: str, context: dict) -> None:
        """A `before` or `then` request: setup, never what a scenario judges. A refusal there is
        the target failing the run's setup (a target error), not the operation refused."""
        try:
            self._step(operation, extra, extra.get("role", role), context, False, judged=False)
        except Refused as refused:
            request = extra["request"]
            raise TargetError(
                operation,
                f"its hook {request['method']} {request['path']} was refused "
                f"({refused.status} {refused.code}): {refused.message}",
            ) from None

    # -- reading answers -----------------------------------------------------------------------

    def _answer(
        self, name: str, spec: dict, data: Any, values: dict, none_yet: bool = False
    ) -> Any:
        answer = spec.get("answer", {})
        node = data
        if "from" in answer:
            node = read(data, parse(answer["from"])[1])
        ctx = {"game": values.get("game"), "round_id": values.get("round_id")}
        if none_yet and node is None:  # null: a table between rounds (a missing path is an error)
            return None
        if "shape" in answer:
            return self._shape(answer["shape"], node, ctx)
        return {k: self._field(f, node, ctx, k) for k, f in answer.get("fields", {}).items()}

    def _shape(self, name: str, node: Any, ctx: dict) -> dict:
        if not isinstance(node, dict):
            raise TargetError(f"read a {name}", f"expected an object, the target sent {node!r}")
        fields = self.mapping.data["shapes"][name]
        out: dict[str, Any] = {}
        ctx = dict(ctx)
        for key in ("game", "round_id"):  # read first: selections and results depend on them
            if key in fields:
                out[key] = self._field(fields[key], node, ctx, key)
                ctx[key] = out[key]
        if ctx.get("round_id") and not ctx.get("game"):
            ctx["game"] = self._round_games.get(ctx["round_id"])
        for key, spec in fields.items():
            if key not in out:
                out[key] = self._field(spec, node, ctx, key)
        return out

    def _field(self, spec: Any, node: Any, ctx: dict, key: str) -> Any:
        if isinstance(spec, str):
            spec = {"path": spec}
        if spec.get("as") == "result":
            return self._result(spec, node, ctx)
        value = read(node, parse(spec["path"])[1]) if "path" in spec else MISSING
        if value is MISSING or value is None:
            return spec.get("default")
        table = spec.get("values")
        if isinstance(table, str):
            table = self.mapping.data["values"][table]
        if table is not None:
            value = table.get(str(value), value)
        if "shape" in spec:
            if isinstance(value, list):
                return [self._shape(spec["shape"], item, ctx) for item in value]
            return self._shape(spec["shape"], value, ctx)
        kind = spec.get("as")
        try:
            if kind == "money":
                fmt = self.money
                if "money" in spec:
                    fmt = MoneyFormat(**{**self.money.__dict__, **spec["money"]})
                return fmt.read(value)
        except WireMoneyError as error:
            raise TargetError(f"read {key}", str(error)) from None
        if kind == "selection":
            game = ctx.get("game")
            table = self.mapping.selections.get(game) if game else None
            return table.from_vendor(value) if table else value
        if kind == "int":
            return int(value)
        if kind == "str":
            return str(value)
        return value

    def _result(self, spec: dict, node: Any, ctx: dict) -> dict | None:
        """The vendor's result as the harness's: dice in the order entered when the vendor sorts
        them (and they are the same dice), tokens as r/w, totals and counts."""
        outcomes = self.mapping.data.get("outcomes", {})
        game = ctx.get("game")
        if game == "sicbo":
            raw = read(node, parse(spec["dice"])[1]) if "dice" in spec else MISSING
            if raw in (MISSING, None):
                return None
            dice = self._dice(raw)
            entered = self._entered.get(ctx.get("round_id") or "") or self._entered.get("")
            if (
                outcomes.get("dice_order") == "sorted"
                and entered
                and sorted(entered) == sorted(dice)
            ):
                dice = list(entered)
            total = read(node, parse(spec["total"])[1]) if "total" in spec else MISSING
            return {"dice": dice, "total": sum(dice) if total is MISSING else total}
        raw = read(node, parse(spec["tokens"])[1]) if "tokens" in spec else MISSING
        if raw in (MISSING, None):
            return None
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

    def _bet(self, fields: dict) -> BetView:
        stake, outcome = fields.get("stake"), fields.get("outcome")
        win, returned = fields.get("win"), fields.get("returned")
        net = fields.get("net")
        if net is not None and returned is None and stake is not None:
            returned = stake + net
        if returned is None and win is not None and stake is not None:
            returned = {"win": stake + win, "refund": stake, "lose": Decimal(0)}.get(outcome)
        if win is None and returned is not None and stake is not None:
            win = returned - stake if outcome == "win" else Decimal(0)
        return BetView(
            bet_id=str(fields.get("bet_id")),
            round_id=str(fields.get("round_id")),
            player_id=str(fields.get("player_id")),
            selection=fields.get("selection"),
            stake=stake,
            status=fields.get("status"),
            outcome=outcome,
            win=win,
            returned=returned,
        )

    def _round(self, fields: dict) -> RoundView:
        round_id = str(fields.get("round_id"))
        self._rounds_seen.add(round_id)
        if fields.get("game"):
            self._round_games[round_id] = fields["game"]
        return RoundView(
            round_id=round_id,
            table_id=str(fields.get("table_id")),
            game=fields.get("game") or self._round_games.get(round_id, ""),
            state=fields.get("state"),
            result=fields.get("result"),
            bets=tuple(self._bet(b) for b in fields.get("bets") or []),
            events=tuple(fields.get("events") or []),
            opened_at=fields.get("opened_at"),
            betting_ends_at=fields.get("betting_ends_at"),
        )

    def _round_op(self, name: str, operation: str, values: dict) -> RoundView:
        poll = (self.mapping.operation(name) or {}).get("poll")
        if not poll:
            return self._round(self._run(name, operation, values))
        new_round = bool(poll.get("new_round"))
        if new_round and self._forced:
            raise Unsupported(
                operation,
                "the table opens its own rounds (the mapping waits for a new one): who may "
                "open a round cannot be asked of it",
            )
        known = frozenset(self._rounds_seen)  # "new" means: not one this run has met before
        shown = self._round_or_none(self._run(name, operation, values, none_yet=new_round))
        if shown is None and not new_round:
            raise TargetError(operation, "the answer names no round")
        return self._poll(name, poll, shown, values, known)

    def _round_or_none(self, fields: Any) -> RoundView | None:
        """The round an answer shows, or None when it shows none yet (a table between rounds)."""
        if not isinstance(fields, dict) or fields.get("round_id") in (None, ""):
            return None
        return self._round(fields)

    def _poll(
        self,
        name: str,
        poll: dict,
        shown: RoundView | None,
        values: dict,
        known: frozenset[str],
    ) -> RoundView:
        """Read the round again until it leaves a transitional state (or reaches one), or, with
        `new_round`, read the operation again until it shows a round the run has not met (a
        table that opens its rounds itself)."""
        interval = poll.get("interval_ms", 50) / 1000
        timeout_ms = poll.get("timeout_ms", 10_000)
        deadline = time.monotonic() + timeout_ms / 1000
        new_round = poll.get("new_round", False)
        operation = poll.get("operation", name if new_round else "get_round")

        def waiting(view: RoundView | None) -> bool:
            if view is None or (new_round and view.round_id in known):
                return True
            if any(getattr(view, k) in v for k, v in poll.get("while", {}).items()):
                return True
            return any(getattr(view, k) not in v for k, v in poll.get("until", {}).items())

        while waiting(shown):
            if time.monotonic() > deadline:
                if shown is None:
                    seen = "no round at all"
                elif new_round and shown.round_id in known:
                    seen = f"still round {shown.round_id} ({shown.state!r}), met before"
                else:
                    seen = f"round {shown.round_id} stayed {shown.state!r}"
                wanted = "a new round" if new_round else "the round"
                raise TargetError(f"wait for {wanted}", f"{seen} for {timeout_ms} ms")
            time.sleep(interval)
            # the round asked for (or, after an open, the one the answer named)
            round_id = values.get("round_id") or (shown.round_id if shown else None)
            asked = values if new_round else {**values, "round_id": round_id}
            answer = self._run(operation, "read the round", asked, none_yet=new_round)
            shown = self._round_or_none(answer)
        return shown

    # -- the adapter operations ----------------------------------------------------------------

    def create_player(self, balance: Decimal) -> PlayerHandle:
        fields = self._run(
            "create_player", "create a test player", {"balance": self._write(balance)}
        )
        token = str(fields.get("token") or "")
        if token:
            self._player_tokens.add(token)
        return PlayerHandle(str(fields["player_id"]), token)

    def _write(self, amount: Decimal | str) -> Any:
        if isinstance(amount, str):
            if not PLAIN_DECIMAL.fullmatch(amount):
                return amount  # not an amount at all ("abc", "1e3"): sent as written
            amount = Decimal(amount)  # an amount the target must judge: in its own format
        try:
            return self.money.write(amount)
        except WireMoneyError as error:
            raise Unsupported("write an amount", f"{error} in this API's money format") from None

    def create_table(self, game: str) -> str:
        fields = self._run("create_table", f"create a {game} table", {"game": game})
        table_id = str(fields["table_id"])
        self._table_games[table_id] = game
        return table_id

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView:
        values = {
            "table_id": table_id,
            "countdown_ms": countdown_ms,
            "game": self._table_games.get(table_id),
        }
        return self._round_op("open_round", "open a round", values)

    def _round_values(self, round_id: str, **more: Any) -> dict:
        return {"round_id": round_id, "game": self._round_games.get(round_id), **more}

    def close_betting(self, round_id: str) -> RoundView:
        return self._round_op("close_betting", "close betting", self._round_values(round_id))

    def record_reshake(self, round_id: str, reason: str) -> RoundView:
        values = self._round_values(round_id, reason=reason)
        return self._round_op("record_reshake", "record a re-shake", values)

    def record_event(self, round_id: str, event: str) -> RoundView:
        values = self._round_values(round_id, event=event)
        return self._round_op("record_event", f"record the dealer event {event}", values)

    def dealer_action(self, round_id: str, action: str, reason: str | None = None) -> RoundView:
        name = DEALER_ACTIONS.get(action)
        if name is None:
            raise Unsupported(f"{action} the round", "no such dealer action")
        values = self._round_values(round_id, reason=reason)
        return self._round_op(name, f"{action} the round", values)

    def _outcome_values(self, outcome: Sequence[int] | Sequence[str]) -> dict[str, Any]:
        """The result as the templates see it: `dice`, or `tokens` in the vendor's symbols."""
        values = list(outcome)
        outcomes = self.mapping.data.get("outcomes", {})
        if values and isinstance(values[0], str):
            red, white = outcomes.get("red", "r"), outcomes.get("white", "w")
            tokens = [red if t == "r" else white if t == "w" else t for t in values]
            return {"dice": None, "tokens": tokens, "outcome": values}
        return {"dice": values, "tokens": None, "outcome": values}

    def enter_result(self, round_id: str, outcome: Sequence[int] | Sequence[str]) -> RoundView:
        self._entered[round_id] = tuple(outcome)
        context = self._round_values(round_id, **self._outcome_values(outcome))
        spec = self.mapping.operation("enter_result") or {}
        if spec.get("settlement") != "from-balance":
            return self._round_op("enter_result", "enter the result", context)
        holders = self._holdings.get(round_id, {})
        crowded = [pid for pid, (_, bets) in holders.items() if len(bets) > 1]
        if crowded:
            raise Unsupported(
                "enter the result",
                "the target reports no settlement per bet (the mapping derives it from the "
                f"balance), and player {crowded[0]} holds {len(holders[crowded[0]][1])} bets in "
                "the round: they cannot be told apart",
            )
        before = {pid: self.balance(handle) for pid, (handle, _) in holders.items()}
        shown = self._round_op("enter_result", "enter the result", context)
        if shown.state != "settled":
            return shown  # nothing to derive: the bets stay as the target shows them
        reported = {b.bet_id: b for b in shown.bets}
        derived = {}
        for pid, (handle, bets) in holders.items():
            returned = self.balance(handle) - before[pid]
            bet = reported.get(bets[0].bet_id, bets[0])
            derived[bet.bet_id] = self._from_balance(bet, returned)
        bets = tuple(derived.get(b.bet_id, b) for b in shown.bets) or tuple(derived.values())
        return replace(shown, bets=bets)

    @staticmethod
    def _from_balance(bet: BetView, returned: Decimal) -> BetView:
        """A bet of a round the target reports settled, with the amount its player's balance
        gained when the result came in. The bet's own status and outcome are the target's when
        it reports them; only a missing outcome is read from the amount."""
        outcome = bet.outcome
        if outcome in (None, "open"):
            outcome = "lose" if returned == 0 else "refund" if returned == bet.stake else "win"
        win = returned - bet.stake if outcome == "win" else Decimal(0)
        status = bet.status if bet.status not in (None, "open") else "settled"
        return replace(bet, outcome=outcome, returned=returned, win=win, status=status)

    def play_round(
        self,
        player: PlayerHandle,
        table_id: str,
        bets: Sequence[tuple[str, Decimal]],
        outcome: Sequence[int] | Sequence[str],
    ) -> RoundView:
        """One request that bets and settles (capability `instant-round`): the slip and the
        result the lab forces, answered with the settled round."""
        game = self._table_games.get(table_id)
        values = {
            "player": player,
            "table_id": table_id,
            "game": game,
            "bets": self._wire_slip(game, bets),
            "idempotency_key": f"livecert-{uuid.uuid4()}",
            **self._outcome_values(outcome),
        }
        self._entered[""] = tuple(outcome)  # the round's id is known only from the answer
        try:
            return self._round(self._run("play_round", "bet and settle in one request", values))
        finally:
            self._entered.pop("", None)

    def place_bets(
        self,
        player: PlayerHandle,
        round_id: str,
        bets: Sequence[tuple[str, Decimal | str]],
        idempotency_key: str | None = None,
    ) -> list[BetView]:
        game = self._round_games.get(round_id)
        wire = self._wire_slip(game, bets)
        key = idempotency_key or f"livecert-{uuid.uuid4()}"
        base = {"player": player, "round_id": round_id, "game": game, "idempotency_key": key}
        batches = [wire] if "batch-bets" in self.capabilities else [[w] for w in wire]
        if not batches:
            raise Unsupported("place an empty slip", "the target takes one request per bet")
        placed: list[BetView] = []
        for index, batch in enumerate(batches):
            key_of_batch = key if len(batches) == 1 else f"{key}-{index}"  # one key per request
            values = {**base, "bets": batch, "idempotency_key": key_of_batch}
            fields = self._run("place_bets", f"place {len(batch)} bet(s)", values)
            placed += [self._bet(b) for b in fields.get("bets") or []]
        holdings = self._holdings.setdefault(round_id, {})
        holder = holdings.setdefault(player.player_id, (player, []))
        holder[1].extend(placed)
        return placed

    def _wire_slip(
        self, game: str | None, bets: Sequence[tuple[str, Decimal | str]]
    ) -> list[dict[str, Any]]:
        """A slip as the templates see it: each bet's `selection` in the vendor's code, its
        `stake` in the wire money format, and `code`, ours."""
        table = self.mapping.selections.get(game) if game else None
        wire = []
        for code, stake in bets:
            try:
                vendor_code = table.to_vendor(code) if table else code
            except NotOffered as missing:
                raise Unsupported(f"bet on {code}", str(missing)) from None
            wire.append({"selection": vendor_code, "stake": self._write(stake), "code": code})
        return wire

    @property
    def capabilities(self) -> tuple[str, ...]:
        return tuple(self.mapping.data["declares"].get("capabilities", []))

    def offers(self, game: str, code: str) -> bool:
        """True unless the mapping marks the selection as not offered by the target."""
        table = self.mapping.selections.get(game)
        return table is None or table.offered(code)

    def send_raw_slip(self, player: PlayerHandle, round_id: str, text: str, content_type: str):
        raise Unsupported(
            "place a raw bet slip", "a mapping adapter sends slips only in the vendor's format"
        )

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView:
        name = (
            "get_round_as_player"
            if player and self.mapping.operation("get_round_as_player")
            else "get_round"
        )
        return self._round(
            self._run(name, "read the round", self._round_values(round_id, player=player))
        )

    def balance(self, player: PlayerHandle) -> Decimal:
        fields = self._run("balance", "read the balance", {"player": player})
        if not isinstance(fields.get("balance"), Decimal):
            raise TargetError("read the balance", f"no amount in the answer: {fields!r}")
        return fields["balance"]

    def withdraw_bet(self, player: PlayerHandle, bet_id: str) -> None:
        self._run("withdraw_bet", "withdraw a bet", {"player": player, "bet_id": bet_id})

    def bet_record(self, player: PlayerHandle, round_id: str | None = None) -> BetRecord:
        fields = self._run(
            "bet_record", "read the bet record", {"player": player, "round_id": round_id}
        )
        rounds = tuple(
            RecordRound(
                round_id=str(r.get("round_id")),
                game=r.get("game"),
                state=r.get("state"),
                result=r.get("result"),
                staked=r.get("staked"),
                returned=r.get("returned"),
                balance_before=r.get("balance_before"),
                balance_after=r.get("balance_after"),
            )
            for r in fields.get("rounds") or []
        )
        bets = tuple(self._bet(b) for b in fields.get("bets") or [])
        return BetRecord(str(fields.get("player_id") or player.player_id), bets, rounds)

    def connect(self, player: PlayerHandle) -> None:
        self._run("connect", "reconnect the player", {"player": player})

    def disconnect(self, player: PlayerHandle) -> None:
        self._run("disconnect", "disconnect the player", {"player": player})

    def statistics(self, table_id: str) -> list[dict]:
        values = {"table_id": table_id, "game": self._table_games.get(table_id)}
        fields = self._run("statistics", "read the statistics chart", values)
        return list(fields.get("results") or [])
