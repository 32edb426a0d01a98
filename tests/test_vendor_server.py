"""A vendor-shaped server certified through a mapping file, no Python of its own (issue 7).

examples/vendor_server speaks nothing of the certification contract: a PHP login form with a
Secure session cookie that expires under the run, integer cents, its own bet codes, a
form-encoded bet endpoint with the slip as JSON in one field, errors as HTTP 200 with
`success: false`, the wallet as "1.234,56", sorted dice, tokens as 1/0, a close that completes on
a later read. `examples/vendor_server/mapping.yaml` certifies it compliant; each of its own seeded
faults makes the same certification fail on the clause it breaks.
"""

import re
from decimal import Decimal
from pathlib import Path

import pytest
from cli_support import certify
from vendor_support import MAPPING, ROOT, instant_only_mapping, vendor_server

from livecert.adapters.mapping import MappingAdapter, load_mapping
from livecert.certify.doctor import WARN, diagnose
from livecert.harness.capabilities import LAB_ABILITIES


def _certify(
    folder: Path, url: str, env: dict, *args: str, mapping: Path = MAPPING
) -> tuple[int, dict, str]:
    return certify(
        folder, "--adapter", str(mapping), "--target-url", url, "--no-html", *args, env=env
    )


def test_the_vendor_server_passes_all_but_interrupted_games(tmp_path: Path) -> None:
    # the staff sessions expire every 7 requests: each kind of staff call meets an expired
    # session somewhere in the run (at 150 a player-page read met one only on some runs, and
    # was read as a refusal until the mapping listed its error code)
    with vendor_server(session_requests=7) as (url, env):
        status, certificate, output = _certify(tmp_path / "report", url, env, "--game", "all")
    # its mapping has no restart_target and the run no hook (the vendor keeps its rounds in
    # memory): interrupted games are not tested, with what to give; incomplete, nothing failed
    assert (status, certificate["verdict"]) == (2, "incomplete"), output[-3000:]
    assert not [c for c, row in certificate["clauses"].items() if row["status"] == "failed"]
    interrupted = certificate["clauses"]["REG-INTR-01"]
    assert (interrupted["status"], interrupted["in_scope"]) == ("not-tested", True)
    assert LAB_ABILITIES["restart"] in interrupted["reason"], interrupted["reason"]
    in_scope = certificate["scope"]["clauses_in_scope"]
    # the vendor declares no table limits: that duty is not applicable, everything else passed
    limits = certificate["clauses"]["REG-LIMIT-01"]
    assert limits["status"] == "not-applicable" and "no table limits" in limits["reason"]
    for clause in ("REG-FAIR-01", "REG-FAIR-02"):  # no outcome history was given
        fair = certificate["clauses"][clause]
        assert fair["status"] == "not-applicable" and "no outcome history" in fair["reason"]
    assert all(
        certificate["clauses"][c]["status"] == "passed"
        for c in in_scope
        if c not in ("REG-LIMIT-01", "REG-INTR-01", "REG-FAIR-01", "REG-FAIR-02")
    )
    assert certificate["sweep"]["sicbo"]["settlements_checked"] == 216 * 110
    assert certificate["sweep"]["xocdia"]["settlements_checked"] == 16 * 10
    adapter = certificate["target"]["adapter"]
    assert adapter["kind"] == "mapping" and adapter["name"] == "Sao Mai Studio API v2"
    assert re.fullmatch(r"[0-9a-f]{64}", adapter["sha256"])
    # the contract clauses do not apply to a vendor API: out of scope, with the reason
    for clause in ("CONTRACT-01", "CONTRACT-02"):
        row = certificate["clauses"][clause]
        assert clause not in in_scope and row["status"] == "not-tested"
        assert "mapping adapter" in row["reason"]
    # the slips only the canonical adapter can garble are not testable here: skipped, named on
    # the clause they would have proven (which its other scenarios proved)
    assert certificate["summary"].get("skipped", 0) >= 4
    assert any("raw bet slip" in r for r in certificate["clauses"]["REG-INPUT-01"]["not_testable"])
    # the sweep bet and settled each outcome in one request on the instant table
    attachments = [
        p.read_text(errors="replace")
        for p in (tmp_path / "report" / "allure-results").glob("*-attachment*")
    ]
    assert any("instant.php" in text for text in attachments)
    # the staff sessions expired under the run and were logged in again
    assert sum(text.count("log in as studio") for text in attachments) >= 30


