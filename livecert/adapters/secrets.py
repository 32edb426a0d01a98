"""The run's secrets, and the one place that masks them in everything written for a lab.

Every credential is registered here as soon as it is known: the operator's and dealer's tokens,
the environment variables a mapping reads its passwords from, each new player's token, each
captured session or secret. Whatever goes into a report (exchanges, run record lines, Allure
attachments and results, JUnit, the command line in the certificate) passes through `mask`,
which shows a secret as the variable it comes from (`$LIVECERT_OPERATOR_TOKEN`) or, where
several need telling apart (each player's token), as `$PLAYER_TOKEN[hmac:1a2b3c4d]`: an
HMAC-SHA256 keyed with a random key made for this process and never stored, so the report
cannot be used to guess a token back (a plain hash of a short token could be).

A secret shorter than MIN_LENGTH characters cannot be masked without garbling every word that
holds it (a one-letter password would mask every "a"); it is not registered, and `register`
says so (the caller warns the lab). Each secret is masked as written, URL-encoded (a form's
password, a cookie in a query string) and as a JSON string writes it.

A certify run has two processes: the pytest run learns the players' tokens, the parent knows
the flags and builds the pages. The pytest run tells the parent each secret it learns over a
pipe the parent opened (`LIVECERT_SECRETS_FD`), never through a file, so the parent's last
check (`leaks`) looks for every secret of the run in every file before the manifest.
"""

import base64
import contextlib
import gzip
import hashlib
import hmac
import io
import json
import os
import re
import secrets as _random
import stat
import threading
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, quote_plus, unquote, urlsplit

from ahocorasick_rs import AhoCorasick, BytesAhoCorasick, Implementation, MatchKind

from livecert.target_text import has_lone_surrogate, visible

MIN_LENGTH = 4  # characters: a shorter secret would mask ordinary words; it is refused
CHECKED_LENGTH = 8  # characters: the last check looks for secrets this long or longer (`leaks`)
PIPE_VARIABLE = "LIVECERT_SECRETS_FD"  # the pytest run writes the secrets it learns there
# an automaton of up to 64 spellings scans with a SIMD prefilter, about as fast as one of a
# single spelling (20 us for a 28 kB answer here) and three to four times faster than one of a
# few hundred; so the newest are kept in automata of BATCH, merged into one large past four
BATCH = 64
SMALL_BATCHES = 4
MASK_PASSES = 4  # passes over a text whose secrets overlap (see SecretRegistry._mask_once)
GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"


_JSON_ESCAPE = re.compile(r"\\u([0-9a-f]{4})")


