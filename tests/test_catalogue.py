"""The rules catalogue shipped in the package is the project's catalogue, clause for clause."""

import hashlib
from pathlib import Path

from livecert.rules import load_catalogue, rules_documents
from livecert.rules.catalogue import catalogue_sha256

SHARED = Path(__file__).resolve().parents[2] / "shared" / "rules"


def test_the_catalogue_has_every_clause_of_sections_a_b_c_and_f() -> None:
    clauses = load_catalogue()
    by_section = {s: sum(1 for c in clauses.values() if c.section == s) for s in "ABCF"}
    assert by_section == {"A": 25, "B": 18, "C": 7, "F": 13}
    assert clauses["SB-PAY-16"].text.startswith("All Small, Big, Odd and Even bets lose")
    assert clauses["REG-RTP-01"].source.startswith("GLI-19")
    # section D repeats clause IDs as readings: they must not replace the clauses
    assert clauses["SB-PAY-15"].section == "A"


def test_the_packaged_copy_matches_the_shared_catalogue_when_it_is_at_hand() -> None:
    if not SHARED.is_dir():  # a clone outside the workspace: the packaged copy is the reference
        assert len(rules_documents()) == 4
        return
    shared = hashlib.sha256((SHARED / "RULES.md").read_bytes()).hexdigest()
    assert catalogue_sha256() == shared, "livecert/rules/catalogue/RULES.md is out of date"
    expected = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in (SHARED / "documents").glob("*.txt")
    }
    assert {d.name: d.sha256 for d in rules_documents()} == expected
