"""Every exchange kept once in the report's exchanges/ archive (gzip JSON lines), a long
transcript attached to Allure in brief, and the run's last check for secrets reading inside the
archive as its reader would."""

import gzip
import zipfile
from pathlib import Path

import pytest

from livecert.adapters.evidence import Exchange, exchanges_in_brief
from livecert.adapters.secrets import SecretRegistry, leaks
from livecert.harness.exchange_archive import ExchangeArchive, read_archive
from livecert.report.allure_report import pack_results, unpack_results


def _exchange(seq: int, body: str) -> Exchange:
    return Exchange(
        seq=seq, operation="place 110 bet(s)", role="player", method="POST",
        url="http://t/v1/rounds/r1/bets", request_body=body, status=201,
        response_body='{"bets": []}', elapsed_ms=1.5,
    )  # fmt: skip


def test_each_scenario_is_one_line_of_its_process_file_read_back_whole(tmp_path: Path) -> None:
    archive = ExchangeArchive(tmp_path, worker="gw1")
    archive.add("f::a", "Scenario A", [_exchange(1, '{"bets": [1]}'), _exchange(2, "{}")])
    archive.add("f::b", "Scenario B", [_exchange(3, "{}")])
    archive.add("f::c", "Scenario C", [])  # nothing sent: no line
    assert archive.relative == "exchanges/gw1.jsonl.gz"
    lines = read_archive(tmp_path)
    assert [(line["nodeid"], len(line["exchanges"])) for line in lines] == [
        ("f::a", 2),
        ("f::b", 1),
    ]
    first = lines[0]["exchanges"][0]
    assert first["request_body"] == '{"bets": [1]}' and first["curl"].startswith("curl -sS -X POST")


def test_a_lone_surrogate_in_an_exchange_is_archived_as_its_json_escape(tmp_path: Path) -> None:
    """A lone surrogate (JSON's "\\ud800", read as it is), which UTF-8 cannot write, is archived
    as JSON's escape, as the run record writes it, and reads back as the same character."""
    archive = ExchangeArchive(tmp_path, worker="main")
    archive.add("f::a", "Scenario \ud800", [_exchange(1, '{"note": "\udc00 é"}')])
    line = read_archive(tmp_path)[0]
    assert line["name"] == "Scenario \ud800"
    assert line["exchanges"][0]["request_body"] == '{"note": "\udc00 é"}'


def test_a_transcript_in_brief_is_a_line_an_exchange_with_what_it_sent_and_got() -> None:
    brief = exchanges_in_brief([_exchange(7, "x" * 5000)])
    assert brief == (
        "#7 place 110 bet(s) (player) POST http://t/v1/rounds/r1/bets, 5000 characters sent "
        "-> 201, 12 characters"
    )


def test_a_secret_inside_the_gzip_archive_is_found_and_masked_there(tmp_path: Path) -> None:
    registry = SecretRegistry()
    registry.register("tok-secret-123456", "$PLAYER_TOKEN")
    (tmp_path / "exchanges").mkdir()
    archive = tmp_path / "exchanges" / "main.jsonl.gz"
    archive.write_bytes(gzip.compress(b'{"token": "tok-secret-123456"}\n'))
    assert leaks(tmp_path, registry.values()) == ["exchanges/main.jsonl.gz: $PLAYER_TOKEN"]


def test_a_secret_inside_the_packed_allure_results_is_found(tmp_path: Path) -> None:
    registry = SecretRegistry()
    registry.register("tok-secret-654321", "$PLAYER_TOKEN")
    with zipfile.ZipFile(tmp_path / "allure-results.zip", "w", zipfile.ZIP_DEFLATED) as packed:
        packed.writestr("allure-results/a-attachment.txt", "Bearer tok-secret-654321")
    assert leaks(tmp_path, registry.values()) == ["allure-results.zip: $PLAYER_TOKEN"]


def test_packed_results_come_back_to_build_the_pages_again(tmp_path: Path) -> None:
    (tmp_path / "allure-results").mkdir()
    (tmp_path / "allure-results" / "r-result.json").write_text('{"status": "passed"}')
    packed = pack_results(tmp_path)
    assert packed.name == "allure-results.zip" and not (tmp_path / "allure-results").exists()
    unpack_results(tmp_path)
    assert (tmp_path / "allure-results" / "r-result.json").read_text() == '{"status": "passed"}'
    assert not packed.exists()


def test_a_packed_member_outside_the_results_is_refused(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "allure-results.zip", "w") as packed:
        packed.writestr("../evil.txt", "x")
    with pytest.raises(ValueError, match="outside allure-results/"):
        unpack_results(tmp_path)
    assert not (tmp_path.parent / "evil.txt").exists()


def test_an_archive_cut_short_still_has_its_whole_scenarios_checked(tmp_path: Path) -> None:
    """A process killed mid-write leaves a last member cut short; the ones before are read."""
    registry = SecretRegistry()
    registry.register("tok-secret-777777", "$PLAYER_TOKEN")
    whole = gzip.compress(b'{"token": "tok-secret-777777"}\n')
    cut = gzip.compress(b'{"x": "' + b"y" * 5000 + b'"}\n')[:40]
    (tmp_path / "main.jsonl.gz").write_bytes(whole + cut)
    assert leaks(tmp_path, registry.values()) == ["main.jsonl.gz: $PLAYER_TOKEN"]


def test_a_secret_in_a_zip_members_name_is_found(tmp_path: Path) -> None:
    registry = SecretRegistry()
    registry.register("tok-secret-888888", "$PLAYER_TOKEN")
    with zipfile.ZipFile(tmp_path / "allure-results.zip", "w", zipfile.ZIP_DEFLATED) as packed:
        packed.writestr("allure-results/tok-secret-888888.txt", "nothing here")
    assert leaks(tmp_path, registry.values()) == ["allure-results.zip: $PLAYER_TOKEN"]


def test_masking_a_zip_keeps_it_a_zip_with_its_members_masked(tmp_path: Path) -> None:
    from livecert.adapters.secrets import SECRETS, mask_files

    SECRETS.register("tok-secret-999999-zip", "$ZIPPED_TEST_TOKEN")
    path = tmp_path / "allure-results.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as packed:
        packed.writestr("allure-results/a.txt", "Bearer tok-secret-999999-zip")
        packed.writestr("allure-results/b.png", bytes([0x89, 0xFF, 0x00, 0xFE]))
    mask_files(tmp_path, ["allure-results.zip"])
    with zipfile.ZipFile(path) as packed:
        assert packed.read("allure-results/a.txt") == b"Bearer $ZIPPED_TEST_TOKEN"
        assert packed.read("allure-results/b.png") == bytes([0x89, 0xFF, 0x00, 0xFE])
