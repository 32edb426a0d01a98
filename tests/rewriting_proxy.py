"""A proxy on a loopback port in front of a real server, bending its answers on the way back.

It stands for what a lab meets in front of a game server (a gateway, a cache, a load balancer
that mixes up sessions): the server behind it is right, the answers the harness gets are not.
"""

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

import requests
from fake_target import serving

# (method, path, status, body) -> the body sent back instead
Rewrite = Callable[[str, str, int, object], object]
# (method, path, request body) -> True where the proxy refuses the request itself (422), or
# the refusal's message
Refuse = Callable[[str, str, bytes], bool | str]
# (request headers, the upstream's answer) -> None: sees every exchange (to learn its secrets)
Observe = Callable[[dict[str, str], requests.Response], None]
HOP_HEADERS = {"content-length", "transfer-encoding", "connection", "content-encoding"}


def unchanged(_method: str, _path: str, _status: int, body: object) -> object:
    return body


BET_OR_RESULT = re.compile(r"^/v1/rounds/[^/]+/(bets|result)$")


def another_round_in_bet_and_result_answers(
    method: str, path: str, status: int, body: object
) -> object:
    """Bet and result answers name another round (and their bets another round too)."""
    if method != "POST" or not BET_OR_RESULT.match(path) or status >= 300:
        return body
    if not isinstance(body, dict):
        return body
    bent = dict(body)
    if "round_id" in bent:
        bent["round_id"] = f"{bent['round_id']}-elsewhere"
    bent["bets"] = [
        {**b, "round_id": f"{b['round_id']}-elsewhere"} if isinstance(b, dict) else b
        for b in bent.get("bets") or []
    ]
    return bent


@contextmanager
def rewriting_proxy(
    upstream: str, rewrite: Rewrite, refuse: Refuse | None = None, observe: Observe | None = None
) -> Iterator[str]:
    """A proxy to `upstream` bending answers with `rewrite`; a request `refuse` picks is
    refused with a 422 and a reason, never forwarded (a gateway keeping limits of its own);
    `observe` sees each request's headers and the answer (redirects are passed on, not
    followed)."""
    session = requests.Session()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
            said = refuse(self.command, self.path, body or b"") if refuse is not None else False
            if said:
                message = said if isinstance(said, str) else "the gateway refuses it"
                refusal = {"error": {"code": "INVALID_STAKE", "message": message}}
                payload = json.dumps(refusal).encode()
                self.send_response(422)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            answer = session.request(
                self.command,
                upstream + self.path,
                data=body,
                headers=headers,
                timeout=30,
                allow_redirects=False,
            )
            if observe is not None:
                observe(headers, answer)
            payload = answer.content
            if "json" in answer.headers.get("Content-Type", ""):
                path = self.path.split("?")[0]
                bent = rewrite(self.command, path, answer.status_code, answer.json())
                payload = json.dumps(bent).encode()
            self.send_response(answer.status_code)
            for key, value in answer.headers.items():
                if key.lower() not in HOP_HEADERS:
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = do_PUT = _forward

    try:
        with serving(Handler) as url:
            yield url
    finally:
        session.close()
