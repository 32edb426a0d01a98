"""No secret in any file of a report: tokens, passwords, session cookies, players' tokens.

Two certifications with known secrets, each report folder then read byte by byte (base64 and
URL-encoded blobs decoded, the PDF's text extracted: tests/secret_scan.py). The reference, its
operator token given as a flag and its dealer token in the environment, with a seeded fault on
the access clause (so failures, reproductions and curl scripts are written, and players act
with each other's tokens), every player token read back from its database, the whole report
built (Allure HTML, certificate page and PDF). The vendor example through its mapping
(`--no-html`: the pages are built from the files it does write), behind a proxy that notes
every session cookie and player ticket the vendor hands out, its passwords from the
environment.
"""

import base64
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from allure_commons import model2 as allure_model
from cli_support import certify, certify_mapping
from rewriting_proxy import rewriting_proxy, unchanged
from secret_scan import leaks
from vendor_support import MAPPING, vendor_server

from livecert.adapters.errors import TargetError, check_token
from livecert.adapters.secrets import (
    PIPE_VARIABLE,
    SECRETS,
    SecretRegistry,
    register_url_password,
)
from livecert.adapters.secrets import leaks as guard_leaks
from livecert.certify.runner import guard_folder
from livecert.certify.suite_command import shown_command
from livecert.cli import main
from livecert.harness.embedded import EmbeddedServer
from livecert.report.publish import SecretInReport, publish
from livecert.suite.fixtures.allure_labels import MaskedAllureResults
from livecert.suite.fixtures.evidence import _mask_report
from livecert.target_text import visible

OPERATOR, DEALER = "op-known-7d41c9e2", "dl-known-5a80f3b6"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_reference_run_with_a_token_as_flag_one_in_the_env_writes_no_secret(
    tmp_path: Path, workers: str
) -> None:
    """Also over two pytest-xdist workers: each learns its own players' tokens, masks its own
    evidence and hands them to the controller, whose last check reads every file."""
    database = tmp_path / "reference.sqlite3"
    server = EmbeddedServer(
        faults=("record-shows-other-players",),
        db_path=database,
        operator_token=OPERATOR,
        dealer_token=DEALER,
    )
    with server:
        status, certificate, output = certify(
            tmp_path / "report",
            *("--game", "xocdia", "--clauses", "REG-ACCESS-01", "--workers", workers),
            *("--target-url", server.url, "--operator-token", OPERATOR),
            env={**os.environ, "LIVECERT_DEALER_TOKEN": DEALER},
        )
    assert status == 1, output[-3000:]  # the fault found: failures and reproductions written
    assert certificate["run"]["workers"]["processes"] == int(workers)
    with sqlite3.connect(database) as db:
        players = [token for (token,) in db.execute("SELECT token FROM players")]
    assert players, "the run made no player"
    secrets = {"operator token": OPERATOR, "dealer token": DEALER}
    secrets |= {f"player {i}'s token": token for i, token in enumerate(players)}
    report = tmp_path / "report"
    assert (report / "allure-report.html").is_file() and (report / "certificate.pdf").is_file()
    assert leaks(report, secrets) == []
    assert certificate["verdict"] == "non-compliant"  # no harness error: nothing leaked
    command = certificate["run"]["command"]
    assert command[command.index("--operator-token") + 1] == "$LIVECERT_OPERATOR_TOKEN"
    assert OPERATOR not in output and DEALER not in output  # nor in the terminal
    assert "--operator-token shows in the process list; prefer LIVECERT_OPERATOR_TOKEN" in output
    assert "--dealer-token shows" not in output  # the environment is what it recommends


