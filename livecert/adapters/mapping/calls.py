"""One operation of a mapping file sent to the target and judged, before anything is read.

A request is rendered from its templates and sent in its role's session (logging in again once
when the session expired), recorded as evidence with its secrets masked, and judged by the
mapping's success predicate, not the HTTP status: a refusal is `Refused`, a broken target (5xx,
a redirect, not JSON) a `TargetError`. `before` and `then` hooks are the run's own setup. An
operation whose request differs per game (`per_game`) sends the one of the call's game.
"""

import shlex
import subprocess
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import requests

from livecert.adapters import exact_json
from livecert.adapters.bounds import Bounds
from livecert.adapters.errors import Refused, RunCut, TargetError, Unsupported, check_sendable
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.jsonpath import MISSING, holds, parse, read
from livecert.adapters.mapping.document import MappingError, MappingFile, may_resend
from livecert.adapters.mapping.sessions import Forced, Sessions
from livecert.adapters.mapping.template import Filter, TemplateError, dump_json, render
from livecert.adapters.mapping.wire_money import WireMoneyError
from livecert.adapters.transport import send_recorded
from livecert.target_text import visible


def _form_value(value: Any) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, dict | list):
        return dump_json(value)
    return str(value)


@dataclass(frozen=True)
class Answer:
    """A judged answer: the whole body, its data root (MISSING when the answer has none), the
    path of that root, and the answer's text as the evidence shows it (secrets masked)."""

    body: Any
    data: Any
    root: str
    text: str
    cookies: dict[str, str] | None = None  # the cookies the answer set (a login's session)


def error_of(rules: dict, body: Any, fallback: str) -> tuple[str | None, str]:
    """A refusal's code (None where the mapping reads none, or the answer has none) and its
    message (`fallback`, the answer's text, where it has none), as `responses.error` reads
    them: from an HTTP answer or a stream's acknowledgement alike."""
    error = rules.get("error", {})
    code = read(body, parse(error["code"])[1]) if "code" in error else None
    message = read(body, parse(error["message"])[1]) if "message" in error else None
    if message is MISSING or message is None:
        message = fallback
    return (None if code in (None, MISSING) else str(code)), str(message)


