"""A detached signature over a report's manifest, and its check against a key the reader trusts.

`manifest.json` lists the sha256 of every file of a report, so a signature over it covers the
whole report. `manifest.sig` is a small JSON document: who signed, when (UTC, the offset
written), the fingerprint of the signing key as `ssh-keygen -l` shows it, the sha256 of the
manifest, and an Ed25519 signature (`cryptography`) over all of these at once, so that neither
the signer's name nor the time can be changed without breaking it.

Keys are the ones labs already make: `openssl genpkey -algorithm ed25519` (PEM) or
`ssh-keygen -t ed25519` (OpenSSH); an encrypted private key is opened with the passphrase in
LIVECERT_SIGNING_PASSPHRASE, never a flag. The public key a reader checks with must come from
outside the report: a key inside the folder would prove only that the folder agrees with itself.
"""

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from livecert.report.manifest import MANIFEST, MANIFEST_HASH, SIGNATURE, entries, sha256_of

FORMAT = "livecert-signature-1"
PASSPHRASE_VARIABLE = "LIVECERT_SIGNING_PASSPHRASE"


class SigningError(ValueError):
    """A key or a report folder that cannot be used as given: one message naming what to fix."""


@dataclass(frozen=True)
class Verification:
    """What `verify_report` found: the problems (none: verified) and who signed with which key."""

    problems: list[str]
    signed_by: str = ""
    signed_at: str = ""
    fingerprint: str = ""

    @property
    def verified(self) -> bool:
        return not self.problems


