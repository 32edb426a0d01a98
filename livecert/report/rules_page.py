"""Ship the rules catalogue and the four documents with the report, the catalogue as an HTML page
with one anchor per line, so every clause in the certificate and in Allure links to its line."""

import html
import shutil
from pathlib import Path

from livecert.rules.catalogue import catalogue_dir

RULES_FOLDER = "rules"
RULES_PAGE = f"{RULES_FOLDER}/RULES.html"

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; }
header { padding: 12px 20px; border-bottom: 1px solid #ccc; }
pre { margin: 0; padding: 8px 0; font: 13px/1.5 ui-monospace, monospace; white-space: pre-wrap; }
span.l { display: block; padding: 0 20px 0 70px; text-indent: -50px; }
span.l::before { content: attr(data-n); display: inline-block; width: 40px; margin-right: 10px;
  color: #888; text-align: right; }
span.l:target { background: #fff3b0; }
"""


def write_rules(folder: Path) -> Path:
    """Copy RULES.md and the documents into `folder/rules/`, and render RULES.html."""
    source = Path(str(catalogue_dir()))
    target = folder / RULES_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / "RULES.md", target / "RULES.md")
    documents = source / "documents"
    if documents.is_dir():
        shutil.copytree(documents, target / "documents", dirs_exist_ok=True)
    lines = (source / "RULES.md").read_text(encoding="utf-8").splitlines()
    body = "\n".join(
        f'<span class="l" id="L{n}" data-n="{n}">{html.escape(line) or " "}</span>'
        for n, line in enumerate(lines, start=1)
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>RULES.md: the rules catalogue</title><style>{_STYLE}</style></head><body>"
        "<header><strong>RULES.md</strong>, the rules catalogue this run certified against "
        '(<a href="RULES.md">plain text</a>); a clause link opens its line.</header>'
        f"<pre>{body}</pre></body></html>\n"
    )
    out = target / "RULES.html"
    out.write_text(page, encoding="utf-8")
    return out
