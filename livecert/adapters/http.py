"""The canonical adapter: the certification contract over HTTP with one requests.Session.

One keep-alive session for the whole run, explicit timeouts and a total deadline on every request,
a cap on every answer's size, retries only where re-sending cannot apply a bet twice, every
exchange recorded and every answer validated against the contract.
"""

import copy
import json
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import requests

from livecert.adapters.bounded_session import bounded_session
from livecert.adapters.bounds import DEFAULT_BOUNDS, Bounds
from livecert.adapters.errors import (
    CredentialsError,
    Refused,
    TargetError,
    check_sendable,
    check_token,
)
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.history_call import read_round_history
from livecert.adapters.lost_answer import DroppedAnswer
from livecert.adapters.lost_slip import LostSlips
from livecert.adapters.model import (
    BetRecord,
    BetView,
    HistoryPage,
    PlayerHandle,
    RecordRound,
    RoundView,
    TargetInfo,
    limits_from,
)
from livecert.adapters.secrets import SECRETS
from livecert.adapters.transport import send_recorded
from livecert.contract import Contract, ContractViolation, load_contract
from livecert.rules.money import MoneyError, parse_money

DEFAULT_TIMEOUT = (5.0, 30.0)  # (connect, read) seconds


def _money(value: Any, where: str) -> Decimal:
    try:
        return parse_money(value)
    except MoneyError as error:
        raise TargetError(where, str(error)) from None


def _optional_money(value: Any, where: str) -> Decimal | None:
    return None if value is None else _money(value, where)


def _slip(bets: Sequence[tuple[str, Decimal | str]]) -> dict:
    """A slip's body; a stake given as text is sent as written (to test refusals)."""
    return {
        "bets": [
            {"selection": code, "stake": stake if isinstance(stake, str) else format(stake, "f")}
            for code, stake in bets
        ]
    }


