"""The verdict and the clause statuses, from synthetic run records."""

from samples import broke, held, scenario

from livecert.certify.certificate import build_certificate
from livecert.certify.scope import IN_SCOPE, OUTCOME_DUTIES

TARGET = {
    "type": "target",
    "url": "http://x",
    "name": "impl",
    "version": "1",
    "max_rtp": {"sicbo": "97.22"},
}


def all_passing() -> list[dict]:
    return [TARGET, *(scenario(f"proves {c}", [c]) for c in IN_SCOPE["sicbo"])]


def certify(records: list[dict]) -> dict:
    return build_certificate(records, ("sicbo",), run={})


def test_every_clause_in_scope_passed_is_compliant() -> None:
    cert = certify(all_passing())
    assert cert["verdict"] == "compliant"
    assert all(cert["clauses"][c]["status"] == "passed" for c in IN_SCOPE["sicbo"])
    outside = cert["clauses"]["DOC-LANG-01"]
    assert (outside["status"], outside["in_scope"]) == ("not-tested", False)
    assert "about the documents" in outside["reason"]
    assert "DOC-LANG-01" in cert["scope"]["clauses_outside_scope"]
    assert len(cert["rules"]["documents"]) == 4


def test_a_failure_fails_only_the_clauses_its_checks_failed() -> None:
    records = [
        *all_passing(),
        scenario(
            "sweep 2 2 2",
            ["SB-PAY-01", "SB-PAY-16", "REG-SETTLE-01"],
            "failed",
            checks={"SB-PAY-01": held(3), "SB-PAY-16": broke(1), "REG-SETTLE-01": broke(1, 3)},
        ),
    ]
    cert = certify(records)
    assert cert["verdict"] == "non-compliant"
    failed = {c for c, row in cert["clauses"].items() if row["status"] == "failed"}
    assert failed == {"SB-PAY-16", "REG-SETTLE-01"}
    assert cert["clauses"]["SB-PAY-16"]["failed_scenarios"] == ["sweep 2 2 2"]
    row = cert["clauses"]["SB-PAY-01"]
    assert row["status"] == "passed"
    assert row["checks"]["in_scenarios"]["sweep 2 2 2"] == 3
    assert row["checks"]["ran"] == row["checks"]["held"] == 4  # all_passing's one, and these 3


def test_a_tag_no_check_judged_is_never_credited_by_the_scenarios_failure() -> None:
    """The false pass of 0.1.0: a failed sweep roll credited every paytable row it was tagged
    with, the selections the target does not offer among them."""
    only = [r for r in all_passing() if not set(r.get("clauses", [])) & {"SB-PAY-09", "SB-PAY-11"}]
    records = [
        *only,
        scenario(
            "sweep 1 1 2",
            ["SB-PAY-01", "SB-PAY-09", "SB-PAY-11"],
            "failed",
            checks={"SB-PAY-01": broke()},
            unproven={"SB-PAY-11": "not testable on this target: it does not offer TRIPLE_1"},
        ),
    ]
    cert = certify(records)
    assert cert["verdict"] == "non-compliant"
    assert cert["clauses"]["SB-PAY-01"]["status"] == "failed"
    for clause in ("SB-PAY-09", "SB-PAY-11"):
        assert cert["clauses"][clause]["status"] == "not-tested", clause
    assert "no check for SB-PAY-09 ran" in cert["clauses"]["SB-PAY-09"]["reason"]
    assert "does not offer TRIPLE_1" in cert["clauses"]["SB-PAY-11"]["reason"]


def test_a_passed_scenario_credits_only_the_tags_its_checks_judged() -> None:
    records = [r for r in all_passing() if "SB-PAY-09" not in r.get("clauses", [])]
    records.append(scenario("p", ["SB-PAY-08", "SB-PAY-09"], checks={"SB-PAY-08": held(2)}))
    cert = certify(records)
    assert cert["verdict"] == "incomplete"
    assert cert["clauses"]["SB-PAY-09"]["status"] == "not-tested"


