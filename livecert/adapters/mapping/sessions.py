"""A mapping's login sessions and role credentials, and the secrets kept out of the evidence.

Each login session has its own cookie jar, logged in on first use and again when an answer
matches the session's `expired` rule. A role sends its session's cookies, its headers, or both;
an access check sends another role's credentials, a forged player token, or nothing. Every
variable's value, every login session's cookies and every player token is registered with the
run's secrets (livecert.adapters.secrets) and shown masked (`$VARIABLE`, `$SESSION_OPS`,
`$PLAYER_TOKEN[hmac:...]`).
"""

import http.cookiejar
import json
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from urllib.parse import urljoin, urlsplit

import requests

from livecert.adapters.bounded_session import bounded_session
from livecert.adapters.errors import CredentialsError, Refused
from livecert.adapters.evidence import Exchange
from livecert.adapters.jsonpath import MISSING, holds, parse, read
from livecert.adapters.mapping.document import MappingError, MappingFile
from livecert.adapters.mapping.template import Filter, TemplateError, render
from livecert.adapters.secrets import MIN_LENGTH, SECRETS

# sends one login request: (operation, role, jar, request spec, context, headers)
Send = Callable[[str, str, requests.Session, dict, dict, dict], tuple[requests.Response, Exchange]]
PLAYER_TOKEN = "$PLAYER_TOKEN"  # how a player's token is shown
Forced = tuple[str, str] | None  # an access check's credential: ("role", name) or ("token", t)