class HttpAdapter:
    """Drives a target that serves the certification contract."""

    def __init__(
        self,
        base_url: str,
        operator_token: str,
        dealer_token: str,
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
        contract: Contract | None = None,
        recorder: ExchangeRecorder | None = None,
        bounds: Bounds = DEFAULT_BOUNDS,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._tokens = {"operator": operator_token, "dealer": dealer_token}
        SECRETS.register(operator_token, "$LIVECERT_OPERATOR_TOKEN")
        SECRETS.register(dealer_token, "$LIVECERT_DEALER_TOKEN")
        self.timeout = timeout
        self.bounds = bounds
        self.contract = contract or load_contract()
        self.recorder = recorder or ExchangeRecorder()
        # proxy and CA settings read from the environment once (bounded_session), not on every
        # request (requests does that per request when trust_env is on, at about 0.3 ms each)
        self._session = bounded_session(self.base_url, pool_connections=4, pool_maxsize=32)
        self._forced_token: str | None = None
        self._credentials_accepted = False  # set once check_credentials has seen both roles
        self._lost = LostSlips(self._session, self.base_url, self.recorder, bounds)

    # -- transport -------------------------------------------------------------------------------

    def _call(
        self,
        operation: str,
        method: str,
        path: str,
        *,
        role: str,
        token: str | None = None,
        body: Any = None,
        params: dict[str, str] | None = None,
        idempotency_key: str | None = None,
        resend_safe: bool = True,
        raw: str | None = None,
        content_type: str = "application/json",
    ) -> Any:
        """Send one request; answer the parsed JSON body of a 2xx, raise Refused on a 4xx."""
        url = self.base_url + path
        headers: dict[str, str] = {}
        token = token if token is not None else self._tokens.get(role)
        if self._forced_token is not None:
            token = self._forced_token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":"))
            headers["Content-Type"] = "application/json"
        if raw is not None:
            data = raw
            headers["Content-Type"] = content_type

        def request_line() -> str:  # made only for an error: the request as it would go
            asked = "&".join(f"{k}={v}" for k, v in (params or {}).items())
            return f"{method} {url}" + (f"?{asked}" if asked else "")

        check_sendable(operation, request_line, url, *(params or {}).values())
        full_url = url if not params else requests.Request("GET", url, params=params).prepare().url
        response, exchange = send_recorded(
            lambda deadline: self._session.request(
                method, url, data=data, headers=headers, params=params, timeout=deadline
            ),
            lambda: Exchange(
                self.recorder.next_seq(),
                operation,
                role,
                method,
                full_url,
                data,
                None,
                None,
                0.0,
                None,
                idempotency_key,
            ),
            self.recorder,
            operation=operation,
            request_line=f"{method} {full_url}",
            resend_safe=resend_safe,
            base_url=self.base_url,
            timeout=self.timeout,
            bounds=self.bounds,
        )
        text = response.text
        status = response.status_code
        # a redirect followed: what the request itself was answered, and where it led
        first = response.history[0].status_code if response.history else status
        said = f"answered {first}" + (
            f", a redirect to {response.url}, which answered {status}" if response.history else ""
        )
        if status >= 500:
            raise TargetError(
                operation, f"{said}: {text[:300]!r}", f"{method} {full_url}", first, text[:300]
            )
        try:
            parsed = response.json()
        except ValueError:
            raise TargetError(
                operation,
                f"{said} with a body that is not JSON: {text[:300]!r}",
                f"{method} {full_url}",
                first,
                text[:300],
            ) from None
        except RecursionError:  # JSON, but deeper than Python's reader goes (about 1,000 levels)
            raise TargetError(
                operation,
                f"{said} with a JSON body nested too deeply to read",
                f"{method} {full_url}",
                first,
                text[:300],
            ) from None
        try:
            held = self.contract.check_response(method, path, status, parsed)
        except ContractViolation as violation:  # a check that failed, even where it is caught
            exchange.contract = {"broken": violation.clause, "problem": str(violation)}
            raise
        exchange.contract = {"held": list(held)}  # the checks it made, for its scenario
        if status >= 400:
            error = parsed.get("error", {}) if isinstance(parsed, dict) else {}
            code, message = str(error.get("code")), str(error.get("message"))
            if (
                status == 401
                and token
                and self._credentials_accepted
                and self._sends_own_credentials()
            ):
                raise TargetError(
                    operation,
                    f"the target no longer accepts the {role} credential it accepted earlier in "
                    f"the run (401 {code}: {message}): its session changed under the run",
                    f"{method} {full_url}",
                )
            raise Refused(operation, status, code, message)
        if status >= 300:
            raise TargetError(operation, said, f"{method} {full_url}", first)
        return parsed

    def close(self) -> None:
        self._lost.close()
        self._session.close()

    def _sends_own_credentials(self) -> bool:
        """True unless an access check forced a credential the run was not given (forged, none,
        another player's): a 401 to the run's own credentials is the target's doing."""
        return self._forced_token is None or self._forced_token in self._tokens.values()

    def as_role(self, role: str) -> "HttpAdapter":
        """This adapter sending the `role`'s own credential (operator or dealer) for every call."""
        return self.with_credential(self._tokens[role])

    def with_credential(self, token: str) -> "HttpAdapter":
        """This adapter (same session, same evidence) sending `token` for every role; "" sends
        no credential at all. For access-control checks: who may do what."""
        clone = copy.copy(self)
        clone._forced_token = token
        return clone

    # -- converting answers ----------------------------------------------------------------------

    @staticmethod
    def _bet(raw: dict) -> BetView:
        # called for every bet of every answer (three times a sweep bet): the amounts read
        # in one place, the error's wording built only for an error
        win, returned = raw.get("win"), raw.get("returned")
        try:
            stake = parse_money(raw["stake"])
            win = None if win is None else parse_money(win)
            returned = None if returned is None else parse_money(returned)
        except MoneyError as error:
            raise TargetError(f"bet {raw.get('bet_id')}", str(error)) from None
        return BetView(
            raw["bet_id"],
            raw["round_id"],
            raw["player_id"],
            raw["selection"],
            stake,
            raw["status"],
            raw.get("outcome"),
            win,
            returned,
        )

    def _round(self, raw: dict) -> RoundView:
        return RoundView(
            round_id=raw["round_id"],
            table_id=raw["table_id"],
            game=raw["game"],
            state=raw["state"],
            result=raw.get("result"),
            bets=tuple(map(self._bet, raw.get("bets", ()))),
            events=tuple(raw.get("events", [])),
            opened_at=raw.get("opened_at"),
            betting_ends_at=raw.get("betting_ends_at"),
        )

    # -- info and credentials --------------------------------------------------------------------

    def info(self) -> TargetInfo:
        raw = self._call(
            "read the implementation's declarations", "GET", "/v1/info", role="anonymous", token=""
        )
        return TargetInfo(
            name=raw["implementation"]["name"],
            version=raw["implementation"]["version"],
            contract_version=raw["contract_version"],
            games=tuple(raw["games"]),
            currency=raw["currency"],
            minor_unit=int(raw["minor_unit"]),  # 2.0 is an integer to the contract too
            rounding=raw["rounding"],
            max_rtp={g: _money(v, "info.max_rtp") for g, v in raw["max_rtp"].items()},
            capabilities=tuple(raw.get("capabilities", [])),
            limits=limits_from(raw.get("limits")),
            instance=raw.get("instance"),
        )

    def check_credentials(self) -> None:
        """Both tokens must be accepted, each with its own role; from then on a 401 to them means
        the target dropped the session (a target error), not a refusal."""
        self._credentials_accepted = False
        for role in ("operator", "dealer"):
            try:
                who = self._call(f"check the {role} credentials", "GET", "/v1/whoami", role=role)
            except Refused as refused:
                raise CredentialsError(
                    f"check the {role} credentials",
                    f"the target refused the {role} token ({refused.status} {refused.code}: "
                    f"{refused.message}); pass the right one with --{role}-token or "
                    f"LIVECERT_{role.upper()}_TOKEN",
                ) from None
            if who.get("role") != role:
                raise CredentialsError(
                    f"check the {role} credentials",
                    f"the {role} token stands for role {who.get('role')!r} on the target",
                )
        self._credentials_accepted = True

    # -- operator --------------------------------------------------------------------------------

    def create_player(self, balance: Decimal) -> PlayerHandle:
        raw = self._call(
            "create a test player",
            "POST",
            "/v1/players",
            role="operator",
            body={"balance": format(balance, "f")},
        )
        SECRETS.register_player_token(raw["token"])  # masked from the answer that created it
        check_token(str(raw["token"]), "create a test player", in_header=True)
        return PlayerHandle(raw["player_id"], raw["token"])

    def create_table(self, game: str) -> str:
        raw = self._call(
            f"create a {game} table", "POST", "/v1/tables", role="operator", body={"game": game}
        )
        return raw["table_id"]

    # -- dealer ----------------------------------------------------------------------------------

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView:
        body = {} if countdown_ms is None else {"countdown_ms": countdown_ms}
        return self._round(
            self._call(
                "open a round",
                "POST",
                f"/v1/tables/{table_id}/rounds",
                role="dealer",
                body=body,
                resend_safe=False,
            )
        )

    def close_betting(self, round_id: str) -> RoundView:
        return self._round(
            self._call(
                "close betting", "POST", f"/v1/rounds/{round_id}/close", role="dealer", body={}
            )
        )

    def enter_result(self, round_id: str, outcome: Sequence[int] | Sequence[str]) -> RoundView:
        values = list(outcome)
        body = {"tokens": values} if values and isinstance(values[0], str) else {"dice": values}
        return self._round(
            self._call(
                "enter the result",
                "POST",
                f"/v1/rounds/{round_id}/result",
                role="dealer",
                body=body,
                resend_safe=False,
            )
        )

    def record_reshake(self, round_id: str, reason: str) -> RoundView:
        return self._round(
            self._call(
                "record a re-shake",
                "POST",
                f"/v1/rounds/{round_id}/reshakes",
                role="dealer",
                body={"reason": reason},
                resend_safe=False,
            )
        )

    def record_event(self, round_id: str, event: str) -> RoundView:
        """A dealer's procedural event: `shake`, `rearrange`, `bowl-touched-token`."""
        return self._round(
            self._call(
                f"record the dealer event {event}",
                "POST",
                f"/v1/rounds/{round_id}/events",
                role="dealer",
                body={"type": event},
                resend_safe=False,
            )
        )

    def dealer_action(self, round_id: str, action: str, reason: str | None = None) -> RoundView:
        """pause, resume, cancel or void a round."""
        body = {} if reason is None else {"reason": reason}
        return self._round(
            self._call(
                f"{action} the round",
                "POST",
                f"/v1/rounds/{round_id}/{action}",
                role="dealer",
                body=body,
                resend_safe=False,
            )
        )

    # -- player ----------------------------------------------------------------------------------

    def place_bets(
        self,
        player: PlayerHandle,
        round_id: str,
        bets: Sequence[tuple[str, Decimal | str]],
        idempotency_key: str | None = None,
    ) -> list[BetView]:
        """Place a slip; a stake given as text is sent as written (to test refusals)."""
        body = _slip(bets)
        raw = self._call(
            f"place {len(bets)} bet(s)",
            "POST",
            f"/v1/rounds/{round_id}/bets",
            role="player",
            token=player.token,
            body=body,
            idempotency_key=idempotency_key or f"livecert-{uuid.uuid4()}",
        )
        return [self._bet(b) for b in raw["bets"]]

    def place_bets_answer_lost(
        self,
        player: PlayerHandle,
        round_id: str,
        bets: Sequence[tuple[str, Decimal]],
        idempotency_key: str,
        *,
        in_flight: bool = False,
    ) -> Callable[[], DroppedAnswer]:
        """A slip whose answer is lost on the way back (REG-IDEMP-01): `LostSlips.send`."""
        slip = _slip(bets)
        timeout = self.timeout[1]
        return self._lost.send(player.token, round_id, slip, idempotency_key, in_flight, timeout)

    def send_raw_slip(
        self, player: PlayerHandle, round_id: str, text: str, content_type: str
    ) -> list[BetView]:
        """Send a bet slip exactly as given (malformed JSON, another content type, ...)."""
        raw = self._call(
            "place a raw bet slip",
            "POST",
            f"/v1/rounds/{round_id}/bets",
            role="player",
            token=player.token,
            raw=text,
            content_type=content_type,
            idempotency_key=f"livecert-{uuid.uuid4()}",
        )
        return [self._bet(b) for b in raw["bets"]]

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView:
        role, token = ("player", player.token) if player else ("dealer", None)
        return self._round(
            self._call("read the round", "GET", f"/v1/rounds/{round_id}", role=role, token=token)
        )

    def balance(self, player: PlayerHandle) -> Decimal:
        raw = self._call("read the balance", "GET", "/v1/player", role="player", token=player.token)
        return _money(raw["balance"], "player.balance")

    def withdraw_bet(self, player: PlayerHandle, bet_id: str) -> None:
        self._call(
            "withdraw a bet",
            "DELETE",
            f"/v1/bets/{bet_id}",
            role="player",
            token=player.token,
            resend_safe=False,
        )

    def bet_record(self, player: PlayerHandle, round_id: str | None = None) -> BetRecord:
        raw = self._call(
            "read the bet record",
            "GET",
            "/v1/player/bets",
            role="player",
            token=player.token,
            params={"round_id": round_id} if round_id else None,
        )
        rounds = tuple(
            RecordRound(
                round_id=r["round_id"],
                game=r["game"],
                state=r["state"],
                result=r.get("result"),
                staked=_money(r["staked"], "record.staked"),
                returned=_optional_money(r.get("returned"), "record.returned"),
                balance_before=_money(r["balance_before"], "record.balance_before"),
                balance_after=_optional_money(r.get("balance_after"), "record.balance_after"),
            )
            for r in raw["rounds"]
        )
        return BetRecord(raw["player_id"], tuple(self._bet(b) for b in raw["bets"]), rounds)

    def connect(self, player: PlayerHandle) -> None:
        self._call(
            "reconnect the player", "POST", "/v1/player/connect", role="player", token=player.token
        )

    def disconnect(self, player: PlayerHandle) -> None:
        self._call(
            "disconnect the player",
            "POST",
            "/v1/player/disconnect",
            role="player",
            token=player.token,
        )

    def statistics(self, table_id: str) -> list[dict]:
        raw = self._call(
            "read the statistics chart", "GET", f"/v1/tables/{table_id}/statistics", role="dealer"
        )
        return list(raw["results"])

    def round_history(
        self, table_id: str, after: str | None = None, limit: int = 1000
    ) -> HistoryPage:
        """A page of the table's finished rounds (optional: capability `round-history`)."""
        return read_round_history(self._call, table_id, after, limit)
