"""A target's words are data, shown and never obeyed: a target whose name, error messages and
refusals carry escape sequences (clear the screen, set the terminal's title), a bidi override
(U+202E) and a NUL. certify's and doctor's output holds none of those characters, only their
escapes; so do the certificate page, Allure's environment.properties and junit.xml (which stays
valid XML). The evidence keeps the words as they came. (A hostile answer before the first
scenario: tests/test_broken_targets.py, a target answering 500.)
"""

import json
import re
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_support import certify_url
from fake_target import fake_target, healthy_preflight, send_json
from samples import INFO

from livecert.adapters.secrets import SECRETS
from livecert.cli import main
from livecert.harness.run_record import RunRecord
from livecert.report.allure_report import prepare_results
from livecert.report.certificate_page import render_certificate
from livecert.target_text import LINES, properties_value, visible

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = "evil<i>\x1b[2J\x1b]0;pwned\x07\u202e\x00name"
SHOWN = "evil<i>\\x1b[2J\\x1b]0;pwned\\x07\\u202e\\x00name"  # as every output must show it
# what a terminal or a viewer obeys: C0 but newline and tab, DEL, C1, bidi marks and overrides
OBEYED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def hostile(handler: BaseHTTPRequestHandler) -> None:
    """A target that names itself HOSTILE and refuses everything after the preflight with it."""
    if handler.path == "/v1/info":
        name = {"name": HOSTILE, "version": "1\x1b[31m"}
        send_json(handler, 200, {**INFO, "implementation": name})
    elif not healthy_preflight(handler):
        send_json(handler, 400, {"error": {"code": "BAD\x1b[2J", "message": HOSTILE}})


def obeyed(text: str) -> list[str]:
    return OBEYED.findall(text)


def test_visible_writes_every_hidden_character_as_its_escape() -> None:
    assert visible(HOSTILE) == SHOWN
    assert visible("a\nb\tc\r\x85\u2028\ufeff") == "a\\nb\\tc\\r\\x85\\u2028\\ufeff"
    assert visible("a\nb\tc\r", LINES) == "a\nb\tc\\r"
    assert visible("Café 骰子 ok") == "Café 骰子 ok"  # printable text is left alone
    assert (
        visible("\ud800") == "\\ud800"
    )  # a lone surrogate (JSON can carry one) cannot break a file
    # a .properties value: the backslash is the format's escape, non-ASCII as \uXXXX
    assert properties_value("C:\\x é\x1b 🎲") == "C:\\\\x \\u00e9\\\\x1b \\ud83c\\udfb2"


def test_certify_shows_the_target_s_words_and_obeys_none(tmp_path: Path) -> None:
    with fake_target(hostile) as url:
        # --no-html: the pages are rendered below from the same certificate
        status, certificate, output = certify_url(tmp_path, url, "--clauses", "REG-RECALL-01")
    assert status == 2, output
    assert not obeyed(output), output
    assert f"target: {SHOWN} 1\\x1b[31m at " in output
    assert "refused (400 BAD\\x1b[2J): " + SHOWN in output  # the refusals, in pytest's lines too
    # the evidence keeps the words as they came (JSON escapes them itself)
    assert certificate["target"]["name"] == HOSTILE
    records = (tmp_path / "run-record.jsonl").read_text(encoding="utf-8").splitlines()
    assert HOSTILE in [json.loads(line).get("name") for line in records]

    junit = ElementTree.parse(tmp_path / "junit.xml")  # valid XML
    texts = [t for e in junit.iter() for t in (e.text, e.tail, *e.attrib.values()) if t]
    failures = " ".join(texts)
    assert not obeyed(failures)
    assert "BAD\\x1b[2J): " + SHOWN in failures  # shown as in the terminal

    page = render_certificate(certificate, [], [])
    assert not obeyed(page)
    assert "evil&lt;i&gt;\\x1b[2J\\x1b]0;pwned\\x07\\u202e\\x00name 1\\x1b[31m" in page

    results = tmp_path / "allure-results"
    prepare_results(results, certificate, None)  # what `livecert report` does before Allure
    # every string Allure shows, as it reads them
    shown = json.dumps(
        [json.loads(p.read_text(encoding="utf-8")) for p in results.glob("*-result.json")],
        ensure_ascii=False,
    )
    assert not obeyed(shown)
    assert json.dumps(f"refused (400 BAD\\x1b[2J): {SHOWN}", ensure_ascii=False)[1:-1] in shown

    properties = (results / "environment.properties").read_text(encoding="utf-8")
    assert not obeyed(properties)
    line = next(x for x in properties.splitlines() if x.startswith("Target\\ implementation="))
    assert line.endswith("=" + SHOWN.replace("\\", "\\\\") + " 1\\\\x1b[31m")


def test_plain_pytest_shows_the_target_s_words_and_obeys_none(tmp_path: Path) -> None:
    """The suite run by pytest itself, as a CI pipeline may: its terminal and JUnit too."""
    junit = tmp_path / "junit.xml"
    with fake_target(hostile) as url:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", str(ROOT / "features"), "-m", "REG-RECALL-01",
             "-p", "no:cacheprovider", "--target-url", url, "--operator-token", "op-token",
             "--dealer-token", "dl-token", "--target-timeout", "2", f"--junitxml={junit}"],
            capture_output=True, text=True, timeout=300, cwd=ROOT, check=False,
        )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, output[-3000:]
    assert not obeyed(output), output[-3000:]
    assert "refused (400 BAD\\x1b[2J): " + SHOWN in output
    failures = " ".join(t for e in ElementTree.parse(junit).iter() for t in (e.text, e.tail) if t)
    assert not obeyed(failures) and "BAD\\x1b[2J): " + SHOWN in failures


def test_doctor_shows_the_target_s_words_and_obeys_none(capsys: pytest.CaptureFixture) -> None:
    with fake_target(hostile) as url:
        args = ["--target-url", url, "--operator-token", "op", "--dealer-token", "dl"]
        status = main(["doctor", *args, "--timeout", "2", "--probe"])
    output = capsys.readouterr().out
    assert status == 1, output
    assert not obeyed(output), output
    assert f"reached {url}: {SHOWN} 1\\x1b[31m" in output
    assert f"create a player: refused (400 BAD\\x1b[2J): {SHOWN}" in output


def test_a_lone_surrogate_in_a_target_s_words_is_kept_in_the_run_record_as_its_escape(
    tmp_path: Path,
) -> None:
    """JSON's "\\ud800" in a target's message is read as a lone surrogate, which UTF-8 cannot
    write: the run record writes it as JSON's escape (the line reads back the same), where it
    used to stop the write with a harness error; a secret holding one is masked first."""
    secret = "tok-\ud800-0123456789"
    shown = SECRETS.register_player_token(secret)
    path = tmp_path / "run-record.jsonl"
    RunRecord(path).write("target_error", message=f"refused \ud800 for {secret}")
    line = path.read_bytes().decode("utf-8")  # valid UTF-8
    assert json.loads(line)["message"] == f"refused \ud800 for {shown}"
    assert "refused \\ud800 for" in line and "0123456789" not in line