def test_a_vendor_run_through_its_mapping_writes_no_password_cookie_or_ticket(
    tmp_path: Path,
) -> None:
    handed_out: set[str] = set()

    def note(_request_headers: dict[str, str], answer: requests.Response) -> None:
        cookie = answer.headers.get("set-cookie", "")
        handed_out.update(re.findall(r"PHPSESSID=([^;]+)", cookie))
        handed_out.update(re.findall(r'"ticket"\s*:\s*"([^"]+)"', answer.text))

    with vendor_server() as (url, env), rewriting_proxy(url, unchanged, observe=note) as proxy:
        status, certificate, output = certify_mapping(
            tmp_path,
            MAPPING,
            proxy,
            env,
            *("--game", "xocdia", "--clauses", "REG-ACCESS-01"),
        )
    assert (status, certificate["verdict"]) == (0, "compliant"), output[-3000:]
    assert len(handed_out) > 4, handed_out  # the staff's sessions and the players' tickets
    secrets = {
        "SAOMAI_OPS_PASSWORD": env["SAOMAI_OPS_PASSWORD"],
        "SAOMAI_STUDIO_PASSWORD": env["SAOMAI_STUDIO_PASSWORD"],
    }
    secrets |= {f"handed out {i}": value for i, value in enumerate(sorted(handed_out))}
    assert leaks(tmp_path / "report", secrets) == []
    assert not any(v in output for v in secrets.values())


