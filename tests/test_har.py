"""exchanges.har (livecert certify --har): every exchange of the run as an HTTP Archive, in
the order sent, masked as the archive is."""

import json
from pathlib import Path

from cli_support import certify

from livecert.harness.exchange_archive import read_archive


def test_the_har_holds_every_exchange_of_the_archive_in_order(tmp_path: Path) -> None:
    status, _, output = certify(
        tmp_path, "--no-html", "--har", "--game", "xocdia", "--clauses", "XD-VOID-02"
    )
    assert status == 0, output
    har = json.loads((tmp_path / "exchanges.har").read_text(encoding="utf-8"))["log"]
    assert har["version"] == "1.2" and har["creator"]["name"] == "livecert"
    archived = [x for scenario in read_archive(tmp_path) for x in scenario["exchanges"]]
    entries = har["entries"]
    assert len(entries) == len(archived) > 10
    assert [e["startedDateTime"] for e in entries] == sorted(e["startedDateTime"] for e in entries)
    assert {
        (e["request"]["method"], e["request"]["url"], e["response"]["status"]) for e in entries
    } == {(x["method"], x["url"], x["status"] or 0) for x in archived}
    created = next(e for e in entries if e["request"]["url"].endswith("/v1/players"))
    assert created["request"]["headers"][0] == {
        "name": "Authorization",
        "value": "Bearer $LIVECERT_OPERATOR_TOKEN",
    }
    assert '"token":"$PLAYER_TOKEN[hmac:' in created["response"]["content"]["text"].replace(" ", "")
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert "exchanges.har" in {f["path"] for f in manifest["files"]}
