"""`livecert doctor --probe` checks a mapping against the target before a run can blame it:
each offered selection played where it must win, and the rounding of fractional payouts (read
from the balance) against the declared one (livecert/certify/probe_payouts.py).

The casino is examples/cookie_casino: a mistyped code and a wrong declared rounding are each
named before the run, and the correct mappings (per-bet texts, and settlement read from the
balance) pass.
"""

import os
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from cookie_support import COOKIE_MAPPING, cookie_casino, from_balance_mapping

from livecert.certify.diagnosis import FAIL, OK, WARN, Diagnosis
from livecert.certify.doctor import diagnose
from livecert.certify.probe_payouts import RULES, must_win_rounds, rounding_cases
from livecert.rules import expected_settlement, load_paytable


def _changed(folder: Path, change) -> Path:
    data = yaml.safe_load(COOKIE_MAPPING.read_text(encoding="utf-8"))
    change(data)
    path = folder / "changed.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _probed(mapping: Path, *faults: str) -> Diagnosis:
    with cookie_casino(*faults) as (url, env):
        saved = dict(os.environ)
        os.environ.update(env)
        try:
            return diagnose(url, None, None, 5.0, str(mapping), probe=True)
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _lines(diagnosis: Diagnosis, status: str) -> list[str]:
    return [c.what for c in diagnosis.checks if c.status == status and c.what.startswith("probe")]


def test_every_selection_is_played_once_on_an_outcome_where_it_wins() -> None:
    """Hand-checked where the rules leave one outcome: Four red only on r r r r, Specific
    triple 5 only on 5 5 5."""
    for game, only in (
        ("xocdia", ("FOUR_RED", ("r", "r", "r", "r"))),
        ("sicbo", ("TRIPLE_5", (5, 5, 5))),
    ):
        table = load_paytable(game)
        codes = [s.code for s in table.selections]
        rounds = must_win_rounds(table, codes)
        played = [c for _, group in rounds for c in group]
        assert sorted(played) == sorted(codes)  # each once
        for outcome, group in rounds:
            for code in group:
                assert (
                    expected_settlement(table, code, outcome, Decimal(1), 2, "down").outcome
                    == "win"
                )
        code, outcome = only
        assert [o for o, g in rounds if code in g] == [outcome]


def test_the_rounding_rounds_tell_every_two_rules_apart() -> None:
    """Xoc Dia, hand-computed: Two-two pays 1.5:1, so 0.03 wins 0.045 (down and half-even
    0.04, up and half-up 0.05, each with the stake back); Three red pays 2.8:1, so 0.01 wins
    0.028 (down 0.02, the others 0.03) and 0.03 wins 0.084 (up 0.09, the others 0.08)."""
    table = load_paytable("xocdia")
    cases = rounding_cases(table, [s.code for s in table.selections], 2, None)
    shown = {(c.code, str(c.stake)): c.returns for c in cases}
    assert shown == {
        ("TWO_TWO", "0.03"): {
            "down": Decimal("0.07"),
            "up": Decimal("0.08"),
            "half-up": Decimal("0.08"),
            "half-even": Decimal("0.07"),
        },
        ("ONE_WHITE_THREE_RED", "0.01"): {
            "down": Decimal("0.03"),
            "up": Decimal("0.04"),
            "half-up": Decimal("0.04"),
            "half-even": Decimal("0.04"),
        },
        ("ONE_WHITE_THREE_RED", "0.03"): {
            "down": Decimal("0.11"),
            "up": Decimal("0.12"),
            "half-up": Decimal("0.11"),
            "half-even": Decimal("0.11"),
        },
    }
    for a in RULES:
        for b in RULES:
            if a != b:
                assert any(c.returns[a] != c.returns[b] for c in cases), (a, b)


def test_integer_odds_need_no_rounding_round() -> None:
    table = load_paytable("sicbo")
    integer = [
        s.code for s in table.selections if s.code in ("SMALL", "BIG", "TOTAL_10", "TRIPLE_1")
    ]
    assert rounding_cases(table, integer, 2, None) == []


@pytest.mark.parametrize("settled", ["per-bet texts", "from the balance"])
def test_the_probe_passes_the_correct_mapping(tmp_path: Path, settled: str) -> None:
    """No bet or round id is needed of an instant round: certify finds its bets by selection
    or place (the probe failed the from-balance mapping on "bet id empty" before)."""
    mapping = (
        COOKIE_MAPPING if settled == "per-bet texts" else from_balance_mapping(tmp_path, batch=True)
    )
    diagnosis = _probed(mapping)
    assert not _lines(diagnosis, FAIL), _lines(diagnosis, FAIL)
    ok = _lines(diagnosis, OK)
    assert "probe sicbo: each of the 52 selections offered won where it must" in ok
    assert "probe xocdia: each of the 10 selections offered won where it must" in ok
    assert any(
        line.startswith("probe xocdia: fractional payouts are rounded down, as declared")
        for line in ok
    )


def test_a_mistyped_code_is_named_before_the_run(tmp_path: Path) -> None:
    """`4Mau` for `4mau`: a casino that keeps the stakes of codes it does not know answers it
    lost; the probe names the code, and that the casino takes a code it cannot know."""
    mapping = _changed(
        tmp_path, lambda d: d["selections"]["xocdia"].update(FOUR_OF_A_COLOUR="4Mau")
    )
    diagnosis = _probed(mapping, "unoffered-code-accepted")
    failed = _lines(diagnosis, FAIL)
    assert len(failed) == 1, failed
    assert failed[0].startswith("probe xocdia: FOUR_OF_A_COLOUR (sent as '4Mau') did not win on ")
    assert any("may be mistyped codes it answers as lost" in w for w in _lines(diagnosis, WARN))
    assert not diagnosis.healthy


def test_a_mistyped_code_the_casino_refuses_is_named_too(tmp_path: Path) -> None:
    mapping = _changed(tmp_path, lambda d: d["selections"]["xocdia"].update(FOUR_RED="4Do"))
    failed = _lines(_probed(mapping), FAIL)
    assert len(failed) == 1 and failed[0].startswith(
        "probe xocdia: FOUR_RED (sent as '4Do') was refused on r-r-r-r: "
    ), failed


def test_a_wrong_declared_rounding_is_named_before_the_run(tmp_path: Path) -> None:
    mapping = _changed(tmp_path, lambda d: d["declares"].update(rounding="half-up"))
    failed = _lines(_probed(mapping), FAIL)
    assert failed == [
        "probe xocdia: fractional payouts are rounded down, not half-up as declared (0.03 on "
        "TWO_TWO on r-r-w-w returned 0.07; 0.01 on ONE_WHITE_THREE_RED on r-r-r-w returned "
        "0.03; 0.03 on ONE_WHITE_THREE_RED on r-r-r-w returned 0.11)"
    ], failed
