"""Publish a run: from certificate.json and the run record to everything a lab reads.

Order matters for the evidence: the rules, the charts and the Allure HTML are written first, the
certificate page lists their hashes, the PDF is printed from the page, and the manifest is
written last, over every file including the page and the PDF. Before it, `guard` (the run's
last check for secrets) reads every file: a secret found stops the publishing, with no manifest.
"""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from livecert.report.allure_report import AllureOutcome, build_allure
from livecert.report.certificate_page import write_certificate_page
from livecert.report.charts import Chart, charts_for
from livecert.report.junit import write_junit
from livecert.report.manifest import entries, page_summary, write_manifest
from livecert.report.pdf import print_pdf
from livecert.report.rules_page import write_rules

CHARTS_FOLDER = "charts"
SCHEMA = "certificate.schema.json"  # the JSON Schema of certificate.json, shipped beside it
PDF = "certificate.pdf"


class SecretInReport(RuntimeError):
    """A page built for the report holds a secret of the run: the report is not published."""


@dataclass
class PublishResult:
    """The files written and what the reader should be told (built, skipped and why)."""

    files: list[Path] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    manifest_sha256: str = ""


def certificate_schema() -> bytes:
    """The JSON Schema (2020-12) certificate.json follows."""
    return resources.files("livecert.report").joinpath("schema", SCHEMA).read_bytes()


def write_schema(folder: Path) -> Path:
    path = folder / SCHEMA
    path.write_bytes(certificate_schema())
    return path


SCRIPTS_FOLDER = "reproductions"


def write_scripts(folder: Path, certificate: dict) -> list[Path]:
    """Each failed scenario's reproduction as a script of its own (reproductions/NN.sh), which
    runs as written against a fresh target (livecert.adapters.script), and for a live table's
    scenario a Python script that sends its stream messages again (reproductions/NN.py)."""
    written = []
    for number, reproduction in enumerate(certificate.get("reproductions") or [], 1):
        for key, suffix in (("script", "sh"), ("stream_script", "py")):  # a live table's: .py
            if not reproduction.get(key):
                continue
            target = folder / SCRIPTS_FOLDER / f"{number:02d}.{suffix}"
            target.parent.mkdir(exist_ok=True)
            target.write_text(reproduction[key], encoding="utf-8")
            target.chmod(0o755)
            written.append(target)
    return written


def _write_charts(folder: Path, charts: list[Chart]) -> list[Path]:
    target = folder / CHARTS_FOLDER
    target.mkdir(exist_ok=True)
    written = []
    for chart in charts:
        path = target / chart.name
        path.write_bytes(chart.png)
        written.append(path)
    return written


def _charts_beside_allure(
    folder: Path, certificate: dict, records: list[dict], previous_report: Path | None, say
) -> tuple[list[Chart], AllureOutcome]:
    """The charts drawn here while the Allure generator, a Java process of its own, builds the
    HTML: about 3 s of a certification's wall time less on 2 cores (measured)."""
    say("livecert: building the Allure HTML report")
    with ThreadPoolExecutor(max_workers=1) as pool:
        building = pool.submit(build_allure, folder, certificate, previous_report, say)
        charts = charts_for(certificate, records)
        return charts, building.result()


def publish(
    folder: Path,
    certificate: dict,
    records: list[dict],
    previous_report: Path | None = None,
    html: bool = True,
    say=print,
    guard: Callable[[Path], list[str]] | None = None,
) -> PublishResult:
    """Write the report's pages next to certificate.json; `html=False` writes only the rules,
    junit.xml, charts and manifest (the self-test's many runs need no pages). `guard` answers
    the files holding a secret (each 'file: $NAME'); any stops the publishing before the
    manifest."""
    result = PublishResult()
    result.files.append(write_rules(folder))
    result.files.append(write_schema(folder))
    result.files.append(write_junit(folder, certificate))
    result.files += write_scripts(folder, certificate)
    if not html:
        result.files += _write_charts(folder, [])
    else:
        charts, allure = _charts_beside_allure(folder, certificate, records, previous_report, say)
        result.files += _write_charts(folder, charts)
        result.files += allure.built
        result.messages.append(allure.message)
        page = write_certificate_page(folder, certificate, charts, page_summary(entries(folder)))
        result.files.append(page)
        say("livecert: printing certificate.pdf")
        problem = print_pdf(page, folder / PDF)
        if problem:
            result.messages.append(f"certificate.pdf not printed: {problem}")
        else:
            result.files.append(folder / PDF)
    say("livecert: checking every file for secrets, then writing the manifest")
    found = guard(folder) if guard is not None else []
    if found:
        raise SecretInReport(
            "a secret of the run was found in the report's pages (a harness defect; masked "
            f"there, and no manifest written: do not hand this report on): {', '.join(found)}"
        )
    path, digest = write_manifest(folder)
    result.files.append(path)
    result.manifest_sha256 = digest
    return result
