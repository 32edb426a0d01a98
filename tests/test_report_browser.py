"""The built report, opened the way a lab opens it: headless Chromium, no network.

`livecert certify` on the reference must leave the Allure HTML, the certificate (HTML, JSON, PDF)
and the manifest in its folder; both pages must render the run's numbers with no request outside
their own files; a seeded fault must show its failing clause and the curl reproduction in both;
a second run beside the first must carry Allure's history. Screenshots are kept in
`reports/browser-check/` as artifacts.
"""

import base64
import json
import os
import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from browser import visit
from cli_support import certify, livecert
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from livecert.report.allure_report import generator_path
from livecert.report.manifest import sha256_of
from livecert.report.pdf import find_chromium

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "reports" / "browser-check"

if not find_chromium():
    if os.environ.get("CI"):
        pytest.fail("CI must install Chromium (.ci/run: apt-get install chromium)", pytrace=False)
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)


def embedded_allure_files(page: Path) -> dict[str, str]:
    """The data files Allure's single-file report embeds (`d('path','base64')`), decoded."""
    text = page.read_text(encoding="utf-8")
    return {
        name: base64.b64decode(data).decode("utf-8", "replace")
        for name, data in re.findall(r"d\('([^']+)','([A-Za-z0-9+/=]*)'\)", text)
    }


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("reports") / "clean"
    status, certificate, output = certify(folder, "--game", "xocdia")
    assert status == 0, output[-3000:]
    return folder, certificate


def test_the_report_folder_holds_every_page_and_the_manifest(clean_run) -> None:
    folder, _ = clean_run
    for name in (
        "allure-report.html",
        "allure-history/history-trend.json",
        "certificate.html",
        "certificate.json",
        "certificate.pdf",
        "certificate.schema.json",
        "junit.xml",
        "manifest.json",
        "manifest.sha256",
        "rules/RULES.html",
        "charts/rtp-xocdia.png",
        "charts/sweep-xocdia.png",
    ):
        assert (folder / name).is_file(), name
    assert generator_path().exists()
    assert (folder / "certificate.pdf").read_bytes().startswith(b"%PDF")
    # the manifest covers every file, itself hashed in manifest.sha256
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    listed = {f["path"]: f["sha256"] for f in manifest["files"]}
    assert {"certificate.html", "certificate.pdf", "allure-report.html"} <= set(listed)
    for path, digest in listed.items():
        assert sha256_of(folder / path) == digest, path
    own, name = (folder / "manifest.sha256").read_text(encoding="utf-8").split()
    assert (name, own) == ("manifest.json", sha256_of(folder / "manifest.json"))


def test_a_fresh_report_signed_verifies_and_fails_on_a_changed_byte(clean_run, tmp_path) -> None:
    """The whole of a real run's folder, pages and Allure's thousands of files, is covered."""
    folder = tmp_path / "copy"
    shutil.copytree(clean_run[0], folder, symlinks=True)
    key = Ed25519PrivateKey.generate()
    (tmp_path / "lab.key").write_bytes(
        key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    )
    (tmp_path / "lab.pub").write_bytes(
        key.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH)
    )
    signed = livecert("sign", str(folder), "--key", str(tmp_path / "lab.key"), "--signer", "QA")
    assert signed.returncode == 0, signed.stderr
    verify = ("verify", str(folder), "--public-key", str(tmp_path / "lab.pub"))
    assert livecert(*verify).returncode == 0
    pdf = bytearray((folder / "certificate.pdf").read_bytes())
    pdf[-10] ^= 0x20
    (folder / "certificate.pdf").write_bytes(bytes(pdf))
    changed = livecert(*verify)
    assert changed.returncode == 1
    assert "changed since the run: certificate.pdf" in changed.stdout


def test_the_certificate_renders_offline_with_the_run_numbers(clean_run) -> None:
    folder, certificate = clean_run
    shown = visit((folder / "certificate.html").as_uri(), ARTIFACTS / "certificate.png")
    assert shown.outside_requests == []
    assert "COMPLIANT" in shown.text
    sweep = certificate["sweep"]["xocdia"]
    assert f"{sweep['outcomes_played']} of 16" in shown.text
    assert str(sweep["settlements_checked"]) in shown.text
    for clause in ("XD-PAY-09", "XD-VOID-01", "REG-MONEY-01", "CONTRACT-02"):
        assert clause in shown.text
    assert "thirty" in shown.text  # RULES.md E: the Arabic document's 30/50 disagreement
    assert "Randomness is not assessed" in shown.text
    assert ARTIFACTS.joinpath("certificate.png").stat().st_size > 10_000


