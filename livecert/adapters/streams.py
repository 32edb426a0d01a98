"""Event streams of live tables: a Socket.IO namespace or a plain WebSocket, every message in and
out kept as evidence, and waits on the stream instead of polls.

Live-dealer platforms push the game: a round opens, betting closes, the result and the
settlements arrive as messages, and bets often go the same way, each acknowledged. A stream here
is one connection (a player's, or the table's); its `StreamLog` keeps every message with its
time and direction, secrets masked, in the order it was seen. A step waits for "the next message
that says X" (after a point of the log, within a deadline), and a wait that ends without one is a
`StreamTimeout` naming what was awaited: never a hang. A stream that drops, refuses to join or
sends a frame that is not what it declared is a `StreamError` (the run is incomplete, naming it).

python-socketio 5 speaks the Socket.IO protocol of servers 3.x and later (Engine.IO 4); a 2.x
server (Engine.IO 3) is refused with a message naming the version.
"""

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from livecert.adapters import exact_json
from livecert.adapters.errors import TargetError
from livecert.adapters.secrets import SECRETS

IN, OUT, ACK = "in", "out", "ack"  # pushed by the target, sent by the harness, an answer to it
DEFAULT_WAIT_S = 10.0


class StreamError(TargetError):
    """A stream that cannot be used: it refused to join, dropped, or sent a malformed frame."""

    kind = "stream error"


class StreamTimeout(StreamError):
    """What a step waited for did not come within its deadline."""

    kind = "stream timeout"


@dataclass(frozen=True)
class StreamMessage:
    """One message of a stream as the evidence keeps it (its data masked)."""

    seq: int
    stream: str
    direction: str  # in, out or ack
    event: str  # the Socket.IO event, or the frame's kind on a plain WebSocket
    data: Any
    at: float  # epoch seconds, when the harness saw it or sent it
    answers: int | None = None  # an acknowledgement: the seq of the message it answers

    def as_dict(self) -> dict[str, Any]:
        shown = {
            "seq": self.seq,
            "stream": self.stream,
            "direction": self.direction,
            "event": self.event,
            "data": self.data,
            "at": self.at,
        }
        return shown if self.answers is None else {**shown, "answers": self.answers}


