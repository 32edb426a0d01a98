"""The vendor's HTTP API as a bare ASGI application over the engine (examples.second_server).

Every answer is HTTP 200 with `{"success": true, "data": ...}` or `{"success": false, "error":
{...}}`, except the login form (HTML, 302 with a session cookie), a call without a session (302 to
the login page) and a crash (500).
"""

import asyncio
import json
import re
import secrets
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote

from examples.second_server.casino import Casino, Refusal, Request

from .codes import engine_selection, vendor_code
from .errors import VendorError
from .history import PATH as HISTORY_PATH
from .history import table_history
from .instant import InstantTable

STATUS = {
    "betting": "OPEN",
    "closed": "STOPPED",
    "paused": "PAUSED",
    "settled": "DONE",
    "cancelled": "CANCELLED",
    "void": "VOID",
}
BET_STATE = {"open": "OPEN", "settled": "DONE", "void": "VOID", "cancelled": "CANCELLED"}
BET_RESULT = {"win": "W", "lose": "L", "refund": "R"}
ERROR_CODES = {401: 1001, 403: 1003, 404: 1004, 409: 1009, 413: 1013, 415: 1015, 422: 1022}
GAME_NAMES = {"SICBO": "sicbo", "XOCDIA": "xocdia"}
WRITE_BACK_PAUSE_S = 0.02  # the wallet's round trip to its database (instant-lost-update)
LOGIN_PAGE = (
    "<!DOCTYPE html><html><head><title>Sao Mai Studio</title></head><body>"
    "<form method=post action=/login.php><input name=username><input name=password type=password>"
    "</form>{message}</body></html>"
)


def cents(text: str | None) -> int | None:
    """The engine's "12.34" as 1234."""
    if text is None:
        return None
    whole, _, part = text.partition(".")
    sign = -1 if whole.startswith("-") else 1
    return sign * (abs(int(whole)) * 100 + int(part or 0))


def locale_money(amount: int, drop_cents: bool = False) -> str:
    """1234567 cents as "12.345,67" (dot for thousands, comma for decimals)."""
    whole, part = divmod(abs(amount), 100)
    grouped = f"{whole:,}".replace(",", ".")
    sign = "-" if amount < 0 else ""
    return f"{sign}{grouped}" if drop_cents else f"{sign}{grouped},{part:02d}"


@dataclass
class Session:
    role: str
    left: int  # requests until it expires (a PHP session timing out under the run)


