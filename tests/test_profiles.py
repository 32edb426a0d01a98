"""Rule profiles: a vendor certifies against its own published paytable with `--rules PROFILE`.

The shipped variant profiles are checked against odds and returns counted by hand (not by the
oracle that reads them); a profile that names a family or selection the paytable lacks is refused
with where; a run against the vendor server running the variant is compliant under its profile
and names the profile and its sha256, and non-compliant under the documents' paytable.
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from cli_support import certify
from vendor_support import MAPPING, vendor_server

from livecert.harness.capabilities import LAB_ABILITIES
from livecert.harness.run_record import read_run_record
from livecert.rules import load_paytable
from livecert.rules.paytable import use_profile
from livecert.rules.profiles import ProfileError, apply_profile, load_profile, shipped_profiles
from livecert.rules.rtp import theoretical_rtp

# Ways to roll, out of 216 ordered rolls, counted by hand: a specific triple 1; any triple 6;
# a specific double (at least two of a number) 16; a total t: 3, 6, 10, 15, 21, 25, 27, 27 for
# t = 4..11 (mirrored for 17..10); a two-dice combination 30.
WAYS = {"TRIPLE_3": 1, "ANY_TRIPLE": 6, "PAIR_2": 16, "DOUBLE_1_2": 30}
TOTAL_WAYS = {4: 3, 5: 6, 6: 10, 7: 15, 8: 21, 9: 25, 10: 27, 11: 27}
HAND_ODDS = {
    "variant-150": {
        "TRIPLE_3": 150,
        "ANY_TRIPLE": 24,
        "PAIR_2": 8,
        "DOUBLE_1_2": 5,
        4: 50,
        5: 18,
        6: 14,
        7: 12,
        8: 8,
        9: 6,
        10: 6,
        11: 6,
    },
    "variant-180": {
        "TRIPLE_3": 180,
        "ANY_TRIPLE": 30,
        "PAIR_2": 10,
        "DOUBLE_1_2": 6,
        4: 60,
        5: 30,
        6: 17,
        7: 12,
        8: 8,
        9: 6,
        10: 6,
        11: 6,
    },
}


@pytest.fixture(autouse=True)
def _documents_after():
    yield
    use_profile(None)


def test_the_shipped_profiles_are_listed() -> None:
    assert {"documents", "variant-150", "variant-180"} <= set(shipped_profiles())


@pytest.mark.parametrize("name", sorted(HAND_ODDS))
def test_a_variant_profile_pays_what_it_publishes(name: str) -> None:
    use_profile(load_profile(name))
    table = load_paytable("sicbo")
    assert table.profile == name
    odds = HAND_ODDS[name]
    for code, ways in WAYS.items():
        expected = Fraction(ways * (1 + odds[code]), 216)
        assert theoretical_rtp(table, code) == expected, code
    for total, ways in TOTAL_WAYS.items():
        for code in (f"TOTAL_{total}", f"TOTAL_{21 - total}"):
            assert theoretical_rtp(table, code) == Fraction(ways * (1 + odds[total]), 216)
    # Small, Big, Odd, Even are the documents' in both variants: 105/216 × 2, the published max
    assert theoretical_rtp(table, "SMALL") == Fraction(210, 216)
    assert table.declared_max_rtp_percent == "97.22"
    assert load_paytable("xocdia").selection("BIG").odds_by_count == {1: Fraction(24, 25)}


def test_the_documents_profile_changes_nothing() -> None:
    before = load_paytable("sicbo")
    use_profile(load_profile("documents"))
    assert load_paytable("sicbo").selections == before.selections


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('profile = "x"\ntitle = "x"\n[sicbo.odds]\ntriples = "150"\n', "no family 'triples'"),
        ('profile = "x"\ntitle = "x"\n[sicbo.selection_odds]\nTOTAL_3 = "50"\n', "TOTAL_3"),
        ('profile = "x"\ntitle = "x"\n[sicbo.odds]\ntriple = "-1"\n', "must be above 0"),
        ('profile = "x"\n', "`title` must be a string"),
        ('profile = "x"\ntitle = "x"\n[sicbo]\npays = 1\n', "unknown keys ['pays']"),
        # a TOML number is not exact (97.22 is 97.2199...): the stated maximum is text
        (
            'profile = "x"\ntitle = "x"\n[sicbo]\ndeclared_max_rtp_percent = 97.22\n',
            "must be a percentage with two decimals, written as text",
        ),
        # a maximum the profile's own odds cannot give would fail a target paying them exactly
        (
            'profile = "x"\ntitle = "x"\n[sicbo]\ndeclared_max_rtp_percent = "97.50"\n',
            "the profile's own odds give a highest return of 97.22%",
        ),
    ],
)
def test_a_profile_that_cannot_apply_is_refused_with_where(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=problem.replace("[", r"\[").replace("(", r"\(")):
        load_profile(str(path))


def test_an_unknown_profile_name_lists_the_shipped_ones() -> None:
    with pytest.raises(ProfileError, match="variant-150"):
        load_profile("variant-999")


PROFILE_CLAUSES = "SB-PAY-06,SB-PAY-07,SB-PAY-08,SB-PAY-10,SB-RTP-01,REG-RTP-01"


def test_a_vendor_on_its_published_paytable_is_certified_under_its_profile(
    tmp_path: Path,
) -> None:
    with vendor_server(paytable="variant-150") as (url, env):
        args = ("--adapter", str(MAPPING), "--target-url", url, "--no-html", "--game", "sicbo")
        args += ("--clauses", PROFILE_CLAUSES)
        status, certificate, output = certify(
            tmp_path / "profile", *args, "--rules", "variant-150", env=env
        )
        assert (status, certificate["verdict"]) == (0, "compliant"), output[-3000:]
        profile = certificate["scope"]["rules_profile"]
        assert profile["name"] == "variant-150"
        assert profile["sha256"] == load_profile("variant-150").sha256
        # the features' examples quote the documents' odds: under the profile each is checked
        # against the profile's amount, and says so in its evidence; the sweep certified the
        # profile's odds for every selection
        # the only scenario skipped is the interrupted round (its paytable tags select it), for
        # want of a restart hook on this target: none for the profile
        records = read_run_record(tmp_path / "profile" / "run-record.jsonl")
        skipped = [r for r in records if r["type"] == "scenario" and r["outcome"] == "skipped"]
        assert len(skipped) == 1 and LAB_ABILITIES["restart"] in skipped[0]["skip_reason"]
        assert certificate["summary"].get("skipped", 0) == 1
        attachments = (tmp_path / "profile" / "allure-results").glob("*-attachment*")
        said = [p.read_text(errors="replace") for p in attachments]
        assert any("the target is checked against the profile's amount" in t for t in said)
        assert certificate["sweep"]["sicbo"]["mismatches"] == 0
        # the same vendor against the documents' paytable pays too little on the long shots
        status, certificate, output = certify(tmp_path / "documents", *args, env=env)
    assert (status, certificate["verdict"]) == (1, "non-compliant"), output[-3000:]
    failed = {c for c, row in certificate["clauses"].items() if row["status"] == "failed"}
    assert {"SB-PAY-06", "SB-PAY-07", "SB-PAY-08", "SB-PAY-10"} <= failed
    assert certificate["scope"]["rules_profile"]["name"] == "documents"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('profile = "x"\ntitle = "x"\n[sicbo.odds]\nnumber = "1"\n', "pays by how many dice"),
        (
            'profile = "x"\ntitle = "x"\n[sicbo]\ntriple_loss_families = ["smal"]\n',
            "names no family 'smal'",
        ),
        (
            'profile = "documents"\ntitle = "x"\n[sicbo.odds]\ntriple = "150"\n',
            "the name of a shipped profile",
        ),
    ],
)
def test_a_profile_cannot_hide_a_change(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=problem):
        load_profile(str(path))


def test_a_profile_states_its_maximum_over_the_selections_offered(tmp_path: Path) -> None:
    """A casino offering only Specific number (of Sic Bo) publishes that selection's return,
    199/216 = 92.13% (hand-computed: one die 75/216 returns 2, two 15/216 return 3, three 1/216
    return 4); the profile says which selections it does not offer, and the maximum over the
    rest is checked. Without `not_offered` the 92.13% is refused (Small's 97.22% is higher)."""
    others = sorted({s.family for s in load_paytable("sicbo").selections} - {"number"})
    text = 'profile = "x"\ntitle = "x"\n[sicbo]\ndeclared_max_rtp_percent = "92.13"\n'
    path = tmp_path / "numbers-only.toml"
    path.write_text(text + f"not_offered = {json.dumps(others)}\n", encoding="utf-8")
    profile = load_profile(str(path))
    assert apply_profile(load_paytable("sicbo"), profile).declared_max_rtp_percent == "92.13"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=r"a highest return of 97\.22%"):
        load_profile(str(path))
    path.write_text(text + 'not_offered = ["numbers"]\n', encoding="utf-8")
    with pytest.raises(ProfileError, match="not_offered names no family or selection 'numbers'"):
        load_profile(str(path))