def test_the_scan_finds_a_secret_however_a_file_carries_it(tmp_path: Path) -> None:
    """The test above can fail: a secret plain, URL-encoded, base64 in a data: URL, base64 in
    base64 at any offset, each is found, and a file without it is not reported."""
    secret = "s3cr/t+token?&x"
    inner = base64.b64encode(b"ab" + secret.encode()).decode()
    once = base64.b64encode(secret.encode()).decode()
    files = {
        "plain.json": f'{{"token": "{secret}"}}',
        "link.html": f'<a href="/x?t={quote(secret, safe="")}">',
        "page.html": f'<img src="data:text/plain;base64,{once}">',
        "twice.html": "data:;base64," + base64.b64encode(("x" + inner).encode()).decode(),
        "clean.txt": "nothing here but $LIVECERT_OPERATOR_TOKEN",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = leaks(tmp_path, {"the token": secret})
    assert found == [f"{name}: the token" for name in sorted(files) if name != "clean.txt"]


def test_secrets_are_shown_by_name_players_told_apart_by_a_keyed_hmac() -> None:
    registry = SecretRegistry()
    assert registry.register("pa ss/word+1", "$SAOMAI_OPS_PASSWORD")
    first = registry.register_player_token("tok-aaaaaaaa")
    second = registry.register_player_token("tok-bbbbbbbb")
    assert first != second and first.startswith("$PLAYER_TOKEN[hmac:")
    # keyed per registry (per run), never a plain hash that could be guessed back
    assert SecretRegistry().register_player_token("tok-aaaaaaaa") != first
    text = 'password=pa+ss%2Fword%2B1&t=tok-aaaaaaaa {"p": "pa ss\\/word+1"}'
    shown = registry.mask(text)
    assert "tok-aaaaaaaa" not in shown and "pa" + " ss" not in shown
    assert shown.startswith(f"password=$SAOMAI_OPS_PASSWORD&t={first}")
    # too short to mask without garbling every word holding it: refused, and said
    assert registry.register("abc", "$SHORT") is False
    assert registry.mask("abc") == "abc"


def test_every_secret_of_a_long_run_is_masked_whichever_automaton_holds_it() -> None:
    """A run registers a token per player (hundreds) and masks between: the newest are kept in
    small automata, merged into a large one past a few. Every token stays masked, the first
    and the newest alike, a token holding another is replaced whole, and a near miss is not."""
    registry = SecretRegistry()
    tokens = [f"tok-{n:04d}-{'x' * (n % 7)}" for n in range(700)]
    shown, passwords = {}, []
    for n, token in enumerate(tokens):
        shown[token] = registry.register_player_token(token)
        if n % 9 == 0:  # a secret written several ways (URL- and JSON-escaped) now and then
            passwords.append(f"pass word/{n}")
            assert registry.register(passwords[-1], f"$PASSWORD_{n}")
    longer = registry.register_player_token("tok-0005-xxxxx-and-more")  # holds tokens[5]
    for n, password in zip(range(0, 700, 9), passwords, strict=True):
        for written in (password, quote(password, safe=""), password.replace("/", "\\/")):
            assert registry.mask(f"<{written}>") == f"<$PASSWORD_{n}>", written
    for count in (1, 64, 65, 300, 700):  # in the large automaton and in the small ones
        sample = [tokens[0], tokens[count - 1], tokens[count // 2]]
        text = " | ".join(sample) + " | tok-0005-xxxxx-and-more | tok-9999"
        masked = registry.mask(text)
        assert masked == " | ".join(shown[t] for t in sample) + f" | {longer} | tok-9999"
    assert registry.mask("tok-0700-") == "tok-0700-"  # never registered


def test_the_pytest_run_tells_certify_each_secret_it_learns_over_a_pipe() -> None:
    registry = SecretRegistry()
    read_end, write_end = os.pipe()
    listener = registry.listen(read_end)
    learn = "from livecert.adapters.secrets import SECRETS as S\n"
    learn += "S.register_player_token('tok-from-the-run-42')\n"
    learn += f"import os; assert {PIPE_VARIABLE!r} not in os.environ  # not handed further on"
    env = {**os.environ, PIPE_VARIABLE: str(write_end)}
    subprocess.run([sys.executable, "-c", learn], env=env, pass_fds=(write_end,), check=True)
    os.close(write_end)
    listener.join(timeout=10)
    assert list(registry.values()) == ["tok-from-the-run-42"]
    assert registry.mask("t=tok-from-the-run-42").startswith("t=$PLAYER_TOKEN[hmac:")


def test_every_token_the_workers_learn_reaches_certify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over two workers the pytest run's first process plays no scenario: each player's token is
    learned by a worker, which masks its own evidence, and must still reach certify (through
    xdist's channel, then the pipe) for certify's last check of every file of the report."""
    database = tmp_path / "reference.sqlite3"
    monkeypatch.setenv("LIVECERT_OPERATOR_TOKEN", OPERATOR)
    monkeypatch.setenv("LIVECERT_DEALER_TOKEN", DEALER)
    server = EmbeddedServer(db_path=database, operator_token=OPERATOR, dealer_token=DEALER)
    with server:
        status = main(
            [
                *("certify", "--quiet", "--no-html", "--report-dir", str(tmp_path / "report")),
                *("--game", "xocdia", "--clauses", "REG-ACCESS-01", "--workers", "2"),
                *("--target-url", server.url),
            ]
        )
    assert status == 0
    with sqlite3.connect(database) as db:
        players = {token for (token,) in db.execute("SELECT token FROM players")}
    assert len(players) >= 2, "the run made too few players to tell"
    assert players <= set(SECRETS.values())


def test_a_password_in_the_target_url_is_masked_as_written_and_decoded() -> None:
    register_url_password("http://lab:p%40ss%2Fw0rd@127.0.0.1:8780/api")
    shown = SECRETS.mask("GET http://lab:p%40ss%2Fw0rd@127.0.0.1:8780/api (p@ss/w0rd)")
    assert shown == "GET http://lab:$TARGET_URL_PASSWORD@127.0.0.1:8780/api ($TARGET_URL_PASSWORD)"


def test_doctor_warns_of_a_token_given_as_a_flag(capsys: pytest.CaptureFixture) -> None:
    argv = ["doctor", "--target-url", "http://127.0.0.1:9", "--timeout", "1"]
    main([*argv, "--operator-token", "tok-op-1234", "--dealer-token=tok-dl-1234"])
    err = capsys.readouterr().err.splitlines()
    assert err[:2] == [
        "livecert doctor: --operator-token shows in the process list; prefer "
        "LIVECERT_OPERATOR_TOKEN",
        "livecert doctor: --dealer-token shows in the process list; prefer LIVECERT_DEALER_TOKEN",
    ]


def test_a_failure_quoting_a_secret_shows_its_name_in_allure_the_terminal_and_junit() -> None:
    """A check's message or a Hypothesis example may quote what a target answered: pytest's
    report (the terminal's and JUnit's text) and Allure's result are masked as they are made."""
    SECRETS.register("failure-secret-77", "$FAILED_SECRET")
    report = pytest.TestReport(
        "t",
        ("f.py", 0, "t"),
        {},
        "failed",
        "boom: failure-secret-77",
        "call",
        [("Captured stdout call", "said failure-secret-77")],
    )
    MaskedAllureResults().report_result(
        result := allure_model.TestResult(
            name="t",
            statusDetails=allure_model.StatusDetails(message="boom: failure-secret-77"),
            steps=[allure_model.TestStepResult(name="Then failure-secret-77 is refused")],
        )
    )
    _mask_report(report)
    assert report.longrepr == "boom: $FAILED_SECRET"
    assert report.sections == [("Captured stdout call", "said $FAILED_SECRET")]
    assert result.statusDetails.message == "boom: $FAILED_SECRET"
    assert result.steps[0].name == "Then $FAILED_SECRET is refused"


def test_the_command_line_shows_the_tokens_variables() -> None:
    argv = ["--operator-token", "tok1", "--dealer-token=tok2", "--operator", "tok3"]
    argv += ["--clauses", "SB-PAY-16", "--", "--dealer-token", "tok4"]
    assert shown_command(argv) == [
        "--operator-token",
        "$LIVECERT_OPERATOR_TOKEN",
        "--dealer-token=$LIVECERT_DEALER_TOKEN",
        "--operator",
        "$LIVECERT_OPERATOR_TOKEN",
        "--clauses",
        "SB-PAY-16",
        "--",
        "--dealer-token",
        "$LIVECERT_DEALER_TOKEN",
    ]


def test_the_first_check_masks_a_secret_where_it_finds_it(tmp_path: Path) -> None:
    """Before the certificate is built, a secret the pytest run let through is masked in its
    file and named (certify then lists it as a harness error: the verdict is incomplete)."""
    SECRETS.register("escaped-token-5150", "$ESCAPED")
    (tmp_path / "junit.xml").write_text("<failure>escaped-token-5150</failure>", encoding="utf-8")
    (tmp_path / "clean.txt").write_text("nothing", encoding="utf-8")
    assert guard_folder(tmp_path) == ["junit.xml: $ESCAPED"]
    assert (tmp_path / "junit.xml").read_text(encoding="utf-8") == "<failure>$ESCAPED</failure>"
    assert guard_folder(tmp_path) == []


def test_a_secret_left_in_a_page_stops_the_report_before_its_manifest(tmp_path: Path) -> None:
    """The last check: a page holding a secret (here the rules page, planted) is never
    published quietly: no manifest, and the error names the file and the secret's name."""
    secret = "planted-secret-1234"
    (tmp_path / "rules").mkdir()

    def guard(folder: Path) -> list[str]:
        (folder / "rules" / "planted.txt").write_text(
            base64.b64encode(f"x{secret}".encode()).decode(), encoding="utf-8"
        )
        return guard_leaks(folder, {secret: "$PLANTED"})

    certificate = {"verdict": "compliant", "verdict_reasons": []}
    with pytest.raises(SecretInReport, match=r"rules/planted\.txt: \$PLANTED"):
        publish(tmp_path, certificate, [], html=False, guard=guard, say=lambda _: None)
    assert not (tmp_path / "manifest.json").exists()


def test_the_last_check_names_each_secret_a_file_holds_inside_another_or_not(
    tmp_path: Path,
) -> None:
    """A password that is a token's first characters, and one inside it: a file holding the
    token holds all three texts, and each is named (the first match alone named the password,
    the token unnamed)."""
    known = {
        "pass-1234": "$PASSWORD",
        "pass-1234-token-abcdef": "$TOKEN",
        "token-abc": "$INSIDE",
    }
    (tmp_path / "page.html").write_text("<p>pass-1234-token-abcdef</p>", encoding="utf-8")
    (tmp_path / "other.txt").write_text("token-abc alone", encoding="utf-8")
    assert guard_leaks(tmp_path, known) == [
        "other.txt: $INSIDE",
        "page.html: $INSIDE",
        "page.html: $PASSWORD",
        "page.html: $TOKEN",
    ]


def test_a_secret_behind_two_overlapping_ones_in_other_automata_is_masked() -> None:
    """Secrets overlapping in a chain across automata: the second automaton hides the third
    secret behind the second (its own leftmost-longest match), which the first automaton's
    match then displaces. A second pass finds the third, so no secret is left whole."""
    registry = SecretRegistry()
    registry.register("BBBBcccc", "$SECOND")  # the same automaton as the third
    registry.register("ccccDDDDeeee", "$THIRD")
    for n in range(64):  # the first secret in another automaton
        registry.register(f"filler-{n:03d}", f"$FILLER_{n}")
    registry.register("aaaaBBBB", "$FIRST")
    masked = registry.mask("aaaaBBBBccccDDDDeeee")
    assert "ccccDDDDeeee" not in masked and masked == "$FIRST$THIRD", masked


def test_a_token_holding_a_lone_surrogate_is_masked_and_so_are_the_others(tmp_path: Path) -> None:
    """A target's JSON may give a token holding "\\ud800" (a lone surrogate, read as it is).
    ahocorasick-rs, built with such a spelling, silently finds nothing at all: the registry
    keeps it out of the automata, and masks it as written, JSON-escaped in either case of hex
    and as a message shows it, in a text with or without one; the secrets registered before
    and after it stay masked, and one that begins the token does not take its place."""
    registry = SecretRegistry()
    registry.register("operator-token-aaaa", "$OP")
    registry.register("DNEwOQeUPZlQ", "$PW")  # the token's first twelve characters
    odd = "DNEwOQeUPZlQuFhvGZQAfVEDuE69x7Ln\ud800"
    shown = registry.register_player_token(odd)
    registry.register("dealer-token-bbbb", "$DL")  # in the same small automaton as before
    assert registry.mask("x operator-token-aaaa dealer-token-bbbb DNEwOQeUPZlQ y") == (
        "x $OP $DL $PW y"
    )
    for escape in ("\\ud800", "\\uD800"):
        token = f"DNEwOQeUPZlQuFhvGZQAfVEDuE69x7Ln{escape}"
        body = f'{{"token": "{token}", "op": "operator-token-aaaa"}}'
        assert registry.mask(body) == f'{{"token": "{shown}", "op": "$OP"}}', escape
        (tmp_path / "answer.json").write_text(body, encoding="utf-8")
        assert guard_leaks(tmp_path, {odd: shown}) == [f"answer.json: {shown}"], escape
    assert registry.mask(f"raw {odd} dealer-token-bbbb") == f"raw {shown} $DL"
    assert registry.mask(f"said: {visible(odd)}") == f"said: {shown}"
    assert registry.mask_data({"token": odd, odd: 1}) == {"token": shown, shown: 1}


def test_a_token_a_target_gave_that_cannot_be_sent_back_is_its_error_naming_no_token() -> None:
    """A lone surrogate can be sent nowhere; a header cannot carry a character past Latin-1 or
    a line break; a mapping may send the token in a body, where those are fine."""
    for token, in_header, named in [
        ("tok-1234\ud800", False, "\\ud800"),
        ("tok-1234\udfff-x", True, "\\udfff"),
        ("tok-1234\u20ac", True, "\u20ac"),
        ("tok-1234\nX-Evil: 1", True, "\\n"),
    ]:
        with pytest.raises(TargetError) as raised:
            check_token(token, "create a test player", in_header)
        assert f"holds {named}," in str(raised.value) and "tok-1234" not in str(raised.value)
    check_token("tok-1234\u20ac", "take a player's token", in_header=False)
    check_token("Zm9vYmFy-_.~+/=", "create a test player", in_header=True)


def test_a_target_giving_a_token_that_is_not_unicode_stops_the_run_and_leaks_nothing(
    tmp_path: Path,
) -> None:
    """A proxy in front of the reference adds a lone surrogate to every player's token. The
    harness cannot send such a token back: the run ends incomplete on a target error naming
    it (not a harness error), and no file of the report holds a token, whole or in part."""
    given: list[str] = []

    def odd_tokens(method: str, path: str, status: int, body: object) -> object:
        if method == "POST" and path == "/v1/players" and isinstance(body, dict):
            given.append(str(body["token"]))
            return {**body, "token": f"{body['token']}\ud800"}
        return body

    with EmbeddedServer() as server, rewriting_proxy(server.url, odd_tokens) as url:
        status, cert, output = certify(
            tmp_path / "report", "--no-html", "--game", "xocdia", "--clauses", "REG-BAL-01",
            "--target-url", url, "--operator-token", server.operator_token,
            "--dealer-token", server.dealer_token,
        )  # fmt: skip
    assert (status, cert["verdict"]) == (2, "incomplete"), output[-3000:]
    assert cert["harness_errors"] == []
    assert cert["target_errors"] and all("lone surrogate" in e for e in cert["target_errors"])
    assert given
    assert leaks(tmp_path / "report", {f"token {n}": t for n, t in enumerate(given)}) == []
    assert not any(token in output for token in given)
