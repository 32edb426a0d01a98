"""The evidence manifest: sha256 of every file a run produced, so a reader can show that nothing
was altered after the run. `manifest.json` lists every file; `manifest.sha256` holds the hash of
`manifest.json` itself, in the format `sha256sum -c` reads."""

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

MANIFEST = "manifest.json"
MANIFEST_HASH = "manifest.sha256"
SIGNATURE = "manifest.sig"  # livecert sign: beside the manifest, over it (report/signing.py)
_SKIP = {MANIFEST, MANIFEST_HASH, SIGNATURE}


@dataclass(frozen=True)
class Entry:
    """One file: its path under the report folder, its size and its sha256."""

    path: str
    size: int
    sha256: str


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def entries(folder: Path, exclude: set[str] = frozenset()) -> list[Entry]:
    """Every file under `folder` (not the manifest itself, nor `exclude`), sorted by path."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel in _SKIP or rel in exclude:
            continue
        found.append(Entry(rel, path.stat().st_size, sha256_of(path)))
    return found


def page_summary(found: list[Entry]) -> list[Entry]:
    """For a page: top-level files one by one, each folder as one row (its file count and the
    sha256 of its lines in the manifest), since a run's Allure results are thousands of files."""
    rows: list[Entry] = []
    folders: dict[str, list[Entry]] = {}
    for entry in found:
        head, _, rest = entry.path.partition("/")
        if rest:
            folders.setdefault(head, []).append(entry)
        else:
            rows.append(entry)
    for name, members in sorted(folders.items()):
        lines = "".join(f"{e.sha256}  {e.path}\n" for e in members).encode()
        rows.append(
            Entry(
                f"{name}/ ({len(members)} files)",
                sum(e.size for e in members),
                hashlib.sha256(lines).hexdigest(),
            )
        )
    return rows


def write_manifest(folder: Path) -> tuple[Path, str]:
    """Write manifest.json over every file in `folder` and manifest.sha256 over it; a signature
    of an earlier manifest no longer applies and is removed."""
    (folder / SIGNATURE).unlink(missing_ok=True)
    found = entries(folder)
    manifest = {
        "algorithm": "sha256",
        "files": [asdict(e) for e in found],
        "folders": {
            e.path: {"size": e.size, "sha256_of_lines": e.sha256}
            for e in page_summary(found)
            if "/" in e.path
        },
    }
    path = folder / MANIFEST
    path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    digest = sha256_of(path)
    (folder / MANIFEST_HASH).write_text(f"{digest}  {MANIFEST}\n", encoding="utf-8")
    return path, digest