class StreamLog:
    """Every message of a run's streams, in the order seen; waits wake as messages come."""

    def __init__(self, on_message: Callable[[StreamMessage], None] | None = None) -> None:
        self._messages: list[StreamMessage] = []
        self._changed = threading.Condition()
        self._broken: dict[str, str] = {}  # stream -> why it cannot be read any more
        self._on_message = on_message  # told of each message, in order (the run's evidence)

    def add(
        self, stream: str, direction: str, event: str, data: Any, answers: int | None = None
    ) -> StreamMessage:
        with self._changed:
            message = StreamMessage(
                len(self._messages) + 1, stream, direction, event, SECRETS.mask_data(data),
                time.time(), answers,
            )  # fmt: skip
            self._messages.append(message)
            if self._on_message is not None:
                self._on_message(message)
            self._changed.notify_all()
            return message

    def is_broken(self, stream: str) -> bool:
        """Whether the stream dropped (or broke) and was not joined again since."""
        return self.broken_why(stream) is not None

    def broken_why(self, stream: str) -> str | None:
        """Why the stream cannot be read any more (None: it can)."""
        with self._changed:
            return self._broken.get(stream)

    def mended(self, stream: str) -> None:
        """The stream joined again under its name (a player reconnecting): readable again."""
        with self._changed:
            self._broken.pop(stream, None)

    def broken(self, stream: str, why: str) -> None:
        with self._changed:
            self._broken.setdefault(stream, why)
            self._changed.notify_all()

    def nudge(self) -> None:
        """Wake every wait to look again: what it may take changed with no new message (an
        answer another wait has let go of)."""
        with self._changed:
            self._changed.notify_all()

    @property
    def last_seq(self) -> int:
        with self._changed:
            return len(self._messages)

    def message(self, seq: int) -> StreamMessage:
        with self._changed:
            return self._messages[seq - 1]

    def since(self, after: int, stream: str | None = None) -> list[StreamMessage]:
        """The messages after seq `after` (of `stream` only, if named): a round's, not the
        run's whole log."""
        with self._changed:
            return [m for m in self._messages[after:] if stream is None or m.stream == stream]

    def messages(self, stream: str | None = None) -> list[StreamMessage]:
        with self._changed:
            return [m for m in self._messages if stream is None or m.stream == stream]

    def wait_for(
        self,
        stream: str,
        match: Callable[[StreamMessage], bool],
        what: str,
        after: int = 0,
        timeout: float = DEFAULT_WAIT_S,
    ) -> StreamMessage:
        """The first message of `stream` after seq `after` that `match` accepts, waiting up to
        `timeout` seconds for it; StreamTimeout (naming `what`) or StreamError otherwise."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for message in self._messages[after:]:
                    if message.stream == stream and message.direction == IN and match(message):
                        return message
                if stream in self._broken:
                    raise StreamError(f"waiting for {what}", self._broken[stream])
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StreamTimeout(
                        f"waiting for {what}", f"nothing of the kind within {timeout:g} s"
                    )
                self._changed.wait(left)


UNREADABLE = (ValueError, RecursionError)  # not JSON, a number beyond any amount, too deep


def _unreadable(
    log: StreamLog, stream: str, what: str, text: str | bytes, error: Exception
) -> None:
    """A message the harness cannot read: logged as it came, and its stream broken saying why,
    so a wait on it ends at once naming the message (not its timeout, as if nothing came)."""
    shown = text if isinstance(text, str) else repr(text)
    log.add(stream, IN, "malformed", shown[:500])
    if isinstance(error, exact_json.NumberBeyondReason):
        said = f"with {error}"
    elif isinstance(error, RecursionError):  # JSON deeper than Python's reader goes
        said = "of JSON nested too deeply to read"
    else:
        said = f"that is not JSON: {shown[:200]!r}"
    log.broken(stream, f"a {what} {said}")


def _exact_packet(unreadable: Callable[[str | bytes, Exception], None]) -> type:
    """python-socketio's packet class for one stream, reading and writing its JSON with
    `exact_json`; a packet it cannot read (not JSON, a number beyond any amount) is told to
    `unreadable` first, since python-socketio only logs the error of its reading thread."""
    import socketio

    class ExactJson:
        dumps = staticmethod(exact_json.dumps)

        @staticmethod
        def loads(text: str | bytes, **options: Any) -> Any:
            try:
                return exact_json.loads(text, **options)
            except UNREADABLE as error:
                unreadable(text, error)
                raise ValueError("a packet the harness cannot read") from None

    return type("ExactPacket", (socketio.packet.Packet,), {"json": ExactJson})


class SocketIOStream:
    """One Socket.IO connection to a namespace, every event recorded (python-socketio)."""

    def __init__(
        self,
        name: str,
        url: str,
        log: StreamLog,
        namespace: str = "/",
        auth: dict | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = DEFAULT_WAIT_S,
    ) -> None:
        self.name, self.url, self.log, self.namespace = name, url, log, namespace
        self.auth, self.headers, self.timeout = auth, headers or {}, timeout
        self._client: Any = None
        self._closing = False
        self._pending: set[threading.Event] = set()  # emits waiting for their answer
        self._worker: _InArrivalOrder | None = None

    def connect(self) -> None:
        import socketio  # only a run with streams pays for it

        # money a table writes as a JSON number read as a Decimal, a Decimal emitted exactly:
        # the client's own packet class (python-socketio's `json=` would set it process-wide)
        client = socketio.Client(reconnection=False, serializer=_exact_packet(self._unreadable))
        client.on("*", self._received, namespace=self.namespace)
        client.on("disconnect", self._dropped, namespace=self.namespace)
        refused: list[Any] = []  # what the target said when it refused the namespace
        client.on("connect_error", refused.append, namespace=self.namespace)
        self._worker = _InArrivalOrder(client, self.name)
        try:
            client.connect(
                self.url, namespaces=[self.namespace], auth=self.auth, headers=self.headers,
                transports=["websocket"], wait_timeout=self.timeout,
            )  # fmt: skip
        except socketio.exceptions.ConnectionError as error:
            said = refused[0] if refused else None
            why = said.get("message") if isinstance(said, dict) else said
            raise StreamError(
                f"joining {self.url} {self.namespace}",
                f"the target refused: {why}" if why else _why(error),
            ) from None
        self._client = client

    def _received(self, event: str, *data: Any) -> None:
        self.log.add(self.name, IN, event, data[0] if len(data) == 1 else list(data))

    def _unreadable(self, text: str | bytes, error: Exception) -> None:
        """A packet python-socketio cannot read: the stream broken naming it, and an emit
        waiting for its acknowledgement (which may be that packet) hears of it now. A packet of
        a connection the harness is closing is not this stream's any more (it may join again)."""
        if self._closing:
            return
        _unreadable(self.log, self.name, "packet", text, error)
        for waiting in list(self._pending):
            waiting.set()

    def _dropped(self, *_: Any) -> None:
        if not self._closing:  # not the harness's own close
            self.log.broken(self.name, "the target closed the stream")
        for waiting in list(self._pending):  # an emit waiting for its answer hears of it now
            waiting.set()

    def emit(self, event: str, data: Any, timeout: float | None = None) -> Any:
        """Send `event` and wait for its acknowledgement: the answer (see `call`)."""
        return self.call(event, data, timeout)[0]

    def call(
        self, event: str, data: Any, timeout: float | None = None
    ) -> tuple[Any, StreamMessage]:
        """Send `event` and wait for its acknowledgement: the answer and its message in the log.
        The answer is logged by the thread that logs every message, the moment it arrives, so
        a message pushed after it is logged after it (its place is what the timing duties
        judge)."""
        import socketio

        if self._client is None or self._worker is None:
            raise StreamError(f"sending {event}", "the stream is not connected")
        if threading.current_thread() is self._worker.thread:
            raise StreamError(f"sending {event}", "sent from the stream's own reading thread")
        sent = self.log.add(self.name, OUT, event, data)
        answered, answer = threading.Event(), []

        logged: list[StreamMessage] = []

        def acknowledged(*reply: Any) -> None:
            answer.append(reply[0] if len(reply) == 1 else list(reply))
            logged.append(self.log.add(self.name, ACK, event, answer[0], answers=sent.seq))
            answered.set()

        wait = self.timeout if timeout is None else timeout
        self._pending.add(answered)
        try:
            self._client.emit(event, data, namespace=self.namespace, callback=acknowledged)
            answered.wait(wait)
        except socketio.exceptions.BadNamespaceError as error:
            raise StreamError(f"sending {event}", f"the stream is closed ({error})") from None
        finally:
            self._pending.discard(answered)
        if answer and logged:
            return answer[0], logged[0]
        if self._client is None or not self._client.connected:
            raise StreamError(f"sending {event}", "the target closed the stream before answering")
        if (why := self.log.broken_why(self.name)) is not None:  # a packet it could not read
            raise StreamError(f"sending {event}", why)
        raise StreamTimeout(f"sending {event}", f"no acknowledgement within {wait:g} s")

    def post(self, event: str, data: Any) -> StreamMessage:
        """Send `event` asking no acknowledgement (a table that answers bets only by what it
        pushes afterwards): the message sent, as the log keeps it."""
        import socketio

        if self._client is None:
            raise StreamError(f"sending {event}", "the stream is not connected")
        sent = self.log.add(self.name, OUT, event, data)
        try:
            self._client.emit(event, data, namespace=self.namespace)
        except socketio.exceptions.BadNamespaceError as error:
            raise StreamError(f"sending {event}", f"the stream is closed ({error})") from None
        return sent

    def close(self) -> None:
        if self._client is not None:
            client, self._client, self._closing = self._client, None, True
            client.disconnect()
        if self._worker is not None:
            self._worker.stop()