class Calls:
    """Sends a mapping's requests and judges their answers (shared by an adapter's clones)."""

    def __init__(
        self,
        mapping: MappingFile,
        base_url: str,
        timeout: tuple[float, float],
        recorder: ExchangeRecorder,
        filters: dict[str, Filter],
        bounds: Bounds,
    ) -> None:
        self.mapping = mapping
        self.base_url = base_url
        self.timeout = timeout
        self.bounds = bounds
        self.recorder = recorder
        self.filters = filters
        self.sessions = Sessions(mapping, base_url, filters, self.http)
        self.captured: dict[str, Any] = {}

    def context(self, values: dict[str, Any]) -> dict[str, Any]:
        """What a template may name: the variables, the captured values and the call's own."""
        return {"vars": self.mapping.variables, "captured": self.captured, **values}

    def perform(
        self, operation: str, spec: dict, setup: dict, values: dict, forced: Forced
    ) -> Answer:
        """The operation's `before` hooks (filled from `setup`: the run's own player), its own
        request (filled from `values`, sent with an access check's `forced` credential), its
        `then` hooks; the judged answer of its own request."""
        role = spec.get("role", "anonymous")
        request = self._request_of(operation, spec, values.get("game"))
        own = self.context(setup)
        for extra in spec.get("before", []):
            self._hook(operation, extra, role, own)
        step = spec if request is spec["request"] else {**spec, "request": request}
        resend = may_resend(spec, request)
        answer = self._step(operation, step, role, self.context(values), resend, forced)
        for extra in spec.get("then", []):
            self._hook(operation, extra, role, own)
        return answer

    def perform_as(self, operation: str, spec: dict, values: dict, captured: dict) -> Answer:
        """The operation's own request (no hooks), filled with `captured` instead of the run's
        latest captures: a login sent again with the user and password of a player made
        earlier (another player's may have been captured since)."""
        context = {"vars": self.mapping.variables, "captured": captured, **values}
        request = self._request_of(operation, spec, values.get("game"))
        step = spec if request is spec["request"] else {**spec, "request": request}
        role = spec.get("role", "anonymous")
        return self._step(operation, step, role, context, may_resend(spec, request), None)

    def hooks(self, operation: str, spec: dict, which: str, setup: dict) -> None:
        """The operation's `before` or `then` hooks alone: an operation that waits on a stream
        or emits there sends no request of its own, only its set-up (a test hook)."""
        own = self.context(setup)
        for extra in spec.get(which, []):
            self._hook(operation, extra, spec.get("role", "anonymous"), own)

    def _request_of(self, operation: str, spec: dict, game: Any) -> dict:
        """The request the operation sends: its own, or with `per_game` the call's game's. A
        call whose game the adapter does not know (a round no answer showed) cannot be sent:
        not testable through this mapping; a game the file has no request for is its mistake."""
        per_game = spec["request"].get("per_game")
        if per_game is None:
            return spec["request"]
        name = next((n for n, s in self.mapping.data["operations"].items() if s is spec), "")
        where = f"operations.{name}.request.per_game"
        if game is None:
            raise Unsupported(
                operation,
                f"{where} sends a request per game, and the game of this call is not known (a "
                "round no answer has shown, or a round shape that reads no game)",
            )
        if game not in per_game:
            has = ", ".join(per_game)
            problem = f"{operation}: {where} has no request for {game!r} (it has: {has})"
            raise MappingError(self.mapping.source, [problem])
        return per_game[game]

    def _hook(self, operation: str, extra: dict, role: str, context: dict) -> None:
        """A `before` or `then` request: setup, never what a scenario judges. A refusal there is
        the target failing the run's setup (a target error), not the operation refused."""
        if "command" in extra:
            self._command(operation, extra, context)
            return
        try:
            self._step(operation, extra, extra.get("role", role), context, False, None)
        except Refused as refused:
            request = extra["request"]
            raise TargetError(
                operation,
                f"its hook {request['method']} {request['path']} was refused "
                f"({refused.status} {refused.code}): {refused.message}",
            ) from None

    def _command(self, operation: str, step: dict, context: dict) -> None:
        """A lab-supplied set-up command (`command` hook): run with a deadline, its JSON output
        captured; recorded as evidence like a request, its secret captures masked."""
        try:
            argv = [str(render(part, context, self.filters)) for part in step["command"]]
        except TemplateError as error:
            raise MappingError(self.mapping.source, [f"{operation}: {error}"]) from None
        deadline, cut = float(step.get("timeout_s", 30)), False
        run_left = self.bounds.run_left()
        if run_left is not None and run_left < deadline:  # the run ends first: it cuts
            deadline, cut = max(run_left, 0.0), True
        shown = self.sessions.masked(shlex.join(argv)) or ""
        started = time.monotonic()
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=deadline)
        except ValueError as error:  # a NUL or a lone surrogate (a captured value) in it
            raise TargetError(
                operation, f"its set-up command {visible(shown)} cannot be run: {error}"
            ) from None
        except subprocess.TimeoutExpired as error:
            kind = RunCut if cut else TargetError
            why = "the run was cut by --max-duration" if cut else str(error)
            raise kind(operation, f"its set-up command {shown} failed: {why}") from None
        except OSError as error:
            raise TargetError(operation, f"its set-up command {shown} failed: {error}") from None
        elapsed = (time.monotonic() - started) * 1000
        if done.returncode != 0:
            raise TargetError(
                operation,
                f"its set-up command {shown} exited {done.returncode}: {done.stderr[-300:]!r}",
            )
        try:
            output = exact_json.loads(done.stdout)
        except ValueError:
            raise TargetError(
                operation, f"its set-up command {shown} printed no JSON: {done.stdout[:300]!r}"
            ) from None
        for name, path in step.get("capture", {}).items():
            value = read(output, parse(path)[1])
            if value is MISSING:
                raise TargetError(operation, f"its set-up command {shown} printed no {path}")
            self.captured[name] = value
            if name in step.get("secret", []):
                self.sessions.secret(value, f"$CAPTURED_{name.upper()}")
        self.recorder.add(
            Exchange(
                self.recorder.next_seq(),
                operation,
                "lab",
                "RUN",
                shown,
                None,
                done.returncode,
                self.sessions.masked(done.stdout[:2000]),
                elapsed,
            )
        )

    def http(
        self,
        operation: str,
        role: str,
        session: requests.Session,
        spec: dict,
        context: dict,
        auth_headers: dict,
        resend_safe: bool = True,
    ) -> tuple[requests.Response, Exchange]:
        """Render the request `spec` and send it, recorded (secrets masked in the record)."""
        try:
            path = render(spec["path"], context, self.filters)
            query = render(spec.get("query", {}), context, self.filters)
            headers = {**auth_headers, **render(spec.get("headers", {}), context, self.filters)}
            form = render(spec["form"], context, self.filters) if "form" in spec else {}
        except (TemplateError, WireMoneyError, TypeError, ValueError) as error:
            raise MappingError(self.mapping.source, [f"{operation}: {error}"]) from None
        headers = {k: _form_value(v) for k, v in headers.items()}

        def request_line() -> str:  # as it would go, secrets masked
            asked = "&".join(f"{k}={_form_value(v)}" for k, v in query.items())
            line = f"{spec['method']} {self.sessions.masked(self.base_url + str(path))}"
            return line + (f"?{self.sessions.masked(asked)}" if asked else "")

        sent = (*query.items(), *form.items())
        check_sendable(
            operation,
            request_line,
            str(path),
            *(str(k) for k, _ in sent),
            *(_form_value(v) for _, v in sent),
            headers=headers,
        )
        try:
            body, content_type = None, None
            if "json" in spec:  # JSON writes a lone surrogate as its escape: sendable
                body = dump_json(render(spec["json"], context, self.filters))
                content_type = "application/json"
            elif "form" in spec:
                body = urlencode({k: _form_value(v) for k, v in form.items()})
                content_type = "application/x-www-form-urlencoded"
        except (TemplateError, WireMoneyError, TypeError, ValueError) as error:
            raise MappingError(self.mapping.source, [f"{operation}: {error}"]) from None
        if content_type:
            headers["Content-Type"] = content_type
        url = self.base_url + path
        if query:
            url += "?" + urlencode({k: _form_value(v) for k, v in query.items()})
        masked = self.sessions.masked
        jar_cookies = "; ".join(f"{c.name}=$SESSION_{role.upper()}" for c in session.cookies)
        shown = {k: masked(v) or "" for k, v in headers.items() if k != "Content-Type"}
        if jar_cookies:
            shown["Cookie"] = jar_cookies
        method, shown_url, shown_body = spec["method"], masked(url), masked(body)
        return send_recorded(
            lambda deadline: session.request(
                method,
                url,
                data=body.encode() if body is not None else None,
                headers=headers,
                timeout=deadline,
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
            bounds=self.bounds,
        )

    def responses(self, spec: dict) -> dict:
        """The file's `responses` rules with the operation's own over them."""
        merged = dict(self.mapping.data.get("responses", {}))
        merged.update(spec.get("responses", {}))
        return merged

    def _judge(
        self, operation: str, spec: dict, response: requests.Response, exchange: Exchange
    ) -> Answer:
        """The judged answer, or Refused / TargetError as the mapping defines them."""
        where = f"{exchange.method} {exchange.url}"
        status = response.status_code
        text = self.sessions.masked(response.text) or ""
        if status >= 500:
            raise TargetError(
                operation, f"answered {status}: {text[:300]!r}", where, status, text[:300]
            )
        if 300 <= status < 400:
            raise TargetError(
                operation,
                f"answered {status}, redirecting to {response.headers.get('location')!r}",
                where,
                status,
            )
        try:
            body = exact_json.loads(response.text)
        except exact_json.NumberBeyondReason as error:
            raise TargetError(
                operation, f"answered {status} with {error}", where, status, text[:300]
            ) from None
        except ValueError:
            raise TargetError(
                operation,
                f"answered {status} with a body that is not JSON: {text[:300]!r}",
                where,
                status,
                text[:300],
            ) from None
        rules = self.responses(spec)
        success = rules.get("success", {})
        ok = 200 <= status < 300
        if "status" in success:
            ok = status in success["status"]
        if ok and "path" in success:
            ok = holds(success, read(body, parse(success["path"])[1]))
        if not ok:
            if status < 400 and not success:
                raise TargetError(operation, f"answered {status}", where, status)
            code, message = error_of(rules, body, response.text[:300])
            raise Refused(operation, status, code or str(status), message)
        cookies = {c.name: c.value for c in response.cookies}
        root = rules.get("data")
        if root:
            # MISSING when the answer has no data root: an error only if the mapping reads it
            return Answer(body, read(body, parse(root)[1]), root, text, cookies)
        return Answer(body, body, "$", text, cookies)

    def _step(
        self,
        operation: str,
        spec: dict,
        role: str,
        context: dict,
        resend_safe: bool,
        forced: Forced,
    ) -> Answer:
        """Send one request of an operation, logging in again once if the session expired.
        Only the judged request carries an access check's forced credential; hooks are the
        run's own setup and go with their own role's (`forced` None)."""
        sessions = self.sessions
        for attempt in (1, 2):
            session, headers, session_name = sessions.auth(role, context, forced)
            response, exchange = self.http(
                operation, role, session, spec["request"], context, headers, resend_safe
            )
            if forced and session_name is None and sessions.sent_to_login(response):
                # an access check's credential sent to a login page: refused, by default (a
                # cookie casino's answer to a cookie it does not know), with no `expired` rule
                raise _to_login_page(operation, response)
            if sessions.expired(session_name, response):
                if session_name is None:  # sent without a session (a forged or no credential)
                    raise _to_login_page(operation, response)
                if attempt == 1:
                    sessions.login(session_name, context)
                    continue
                if forced:  # acting as another role, sent to the login page after a fresh login
                    raise _to_login_page(operation, response)
                raise TargetError(
                    operation,
                    "the target sent the run back to its login page right after it logged in "
                    f"again as {session_name}: its session changed under the run",
                    f"{exchange.method} {exchange.url}",
                )
            try:
                answer = self._judge(operation, spec, response, exchange)
            except Refused as refused:
                if not sessions.expired_error(session_name, refused):
                    raise
                if attempt == 1:
                    sessions.login(session_name, context)
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
            value = read(answer.body if absolute else answer.data, steps)
            if value is not MISSING:
                self.captured[name] = value
        return answer

    def close(self) -> None:
        self.sessions.close()


def _to_login_page(operation: str, response: requests.Response) -> Refused:
    """The refusal of a call the target sent to its login page."""
    return Refused(
        operation,
        response.status_code,
        "LOGIN_REQUIRED",
        "the target sent the call to its login page",
    )
