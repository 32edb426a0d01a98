"""Every seeded fault makes `livecert certify` non-compliant on the clause it breaks, and a clean
reference is compliant.

To keep the run short each fault is certified only on the clauses it lists and on the game they
name (the clean run certifies everything, both games): the check that no clause outside the list
fails then covers the scenarios that prove the listed clauses.
Each fault is listed by `livecert serve --list-faults` as `NAME CLAUSE[,CLAUSE...]`: the first
clause is the rule it breaks, the rest are the consequences a run may also detect (settlement and
RTP duties). A run with the fault must fail the first clause and no clause outside the list: a
fault that escapes, or a run that blames the wrong clause, is a defect of the harness.
"""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from cli_support import certify, list_faults

WORKERS = 2  # the CI machine has 2 cores; each run is a harness process plus a server process


# Faults of duties a certify run cannot exercise, and the self-test that proves each is caught.
SELF_TESTED = {"interrupted-round-lost": "tests/test_interrupted.py"}
ALL_FAULTS = list_faults()
FAULTS = {name: clauses for name, clauses in ALL_FAULTS.items() if name not in SELF_TESTED}
CLEAN = "(no fault)"


def game_for(clauses: list[str]) -> str:
    """The game a fault's clauses name; Xoc Dia (the shorter run) for faults of shared duties,
    which both games' scenarios prove. The clean run covers both games."""
    games = {
        g
        for prefix, g in (("SB-", "sicbo"), ("XD-", "xocdia"))
        if any(c.startswith(prefix) for c in clauses)
    }
    if len(games) == 2:
        return "all"
    return games.pop() if games else "xocdia"


def run_certify(fault: str, folder: Path) -> tuple[int, dict, str]:
    """The clean run certifies everything; a fault run only the clauses the fault lists."""
    if fault == CLEAN:
        return certify(folder, "--game", "all")
    clauses = ",".join(FAULTS[fault])
    return certify(
        folder, "--game", game_for(FAULTS[fault]), "--clauses", clauses, "--reference-fault", fault
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict, str]]:
    """One certify run per fault and one clean, two at a time."""
    base = tmp_path_factory.mktemp("certify-faults")
    names = [CLEAN, *FAULTS]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        results = pool.map(lambda n: run_certify(n, base / n.strip("()").replace(" ", "-")), names)
        return dict(zip(names, results, strict=True))


def failed_clauses(certificate: dict) -> set[str]:
    return {c for c, row in certificate["clauses"].items() if row["status"] == "failed"}


def test_the_clean_reference_is_compliant(runs) -> None:
    status, certificate, output = runs[CLEAN]
    assert (status, certificate["verdict"]) == (0, "compliant"), output
    sweep = certificate["sweep"]["sicbo"]
    assert (sweep["outcomes_played"], sweep["selections"]) == (216, 110)
    assert (sweep["settlements_checked"], sweep["mismatches"]) == (216 * 110, 0)
    statuses = {
        c: certificate["clauses"][c]["status"] for c in certificate["scope"]["clauses_in_scope"]
    }
    assert set(statuses.values()) == {"passed"}, statuses
    for clause in ("SB-GEN-01", "SB-RTP-01", *(f"SB-PAY-{n:02d}" for n in range(1, 17))):
        assert statuses[clause] == "passed"
    rtp = certificate["rtp"]["sicbo"]
    assert rtp["measured_max_percent"] == rtp["declared_max_percent"] == "97.22"
    assert len(rtp["selections"]) == 110
    assert all(r["measured"] == r["theoretical"] for r in rtp["selections"].values())


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_fault_is_caught_on_its_clause_and_only_where_it_should(runs, fault: str) -> None:
    status, certificate, output = runs[fault]
    expected = FAULTS[fault]
    failed = failed_clauses(certificate)
    assert (status, certificate["verdict"]) == (1, "non-compliant"), output
    assert expected[0] in failed, f"{fault} breaks {expected[0]} but the run failed {failed}"
    assert failed <= set(expected), f"{fault}: false alarm on {sorted(failed - set(expected))}"
    assert certificate["target"]["faults"] == [fault]


def test_faults_outside_certify_have_their_own_self_test() -> None:
    root = Path(__file__).resolve().parent.parent
    for fault, test_file in SELF_TESTED.items():
        assert fault in ALL_FAULTS
        assert f'"{fault}"' in (root / test_file).read_text(encoding="utf-8"), test_file