def test_a_failure_no_check_named_is_a_harness_error_never_a_pass() -> None:
    records = [
        r for r in all_passing() if not set(r.get("clauses", [])) & {"SB-PAY-02", "SB-PAY-03"}
    ]
    records.append(scenario("x", ["SB-PAY-02", "SB-PAY-03"], "failed", checks={}, message="boom"))
    cert = certify(records)
    assert cert["verdict"] == "incomplete"
    assert {cert["clauses"][c]["status"] for c in ("SB-PAY-02", "SB-PAY-03")} == {"not-tested"}
    assert cert["harness_errors"] == ["x: failed on no clause it judges: boom"]


def test_a_target_error_makes_the_run_incomplete_never_compliant() -> None:
    records = [
        *all_passing()[:5],
        scenario("y", ["SB-PAY-05"], "error", target_error=True, message="target error: 500"),
        {"type": "target_error", "message": "target error: answered 500"},
    ]
    cert = certify(records)
    assert cert["verdict"] == "incomplete"
    assert cert["clauses"]["SB-PAY-05"]["status"] == "not-tested"
    assert any("answered 500" in r for r in cert["verdict_reasons"])


def test_a_clause_in_scope_with_no_scenario_is_incomplete() -> None:
    records = [r for r in all_passing() if "SB-RTP-01" not in r.get("clauses", [])]
    cert = certify(records)
    assert cert["verdict"] == "incomplete"
    assert cert["clauses"]["SB-RTP-01"]["reason"] == "no scenario proving it was run"


def test_a_skipped_scenario_proves_nothing() -> None:
    records = [r for r in all_passing() if "SB-GEN-01" not in r.get("clauses", [])]
    records.append(scenario("z", ["SB-GEN-01"], "skipped", skip_reason="not offered"))
    cert = certify(records)
    assert cert["verdict"] == "incomplete"
    assert cert["clauses"]["SB-GEN-01"]["reason"].startswith("skipped")


def test_failed_beats_incomplete() -> None:
    records = [
        *all_passing(),
        scenario("f", ["SB-PAY-07"], "failed"),
        {"type": "target_error", "message": "target error: timeout"},
    ]
    assert certify(records)["verdict"] == "non-compliant"


def test_a_preflight_target_error_leaves_every_clause_not_tested() -> None:
    cert = certify([{"type": "target_error", "message": "target error: cannot connect"}])
    assert cert["verdict"] == "incomplete"
    fairness = {"REG-FAIR-01", "REG-FAIR-02"}  # not applicable without a history, whatever ran
    assert {r["status"] for c, r in cert["clauses"].items() if c not in fairness} == {"not-tested"}
    assert {cert["clauses"][c]["status"] for c in fairness} == {"not-applicable"}


def test_sweep_and_rtp_sections() -> None:
    records = [
        *all_passing(),
        {
            "type": "sweep",
            "game": "sicbo",
            "outcome": [1, 1, 1],
            "selections": 110,
            "checked": 110,
            "mismatches": 0,
            "mismatched": [],
        },
        {
            "type": "sweep",
            "game": "sicbo",
            "outcome": [1, 1, 2],
            "selections": 110,
            "checked": 110,
            "mismatches": 2,
            "mismatched": ["SMALL", "BIG"],
        },
        {
            "type": "rtp",
            "game": "sicbo",
            "rolls": 216,
            "rows": [
                {
                    "code": "SMALL",
                    "clause": "SB-PAY-01",
                    "theoretical": "35/36",
                    "measured": "35/36",
                    "theoretical_percent": "97.2222%",
                    "measured_percent": "97.2222%",
                }
            ],
        },
        {
            "type": "rtp_max",
            "game": "sicbo",
            "stated": "97.22",
            "declared": "97.22",
            "measured": "97.22",
            "selection": "SMALL",
        },
    ]
    cert = certify(records)
    assert cert["sweep"]["sicbo"] == {
        "outcomes_possible": 216,
        "outcomes_played": 2,
        "selections": 110,
        "settlements_checked": 220,
        "mismatches": 2,
        "mismatched_outcomes": [[1, 1, 2]],
    }
    rtp = cert["rtp"]["sicbo"]
    assert rtp["declared_max_percent"] == rtp["stated_max_percent"] == "97.22"
    assert rtp["selections"]["SMALL"]["measured"] == "35/36"


