"""A failed scenario's stream messages as a small Python script that joins the same streams and
sends the same messages, in the same order and at the same pace.

A live table's evidence is its messages: each stream joined (JOIN, with the credentials it was
joined with, masked), each message the harness emitted (EMIT), each one the table pushed (PUSH)
and each acknowledgement (ACK). The script joins every stream the scenario joined, sends what
the harness sent, and prints every message and acknowledgement the table answers, so a lab can
watch a table do again what the run saw. A player's token is masked in the report: the script
reads it from the environment variable it names. Its ids are the run's: a table that has moved
on answers them as rounds it does not know, which the script shows as it comes.
"""

import json
import re
from urllib.parse import urlsplit

from livecert.adapters import exact_json
from livecert.adapters.evidence import EMITTED, JOINED, Exchange
from livecert.target_text import visible

MASKED_TOKEN = re.compile(r"\$PLAYER_TOKEN\[hmac:[0-9a-f]+\]")
MOST_SECONDS = 5.0  # the longest pause the script keeps between two messages


def _steps(exchanges: list[Exchange]) -> tuple[list[tuple], dict[str, str]]:
    """(stream, action, where or event, data, seconds after the first) of each join and emit,
    and each masked token with the environment variable the script reads it from."""
    steps: list[tuple] = []
    tokens: dict[str, str] = {}
    first = next((ex.started for ex in exchanges if ex.method in (JOINED, EMITTED)), 0.0)
    for ex in exchanges:
        if ex.method not in (JOINED, EMITTED):
            continue
        for masked in MASKED_TOKEN.findall(ex.request_body or ""):
            tokens.setdefault(masked, f"PLAYER_TOKEN_{len(tokens) + 1}")
        data = exact_json.loads(ex.request_body or "null")  # a stake of 0.10 sent as 0.10
        stream = ex.operation.removeprefix("stream ")
        at = round(ex.started - first, 3)
        if ex.method == JOINED:  # its url is the stream's address
            steps.append((stream, "join", ex.url, data, at))
        else:  # its url is the stream's address and the event
            steps.append((stream, "emit", ex.url.rpartition(" ")[2], data, at))
    return steps, tokens


def stream_reproduction(exchanges: list[Exchange], title: str, said: str) -> str | None:
    """The script, or None where the scenario joined no stream."""
    steps, tokens = _steps(exchanges)
    if not any(action == "join" for _, action, *_ in steps):
        return None
    first_join = next(step[2] for step in steps if step[1] == "join")
    split = urlsplit(first_join)
    base = f"{split.scheme}://{split.netloc}"
    protocol = "websocket" if split.scheme in ("ws", "wss") else "socketio"
    lines = [
        "#!/usr/bin/env python3",
        f'"""livecert reproduction of a live table\'s streams: {_doc(title)}',
        "",
        *(_doc(line) for line in said.splitlines()),
        "",
        "Joins the streams the scenario joined and sends the same messages in the same order and",
        "at the same pace, printing every message and acknowledgement the table sends. Needs",
        "python-socketio 5 (pip install 'python-socketio[client]') or, for a plain WebSocket,",
        "websockets. LIVECERT_TARGET_URL overrides the table's address; each player's token",
        "(masked in the report) comes from the environment variable named below. The ids are",
        'the run\'s: a table that has moved on answers them as rounds it does not know."""',
        "",
        "import decimal",
        "import json",
        "import os",
        "import re",
        "import sys",
        "import time",
        "",
        f"BASE = os.environ.get('LIVECERT_TARGET_URL', {base!r}).rstrip('/')",
        f"PROTOCOL = {protocol!r}",
        _EXACT,
        "# each masked token as the report shows it -> the variable it is read from",
        f"TOKENS = json.loads({json.dumps(tokens)!r})",
        "# stream, join or emit, the stream's address or the event, the data, seconds in",
        f"STEPS = exact.loads({exact_json.dumps(steps)!r})",
        f"MOST_SECONDS = {MOST_SECONDS}",
        "",
        _BODY,
    ]
    return "\n".join(lines) + "\n"


_EXACT = '''

class exact:
    """JSON as the run sent it: a number with a fraction read as a Decimal and written as the
    number it is (a stake of 0.10 stays 0.10, never the float 0.1)."""

    MARK = "__exact_decimal__:"

    @staticmethod
    def loads(text, **options):
        return json.loads(text, parse_float=decimal.Decimal, **options)

    @staticmethod
    def dumps(value, **options):
        def mark(node):
            if isinstance(node, decimal.Decimal):
                return exact.MARK + format(node, "f")
            if isinstance(node, dict):
                return {k: mark(v) for k, v in node.items()}
            if isinstance(node, (list, tuple)):
                return [mark(v) for v in node]
            return node

        text = json.dumps(mark(value), **options)
        return re.sub('"' + re.escape(exact.MARK) + '([^"]*)"', r"\\1", text)

'''


def _doc(text: str) -> str:
    return visible(text).replace('"""', "'''").replace("\\", "\\\\")


_BODY = '''
def real(value):
    """`value` with each masked token replaced by the one in its environment variable."""
    text = exact.dumps(value)
    for shown, variable in TOKENS.items():
        if shown in text:
            if variable not in os.environ:
                sys.exit(f"set {variable} to the token of the player the report shows as {shown}")
            text = text.replace(shown, os.environ[variable])
    return exact.loads(text)


def say(stream, what, data):
    shown = exact.dumps(data, default=str)
    print(f"{time.strftime('%H:%M:%S')} {stream}: {what} {shown}", flush=True)


def main():
    joined, started = {}, time.monotonic()
    for stream, action, where, data, at in STEPS:
        time.sleep(max(0.0, min(MOST_SECONDS, float(at) - (time.monotonic() - started))))
        if action == "join":
            joined[stream] = join(stream, where, real(data))
        else:
            say(stream, "sends", {"event": where, "data": data})
            answer = joined[stream](where, real(data))
            say(stream, "answered", answer)
    time.sleep(2)  # what the table pushes after the last message
    os._exit(0)


def join(stream, where, data):
    """Join the stream at `where` (the run's address: its path or namespace is kept, the host
    is BASE's) with what it was joined with; a function that sends a message on it."""
    path = where.split("://", 1)[-1].partition("/")[2]
    if PROTOCOL == "websocket":
        import threading

        from websockets.sync.client import connect

        socket = connect(BASE.replace("http", "ws", 1) + "/" + path)

        def read():
            for frame in socket:
                say(stream, "pushed", frame)

        threading.Thread(target=read, daemon=True).start()
        return lambda event, body: socket.send(exact.dumps(body))
    import socketio

    client = socketio.Client(reconnection=False, json=exact)
    namespace = "/" + path
    client.on("*", lambda event, *body: say(stream, f"pushed {event}", body), namespace=namespace)
    client.connect(
        BASE, namespaces=[namespace], auth=(data or {}).get("auth"), transports=["websocket"],
        wait_timeout=10,
    )
    return lambda event, body: client.call(event, body, namespace=namespace, timeout=10)


if __name__ == "__main__":
    main()
'''