def spellings(value: str) -> set[str]:
    """How a secret can be written in a report's text: as is, URL-encoded, JSON-escaped
    (some servers, PHP's among them, escape "/" as "\\/"; some write an escape's hex digits in
    upper case, .NET's among them), and as `visible` shows it in a message."""
    escaped = {json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    escaped |= {_JSON_ESCAPE.sub(lambda found: "\\u" + found.group(1).upper(), e) for e in escaped}
    escaped |= {e.replace("/", "\\/") for e in escaped}
    # a lone surrogate (a target's JSON "\\ud800") URL-encoded as surrogatepass writes it
    encoded = {quote(value, safe="", errors="surrogatepass")}
    encoded.add(quote_plus(value, safe="", errors="surrogatepass"))
    return {value, visible(value), *encoded, *escaped}


class SecretRegistry:
    """The secrets known so far in this process, each with how it is shown."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._shown: dict[str, str] = {}  # spelling -> what is shown instead
        self._values: dict[str, str] = {}  # value -> shown
        self._large: _Batch | None = None  # most spellings, in one automaton
        self._small: list[_Batch] = []  # the newest, in automata of at most BATCH each
        self._key = _random.token_bytes(32)  # for the players' HMACs; never written anywhere
        self._pipe = _parents_pipe()

    def register(self, value: object, shown: str) -> bool:
        """Mask `value` as `shown` from now on; False (and nothing masked) when it is too
        short to mask (the caller warns)."""
        text = "" if value is None else str(value)
        if not text:
            return True
        if len(text) < MIN_LENGTH:
            return False
        with self._lock:
            if text in self._values:
                return True
            self._values[text] = shown
            new = [s for s in spellings(text) if s not in self._shown]
            for spelling in new:
                self._shown[spelling] = shown
            # a spelling holding a lone surrogate is kept out of the automata, which would find
            # nothing at all with it: only a text holding one can hold it (`_mask_slowly`)
            self._add_batch([s for s in new if not has_lone_surrogate(s)])
            self._tell_parent(text, shown)
        return True

    def register_player_token(self, token: object) -> str:
        """A player's token, shown as `$PLAYER_TOKEN[hmac:...]` (players told apart, the token
        not recoverable from it); answers how it is shown."""
        text = str(token)
        raw = text.encode("utf-8", "surrogatepass")  # a target's token may hold a lone surrogate
        digest = hmac.new(self._key, raw, hashlib.sha256).hexdigest()[:8]
        shown = f"$PLAYER_TOKEN[hmac:{digest}]"
        self.register(text, shown)
        return shown

    def _add_batch(self, patterns: list[str]) -> None:
        """Keep the newest spellings in automata of at most BATCH (each scans a text about as
        fast as one of a single spelling), and merge them into the large automaton once there
        are more than SMALL_BATCHES: a run registers a token per player and masks between, and
        one automaton rebuilt on each would cost the square of the players, where automata of
        halving sizes each scanned every text at a large one's pace."""
        if self._small and len(self._small[-1].patterns) < BATCH:  # the last one has room
            patterns = self._small.pop().patterns + patterns
        for start in range(0, len(patterns), BATCH):
            self._small.append(_Batch(patterns[start : start + BATCH], small=True))
        if len(self._small) > SMALL_BATCHES:
            merged = [p for b in self._small for p in b.patterns]
            self._large = _Batch((self._large.patterns if self._large else []) + merged)
            self._small = []

    def mask(self, text: str | None) -> str | None:
        """`text` with every known secret replaced by how it is shown (the longest match where
        secrets overlap, so a secret holding another is replaced whole). Aho-Corasick passes
        (ahocorasick-rs), a few at most: a run masks every exchange against a token per
        player."""
        if text and has_lone_surrogate(text):
            return self._mask_slowly(text)
        for _ in range(MASK_PASSES):
            if not text:
                return text
            text, overlapped = self._mask_once(text)
            if not overlapped:
                break
        return text

    def _mask_once(self, text: str) -> tuple[str, bool]:
        """One pass, and whether a match was set aside for an overlapping one. Each automaton
        reports its own leftmost-longest matches, so a secret hidden behind a match that
        another automaton's overlapping one then displaced is found only by a second pass
        over what the first left (three secrets overlapping in a chain: rare, never skipped)."""
        with self._lock:
            batches = self._small if self._large is None else [self._large, *self._small]
            found = [
                (start, -end, batch.patterns[index])
                for batch in batches
                for index, start, end in batch.automaton.find_matches_as_indexes(text)
            ]
            if not found:
                return text, False
            parts, at, overlapped = [], 0, False
            for start, minus_end, spelling in sorted(found):  # leftmost, then longest
                if start >= at:
                    parts += [text[at:start], self._shown[spelling]]
                    at = -minus_end
                else:
                    overlapped = True
        return "".join([*parts, text[at:]]), overlapped

    def _mask_slowly(self, text: str) -> str:
        """`text` holding a lone surrogate (a target's JSON "\\ud800", read as it is), which the
        automata cannot take: masked by a regex alternation of every spelling, the longest
        first (leftmost, then longest, as the automata match). Rare, so compiled each time."""
        with self._lock:
            known = sorted(self._shown, key=len, reverse=True)
            shown = dict(self._shown)
        if not known:
            return text
        pattern = re.compile("|".join(re.escape(spelling) for spelling in known))
        return pattern.sub(lambda found: shown[found.group(0)], text)

    def mask_data(self, data: object) -> object:
        """A JSON-like value with every string in it masked (keys too)."""
        if isinstance(data, str):
            return self.mask(data)
        if isinstance(data, dict):
            return {self.mask(str(k)): self.mask_data(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.mask_data(v) for v in data]
        return data

    def values(self) -> dict[str, str]:
        """Every secret registered (value -> how it is shown), for the last check."""
        with self._lock:
            return dict(self._values)

    def _tell_parent(self, value: str, shown: str) -> None:
        if self._pipe is None:
            return
        line = (json.dumps({"value": value, "shown": shown}) + "\n").encode("utf-8")
        try:
            os.write(self._pipe, line)
        except OSError:
            self._pipe = None  # the parent stopped listening: it checks what it has

    def listen(self, fd: int) -> threading.Thread:
        """Register every secret the pytest run writes to the pipe `fd` (read until it ends)."""

        def read() -> None:
            with os.fdopen(fd, "r", encoding="utf-8") as stream:
                for line in stream:
                    try:
                        told = json.loads(line)
                        self.register(told["value"], told["shown"])
                    except (ValueError, KeyError, TypeError):
                        continue

        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        return thread


def _parents_pipe() -> int | None:
    """The pipe certify opened for this pytest run, if any: taken out of the environment, so
    that no process this one starts (a server, a lab's command) writes to a number that is
    not its pipe; checked to be a pipe."""
    fd = os.environ.pop(PIPE_VARIABLE, "")
    if not fd.isdigit():
        return None
    try:
        return int(fd) if stat.S_ISFIFO(os.fstat(int(fd)).st_mode) else None
    except OSError:
        return None


class _Batch:
    """Some spellings and their automaton (leftmost-longest matches, none overlapping); a
    small one built as a contiguous NFA, about three times faster to build than the default
    and as fast to scan at that size."""

    def __init__(self, patterns: list[str], small: bool = False) -> None:
        self.patterns = patterns
        how = {"implementation": Implementation.ContiguousNFA} if small else {}
        self.automaton = AhoCorasick(patterns, matchkind=MatchKind.LeftmostLongest, **how)


SECRETS = SecretRegistry()  # this process's secrets


def register_url_password(url: str | None) -> None:
    """A password written into the target's URL (`http://user:password@host`, which requests
    sends as basic authentication) is a secret too: the URL is in every exchange and page."""
    written = urlsplit(url).password if url else None  # as the URL writes it (%-encoded)
    for password in {written, unquote(written)} if written else ():
        SECRETS.register(password, "$TARGET_URL_PASSWORD")


def _base64_forms(secret: bytes) -> set[bytes]:
    """The base64 characters made of the secret's bits alone, wherever it starts in a longer
    text (offset 0, 1 or 2 in its group of three), in both alphabets."""
    forms = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + secret).rstrip(b"=")
        core = encoded[-(-8 * offset // 6) : (8 * (offset + len(secret))) // 6]
        if len(core) >= CHECKED_LENGTH:
            forms |= {core, core.replace(b"+", b"-").replace(b"/", b"_")}
    return forms


def leaks(folder: Path, known: dict[str, str]) -> list[str]:
    """The files of `folder` holding a secret of `known` (value -> shown), written as is,
    URL- or JSON-escaped or base64-encoded (the single-file Allure HTML embeds its files so):
    'file: $SHOWN' for every secret whose text a file holds, inside another's or not. One
    Aho-Corasick pass per file (ahocorasick-rs): a run has a token
    per player, hundreds of patterns, and its report tens of megabytes. Secrets shorter than
    CHECKED_LENGTH are masked but not looked for: a short one (a 5-letter password) cannot be
    told from the same letters in the report's own text or in the JavaScript the Allure HTML
    embeds, and the check would stop every run."""
    names: dict[bytes, str] = {}
    for value, shown in known.items():
        if len(value) < CHECKED_LENGTH:
            continue
        for spelling in spellings(value):
            raw = spelling.encode("utf-8", "surrogatepass")
            names[raw] = shown
            for form in _base64_forms(raw):
                names.setdefault(form, shown)
    if not names:
        return []
    patterns = list(names)
    automaton = BytesAhoCorasick(patterns)
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        data = _readable(path.read_bytes())
        # overlapping: a secret that begins another (a password that is a token's first
        # characters) would otherwise hide the longer one, named as the shorter
        matches = automaton.find_matches_as_indexes(data, overlapping=True)
        seen = {names[patterns[i]] for i, _, _ in matches}
        found += [f"{path.relative_to(folder)}: {shown}" for shown in sorted(seen)]
    return found


def _gunzipped(data: bytes) -> bytes:
    """What can be read of a gzip file, member by member (the exchanges' archive is a member a
    scenario): a file cut short by a process that died still gives every whole member."""
    found, rest = [], data
    while rest[:2] == GZIP_MAGIC:
        reader = zlib.decompressobj(wbits=31)
        try:
            found.append(reader.decompress(rest))
        except zlib.error:
            break
        if not reader.eof:
            break  # cut short: what came before is kept
        rest = reader.unused_data
    return b"".join(found)


def _readable(data: bytes) -> bytes:
    """A file's bytes as its readers will see them: as they are, and a gzip file (the
    exchanges' archive) uncompressed, a zip (the packed Allure results) as its members' names
    and contents, so that a secret cannot pass the check by being compressed."""
    if data[:2] == GZIP_MAGIC:
        return data + b"\n" + _gunzipped(data)
    if data[:4] == ZIP_MAGIC:
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as packed:
                inside = [name.encode() + b"\n" + packed.read(name) for name in packed.namelist()]
        except (OSError, EOFError, zlib.error, zipfile.BadZipFile):
            return data  # not whole: checked as it is
        return b"\n".join([data, *inside])
    return data


def _masked_zip(raw: bytes) -> bytes:
    """A zip with every member masked, as a zip again (a member that is not text kept)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(raw)) as packed,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as masked,
    ):
        for info in packed.infolist():
            content = packed.read(info)
            with contextlib.suppress(UnicodeDecodeError):  # not text: kept as it is
                content = (SECRETS.mask(content.decode("utf-8")) or "").encode("utf-8")
            masked.writestr(SECRETS.mask(info.filename) or info.filename, content)
    return out.getvalue()


def mask_files(folder: Path, names: Iterable[str]) -> None:
    """Mask the secrets in the named files of `folder` where they are (the last check found
    some); a file that is not text cannot be rewritten and is removed (a gzip file is masked
    inside and compressed again)."""
    for name in names:
        path = folder / name
        try:
            raw = path.read_bytes()
            if raw[:4] == ZIP_MAGIC:
                path.write_bytes(_masked_zip(raw))
                continue
            text = (_gunzipped(raw) if raw[:2] == GZIP_MAGIC else raw).decode("utf-8")
        except (UnicodeDecodeError, OSError, zipfile.BadZipFile):
            path.unlink(missing_ok=True)
            continue
        masked = (SECRETS.mask(text) or "").encode("utf-8")
        path.write_bytes(gzip.compress(masked) if raw[:2] == GZIP_MAGIC else masked)