class Studio:
    """Routing, sessions and translation between the vendor's shapes and the engine's."""

    def __init__(
        self,
        casino: Casino,
        accounts: dict[str, tuple[str, str]],
        session_requests: int,
        faults: frozenset[str],
    ) -> None:
        self.casino, self.accounts, self.faults = casino, accounts, faults
        self.session_requests = session_requests
        self.sessions: dict[str, Session] = {}
        self.table_games: dict[str, str] = {}
        self.lock = threading.Lock()
        self.instant_table = InstantTable(self)

    # -- engine calls ----------------------------------------------------------------------

    def engine(
        self, handler: str, role: str | None, token: str | None, params: dict, body: Any = None
    ) -> Any:
        """Call the engine as the given role (its bearer tokens stay inside this server)."""
        player_id = self.casino.by_token.get(token) if token else None
        if role == "player":
            role = "player" if player_id else None
        raw = b"" if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        request = Request(role, player_id, params, params, headers, raw)
        try:
            _, answer = getattr(self.casino, handler)(request)
        except Refusal as refusal:
            code = ERROR_CODES.get(refusal.status, 1000)
            raise VendorError(code, refusal.message, refusal.code) from None
        return answer

    # -- shapes ----------------------------------------------------------------------------

    def bet_out(self, bet: dict) -> dict:
        return {
            "id": bet["bet_id"],
            "round": bet["round_id"],
            "uid": bet["player_id"],
            "c": vendor_code(bet["game"], bet["selection"]),
            "a": cents(bet["stake"]),
            "st": BET_STATE.get(bet["status"], bet["status"]),
            "res": BET_RESULT.get(bet["outcome"]) if bet["outcome"] else None,
            "pay": cents(bet["returned"]),
        }

    @staticmethod
    def result_out(game: str, result: dict | None) -> dict:
        if not result:
            return {"dice": None, "sum": None, "tokens": None}
        if game == "sicbo":
            return {"dice": sorted(result["dice"]), "sum": result["total"], "tokens": None}
        return {
            "dice": None,
            "sum": None,
            "tokens": "".join("1" if t == "r" else "0" for t in result["tokens"]),
        }

    def round_out(self, view: dict) -> dict:
        return {
            "id": view["round_id"],
            "table": view["table_id"],
            "game": view["game"].upper(),
            "status": STATUS.get(view["state"], view["state"]),
            "opened": view["opened_at"],
            "closes": view["betting_ends_at"],
            **self.result_out(view["game"], view["result"]),
            "log": [
                {"type": e["type"], "reason": e.get("reason"), "at": e["at"]}
                for e in view["events"]
            ],
            "bets": [self.bet_out(b) for b in view["bets"]],
        }

    def credit(self, amount: int) -> str:
        return locale_money(amount, drop_cents="wallet-drops-cents" in self.faults)

    # -- the API ---------------------------------------------------------------------------

    def login(self, form: dict) -> tuple[int, dict, str]:
        account = self.accounts.get(form.get("username", ""))
        if account is None or not secrets.compare_digest(account[0], form.get("password", "")):
            page = LOGIN_PAGE.format(message="<p class=err>Sai mật khẩu (wrong password)</p>")
            return 200, {"content-type": "text/html; charset=utf-8"}, page
        sid = secrets.token_hex(16)
        self.sessions[sid] = Session(account[1], self.session_requests)
        headers = {
            "location": "/lobby.php",
            "set-cookie": f"PHPSESSID={sid}; Path=/; Secure; HttpOnly; SameSite=Lax",
            "content-type": "text/html; charset=utf-8",
        }
        return 302, headers, "<a href=/lobby.php>lobby</a>"

    def session_role(self, cookies: dict[str, str]) -> str | None:
        session = self.sessions.get(cookies.get("PHPSESSID", ""))
        if session is None:
            return None
        if self.session_requests:
            session.left -= 1
            if session.left < 0:
                del self.sessions[cookies["PHPSESSID"]]
                return None
        return session.role

    def api(self, method: str, path: str, query: dict, form: dict, body: dict, who: dict) -> Any:
        """One API call; `who` holds the session's role and the player's ticket."""
        role, ticket = who["role"], who["ticket"]
        if (method, path) == ("GET", "/api/v2/ping"):
            return {"server": "Sao Mai Studio", "build": "2.4.1", "games": ["SICBO", "XOCDIA"]}
        if (method, path) == ("POST", "/api/v2/admin/players"):
            credit = body.get("credit")
            if type(credit) is not int or credit < 0:
                raise VendorError(1022, "credit must be a whole number of cents")
            made = self.engine(
                "create_player", role, None, {}, {"balance": f"{credit // 100}.{credit % 100:02d}"}
            )
            return {"uid": made["player_id"], "ticket": made["token"]}
        if (method, path) == ("POST", "/api/v2/admin/tables"):
            game = GAME_NAMES.get(form.get("game", ""))
            if game is None:
                raise VendorError(1022, "game must be SICBO or XOCDIA")
            made = self.engine("create_table", role, None, {}, {"game": game})
            self.table_games[made["table_id"]] = game
            return {"table_no": made["table_id"]}
        if (method, path) == ("POST", "/studio/round/open"):
            body = {}
            if "countdown" in form:
                if not re.fullmatch(r"-?\d{1,9}", form["countdown"]):
                    raise VendorError(1022, "countdown is a whole number of milliseconds")
                body["countdown_ms"] = int(form["countdown"])
            params = {"table_id": form.get("table", "")}
            return self.round_out(self.engine("open_round", role, None, params, body))
        found = re.fullmatch(r"/studio/round/([^/]+)(?:/([a-z]+))?", path)
        if found:
            return self.studio(method, found.group(1), found.group(2), form, body, role)
        found = re.fullmatch(r"/studio/table/([^/]+)/roadmap", path)
        if found and method == "GET":
            chart = self.engine("statistics", role, None, {"table_id": found.group(1)})
            return {
                "table": chart["table_id"],
                "road": [
                    {
                        "round": r["round_id"],
                        "at": r["settled_at"],
                        **self.result_out(chart["game"], r["result"]),
                    }
                    for r in chart["results"]
                ],
            }
        found = HISTORY_PATH.fullmatch(path)
        if found and method == "GET":
            return table_history(self, found.group(1), query, role)
        player_role = "player" if ticket else role
        if (method, path) == ("POST", "/api/v2/bet.php"):
            return self.bet(form, ticket, player_role, who.get("request_id"))
        if (method, path) == ("POST", "/api/v2/instant.php"):
            return self.instant_table.play(
                form, ticket, player_role, who.get("request_id"), self._place_for_instant
            )
        if (method, path) == ("GET", "/api/v2/wallet.php"):
            return {
                "credit": self.credit(cents(self.engine("me", player_role, ticket, {})["balance"]))
            }
        if (method, path) == ("GET", "/api/v2/round.php"):
            view = self.engine("get_round", player_role, ticket, {"round_id": query.get("id", "")})
            return self.round_out(view)
        if (method, path) == ("GET", "/api/v2/history.php"):
            params = {"round_id": query["round"]} if query.get("round") else {}
            record = self.engine("record", player_role, ticket, params)
            return self.history_out(record)
        if (method, path) == ("POST", "/api/v2/presence.php"):
            online = form.get("online")
            if online not in ("0", "1"):
                raise VendorError(1022, "online is 0 or 1")
            handler = "connect" if online == "1" else "disconnect"
            self.engine(handler, player_role, ticket, {})
            return {"online": online == "1"}
        if (method, path) == ("POST", "/api/v2/bet/cancel.php"):
            self.engine("withdraw", player_role, ticket, {"bet_id": form.get("bet", "")})
            return {}
        raise VendorError(1404, f"no such API {method} {path}", "E_NOAPI")

    def studio(
        self, method: str, round_id: str, action: str | None, form: dict, body: dict, role: str
    ) -> dict:
        params = {"round_id": round_id}
        if action is None and method == "GET":
            return self.round_out(self.engine("get_round", role, None, params))
        if method != "POST":
            raise VendorError(1405, f"{method} is not used here", "E_METHOD")
        if action == "result":
            return self.round_out(self.engine("result", role, None, params, self.outcome(body)))
        simple = {"pause": "pause", "resume": "resume", "cancel": "cancel", "void": "void"}
        if action == "stop":
            answer = self.round_out(self.engine("close", role, None, params, {}))
            if answer["status"] == "STOPPED":
                answer["status"] = "STOPPING"  # the studio completes the stop on the next read
            return answer
        if action in simple:
            payload = {"reason": form["reason"]} if "reason" in form else {}
            return self.round_out(self.engine(simple[action], role, None, params, payload))
        if action == "reshake":
            payload = {"reason": form["reason"]} if "reason" in form else {}
            return self.round_out(self.engine("reshake", role, None, params, payload))
        if action == "event":
            payload = {"type": form["type"]} if "type" in form else {}
            return self.round_out(self.engine("event", role, None, params, payload))
        raise VendorError(1404, f"no studio action {action!r}", "E_NOAPI")

    def _place_for_instant(self, form: dict, ticket: str | None, role: str | None) -> dict:
        return self.bet(form, ticket, role, None)

    @staticmethod
    def outcome(body: dict) -> dict:
        """The studio enters dice as "3,1,2" and tokens as "1011" (1 red, 0 white)."""
        if isinstance(body.get("dice"), str):
            parts = body["dice"].split(",")
            if not all(re.fullmatch(r"-?\d{1,3}", p) for p in parts):
                raise VendorError(1022, "dice are entered as three numbers, like 3,1,2")
            return {"dice": [int(p) for p in parts]}
        if isinstance(body.get("tokens"), str):
            text = body["tokens"]
            return {"tokens": ["r" if c == "1" else "w" if c == "0" else c for c in text]}
        raise VendorError(1022, "the result is {'dice': '3,1,2'} or {'tokens': '1011'}")

    def bet(self, form: dict, ticket: str | None, role: str | None, request_id: str | None) -> dict:
        try:
            slip = json.loads(form.get("slip", ""))
        except ValueError:
            raise VendorError(1022, "slip must be a JSON array of {c, a}") from None
        if not isinstance(slip, list) or not all(isinstance(i, dict) for i in slip):
            raise VendorError(1022, "slip must be a JSON array of {c, a}")
        game = self.round_game(form.get("round", ""))
        bets = []
        for item in slip:
            code, amount = item.get("c"), item.get("a")
            if not isinstance(code, str) or type(amount) is not int or amount < 0:
                raise VendorError(1022, "each bet is {c: code, a: whole cents}")
            selection = engine_selection(game, code) if game else code
            if selection == "TOTAL_10" and "sum10-booked-as-sum11" in self.faults:
                selection = "TOTAL_11"
            bets.append(
                {
                    "selection": selection or f"?{code}",
                    "stake": f"{amount // 100}.{amount % 100:02d}",
                }
            )
        params = {"round_id": form.get("round", "")}
        casino_headers = {"idempotency-key": request_id} if request_id else {}
        answer = self.place(role, ticket, params, bets, casino_headers)
        return {
            "bets": [self.bet_out(b) for b in answer["bets"]],
            "credit": self.credit(cents(answer["balance"])),
        }

    def place(self, role, ticket, params, bets, headers) -> dict:
        player_id = self.casino.by_token.get(ticket) if ticket else None
        role = role if role != "player" or player_id else None
        raw = json.dumps({"bets": bets}).encode()
        request = Request(
            role, player_id, params, {}, {"content-type": "application/json", **headers}, raw
        )
        try:
            return self.casino.place_bets(request)[1]
        except Refusal as refusal:
            raise VendorError(
                ERROR_CODES.get(refusal.status, 1000), refusal.message, refusal.code
            ) from None

    def round_game(self, round_id: str) -> str | None:
        found = self.casino.rounds.get(round_id)
        return found.game if found else None

    def history_out(self, record: dict) -> dict:
        rounds = []
        for r in record["rounds"]:
            rounds.append(
                {
                    "round": r["round_id"],
                    "game": r["game"].upper(),
                    "status": STATUS.get(r["state"], r["state"]),
                    **self.result_out(r["game"], r["result"]),
                    "staked": cents(r["staked"]),
                    "paid": cents(r["returned"]),
                    "before": self.credit(cents(r["balance_before"])),
                    "after": None
                    if r["balance_after"] is None
                    else self.credit(cents(r["balance_after"])),
                }
            )
        return {
            "uid": record["player_id"],
            "bets": [self.bet_out(b) for b in record["bets"]],
            "rounds": rounds,
        }


