"""certificate.html: the certificate as one self-contained, printable page (styles inline,
charts embedded as data URIs, links only to files shipped in the same report folder)."""

import base64
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from livecert.report.charts import Chart
from livecert.report.manifest import Entry
from livecert.target_text import html_value, visible

CERTIFICATE_PAGE = "certificate.html"
GAME_NAMES = {"sicbo": "Sic Bo", "xocdia": "Xoc Dia"}


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("livecert.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=html_value,  # the target's words shown, never obeyed (then HTML-escaped)
    )
    environment.filters["css_string"] = css_string
    return environment


ANSWER_SHOWN = 1200  # characters of an answer on the page; the whole is in certificate.json


def css_string(value: object) -> Markup:
    """Text for a CSS string (a running header's `content`): every character but ASCII letters
    and digits written as a six-digit CSS escape (a space too: CSS takes a space after an escape
    as its end), so the target's words can neither end the string nor the stylesheet; control
    characters show as their escapes first."""
    text = visible(value)
    return Markup("".join(c if c.isalnum() and c.isascii() else f"\\{ord(c):06x}" for c in text))


def shown_answer(text: str | None) -> str:
    """An answer as the page shows it: whole up to ANSWER_SHOWN characters, else cut there and
    said so (never silently mid-JSON)."""
    text = text or ""
    if len(text) <= ANSWER_SHOWN:
        return text
    return (
        f"{text[:ANSWER_SHOWN]}… ({len(text) - ANSWER_SHOWN} characters more in certificate.json)"
    )


def running_header(certificate: dict) -> dict[str, str]:
    """What every printed page repeats: the report and the target, the verdict, the id."""
    lab, target = certificate.get("lab") or {}, certificate.get("target") or {}
    report = f"report {lab['report_number']} · " if lab.get("report_number") else ""
    name = f"{target.get('name') or 'target'} {target.get('version') or ''}".strip()
    kind = "SELF-TEST · " if certificate.get("self_test") else ""
    kind = "VALIDATION RUN · " if certificate.get("validation_run") else kind
    return {
        "left": f"{report}{name}",
        "right": kind + (certificate.get("verdict_statement") or certificate["verdict"]).upper(),
        "id": f"livecert {certificate['harness']['version']} · {certificate['generated_at']}",
    }


def evidence(certificate: dict) -> tuple[list[dict], list[tuple[int, dict]]]:
    """Each finding's first reproduction once, and the other failed scenarios (by number)."""
    reproductions = certificate.get("reproductions") or []
    shown, first = set(), []
    for finding in certificate.get("findings") or []:
        anchor = finding.get("reproduction")
        if not anchor:
            continue
        index = int(anchor.rsplit("-", 1)[1])
        if index in shown or index > len(reproductions):
            continue
        shown.add(index)
        first.append({"finding": finding, "index": index, "reproduction": reproductions[index - 1]})
    others = [(i, r) for i, r in enumerate(reproductions, 1) if i not in shown]
    return first, others


def render_certificate(certificate: dict, charts: list[Chart], manifest: list[Entry]) -> str:
    """The page's HTML for one certificate."""
    games = certificate["scope"]["games"]
    first, others = evidence(certificate)
    clauses = sorted(
        certificate["clauses"].items(),
        key=lambda item: (item[1].get("section") == "contract", item[1].get("catalogue_line") or 0),
    )
    return (
        _environment()
        .get_template("certificate.html.j2")
        .render(
            c=certificate,
            games_words=" and ".join(GAME_NAMES.get(g, g) for g in games),
            clauses=clauses,
            charts=[
                {
                    "name": chart.name,
                    "title": chart.title,
                    "data": base64.b64encode(chart.png).decode("ascii"),
                }
                for chart in charts
            ],
            manifest=manifest,
            running=running_header(certificate),
            evidence=first,
            other_evidence=others,
            shown_answer=shown_answer,
        )
    )


def write_certificate_page(
    folder: Path, certificate: dict, charts: list[Chart], manifest: list[Entry]
) -> Path:
    path = folder / CERTIFICATE_PAGE
    path.write_text(render_certificate(certificate, charts, manifest), encoding="utf-8")
    return path