def test_a_selection_the_vendor_does_not_offer_is_not_tested_with_the_reason(
    tmp_path: Path,
) -> None:
    mapping = tmp_path / "mapping.yaml"
    row = '"FOUR_NUMBERS_{a}_{b}_{c}_{d}": "FOUR{a}{b}{c}{d}"'
    text = MAPPING.read_text(encoding="utf-8")
    assert row in text
    mapping.write_text(text.replace(row, '"FOUR_NUMBERS_{a}_{b}_{c}_{d}": null'), "utf-8")
    with vendor_server() as (url, env):
        clauses = "SB-PAY-13,SB-PAY-15,REG-RTP-01"
        status, certificate, output = _certify(
            tmp_path / "report", url, env, "--game", "sicbo", "--clauses", clauses, mapping=mapping
        )
    assert (status, certificate["verdict"]) == (2, "incomplete"), output[-3000:]
    clauses = certificate["clauses"]
    assert clauses["SB-PAY-15"]["status"] == "not-tested"
    assert "does not offer the selection FOUR_NUMBERS_1_2_3_4" in clauses["SB-PAY-15"]["reason"]
    assert clauses["SB-PAY-13"]["status"] == "passed"
    assert clauses["REG-RTP-01"]["status"] == "passed"
    assert not any(c.startswith("FOUR_NUMBERS") for c in certificate["rtp"]["sicbo"]["selections"])
    assert "SB-PAY-15" in " ".join(certificate["verdict_reasons"])


def test_a_vendor_with_only_instant_rounds_is_certified_on_what_it_can_show(
    tmp_path: Path,
) -> None:
    """The sweep plays every roll through the instant table and proves the paytable; the duties
    that need no live round (bad input, balances, money, access, idempotency) are proven through
    the instant table too; the clauses about a live round are not tested, with the reason, and the
    verdict is incomplete: never compliant for what could not be shown."""
    mapping = instant_only_mapping(tmp_path)
    with vendor_server() as (url, env):
        status, certificate, output = _certify(
            tmp_path / "report", url, env, "--game", "sicbo", mapping=mapping
        )
    assert (status, certificate["verdict"]) == (2, "incomplete"), output[-3000:]
    clauses = certificate["clauses"]
    paytable = [f"SB-PAY-{n:02d}" for n in range(1, 17)] + ["REG-SETTLE-01", "REG-RTP-01"]
    assert all(clauses[c]["status"] == "passed" for c in paytable), output[-3000:]
    duties = ("REG-INPUT-01", "REG-BAL-01", "REG-MONEY-01", "REG-ACCESS-01", "REG-IDEMP-01")
    for clause in duties:
        row = clauses[clause]
        assert row["status"] == "passed", (clause, row)
        assert any("instant" in name.lower() for name in row["scenario_names"]), row
        # the live scenarios of the duty could not run here, and say why
        assert any("plays instant rounds only" in r for r in row["not_testable"]), row
    live = ("SB-RND-01", "SB-RND-02", "REG-COMMIT-01")
    for clause in live:
        assert clauses[clause]["status"] == "not-tested"
        assert "plays instant rounds only" in clauses[clause]["reason"]
        missing = "its mapping has no open_round, close_betting, place_bets, get_round"
        assert missing in clauses[clause]["reason"]
    # a re-shake needs the capability the instant-only mapping does not declare, and a live
    # round it does not have: the reason says both
    for clause in ("SB-RND-05", "SB-RND-06"):
        reason = clauses[clause]["reason"]
        assert "'reshake'" in reason and "plays instant rounds only" in reason, reason
    assert certificate["sweep"]["sicbo"]["mismatches"] == 0


