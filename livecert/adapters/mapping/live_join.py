"""Joining a live table's streams as a mapping's `streams` section says: the table's stream
(anyone's) and each player's, over Socket.IO or a plain WebSocket, joined again when the table
dropped one; every message, and each join with its credentials, kept as an exchange of the
run's evidence (JOIN, PUSH, EMIT, ACK), masked when it is handed over. `live.py` drives the
table over them.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from livecert.adapters.errors import TargetError, check_sendable
from livecert.adapters.evidence import (
    ACKNOWLEDGED,
    EMITTED,
    JOINED,
    PUSHED,
    Exchange,
    ExchangeRecorder,
)
from livecert.adapters.jsonpath import holds, parse, read
from livecert.adapters.mapping.calls import Calls
from livecert.adapters.mapping.template import dump_json, render
from livecert.adapters.model import PlayerHandle
from livecert.adapters.secrets import SECRETS
from livecert.adapters.streams import (
    ACK,
    IN,
    OUT,
    SocketIOStream,
    StreamError,
    StreamLog,
    StreamMessage,
    WebSocketStream,
)

DEFAULT_TIMEOUT_MS = 10_000
METHOD_OF = {IN: PUSHED, OUT: EMITTED, ACK: ACKNOWLEDGED}
PLAYER_STREAM = "player "  # a player's stream is named this and the player's id


@dataclass
class _Joined:
    stream: SocketIOStream | WebSocketStream
    role: str
    url: str
    player: PlayerHandle | None = None
    table_id: str = ""
    game: str | None = None


class StreamJoins:
    """The streams one run joined at a mapping's live table, and their evidence."""

    def __init__(
        self,
        spec: dict,
        base_url: str,
        calls: Calls,
        recorder: ExchangeRecorder,
        filters: dict[str, Callable[..., Any]],
    ) -> None:
        self.spec, self.calls, self.recorder, self.filters = spec, calls, recorder, filters
        self.timeout = spec.get("timeout_ms", DEFAULT_TIMEOUT_MS) / 1000
        self.url = self._stream_url(base_url)
        self.log = StreamLog(on_message=self._evidence)
        self._joined: dict[str, _Joined] = {}
        self._joined_ever: dict[str, _Joined] = {}  # every stream joined (its game), for reading
        self._lock = threading.RLock()

    def _stream_url(self, base_url: str) -> str:
        split = urlsplit(base_url)
        path = self.spec.get("path", "/")
        if self.spec["protocol"] == "socketio":
            return urlunsplit((split.scheme, split.netloc, path, "", ""))
        scheme = "wss" if split.scheme == "https" else "ws"
        return urlunsplit((scheme, split.netloc, path, "", ""))

    def _evidence(self, message: StreamMessage) -> None:
        """Each message of a stream as an exchange of the run's evidence, in its order."""
        joined = self._joined_ever.get(message.stream)
        text = dump_json(message.data)
        sent = message.direction == OUT
        self._record(
            message.stream,
            joined.role if joined else "anonymous",
            METHOD_OF[message.direction],
            f"{joined.url if joined else self.url} {message.event}",
            text if sent else None,
            None if sent else text,
            message.at,
        )

    def _record(
        self,
        stream: str,
        role: str,
        method: str,
        url: str,
        sent: str | None,
        answer: str | None,
        at: float | None = None,
    ) -> None:
        """One exchange of a stream's evidence (masked when it is handed over, as any)."""
        self.recorder.add(
            Exchange(
                seq=self.recorder.next_message_seq(),
                operation=f"stream {stream}",
                role=role,
                method=method,
                url=url,
                request_body=sent,
                status=None,
                response_body=answer,
                elapsed_ms=0.0,
                started=time.time() if at is None else at,
            )
        )

    def _open(self, name: str, side: str, role: str, values: dict) -> None:
        """Join stream `name` as the file's `streams.<side>` says, once (again after it was
        closed or dropped: a player reconnecting)."""
        with self._lock:
            known = self._joined.get(name)
            if known is not None and known.stream is not None:
                if not self.log.is_broken(name):
                    return
                known.stream.close()  # the target dropped it: joined again, as a player would
            spec = self.spec.get(side, {})
            context = self.calls.context(values)
            headers = self._role_credentials(spec.get("role"), context)
            rendered = self._render(spec.get("headers", {}), context)
            headers.update({k: str(v) for k, v in rendered.items()})
            query = self._render(spec["query"], context) if spec.get("query") else {}
            check_sendable(
                f"joining the stream {name}",
                lambda: f"{SECRETS.mask(self.url)} (its query and headers)",
                *(str(part) for pair in query.items() for part in pair),
                headers=headers,
            )
            url = self.url
            if query:
                url += "?" + urlencode(query)
            stream: SocketIOStream | WebSocketStream
            auth = None
            if self.spec["protocol"] == "socketio":
                auth = self._render(spec.get("auth"), context) if "auth" in spec else None
                namespace = self.spec.get("namespace", "/")
                stream = SocketIOStream(
                    name, url, self.log, namespace, auth, headers, timeout=self.timeout
                )
                shown = self.url.rstrip("/") + namespace
            else:
                kind_key = self.spec.get("kind_key", "type")
                stream = WebSocketStream(name, url, self.log, kind_key, headers, True, self.timeout)
                shown = self.url
            self._joined[name] = self._joined_ever[name] = _Joined(
                stream, role, shown, values.get("player"), values.get("table_id", ""),
                values.get("game"),
            )  # fmt: skip
            self.log.mended(name)
            # the join itself (its credentials masked when handed over): what a reproduction
            # joins the stream with
            joined_with: dict[str, Any] = {"auth": auth}
            if headers:
                joined_with["headers"] = headers
            self._record(name, role, JOINED, shown, dump_json(joined_with), None)
            try:
                stream.connect()
                join = spec.get("join")
                if join:
                    self._join(name, stream, join, context)
            except BaseException:
                self._joined.pop(name, None)  # never taken for joined: the next try joins again
                stream.close()
                raise

    def _role_credentials(self, role: str | None, context: dict) -> dict[str, str]:
        """The headers of the file's `role` (and its login session's cookies, as one Cookie
        header) for a stream joined as that role: a table whose every connection needs a
        credential. Each is a secret of the run already (a variable's value, a session's
        cookie), masked wherever it is shown."""
        if not role:
            return {}
        session, headers, _ = self.calls.sessions.auth(role, context, None)
        out = {k: str(v) for k, v in headers.items()}
        cookies = "; ".join(f"{c.name}={c.value}" for c in session.cookies if c.value)
        if cookies and "Cookie" not in out:
            out["Cookie"] = cookies
        return out

    def _join(self, name: str, stream: Any, join: dict, context: dict) -> None:
        data = self._render(join.get("data"), context)
        if isinstance(stream, WebSocketStream):
            stream.send(data)
            return
        answer = stream.emit(join["emit"], data)
        ok = join.get("ok")
        if ok and not holds(ok, read(answer, parse(ok["path"])[1])):
            raise StreamError(f"joining {name}", shown_text(f"the target refused: {answer!r}"))

    def _render(self, template: Any, context: dict) -> Any:
        return render(template, context, self.filters)

    def table_stream(self, table_id: str, game: str | None) -> str:
        name = f"table {table_id}"
        role = self.spec.get("table", {}).get("role", "anonymous")  # a table's own credential
        self._open(name, "table", role, {"table_id": table_id, "game": game})
        return name

    def player_stream(self, player: PlayerHandle, table_id: str, game: str | None) -> str:
        name = player_stream_name(player.player_id)
        values = {"player": player, "table_id": table_id, "game": game}
        self._open(name, "player", "player", values)
        return name

    def drop(self, player: PlayerHandle) -> None:
        """The player's connection closed by the player (the target sees a disconnect)."""
        with self._lock:
            joined = self._joined.get(player_stream_name(player.player_id))
            if joined is None or joined.stream is None:
                return
            joined.stream.close()
            joined.stream = None  # type: ignore[assignment]

    def rejoin(self, player: PlayerHandle) -> None:
        """The player's connection opened again, at the table it last joined."""
        joined = self._joined.get(player_stream_name(player.player_id))
        if joined is None:
            raise TargetError("reconnect the player", "the player never joined a table's stream")
        self.player_stream(player, joined.table_id, joined.game)

    def leave(self, players: list[PlayerHandle] | None = None) -> None:
        """Close the streams of `players` (all players' by default); the tables' stay."""
        with self._lock:
            names = (
                {player_stream_name(p.player_id) for p in players}
                if players is not None
                else {n for n in self._joined if n.startswith(PLAYER_STREAM)}
            )
            for name in names:
                joined = self._joined.pop(name, None)
                if joined is not None and joined.stream is not None:
                    joined.stream.close()

    def close(self) -> None:
        with self._lock:
            for joined in self._joined.values():
                if joined.stream is not None:
                    joined.stream.close()
            self._joined.clear()


def player_stream_name(player_id: str) -> str:
    """The name of a player's own stream, in the log, the evidence and the judge's events."""
    return f"{PLAYER_STREAM}{player_id}"


def shown_text(text: str) -> str:
    """A target's words for a message: secrets masked first, then cut (a cut token would
    escape its mask)."""
    return (SECRETS.mask(text) or "")[:300]