class _InArrivalOrder:
    """Engine.IO hands each message to a thread of its own, so two messages pushed one after
    the other can reach the log the other way round, and the order is what the timing duties
    judge (a bet answered after the close). Here every message is handed, in the order it
    arrived, to one worker thread of this stream: not the reading thread, which a handler must
    never block (a disconnect joins it). python-engineio's dispatch is wrapped; its attribute is
    checked, so a version without it is a clear error rather than a silent reordering."""

    def __init__(self, client: Any, name: str) -> None:
        if not callable(getattr(client.eio, "_trigger_event", None)):
            raise StreamError(
                "joining a stream", "this python-engineio cannot keep messages in order"
            )
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._dispatch = client.eio._trigger_event
        client.eio._trigger_event = self._in_order
        self.thread = threading.Thread(target=self._run, name=f"stream-{name}", daemon=True)
        self.thread.start()

    def _in_order(self, event: str, *args: Any, **kwargs: Any) -> Any:
        if event != "message":
            return self._dispatch(event, *args, **kwargs)
        kwargs.pop("run_async", None)
        self._queue.put((event, args, kwargs))
        return None

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            event, args, kwargs = item
            self._dispatch(event, *args, **kwargs)

    def stop(self) -> None:
        self._queue.put(None)


def _why(error: Exception) -> str:
    """A Socket.IO connection refusal in words; a 2.x server named by its version."""
    text = str(error) or type(error).__name__
    if "EIO=3" in text or "Unexpected status code 400" in text or "OPEN packet" in text:
        return (
            f"{text}: this may be a Socket.IO 2.x server (Engine.IO 3); the harness speaks "
            "Socket.IO 3.x and later (python-socketio 5)"
        )
    return text