def test_a_failed_check_on_clauses_the_scenario_is_not_tagged_with_is_a_harness_error() -> None:
    """A settlement check names the paytable's clauses; in a scenario tagged only with
    lifecycle clauses it may judge none of them: a tagging defect, listed, never a pass."""
    records = [
        *all_passing(),
        scenario(
            "disconnect",
            ["TBL-DISC-02", "TBL-DISC-03"],
            "failed",
            checks={},
            untagged_checks={"SB-PAY-02": broke()},
        ),
    ]
    cert = certify(records)
    assert cert["verdict"] == "incomplete"
    assert len(cert["harness_errors"]) == 1
    assert (
        "a check on SB-PAY-02 failed, but the scenario is not tagged" in (cert["harness_errors"][0])
    )
    assert cert["clauses"]["TBL-DISC-02"]["checks"]["in_scenarios"] == {"proves TBL-DISC-02": 1}


def test_a_teardown_error_is_listed_and_the_run_incomplete() -> None:
    records = [
        *all_passing(),
        {"type": "teardown_error", "name": "proves SB-PAY-01", "message": "TargetError: 500"},
    ]
    cert = certify(records)
    assert cert["verdict"] == "incomplete"
    assert cert["harness_errors"] == ["clean-up after proves SB-PAY-01: TargetError: 500"]


def test_a_secret_found_in_the_evidence_is_a_harness_error_and_the_run_incomplete() -> None:
    message = "a secret of the run was written into the report: junit.xml: $PLAYER_TOKEN[hmac:1]"
    cert = certify([*all_passing(), {"type": "harness_error", "message": message}])
    assert cert["verdict"] == "incomplete"
    assert cert["harness_errors"] == [message]


def test_a_partial_run_never_says_compliant_alone_nor_passes_what_was_not_selected() -> None:
    selected = ("SB-PAY-16", "REG-SETTLE-01", "SB-PAY-01")
    cert = build_certificate(all_passing(), ("sicbo",), run={}, selected=selected)
    assert cert["verdict"] == "compliant"
    assert cert["verdict_statement"] == ("compliant on the 3 selected clauses; not a certification")
    assert cert["scope"]["partial"] is True
    not_selected = len(IN_SCOPE["sicbo"]) - 3 + 3 + len(OUTCOME_DUTIES)  # + CONTRACT, REG-FAIR
    assert len(cert["scope"]["clauses_not_selected"]) == not_selected
    for clause in cert["scope"]["clauses_not_selected"]:
        row = cert["clauses"][clause]
        assert row["status"] == "not-tested", clause  # all_passing held a check for each
        assert row["reason"].startswith("not selected"), row["reason"]
    assert "SB-PAY-02" in cert["scope"]["clauses_not_selected"]
    assert "SB-PAY-02" not in cert["scope"]["clauses_outside_scope"]
    assert cert["clauses"]["SB-PAY-02"]["status"] == "not-tested"
    assert "partial run" in cert["scope"]["statement"]
    failing = [*all_passing(), scenario("f", ["SB-PAY-01"], "failed")]
    cert = build_certificate(failing, ("sicbo",), run={}, selected=selected)
    assert cert["verdict_statement"] == (
        "non-compliant on 1 of the 3 selected clauses; not a certification"
    )
    assert certify(all_passing())["verdict_statement"] == "compliant"


def test_a_contract_violation_fails_its_contract_clause_and_proves_nothing_else() -> None:
    records = [
        *all_passing(),
        scenario(
            "balance after a win",
            ["SB-PAY-01", "REG-SETTLE-01"],
            "failed",
            contract_violation=True,
            contract_clause="CONTRACT-02",
            message="contract violation: getPlayer answered 200 but body.balance must be string",
        ),
    ]
    cert = certify(records)
    assert cert["verdict"] == "non-compliant"
    failed = {c for c, row in cert["clauses"].items() if row["status"] == "failed"}
    assert failed == {"CONTRACT-02"}
    assert cert["clauses"]["CONTRACT-02"]["failed_scenarios"] == ["balance after a win"]
    assert cert["clauses"]["CONTRACT-01"]["status"] == "passed"
    # the rules whose scenario met the violation were not proven by it: not tested, with why
    blocked = cert["clauses"]["SB-PAY-01"]
    assert blocked["status"] == "not-tested"
    assert "blocked by a CONTRACT-02 finding" in blocked["reason"]


