"""Look for known secrets in every byte of a report folder, however a file carries them.

A report can hold a secret plainly (JSON, HTML, JUnit, a curl script), escaped (JSON's \\u
escapes, URL-encoding in a link), base64-encoded (the single-file Allure HTML embeds every file
as a data: URL, attachments included), zlib-compressed (a PDF's streams) or drawn as glyphs (a
PDF's text, read back with pdfminer.six). Each file is read in all these ways; each reading is
searched for every secret as written, URL-encoded and base64-encoded at each of the three
alignments a secret can start at inside a longer text (so base64 inside base64 is found too).
The search is one Aho-Corasick automaton (ahocorasick-rs) over every reading: a report is tens
of megabytes once decoded, and a secret per player makes hundreds of patterns.
"""

import base64
import binascii
import contextlib
import io
import json
import re
import urllib.parse
import zlib
from pathlib import Path

from ahocorasick_rs import BytesAhoCorasick

SHORTEST = 8  # bytes: the secrets looked for are at least this long (a shorter one is refused)
# a run of base64 long enough to be decoded and read again (a data: URL, an attachment): the
# encoded forms of each secret are searched in every reading anyway, so shorter runs add nothing
# but base64 in base64, which the forms of the forms cover
_BASE64 = re.compile(rb"[A-Za-z0-9+/_-]{64,}={0,2}")
_PDF_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)


def base64_forms(secret: bytes) -> set[bytes]:
    """The base64 characters that encode `secret` wherever it starts in a longer text (at an
    offset of 0, 1 or 2 bytes in its group of three), standard and URL-safe alphabets: only
    the characters made of the secret's bits alone, which its neighbours cannot change."""
    forms = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + secret).rstrip(b"=")
        first = -(-8 * offset // 6)  # the first character holding none of the filler's bits
        last = (8 * (offset + len(secret))) // 6  # characters before this one are whole
        core = encoded[first:last]
        forms |= {core, core.replace(b"+", b"-").replace(b"/", b"_")}
    return forms


def _decoded_base64(data: bytes) -> list[bytes]:
    """Every long enough run of base64 characters, decoded (both alphabets)."""
    found = []
    for match in _BASE64.finditer(data):
        bare = match.group(0).rstrip(b"=")
        padded = bare + b"=" * (-len(bare) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                found.append(decode(padded))
            except (binascii.Error, ValueError):
                continue
    return found


def _pdf_text(data: bytes) -> bytes:
    """A PDF's characters in the order drawn, without layout analysis: no line break is put
    inside a secret the page wrapped (and it is twice as quick)."""
    from pdfminer.converter import TextConverter
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage

    text, resources = io.StringIO(), PDFResourceManager()
    interpreter = PDFPageInterpreter(resources, TextConverter(resources, text, laparams=None))
    for page in PDFPage.get_pages(io.BytesIO(data)):
        interpreter.process_page(page)
    return text.getvalue().encode("utf-8")


def _pdf_readings(data: bytes) -> list[bytes]:
    """A PDF's text as a reader sees it, and its compressed streams inflated."""
    found = [_pdf_text(data)]
    for match in _PDF_STREAM.finditer(data):
        try:
            found.append(zlib.decompress(match.group(1)))
        except zlib.error:
            continue
    return found


def _text_forms(data: bytes) -> list[bytes]:
    """The text URL-decoded and with JSON's escapes undone (nothing for binary data)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return []
    forms = [urllib.parse.unquote(text), urllib.parse.unquote_plus(text), text.replace("\\/", "/")]
    with contextlib.suppress(ValueError):
        forms.append(json.dumps(json.loads(text), ensure_ascii=False))
    return [f.encode("utf-8") for f in forms]


def readings(data: bytes) -> list[bytes]:
    """Every way the bytes can be read: as they are, decoded, and what the decoded hold."""
    found = [data, *_text_forms(data)]
    if data.startswith(b"%PDF"):
        found += _pdf_readings(data)
    for blob in {b for text in found for b in _decoded_base64(text)}:
        found += [blob, *_text_forms(blob)]
    return found


def leaks(folder: Path, secrets: dict[str, str]) -> list[str]:
    """'file: name' for each secret (name -> value) found in some reading of some file."""
    short = {n: v for n, v in secrets.items() if len(v.encode("utf-8")) < SHORTEST}
    assert not short, f"secrets shorter than {SHORTEST} bytes cannot be looked for: {short}"
    names: dict[bytes, str] = {}
    for name, value in secrets.items():
        raw = value.encode("utf-8")
        quoted = urllib.parse.quote(value, safe="").encode("utf-8")
        once = base64_forms(raw) | base64_forms(quoted)
        twice = {f for form in once for f in base64_forms(form) if len(f) >= SHORTEST}
        for form in {raw, quoted, *once, *twice}:
            names[form] = name
    patterns = list(names)
    automaton = BytesAhoCorasick(patterns)
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        seen = set()
        for form in readings(path.read_bytes()):
            seen |= {names[patterns[i]] for i, _, _ in automaton.find_matches_as_indexes(form)}
        found += [f"{path.relative_to(folder)}: {name}" for name in sorted(seen)]
    return found