def test_the_doctor_says_what_an_instant_only_vendor_leaves_untested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mapping = instant_only_mapping(tmp_path)
    with vendor_server() as (url, env):
        for name in ("SAOMAI_OPS_PASSWORD", "SAOMAI_STUDIO_PASSWORD"):
            monkeypatch.setenv(name, env[name])
        diagnosis = diagnose(url, None, None, 5.0, str(mapping))
    assert diagnosis.healthy, diagnosis.lines()
    warned = {c.what: c.advice for c in diagnosis.checks if c.status == WARN}
    live = "the mapping has no operation open_round, close_betting, place_bets, get_round"
    assert "plays instant rounds only" in warned[live]
    assert (
        "cannot be told a live round's result"
        in warned["the mapping has no operation enter_result"]
    )


def test_an_instant_only_vendor_fault_is_still_caught(tmp_path: Path) -> None:
    mapping = instant_only_mapping(tmp_path)
    with vendor_server("sum10-booked-as-sum11") as (url, env):
        status, certificate, output = _certify(
            tmp_path / "report",
            url,
            env,
            "--game",
            "sicbo",
            "--clauses",
            "SB-PAY-08",
            mapping=mapping,
        )
    assert (status, certificate["verdict"]) == (1, "non-compliant"), output[-3000:]
    assert certificate["clauses"]["SB-PAY-08"]["status"] == "failed"


VENDOR_FAULTS = {
    "sum10-booked-as-sum11": ("sicbo", ["SB-PAY-08"]),
    "two-two-takes-big-small": ("xocdia", ["XD-PAY-09", "XD-PAY-10"]),
    "wallet-drops-cents": ("sicbo", ["REG-MONEY-01"]),
}


@pytest.mark.parametrize("fault", sorted(VENDOR_FAULTS))
def test_each_vendor_fault_is_caught_on_its_clause(tmp_path: Path, fault: str) -> None:
    game, clauses = VENDOR_FAULTS[fault]
    with vendor_server(fault) as (url, env):
        # REG-MONEY-01's scenarios include the random sessions, whose balances show cents (and so
        # the wallet fault) only for some draws: a fixed seed makes the run the same every time
        # (seeds 1 and 2 both catch it; without one, one CI run in four missed it)
        env = {**env, "LIVECERT_MONEY_SEED": "1"}
        status, certificate, output = _certify(
            tmp_path / "report", url, env, "--game", game, "--clauses", ",".join(clauses)
        )
    assert (status, certificate["verdict"]) == (1, "non-compliant"), output[-3000:]
    failed = [c for c, row in certificate["clauses"].items() if row["status"] == "failed"]
    assert set(clauses) & set(failed), (fault, failed)


def test_the_staff_reading_a_player_page_on_an_expired_session_log_in_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The vendor answers an expired studio session on a player page (which the staff may read
    too) as an anonymous caller's UNAUTHORIZED, not a redirect. Its mapping lists that code as
    "log in again": the dealer's read must not turn into a refusal when the session runs out
    there (it did once in CI, failing REG-ACCESS-01 on a compliant vendor)."""
    with vendor_server(session_requests=1) as (url, env):
        for name in ("SAOMAI_OPS_PASSWORD", "SAOMAI_STUDIO_PASSWORD"):
            monkeypatch.setenv(name, env[name])
        adapter = MappingAdapter(load_mapping(MAPPING), url)
        player = adapter.create_player(Decimal("100.00"))
        round_id = adapter.open_round(adapter.create_table("sicbo")).round_id
        adapter.place_bets(player, round_id, [("BIG", "10.00")])
        dealer = adapter.as_role("dealer")
        # every second studio request meets an expired session: read enough times to meet it
        # on the player page whichever request comes first
        already = len(adapter.recorder.snapshot())
        seen = [dealer.get_round(round_id, player) for _ in range(3)]
        reads = adapter.recorder.snapshot()[already:]
    assert all([b.selection for b in view.bets] == ["BIG"] for view in seen)
    # the player page answered an expired session UNAUTHORIZED; the studio logged in again and
    # the same read was sent again and answered
    steps = [(e.operation, "UNAUTHORIZED" in (e.response_body or "")) for e in reads]
    expired_at = steps.index(("read the round", True))
    assert steps[expired_at + 1][0] == "log in as studio"
    assert steps[expired_at + 2] == ("read the round", False)


def test_the_vendor_server_shares_no_code_with_livecert() -> None:
    for path in (ROOT / "examples" / "vendor_server").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+livecert", text, re.M), path
