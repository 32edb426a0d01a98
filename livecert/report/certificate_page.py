"""certificate.html: the certificate as one self-contained, printable page (styles inline,
charts embedded as data URIs, links only to files shipped in the same report folder)."""

import base64
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from livecert.report.charts import Chart
from livecert.report.manifest import Entry
from livecert.target_text import html_value

CERTIFICATE_PAGE = "certificate.html"
GAME_NAMES = {"sicbo": "Sic Bo", "xocdia": "Xoc Dia"}


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("livecert.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=html_value,  # the target's words shown, never obeyed (then HTML-escaped)
    )


def render_certificate(certificate: dict, charts: list[Chart], manifest: list[Entry]) -> str:
    """The page's HTML for one certificate."""
    games = certificate["scope"]["games"]
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
        )
    )


def write_certificate_page(
    folder: Path, certificate: dict, charts: list[Chart], manifest: list[Entry]
) -> Path:
    path = folder / CERTIFICATE_PAGE
    path.write_text(render_certificate(certificate, charts, manifest), encoding="utf-8")
    return path
