"""A requests session that prepares a plain request without requests' per-call merging.

`Session.request` builds a `Request`, merges it with the session's cookies, auth, params, hooks
and environment settings, and only then prepares it: about 0.15 ms of CPU a request, paid on
every one of a run's thousands (a sweep round is five). A session of the harness never reads
the environment (trust_env is off) and holds no auth, params or hooks of its own, so a request
with none of its own (a body as text, headers) prepares to the same `PreparedRequest` from the
session's headers and its own; anything else, a cookie the target set among them, goes the
whole way through requests, as before.
"""

from collections.abc import Mapping
from typing import Any

import requests
from requests.models import PreparedRequest
from requests.structures import CaseInsensitiveDict


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
        return self.send_plain(method.upper(), url, data, merged, timeout, allow_redirects)

    def send_plain(
        self,
        method: str,
        url: str,
        data: Any,
        headers: CaseInsensitiveDict,
        timeout: Any,
        allow_redirects: bool,
    ) -> requests.Response:
        """A request with nothing to merge (`headers` merged with the session's already, a
        mapping made for this request alone), prepared here and sent by `Session.send`."""
        prepared = self.prepare_plain(method, url, data, headers)
        return self.send(prepared, timeout=timeout, allow_redirects=allow_redirects)

    @staticmethod
    def prepare_plain(
        method: str, url: str, data: Any, headers: Mapping[str, str]
    ) -> PreparedRequest:
        """The request requests prepares from these, with nothing of a session to merge."""
        prepared = PreparedRequest()
        prepared.prepare(method=method, url=url, headers=headers, data=data or {})
        return prepared

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
