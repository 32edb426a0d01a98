"""exchanges.har: every request and response of a run as an HTTP Archive (HAR 1.2), for a
browser's network panel or any HAR viewer. Optional (`livecert certify --har`): the same
exchanges are in exchanges/ already. Made from that archive (read by certify), so masked as it
is: a credential is shown as the variable it comes from."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from livecert import __version__
from livecert.target_text import escaped_surrogates

HAR = "exchanges.har"
ROLE_VARIABLES = {"operator": "$LIVECERT_OPERATOR_TOKEN", "dealer": "$LIVECERT_DEALER_TOKEN"}


def _headers(exchange: dict) -> list[dict[str, str]]:
    if exchange.get("headers") is not None:  # a mapping adapter's own, masked
        return [{"name": k, "value": v} for k, v in exchange["headers"].items()]
    headers = []
    if exchange.get("role") != "anonymous":
        variable = ROLE_VARIABLES.get(exchange.get("role"), "$PLAYER_TOKEN")
        headers.append({"name": "Authorization", "value": f"Bearer {variable}"})
    if exchange.get("idempotency_key"):
        headers.append({"name": "Idempotency-Key", "value": exchange["idempotency_key"]})
    return headers


def _entry(scenario: dict, exchange: dict) -> dict[str, Any]:
    body, answer = exchange.get("request_body"), exchange.get("response_body") or ""
    started = datetime.fromtimestamp(exchange.get("started") or 0, UTC)
    request: dict[str, Any] = {
        "method": exchange["method"],
        "url": exchange["url"],
        "httpVersion": "HTTP/1.1",
        "headers": _headers(exchange),
        "queryString": [
            {"name": k, "value": v} for k, v in parse_qsl(urlsplit(exchange["url"]).query)
        ],
        "cookies": [],
        "headersSize": -1,
        "bodySize": _size(body) if body is not None else 0,
    }
    if body is not None:
        request["postData"] = {
            "mimeType": exchange.get("content_type") or "application/json",
            "text": body,
        }
    return {
        "startedDateTime": started.isoformat(timespec="milliseconds"),
        "time": round(exchange.get("elapsed_ms") or 0, 3),
        "request": request,
        "response": {
            "status": exchange.get("status") or 0,  # 0: no answer (the error says why)
            "statusText": exchange.get("error") or "",
            "httpVersion": "HTTP/1.1",
            "headers": [],
            "cookies": [],
            "content": {
                "size": _size(answer),
                "mimeType": "application/json",
                "text": answer,
            },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": _size(answer),
        },
        "cache": {},
        "timings": {"send": 0, "wait": round(exchange.get("elapsed_ms") or 0, 3), "receive": 0},
        "comment": f"{scenario.get('name')}: {exchange.get('operation')} ({exchange.get('role')})",
    }


def har_of(scenarios: list[dict]) -> dict[str, Any]:
    """The run's exchanges (the exchanges/ archive's lines, a scenario each) as a HAR
    document, in the order they were sent."""
    entries = [_entry(s, e) for s in scenarios for e in s.get("exchanges") or []]
    entries.sort(key=lambda entry: entry["startedDateTime"])
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "livecert", "version": __version__},
            "entries": entries,
        }
    }


def _size(text: str) -> int:
    """The bytes of `text` in UTF-8; a lone surrogate (JSON's "\\ud800", kept as it was read)
    counted as the three bytes UTF-8's pattern would give it, not stopping the file."""
    return len(text.encode("utf-8", "surrogatepass"))


def write_har(folder: Path, scenarios: list[dict]) -> Path:
    path = folder / HAR
    text = escaped_surrogates(json.dumps(har_of(scenarios), ensure_ascii=False))  # as the archive
    path.write_text(text + "\n", encoding="utf-8")
    return path
