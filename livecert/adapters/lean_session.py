"""A requests session that prepares and sends a plain request without requests' per-call work.

`Session.request` builds a `Request`, merges it with the session's cookies, auth, params, hooks
and environment settings, and only then prepares it: about 0.15 ms of CPU a request, paid on
every one of a run's thousands (a sweep round is five). A session of the harness never reads
the environment (trust_env is off) and holds no auth, params or hooks of its own, so a request
with none of its own (a body as text, headers) prepares to the same `PreparedRequest` from the
session's headers and its own; anything else, a cookie the target set among them, goes the
whole way through requests, as before.

`Session.send` then resolves proxies, dispatches hooks, reads cookies into the jar twice and runs
the redirect generator on every answer: 50 us of CPU above the transport's own, 20 us here
(measured on a GET of /v1/info, 2 cores). For a request sent with no settings of
its own by a session with no hooks, the session sends it to its transport with the session's
own settings, keeps a cookie only when the answer sets one, and hands an answer that redirects
to requests' own redirect handling; an answer that neither redirects nor sets a cookie comes
back as requests would return it.
"""

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import requests
from requests.cookies import extract_cookies_to_jar
from requests.models import PreparedRequest
from requests.sessions import preferred_clock
from requests.structures import CaseInsensitiveDict

COOKIE_HEADERS = ("Set-Cookie", "Set-Cookie2")  # what http.cookiejar reads an answer's from


class LeanSession(requests.Session):
    """`requests.Session`, preparing a request with nothing to merge directly."""

    def request(  # type: ignore[override]
        self,
        method: str,
        url: str,
        params: Any = None,
        data: Any = None,
        headers: Mapping[str, str | None] | None = None,
        cookies: Any = None,
        files: Any = None,
        auth: Any = None,
        timeout: Any = None,
        allow_redirects: bool = True,
        proxies: Any = None,
        hooks: Any = None,
        stream: bool | None = None,
        verify: Any = None,
        cert: Any = None,
        json: Any = None,
    ) -> requests.Response:
        merging = (params, cookies, files, auth, proxies, hooks, stream, verify, cert, json)
        if not self._plain(url) or any(value is not None for value in merging):
            return super().request(
                method, url, params, data, headers, cookies, files, auth, timeout,
                allow_redirects, proxies, hooks, stream, verify, cert, json,
            )  # fmt: skip
        merged = CaseInsensitiveDict(self.headers)
        for name, value in (headers or {}).items():
            if value is None:  # requests' merge: a header set to None is not sent
                merged.pop(name, None)
            else:
                merged[name] = value
        prepared = PreparedRequest()
        prepared.prepare(method=method.upper(), url=url, headers=merged, data=data or {})
        return self.send(prepared, timeout=timeout, allow_redirects=allow_redirects)

    def send(self, request: PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        if set(kwargs) - {"timeout", "allow_redirects"} or not self._plain_send(request):
            return super().send(request, **kwargs)
        settings = {
            "stream": self.stream,
            "verify": self.verify,
            "cert": self.cert,
            "proxies": dict(self.proxies),  # what requests resolves them to, trust_env off
            "timeout": kwargs.get("timeout"),
        }
        start = preferred_clock()
        answer = self.get_adapter(url=request.url).send(request, **settings)
        answer.elapsed = timedelta(seconds=preferred_clock() - start)
        raw_headers = getattr(answer.raw, "headers", None) or {}
        if any(name in raw_headers for name in COOKIE_HEADERS):
            extract_cookies_to_jar(self.cookies, request, answer.raw)
        if answer.is_redirect:
            answer = self._follow(answer, request, kwargs.get("allow_redirects", True), settings)
        if not self.stream:
            answer.content  # noqa: B018 (reads the body, as requests does)
        return answer

    def _follow(
        self,
        answer: requests.Response,
        request: PreparedRequest,
        allow_redirects: bool,
        settings: dict[str, Any],
    ) -> requests.Response:
        """What `Session.send` does with an answer that redirects: follow it (requests'
        redirect generator), or, not following, keep the next request on it."""
        if not allow_redirects:
            answer._next = next(  # type: ignore[assignment]
                self.resolve_redirects(answer, request, yield_requests=True, **settings), None
            )
            return answer
        history = [answer, *self.resolve_redirects(answer, request, **settings)]
        last = history.pop()
        last.history = history
        return last

    def _plain_send(self, request: PreparedRequest) -> bool:
        """True when `Session.send` would do nothing more than send: no hooks on the request
        (the session's are merged into it when it is prepared), the environment not read."""
        return not self.trust_env and not any(request.hooks.values())

    def _plain(self, url: str) -> bool:
        """True when the session has nothing to merge into a request: no cookie kept, no auth,
        params or hooks of its own, the environment not read, a text URL."""
        return (
            isinstance(url, str)
            and not self.trust_env
            and self.auth is None
            and not self.params
            and not any(self.hooks.values())
            and len(self.cookies) == 0
        )