def test_the_contract_clauses_are_in_scope_and_proven_by_every_scenario() -> None:
    cert = certify(all_passing())
    assert {"CONTRACT-01", "CONTRACT-02", "CONTRACT-03"} <= set(cert["scope"]["clauses_in_scope"])
    row = cert["clauses"]["CONTRACT-02"]
    assert (row["status"], row["section"]) == ("passed", "contract")
    assert row["scenarios"] == len(IN_SCOPE["sicbo"])


def test_without_a_history_the_fairness_duties_are_not_applicable_and_say_so() -> None:
    cert = certify(all_passing())
    for clause in OUTCOME_DUTIES:
        row = cert["clauses"][clause]
        assert (row["status"], row["in_scope"]) == ("not-applicable", True), clause
        assert row["reason"].startswith("not applicable: no outcome history given"), row["reason"]
        assert row["checks"]["ran"] == 0
    assert cert["verdict"] == "compliant"
    assert cert["limitations"][0].startswith("Randomness is not assessed: no outcome history")
    assert cert["outcome_analysis"] == []
    # declared table limits are in scope since the instant-round issue (13)
    assert cert["clauses"]["REG-LIMIT-01"]["in_scope"]


def test_the_identity_clause_passes_only_where_an_answer_was_compared() -> None:
    records = [{**r, "checks": {}} if r["type"] == "scenario" else r for r in all_passing()]
    cert = certify(records)
    assert cert["clauses"]["CONTRACT-03"]["status"] == "not-tested"
    violated = scenario(
        "bet answer for another round",
        ["SB-PAY-01"],
        "failed",
        contract_violation=True,
        contract_clause="CONTRACT-03",
    )
    cert = certify([*all_passing(), violated])
    assert cert["clauses"]["CONTRACT-03"]["status"] == "failed"
    assert cert["verdict"] == "non-compliant"


def test_a_selection_not_offered_is_the_reason_before_the_skips_of_other_scenarios() -> None:
    """On an instant-only vendor that lacks a selection, the clause's payout scenarios are
    skipped (no live round) while the sweep finds the selection missing: the certificate names
    the missing selection first, then the skips."""
    records = [r for r in all_passing() if "SB-PAY-11" not in r.get("clauses", [])]
    records += [
        scenario(
            "sweep 1 1 2",
            ["SB-PAY-01", "SB-PAY-11"],
            checks={"SB-PAY-01": held()},
            unproven={"SB-PAY-11": "not testable on this target: it does not offer TRIPLE_1"},
        ),
        scenario(
            "triple 1 wins 180",
            ["SB-PAY-11"],
            "skipped",
            skip_reason="the target plays instant rounds only: there is no live round",
        ),
    ]
    cert = certify(records)
    reason = cert["clauses"]["SB-PAY-11"]["reason"]
    assert cert["clauses"]["SB-PAY-11"]["status"] == "not-tested"
    assert reason.startswith("not testable on this target: it does not offer TRIPLE_1"), reason
    assert "its other scenarios skipped: the target plays instant rounds only" in reason
    said = " ".join(cert["verdict_reasons"])
    assert "a selection not offered" in said and "SB-PAY-11" in said


def test_a_scenario_lacking_several_capabilities_names_each() -> None:
    from livecert.harness.capabilities import missing_reason

    one = missing_reason("pause")
    assert "the capability 'pause'" in one
    both = missing_reason("disconnect", "pause")
    assert "capabilities 'disconnect' (" in both and "'pause' (" in both