# The Sic Bo paytables this studio can run: the rules documents', or the variant it publishes
# for some operators (specific triple 150:1, any triple 24:1, specific double 8:1, totals
# 50/18/14/12/8/6/6). Odds x:1 by selection family; totals by total.
PAYTABLES: dict[str, dict[str, Any]] = {
    "documents": {},
    "variant-150": {
        "TRIPLE": 150,
        "ANY_TRIPLE": 24,
        "PAIR": 8,
        "TOTAL": {
            4: 50,
            17: 50,
            5: 18,
            16: 18,
            6: 14,
            15: 14,
            7: 12,
            14: 12,
            8: 8,
            13: 8,
            9: 6,
            12: 6,
            10: 6,
            11: 6,
        },
    },
}


def published_odds(paytable: str, selection: str) -> int | None:
    """The published paytable's odds for a winning Sic Bo selection, when it changes them."""
    table = PAYTABLES[paytable]
    family, _, rest = selection.rpartition("_") if selection[-1].isdigit() else (selection, "", "")
    if family == "TOTAL" and "TOTAL" in table:
        return table["TOTAL"].get(int(rest))
    return table.get(family) if family != "TOTAL" else None


class StudioEngine(Casino):
    """The engine with the vendor's settlement hook: its published paytable and its fault."""

    def __init__(
        self,
        operator_token: str,
        dealer_token: str,
        faults: frozenset[str],
        paytable: str = "documents",
    ) -> None:
        super().__init__(operator_token, dealer_token)
        self.faults, self.paytable = faults, paytable

    def _finish(self, rnd, state: str, now: int) -> None:
        if state == "settled" and rnd.game == "sicbo" and self.paytable != "documents":
            for bet in rnd.bets:
                odds = published_odds(self.paytable, bet.selection)
                if bet.outcome == "win" and odds is not None:
                    bet.win = bet.stake * odds
                    bet.returned = bet.stake + bet.win
        two_two = rnd.game == "xocdia" and rnd.result and rnd.result.get("red") == 2
        if state == "settled" and two_two and "two-two-takes-big-small" in self.faults:
            for bet in rnd.bets:
                if bet.selection in ("BIG", "SMALL"):
                    bet.outcome, bet.win, bet.returned = "lose", 0, 0
        super()._finish(rnd, state, now)


