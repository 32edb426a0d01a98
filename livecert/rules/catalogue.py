"""The rules catalogue (RULES.md) and the rules documents it reads, shipped with the package.

Reports cite clauses by ID and regulators trace them back to the catalogue's line and to the
documents' exact bytes, so this module gives each clause its text, section and line number, and
each document its sha256.
"""

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

_SECTION = re.compile(r"^## ([A-Z])\. (.+)$")
CLAUSE_SECTIONS = ("A", "B", "C", "F")  # D holds readings and E findings, not clauses
_ROW = re.compile(r"^\| ([A-Z]+(?:-[A-Z]+)*-\d{2}) \| (.+?) \|(?: (.+?) \|)?$")


@dataclass(frozen=True)
class Clause:
    """One clause (or regulatory duty) of the catalogue."""

    id: str
    text: str
    section: str  # "A", "B", "C" or "F"
    section_title: str
    line: int
    source: str | None = None  # the regulation a section F duty comes from


@dataclass(frozen=True)
class RulesDocument:
    name: str
    sha256: str
    size: int


def catalogue_dir():
    """The packaged folder holding RULES.md and documents/ (a Traversable)."""
    return resources.files("livecert.rules").joinpath("catalogue")


@cache
def load_catalogue() -> dict[str, Clause]:
    """Every clause of RULES.md sections A, B, C and F by ID, in the catalogue's order."""
    text = catalogue_dir().joinpath("RULES.md").read_text(encoding="utf-8")
    clauses: dict[str, Clause] = {}
    section = title = ""
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _SECTION.match(line)
        if heading:
            section, title = heading.groups()
            continue
        row = _ROW.match(line)
        if row and section in CLAUSE_SECTIONS:
            clause_id, clause_text, source = row.groups()
            clauses[clause_id] = Clause(clause_id, clause_text, section, title, number, source)
    return clauses


def catalogue_sha256() -> str:
    return hashlib.sha256(catalogue_dir().joinpath("RULES.md").read_bytes()).hexdigest()


@cache
def rules_documents() -> tuple[RulesDocument, ...]:
    """The rules documents the catalogue reads, with the sha256 of their exact bytes."""
    folder = catalogue_dir().joinpath("documents")
    documents = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".txt"):
            data = entry.read_bytes()
            documents.append(RulesDocument(entry.name, hashlib.sha256(data).hexdigest(), len(data)))
    return tuple(documents)


@dataclass(frozen=True)
class DocumentFinding:
    """A RULES.md section E finding: where the rules documents disagree with each other."""

    document: str
    finding: str
    line: int


@cache
def document_findings() -> tuple[DocumentFinding, ...]:
    """The rows of RULES.md section E, for the certificate's document-consistency section."""
    text = catalogue_dir().joinpath("RULES.md").read_text(encoding="utf-8")
    findings = []
    section = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if heading := _SECTION.match(line):
            section = heading.group(1)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if section == "E" and line.startswith("|") and len(cells) == 2:
            if cells[0] in ("document", "") or set(cells[0]) <= set("-"):
                continue
            findings.append(DocumentFinding(cells[0], cells[1], number))
    return tuple(findings)