def _limits_skipped(target: dict) -> dict:
    """Every clause proven, but the limits scenario skipped (its probes could not run)."""
    records = [
        target,
        *(scenario(f"proves {c}", [c]) for c in IN_SCOPE["sicbo"] if c != "REG-LIMIT-01"),
        scenario("limits", ["REG-LIMIT-01"], "skipped", message="not applicable: none declared"),
    ]
    return certify(records)


def test_limits_no_game_declares_are_not_applicable_and_leave_the_verdict_whole() -> None:
    cert = _limits_skipped({**TARGET, "limits": {}})
    row = cert["clauses"]["REG-LIMIT-01"]
    assert row["status"] == "not-applicable"
    assert row["reason"].startswith("not applicable: the target declares no table limits")
    assert cert["verdict"] == "compliant"
    assert any("not applicable: " in r and "REG-LIMIT-01: not applicable" in r
               for r in cert["verdict_reasons"])  # fmt: skip


def test_declared_limits_never_proven_leave_the_verdict_incomplete() -> None:
    declared = {**TARGET, "limits": {"sicbo": {"max_bet": "100.00"}}}
    cert = _limits_skipped(declared)
    assert cert["clauses"]["REG-LIMIT-01"]["status"] == "not-tested"
    assert cert["verdict"] == "incomplete"


def test_the_contract_clauses_pass_only_by_answers_validated() -> None:
    """CONTRACT-01 and CONTRACT-02 passed on "0 ran, 0 held" before: every scenario that met
    the target counted. Each answer validated is now a check; scenarios that validated none
    prove nothing of the contract."""
    unchecked = [
        TARGET,
        *(scenario(f"proves {c}", [c], checks={c: held()}) for c in IN_SCOPE["sicbo"]),
    ]
    rows = certify(unchecked)["clauses"]
    for clause in ("CONTRACT-01", "CONTRACT-02"):
        assert rows[clause]["status"] == "not-tested", rows[clause]
        assert rows[clause]["checks"]["ran"] == 0
    validated = [
        *unchecked,
        scenario("answers", ["SB-PAY-01"], checks={"CONTRACT-01": held(7), "CONTRACT-02": held(5)}),
    ]
    rows = certify(validated)["clauses"]
    assert rows["CONTRACT-01"]["status"] == rows["CONTRACT-02"]["status"] == "passed"
    assert (rows["CONTRACT-01"]["checks"]["ran"], rows["CONTRACT-02"]["checks"]["held"]) == (7, 5)


def test_an_answer_that_broke_the_contract_fails_it_even_where_a_step_caught_it() -> None:
    """A step that takes an answer as a refusal swallows its ContractViolation; the exchange
    still says it broke the contract, so it is a failed check, and the clause fails though
    the scenario passed and its other answers held."""
    from livecert.adapters.evidence import Exchange
    from livecert.harness.checks import CheckLedger
    from livecert.suite.fixtures.contract_checks import book_contract_checks

    def answer(contract: dict) -> Exchange:
        exchange = Exchange(1, "place bets", "player", "POST", "u", None, 201, "{}", 1.0)
        exchange.contract = contract
        return exchange

    ledger = CheckLedger(["SB-PAY-01", "CONTRACT-01", "CONTRACT-02"])
    book_contract_checks(
        [
            answer({"held": ["CONTRACT-01", "CONTRACT-02"]}),
            answer({"held": ["CONTRACT-01", "CONTRACT-02"]}),
            answer({"broken": "CONTRACT-02", "problem": "stake: 1 is not of type string"}),
            answer(None),  # a mapping's exchange: nothing checked
        ],
        ledger,
    )
    checks = ledger.as_record()["clauses"]
    assert (checks["CONTRACT-01"]["ran"], checks["CONTRACT-01"]["held"]) == (2, 2)
    assert (checks["CONTRACT-02"]["ran"], checks["CONTRACT-02"]["held"]) == (3, 2)
    rows = certify([*all_passing(), scenario("caught", ["SB-PAY-01"], checks=checks)])["clauses"]
    assert rows["CONTRACT-02"]["status"] == "failed"
    assert "stake: 1 is not of type string" in rows["CONTRACT-02"]["checks"]["first_failure"]
    assert rows["CONTRACT-01"]["status"] == "passed"