def fingerprint(key: Ed25519PublicKey) -> str:
    """The key's fingerprint as OpenSSH writes it (`SHA256:` and the unpadded base64 of the
    sha256 of its wire form), so a lab can compare it with `ssh-keygen -lf key.pub`."""
    line = key.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    blob = base64.b64decode(line.split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PEM or OpenSSH file."""
    data = _read_key_file(path, "private")
    passphrase = os.environ.get(PASSPHRASE_VARIABLE)
    password = passphrase.encode("utf-8") if passphrase else None
    loaders = (serialization.load_ssh_private_key, serialization.load_pem_private_key)
    loader = loaders[0] if b"OPENSSH PRIVATE KEY" in data else loaders[1]
    try:
        key = loader(data, password=password)
    except TypeError as error:  # encrypted without a passphrase, or a passphrase not needed
        raise SigningError(
            f"{path}: {error}; an encrypted key is opened with the passphrase in "
            f"{PASSPHRASE_VARIABLE}"
        ) from None
    except (ValueError, UnsupportedAlgorithm) as error:
        raise SigningError(f"{path} is not a private key this can read ({error})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{path} is a {type(key).__name__}; the report is signed with Ed25519")
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """An Ed25519 public key from a PEM file or an OpenSSH `.pub` line."""
    data = _read_key_file(path, "public")
    try:
        if data.lstrip().startswith(b"ssh-"):
            key = serialization.load_ssh_public_key(data.strip())
        else:
            key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm) as error:
        raise SigningError(f"{path} is not a public key this can read ({error})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError(f"{path} is a {type(key).__name__}; the report is signed with Ed25519")
    return key


def _read_key_file(path: Path, kind: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise SigningError(f"cannot read the {kind} key {path}: {error.strerror}") from None


def _payload(statement: dict) -> bytes:
    """The bytes signed: every field but the signature, in one canonical JSON spelling."""
    fields = {k: v for k, v in statement.items() if k != "signature"}
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def manifest_problems(folder: Path) -> list[str]:
    """How the files of `folder` differ from its manifest (none: they agree): a file changed,
    missing or added, or a manifest.sha256 that is not the manifest's."""
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        listed = {f["path"]: f["sha256"] for f in manifest["files"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [f"{MANIFEST} cannot be read as a manifest: {error}"]
    problems = []
    hash_line = (
        (folder / MANIFEST_HASH).read_text(encoding="utf-8").split()
        if (folder / MANIFEST_HASH).is_file()
        else []
    )
    if hash_line[:1] != [sha256_of(manifest_path)]:
        problems.append(f"{MANIFEST_HASH} does not hold the sha256 of {MANIFEST}")
    found = {e.path: e.sha256 for e in entries(folder)}
    for path, digest in sorted(listed.items()):
        if path not in found:
            problems.append(f"missing: {path}")
        elif found[path] != digest:
            problems.append(f"changed since the run: {path}")
    problems += [f"not in the manifest: {path}" for path in sorted(set(found) - set(listed))]
    problems += [f"a link, not a file of the report: {path}" for path in _links(folder)]
    return problems


def _links(folder: Path) -> list[str]:
    """Every symbolic link under `folder`, to a file or a folder: the manifest lists files, and
    a link brings in what it points at, which no hash covers."""
    found = []
    for root, folders, files in os.walk(folder, followlinks=False):
        for name in [*folders, *files]:
            path = Path(root) / name
            if path.is_symlink():
                found.append(path.relative_to(folder).as_posix())
    return sorted(found)


def sign_report(folder: Path, key: Ed25519PrivateKey, signed_by: str) -> dict:
    """Write `manifest.sig` beside the manifest of `folder`, after checking that the files are
    still those the manifest lists (a report changed after its run is not signed)."""
    if not (folder / MANIFEST).is_file():
        raise SigningError(f"{folder} has no {MANIFEST}: not a finished livecert report")
    if not signed_by.strip():
        raise SigningError("say who signs (--signer): the signature names them")
    declared_problem = _declared_signer_problem(folder, key, signed_by)
    if declared_problem:
        raise SigningError(declared_problem)
    problems = manifest_problems(folder)
    if problems:
        raise SigningError(
            f"{folder} no longer agrees with its manifest, so it is not signed: "
            + "; ".join(problems[:5])
            + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
        )
    statement = {
        "format": FORMAT,
        "algorithm": "ed25519",
        "signed_file": MANIFEST,
        "signed_file_sha256": sha256_of(folder / MANIFEST),
        "signed_by": signed_by.strip(),
        "signed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "public_key_fingerprint": fingerprint(key.public_key()),
    }
    statement["signature"] = base64.b64encode(key.sign(_payload(statement))).decode()
    (folder / SIGNATURE).write_text(json.dumps(statement, indent=1) + "\n", encoding="utf-8")
    return statement


def _declared_signer_problem(folder: Path, key: Ed25519PrivateKey, signed_by: str) -> str | None:
    """The certificate's page names who will sign and with which key (the lab's `signer` and
    `signing_key`): another key, or another signer, would sign a page that says otherwise. A
    validation run's report (its answers altered by a mutant) is never signed."""
    try:
        certificate = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
        lab = certificate.get("lab") if isinstance(certificate, dict) else None
    except (OSError, ValueError):
        return None  # not a certificate this can read: the manifest check says what is wrong
    lab = lab if isinstance(lab, dict) else {}
    if isinstance(certificate, dict) and certificate.get("validation_run"):  # answers altered
        return (
            f"{folder} is a validation run's report (answer mutant "
            f"{certificate['validation_run'].get('name')}): the harness altered what it read, "
            "so it is never signed as a certification"
        )
    declared, used = lab.get("signing_key"), fingerprint(key.public_key())
    if declared and declared != used:
        return f"the certificate names the key {declared} to sign it; this key is {used}"
    if lab.get("signer") and lab["signer"].strip() != signed_by.strip():
        return f"the certificate names {lab['signer']!r} to sign it, not {signed_by.strip()!r}"
    return None


def verify_integrity(folder: Path) -> tuple[list[str], bool]:
    """The files of `folder` against its manifest, without a key: the problems (none: they
    match) and whether the report carries a signature. Who signed needs the key; but a
    signature names the sha256 of the manifest it signed, so a manifest rewritten over changed
    files under an old signature is caught here too."""
    if not (folder / MANIFEST).is_file():
        return [f"missing: {MANIFEST}: the folder is not a livecert report"], False
    problems = manifest_problems(folder)
    if not (folder / SIGNATURE).is_file():
        return problems, False
    try:
        statement = json.loads((folder / SIGNATURE).read_text(encoding="utf-8"))
        signed_sha = statement["signed_file_sha256"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [*problems, f"{SIGNATURE} cannot be read as a signature: {error}"], True
    return [*_not_the_signed_manifest(folder, signed_sha), *problems], True


def _not_the_signed_manifest(folder: Path, signed_sha: object) -> list[str]:
    """The manifest against the sha256 the signature names (the rewritten manifest of a report
    changed after signing), with or without the key."""
    if sha256_of(folder / MANIFEST) != signed_sha:
        return [f"{MANIFEST} is not the manifest that was signed"]
    return []


def verify_report(folder: Path, key: Ed25519PublicKey) -> Verification:
    """Check `manifest.sig` with `key`, then the manifest against every file of `folder`."""
    trusted = fingerprint(key)
    try:
        statement = json.loads((folder / SIGNATURE).read_text(encoding="utf-8"))
        signature = base64.b64decode(statement["signature"], validate=True)
        signed = (statement["signed_by"], statement["signed_at"])
        claimed = statement["public_key_fingerprint"]
    except FileNotFoundError:
        return Verification([f"{folder} has no {SIGNATURE}: the report is not signed"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        return Verification([f"{SIGNATURE} cannot be read as a signature: {error}"])
    if statement.get("format") != FORMAT or statement.get("algorithm") != "ed25519":
        return Verification([f"{SIGNATURE} is not a {FORMAT} Ed25519 signature"], *signed)
    if claimed != trusted:
        return Verification(
            [f"signed with the key {claimed}, not with the key given ({trusted})"], *signed
        )
    try:
        key.verify(signature, _payload(statement))
    except InvalidSignature:
        return Verification([f"the signature in {SIGNATURE} does not match what it signs"])
    problems = []
    if not (folder / MANIFEST).is_file():
        problems.append(f"missing: {MANIFEST}")
    else:
        signed_sha = statement.get("signed_file_sha256")
        problems += _not_the_signed_manifest(folder, signed_sha) or manifest_problems(folder)
    return Verification(problems, *signed, claimed)


def outside(folder: Path, key_path: Path) -> bool:
    """True when `key_path` is not inside the report `folder` (a key shipped with the report
    cannot vouch for it)."""
    return not key_path.resolve().is_relative_to(folder.resolve())