class WebSocketStream:
    """One plain WebSocket connection: frames of JSON (or text), each recorded; a frame's kind is
    read from `kind_key` of its JSON object (e.g. "type")."""

    def __init__(
        self,
        name: str,
        url: str,
        log: StreamLog,
        kind_key: str = "type",
        headers: dict[str, str] | None = None,
        json_frames: bool = True,
        timeout: float = DEFAULT_WAIT_S,
    ) -> None:
        self.name, self.url, self.log, self.kind_key = name, url, log, kind_key
        self.headers, self.json_frames, self.timeout = headers or {}, json_frames, timeout
        self._socket: Any = None
        self._reader: threading.Thread | None = None

    def connect(self) -> None:
        from websockets.exceptions import WebSocketException
        from websockets.sync.client import connect

        try:  # entered as its context manager: left in close()
            self._socket = connect(
                self.url, additional_headers=self.headers, open_timeout=self.timeout
            ).__enter__()
        except (OSError, TimeoutError, WebSocketException) as error:
            raise StreamError(f"opening {self.url}", str(error) or type(error).__name__) from None
        self._reader = threading.Thread(target=self._read, name=f"stream-{self.name}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        socket = self._socket
        try:
            for frame in socket:
                self._frame(frame)
        except ConnectionClosed as closed:
            if self._socket is not None:  # not the harness's own close
                self.log.broken(self.name, f"the target closed the stream ({closed})")
            return
        if self._socket is not None:
            self.log.broken(self.name, "the target closed the stream")

    def _frame(self, frame: str | bytes) -> None:
        if not self.json_frames:
            self.log.add(self.name, IN, "text", frame if isinstance(frame, str) else repr(frame))
            return
        try:
            data = exact_json.loads(frame)
        except UNREADABLE as error:
            _unreadable(self.log, self.name, "frame", frame, error)
            return
        kind = data.get(self.kind_key) if isinstance(data, dict) else None
        self.log.add(self.name, IN, str(kind) if kind is not None else "message", data)

    def send(self, data: Any) -> StreamMessage:
        """Send one frame (a plain WebSocket answers nothing of its own): the message sent."""
        if self._socket is None:
            raise StreamError("sending a frame", "the stream is not connected")
        from websockets.exceptions import ConnectionClosed

        kind = data.get(self.kind_key) if isinstance(data, dict) else None
        sent = self.log.add(self.name, OUT, str(kind) if kind is not None else "message", data)
        try:
            self._socket.send(exact_json.dumps(data) if self.json_frames else str(data))
        except ConnectionClosed as closed:
            raise StreamError("sending a frame", f"the stream is closed ({closed})") from None
        return sent

    def close(self) -> None:
        if self._socket is not None:
            socket, self._socket = self._socket, None
            socket.__exit__(None, None, None)