def _cookies(header: str) -> dict[str, str]:
    jar = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name:
            jar[name] = value
    return jar


class App:
    """ASGI entry: parses the request, applies the session rules, wraps every answer."""

    def __init__(self, studio: Studio) -> None:
        self.studio = studio

    def handle(self, method: str, path: str, query: str, headers: dict, raw: bytes):
        studio = self.studio
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        form = (
            dict(parse_qsl(raw.decode("utf-8", "replace")))
            if kind.endswith("x-www-form-urlencoded")
            else {}
        )
        if path == "/login.php" and method == "POST":
            return studio.login(form)
        if path in ("/login.php", "/lobby.php"):
            return 200, {"content-type": "text/html"}, LOGIN_PAGE.format(message="")
        body: dict = {}
        if kind == "application/json" and raw.strip():
            try:
                body = json.loads(raw)
            except ValueError:
                return self.failure(VendorError(1022, "the body is not JSON"))
            if not isinstance(body, dict):
                return self.failure(VendorError(1022, "the body must be a JSON object"))
        role = studio.session_role(_cookies(headers.get("cookie", "")))
        staff_only = path.startswith(("/studio/", "/api/v2/admin/"))
        if staff_only and role is None:
            target = quote(path)
            return 302, {"location": f"/login.php?expired=1&next={target}"}, "<p>login</p>"
        who = {
            "role": role,
            "ticket": headers.get("x-ticket"),
            "request_id": headers.get("x-request-id"),
        }
        try:
            data = studio.api(method, path, dict(parse_qsl(query)), form, body, who)
        except VendorError as error:
            return self.failure(error)
        return (
            200,
            {"content-type": "application/json"},
            json.dumps({"success": True, "data": data}, separators=(",", ":")),
        )

    @staticmethod
    def failure(error: VendorError):
        answer = {
            "success": False,
            "error": {"code": error.code, "key": error.key, "text": error.text},
        }
        return 200, {"content-type": "application/json"}, json.dumps(answer)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            with self.studio.lock:
                status, out_headers, text = self.handle(
                    scope["method"],
                    scope["path"],
                    scope.get("query_string", b"").decode("latin-1"),
                    headers,
                    b"".join(chunks),
                )
            write_back, self.studio.instant_table.write_back = (
                self.studio.instant_table.write_back,
                None,
            )
        except Exception as crash:  # a PHP-style fatal error page, with status 500
            status, out_headers = 500, {"content-type": "text/html"}
            text = f"<b>Fatal error</b>: {type(crash).__name__}: {crash}"
            write_back = None
        if write_back is not None:  # the faulty wallet's pause between its read and its write
            await asyncio.sleep(WRITE_BACK_PAUSE_S)
            with self.studio.lock:
                write_back.apply()
        payload = text.encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k.encode(), v.encode()) for k, v in out_headers.items()]
                + [(b"content-length", str(len(payload)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": payload})