class Sessions:
    """The cookie jars, logins and credentials of one mapping adapter (shared by its clones)."""

    def __init__(
        self, mapping: MappingFile, base_url: str, filters: Mapping[str, Filter], send: Send
    ) -> None:
        self.mapping = mapping
        self.base_url = base_url
        self.filters = filters
        self._send = send
        self._jars: dict[str, requests.Session] = {}
        self._logged_in: set[str] = set()
        # the calls of no login session keep no cookie: a player's login answered there (its
        # session cookie read into the player's token) must not ride along on other calls
        self.plain = self.new_session()
        self.plain.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
        self.login_paths = self._login_paths()  # where a refused credential is sent
        for name, value in mapping.variables.items():
            spec = mapping.data["variables"][name]
            if spec.get("secret", True):  # `secret: false`: a path or a program, shown as it is
                self.secret(value, "$" + spec["env"])

    @staticmethod
    def secret(value: object, shown: str) -> None:
        """Mask `value` as `shown` in everything the run writes; a value too short to mask is
        said on stderr (never the value)."""
        if not SECRETS.register(value, shown):
            print(
                f"livecert: {shown} is shorter than {MIN_LENGTH} characters and cannot be kept "
                "out of the report (masking it would garble every word holding it); use a "
                "longer secret",
                file=sys.stderr,
            )

    def new_session(self) -> requests.Session:
        """A cookie jar of its own, sending within the request bounds (BoundedTransport)."""
        return bounded_session(self.base_url)

    def _jar(self, name: str) -> requests.Session:
        if name not in self._jars:
            self._jars[name] = self.new_session()
        return self._jars[name]

    def login(self, name: str, context: dict) -> None:
        """Log the session `name` in (again); CredentialsError with what came back if refused."""
        spec = self.mapping.data["sessions"][name]
        operation = f"log in as {name}"
        jar = self._jar(name)
        jar.cookies.clear()
        response, exchange = self._send(operation, name, jar, spec["login"], context, {})
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
        elif wanted.get("body"):
            problem = _body_problem(wanted["body"], response.text)
        if problem:
            raise CredentialsError(
                operation,
                f"the target did not accept the login ({problem}; it answered: "
                f"{self.masked(response.text[:200])!r}); check the variables the mapping's "
                f"sessions.{name}.login uses",
                f"{exchange.method} {exchange.url}",
            )
        for item in jar.cookies:
            self.secret(item.value, f"$SESSION_{name.upper()}")
            if spec.get("secure_cookies_over_http"):
                item.secure = False  # a test lab over plain http: send the Secure cookie anyway
        self._logged_in.add(name)

    def log_in_every_role(self, context: dict) -> None:
        """Log in every session the roles use (once each); CredentialsError names the refused."""
        roles = self.mapping.data.get("roles", {})
        for role in ("operator", "dealer", "player", "anonymous"):
            name = roles.get(role, {}).get("session")
            if name and name not in self._logged_in:
                self.login(name, context)

    def auth(
        self, role: str, context: dict, forced: Forced
    ) -> tuple[requests.Session, dict, str | None]:
        """The session (cookie jar), headers and login-session name a call is sent with;
        `forced` is an access check's credential (another role's, or a player token)."""
        roles = self.mapping.data.get("roles", {})
        if forced and forced[0] == "token":
            # a forged, absent or other player's credential: no session, no stored cookies
            token = forced[1]
            if not token:
                return self.new_session(), {}, None
            spec = roles.get("player", {})
            player = {"token": token, "player_id": ""}
            headers = self._credentials(spec, {**context, "player": player})
            return self.new_session(), headers, None
        if forced:
            role = forced[1]
        spec = roles.get(role, {})
        name = spec.get("session")
        session = self._jar(name) if name else self.plain
        if name and name not in self._logged_in:
            self.login(name, context)
        try:
            headers = self._credentials(spec, context)
        except TemplateError as error:
            if not forced:
                raise MappingError(self.mapping.source, [f"roles.{role}: {error}"]) from None
            headers = {}  # acting as a player outside a player's call: no credential to send
        return session, headers, name

    def _credentials(self, spec: dict, context: dict) -> dict:
        """A role's headers, and its `cookies` (a player's own session cookie, captured when
        the player logged in) as one Cookie header."""
        headers = render(spec.get("headers", {}), context, self.filters)
        cookies = render(spec.get("cookies", {}), context, self.filters)
        if cookies:
            jar = "; ".join(f"{name}={value}" for name, value in cookies.items() if value)
            if jar:
                headers["Cookie"] = jar
        return headers

    def expired(self, session_name: str | None, response: requests.Response) -> bool:
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

    def _login_paths(self) -> frozenset[str]:
        """The paths of the file's login pages: each session's login, and `create_player`'s
        request where it is a player's login (its answer reads the token from a cookie)."""
        data = self.mapping.data
        paths = [spec["login"]["path"] for spec in (data.get("sessions") or {}).values()]
        if self.mapping.logs_players_in():
            request = (self.mapping.operation("create_player") or {}).get("request") or {}
            paths += [r["path"] for r in (request.get("per_game") or {"": request}).values()]
        return frozenset(p.split("?")[0] for p in paths if isinstance(p, str) and "${" not in p)

    def sent_to_login(self, response: requests.Response) -> bool:
        """True when the answer redirects to one of the file's login pages: a cookie casino's
        answer to a call whose credential it does not take."""
        if not 300 <= response.status_code < 400:
            return False
        location = urlsplit(
            urljoin(response.url or "http://target/", response.headers.get("location", ""))
        )
        return location.path in self.login_paths

    def expired_error(self, session_name: str | None, refused: Refused) -> bool:
        """True when a call sent with a login session was refused with one of the codes the
        session lists as "log in again" (targets that answer an expired session with their
        usual error body, not a 401 or a redirect). Calls without a session (a forged or absent
        player credential) are never this; a call acting as another role is retried once after
        a fresh login, and a second refusal is then the refusal its access check looks for."""
        if session_name is None:
            return False
        rule = self.mapping.data.get("sessions", {}).get(session_name, {}).get("expired", {})
        return refused.code in rule.get("error_code", [])

    @staticmethod
    def masked(text: str | None) -> str | None:
        """`text` with every secret the run knows replaced by its name."""
        return SECRETS.mask(text)

    def close(self) -> None:
        for jar in self._jars.values():
            jar.close()
        self.plain.close()


def _body_problem(rule: dict, text: str) -> str | None:
    """Why a login's body does not say it succeeded (`logged_in.body`), if it does not: a 200
    with an error in its body and a session cookie is a refused login, not a session."""
    try:
        body = json.loads(text, parse_float=Decimal)
    except ValueError:
        return f"its body is not JSON, where the mapping reads {rule['path']}"
    value = read(body, parse(rule["path"])[1])
    if value is MISSING:
        return f"its body has no {rule['path']}"
    if holds(rule, value):
        return None
    if "equals" in rule:
        return f"its body's {rule['path']} is {value!r}, not {rule['equals']!r}"
    if "in" in rule:
        return f"its body's {rule['path']} is {value!r}, not one of {rule['in']!r}"
    return f"its body's {rule['path']} is {value!r}"
