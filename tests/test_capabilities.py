"""Capability negotiation: a target that does not declare an optional ability (pause,
disconnect, ...) is certified on everything else; the clauses that need the ability are reported
not tested with the reason, the verdict says so, and none of them is ever passed."""

from cli_support import certify

from livecert.harness.capabilities import skip_reason


def test_clauses_needing_an_undeclared_capability_are_not_tested_never_passed(tmp_path) -> None:
    status, certificate, output = certify(
        tmp_path,
        "--no-html",
        "--game",
        "xocdia",
        "--reference-without",
        "pause",
        "--reference-without",
        "disconnect",
    )
    assert status == 2, output[-3000:]  # incomplete: not everything could be certified
    assert certificate["verdict"] == "incomplete"
    clauses = certificate["clauses"]
    needing = {
        "TBL-MAL-01": "pause",
        "TBL-MAL-02": "pause",  # also claimed by the random sessions, which cannot pause here
        "TBL-DISC-01": "disconnect",
        "TBL-DISC-02": "disconnect",
        "TBL-DISC-03": "disconnect",
    }
    for clause in needing:
        row = clauses[clause]
        assert row["status"] == "not-tested", (clause, row)
        # the reason of its first skipped scenario (TBL-MAL-03 is proven in both features)
        assert any(
            f"does not declare the capability '{c}'" in row["reason"]
            for c in ("pause", "disconnect")
        ), row["reason"]
    # a cancellation needs no pause: the interrupted round the dealer cancels proves it here
    assert clauses["TBL-MAL-03"]["status"] == "passed"
    assert any("pause" in r for r in clauses["TBL-MAL-03"]["not_testable"])
    assert not [c for c, row in clauses.items() if row["status"] == "failed"]
    # without an outcome history the fairness duties are not applicable; every other passed
    fairness = {"REG-FAIR-01", "REG-FAIR-02"}
    assert {clauses[c]["status"] for c in fairness} == {"not-applicable"}
    others = set(certificate["scope"]["clauses_in_scope"]) - set(needing) - fairness
    assert all(clauses[c]["status"] == "passed" for c in others)
    said = " ".join(certificate["verdict_reasons"])
    assert "not testable on this target" in said and "TBL-MAL-02" in said
    # the reference plays live rounds only: the instant-round scenarios of the duties are not
    # testable there, with the reason, and the duties stand on their live scenarios
    for clause in ("REG-INPUT-01", "REG-MONEY-01", "REG-ACCESS-01"):
        row = clauses[clause]
        assert row["status"] == "passed", (clause, row)
        assert any(
            "does not declare the capability 'instant-round'" in r for r in row["not_testable"]
        ), row["not_testable"]


NO_LIVE = "the target plays instant rounds only: there is no live round (no open_round)"


def test_a_live_rounds_ability_on_a_target_without_live_rounds_says_both() -> None:
    both = skip_reason(["reshake"], ["reshake"], NO_LIVE)
    assert both is not None and "'reshake'" in both and both.endswith(f"; and {NO_LIVE}")
    # declared abilities run; an instant round's own ability never blames the live round
    assert skip_reason([], ["reshake"], NO_LIVE) is None
    idempotency = skip_reason(["idempotency"], ["idempotency"], NO_LIVE)
    assert idempotency is not None and "instant rounds only" not in idempotency
    # a target with live rounds: the capability alone
    assert "instant rounds only" not in (skip_reason(["pause"], ["pause"], None) or "")