def _pdf_pages(path: Path) -> list[str]:
    """The text of each page of a PDF (pdfminer.six), its ligatures (ﬁ) as letters."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return [
        unicodedata.normalize(
            "NFKC", "".join(e.get_text() for e in page if isinstance(e, LTTextContainer))
        )
        for page in extract_pages(path)
    ]


def test_the_pdf_is_a_filed_document_headed_footed_and_short(clean_run) -> None:
    folder, certificate = clean_run
    assert certificate["verdict"] == "compliant"
    pages = _pdf_pages(folder / "certificate.pdf")
    assert 1 <= len(pages) <= 10
    for number, text in enumerate(pages, 1):
        assert f"page {number} of {len(pages)}" in text  # the footer's margin box
        assert "COMPLIANT" in text  # the running header's verdict
        assert "livecert-reference" in text  # and target
    first = pages[0]
    assert "Certificate of conformance" in first and "Findings" in first
    assert "None: every clause in scope passed." in first


def test_a_seeded_fault_pdf_puts_its_finding_on_page_one(fault_run) -> None:
    folder, certificate = fault_run
    pages = _pdf_pages(folder / "certificate.pdf")
    first = " ".join(pages[0].split())
    assert "SELF-TEST" in first and "Findings" in first
    finding = certificate["findings"][0]
    assert "XD-PAY-09" in finding["clauses"]
    assert first.index("Findings") < first.index("XD-PAY-09", first.index("Findings"))
    assert len(pages) <= 10


def test_the_allure_report_renders_offline_with_the_run_numbers(clean_run) -> None:
    folder, certificate = clean_run
    page = folder / "allure-report.html"
    assert "googletagmanager" not in page.read_text(encoding="utf-8")
    shown = visit(page.as_uri(), ARTIFACTS / "allure-overview.png")
    assert shown.outside_requests == []
    scenarios = certificate["summary"]["scenarios"]
    assert f"{scenarios} test cases" in shown.text  # the scenarios, no entry of the run's own
    assert "Verdict compliant" in shown.text
    assert f"livecert {certificate['harness']['version']}: " in shown.text  # the executor
    assert "Target implementation livecert-reference" in shown.text
    files = embedded_allure_files(page)
    environment = {e["name"]: e["values"] for e in json.loads(files["widgets/environment.json"])}
    assert environment["Rounding rule"] == ["down"]
    assert environment["RULES.md sha256"] == [certificate["rules"]["catalogue"]["sha256"]]
    for document in certificate["rules"]["documents"]:
        assert environment[f"sha256 {document['name']}"] == [document["sha256"]]
    links = [
        link
        for name, text in files.items()
        if name.startswith("data/test-cases/")
        for link in json.loads(text).get("links", [])
    ]
    assert any(link["url"].startswith("rules/RULES.html#L") for link in links)


@pytest.fixture(scope="module")
def fault_run(clean_run) -> tuple[Path, dict]:
    base, _ = clean_run
    folder = base.parent / "fault"
    (base.parent / "latest").symlink_to(base.name)  # the previous run, for Allure's history
    status, certificate, output = certify(
        folder,
        "--game",
        "xocdia",
        "--clauses",
        "XD-PAY-09",
        "--reference-fault",
        "big-loses-on-two-two",
    )
    assert status == 1, output[-3000:]
    return folder, certificate


def test_a_seeded_fault_shows_its_clause_and_curl_reproduction_in_the_certificate(fault_run):
    folder, certificate = fault_run
    assert certificate["clauses"]["XD-PAY-09"]["status"] == "failed"
    shown = visit((folder / "certificate.html").as_uri(), ARTIFACTS / "certificate-fault.png")
    assert shown.outside_requests == []
    assert "NON-COMPLIANT" in shown.text
    row = re.search(r'<tr id="clause-XD-PAY-09">.*?</tr>', shown.dom, re.S)
    assert row and 'class="failed"' in row.group(0)
    assert "Appendix A: the evidence of each finding" in shown.text
    assert re.search(r"Finding 1: [^<]*XD-PAY-09", shown.dom)
    assert re.search(
        r"curl -sS -X POST '?http://127\.0\.0\.1:\d+/v1/rounds/[^/]+/result", shown.dom
    )


def test_a_seeded_fault_shows_its_clause_and_curl_reproduction_in_allure(fault_run) -> None:
    folder, _ = fault_run
    page = folder / "allure-report.html"
    files = embedded_allure_files(page)
    failed = [
        json.loads(text)
        for name, text in files.items()
        if name.startswith("data/test-cases/") and json.loads(text).get("status") == "failed"
    ]
    assert failed, "no failed test in the Allure report"
    stories = {lab["value"] for t in failed for lab in t["labels"] if lab["name"] == "story"}
    assert "XD-PAY-09" in stories

    def attachments(step_holder: dict):
        yield from step_holder.get("attachments", [])
        for step in step_holder.get("steps", []):
            yield from attachments(step)

    found = [
        a
        for t in failed
        for a in attachments(t.get("testStage", {}))
        if a["name"].startswith("reproduction")
    ]
    assert found, "the failed test carries no reproduction attachment"
    assert "curl -sS -X POST" in files[f"data/attachments/{found[0]['source']}"]
    shown = visit(page.as_uri() + "#categories", ARTIFACTS / "allure-categories.png")
    assert shown.outside_requests == []
    assert "XD-PAY-09 Big: more red than white" in shown.text  # a category per failed rule


def test_the_second_run_carries_the_first_one_s_history(fault_run) -> None:
    folder, _ = fault_run
    trend = json.loads(
        (folder / "allure-history" / "history-trend.json").read_text(encoding="utf-8")
    )
    assert len(trend) == 2  # this run and the clean one before it
    assert not (folder / "allure-report").exists()  # one build: the single file alone


def test_the_check_sees_a_page_reaching_outside(tmp_path) -> None:
    """The offline check can fail: a page that loads analytics and a script is caught."""
    page = tmp_path / "leaky.html"
    page.write_text(
        '<html><body><p>report</p><img src="https://www.googletagmanager.com/gtag/js?id=X">'
        '<script src="http://cdn.example.org/x.js"></script></body></html>',
        encoding="utf-8",
    )
    shown = visit(page.as_uri())
    assert "report" in shown.text
    hosts = " ".join(shown.outside_requests)
    assert "www.googletagmanager.com" in hosts and "cdn.example.org" in hosts
