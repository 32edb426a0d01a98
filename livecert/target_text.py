"""Text that came from a target is data: shown, never obeyed.

A target's name, error messages and answers reach the lab's terminal and its report files. A
control character there is an instruction to whatever displays it: ESC sequences clear a
terminal or set its title, a carriage return or a newline forges a line, a bidi override (U+202E)
shows text in another order than it is, a NUL or a lone surrogate breaks a file. Every place
that prints or writes such text passes it through `visible` (or one of its forms below), which
replaces each such character with its escape as Python writes it (`\\x1b`, `\\u202e`): readable,
and inert everywhere. The evidence (run record, exchanges) keeps the text as it came; JSON
escapes it there itself.

It imports nothing of the project, so every layer may use it (ARCHITECTURE.md).
"""

import codecs
import re
import unicodedata
from collections.abc import Iterator
from typing import BinaryIO, TextIO

# control characters (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width
# characters, the BOM), lone surrogates, and the line and paragraph separators
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
LINES = "\n\t"  # what a multi-line text (pytest's output, a <pre>) keeps as it is


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def first_lone_surrogate(text: str) -> str | None:
    """The first lone surrogate `text` holds (JSON's "\\ud800", which Python's reader keeps),
    or None: no UTF-8 can write one, and ahocorasick-rs refuses a text holding one and, built
    with a pattern holding one, silently finds nothing, the other patterns' matches included."""
    found = None if text.isascii() else _LONE_SURROGATE.search(text)
    return None if found is None else found.group(0)


def has_lone_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate (`first_lone_surrogate`)."""
    return first_lone_surrogate(text) is not None


def not_utf8(setting: str) -> str | None:
    """What is wrong with a lab's setting (an environment variable, an argument) holding a lone
    surrogate, or None: Python reads a byte that is not UTF-8 there as one (U+DC80 to U+DCFF),
    which no request can carry; said once, where it is read, rather than as the target's."""
    bad = first_lone_surrogate(setting)
    if bad is None:
        return None
    code = ord(bad)
    what = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else visible(bad)
    return f"holds {what}, which is not UTF-8: no request can carry it"


def escaped_surrogates(text: str) -> str:
    """`text` with each lone surrogate written as its escape (`\\ud800`), so that UTF-8 can
    write it. In a JSON text (made with `ensure_ascii=False`) a lone surrogate stands only inside
    a string, where the escape is JSON's own and reads back as the same character; in any other
    text it is the escape `visible` writes."""
    if not has_lone_surrogate(text):
        return text
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group(0)):04x}", text)


def _shown(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object, keep: str = "") -> str:
    """`text` (as str) with every control, format or separator character not in `keep` written
    as its escape: `visible("a\\x1b[2J")` is the nine characters `a\\x1b[2J`."""
    text = str(text)
    if text.isprintable():  # the usual case, at C speed: nothing hidden in it
        return text
    return "".join(
        _shown(c) if unicodedata.category(c) in _HIDDEN and c not in keep else c for c in text
    )


def json_escaped(text: str, keep: str = LINES) -> str:
    """`text` with every hidden character not in `keep` written as JSON's escape (`\\u001b`; a
    character beyond the BMP as its pair): inert where it is shown, and read back as the same
    character wherever it stands in a JSON string (a reproduction's request body)."""
    if text.isprintable():
        return text
    return "".join(
        c
        if unicodedata.category(c) not in _HIDDEN or c in keep
        else "".join(f"\\u{unit:04x}" for unit in _utf16_units(c))
        for c in text
    )


def _utf16_units(char: str) -> list[int]:
    code = ord(char)
    if code < 0x10000:
        return [code]
    code -= 0x10000
    return [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]


def terminal_lines(lines: list[str]) -> str:
    """Lines for the terminal, each shown as one line whatever it holds, joined by newlines."""
    return "\n".join(visible(line) for line in lines)


def html_value(value: object) -> object:
    """Jinja's `finalize` for the report pages: every string shown visibly, its newlines and tabs
    kept (autoescaping then escapes the HTML)."""
    if isinstance(value, str) and not hasattr(value, "__html__"):  # Markup is already HTML
        return visible(value, LINES)
    return value


def visible_data(data: object) -> object:
    """`data` (parsed JSON) with every string in it shown visibly, newlines and tabs kept."""
    if isinstance(data, str):
        return visible(data, LINES)
    if isinstance(data, list):
        return [visible_data(item) for item in data]
    if isinstance(data, dict):
        return {key: visible_data(value) for key, value in data.items()}
    return data


def properties_value(text: object) -> str:
    """A value for a Java .properties file (Allure's environment.properties): shown visibly, a
    backslash doubled (the format's escape character), and anything beyond ASCII as \\uXXXX,
    which both of Java's readers (ISO-8859-1 and UTF-8) read back the same."""
    out = []
    for char in visible(text):
        if char == "\\":
            out.append("\\\\")
        elif ord(char) < 0x80:
            out.append(char)
        else:
            encoded = char.encode("utf-16-be")
            out += [
                f"\\u{int.from_bytes(encoded[i : i + 2]):04x}" for i in (0, 2)[: len(encoded) // 2]
            ]
    return "".join(out)


def visible_chunks(source: BinaryIO, size: int = 65536) -> Iterator[str]:
    """A byte stream (a subprocess's output) decoded as UTF-8 (a byte that is not shown as
    `\\xNN`) and shown visibly, keeping its lines; a character split between two reads is
    decoded whole."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="backslashreplace")
    while chunk := source.read1(size) if hasattr(source, "read1") else source.read(size):
        yield visible(decoder.decode(chunk), LINES)
    if tail := decoder.decode(b"", final=True):
        yield visible(tail, LINES)


def copy_visible(source: BinaryIO, sink: TextIO | None) -> bool:
    """Copy `source` to `sink` shown visibly, to its end; answer False when the sink's reader
    went away (a closed pipe), after which the rest is read and dropped, so the writer is never
    left blocked on a full pipe."""
    open_ = sink is not None
    for text in visible_chunks(source):
        if not open_:
            continue
        try:
            sink.write(text)  # type: ignore[union-attr]
            sink.flush()  # type: ignore[union-attr]
        except BrokenPipeError:
            open_ = False
    return open_
