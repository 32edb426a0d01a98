"""`livecert sign` and `livecert verify`: a detached Ed25519 signature over a report's manifest,
checked with a key from outside the report; any byte changed, file added or removed fails it."""

import base64
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from cli_support import livecert
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key

from livecert.report.manifest import write_manifest
from livecert.report.signing import (
    PASSPHRASE_VARIABLE,
    SigningError,
    fingerprint,
    load_private_key,
    sign_report,
    verify_report,
)

SIGNER = "A. Reviewer, Example Labs"


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`livecert ARGS` in a subprocess, as a lab runs it; `env` added to this environment."""
    return livecert(*args, timeout=120, env={**os.environ, **(env or {})})


def _report(folder: Path) -> Path:
    """A finished report's shape: files, a folder of results, the manifest written last."""
    folder.mkdir()
    (folder / "certificate.json").write_text('{"verdict": "compliant"}\n', encoding="utf-8")
    (folder / "allure-results").mkdir()
    (folder / "allure-results" / "a-result.json").write_text('{"status": "passed"}\n')
    (folder / "certificate.pdf").write_bytes(bytes(range(256)))
    write_manifest(folder)
    return folder


def _pem_keys(where: Path, name: str = "lab") -> tuple[Path, Path, Ed25519PrivateKey]:
    key = Ed25519PrivateKey.generate()
    private = where / f"{name}.key"
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    public = where / f"{name}.pub.pem"
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, public, key


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path]:
    """A report signed through the command line, and the public key (outside the report)."""
    folder = _report(tmp_path / "report")
    private, public, _ = _pem_keys(tmp_path)
    result = run_cli("sign", str(folder), "--key", str(private), "--signer", SIGNER)
    assert result.returncode == 0, result.stderr
    return folder, public


def test_a_fresh_signed_report_verifies_and_names_who_signed_with_which_key(signed) -> None:
    folder, public = signed
    result = run_cli("verify", str(folder), "--public-key", str(public))
    assert result.returncode == 0, result.stdout + result.stderr
    statement = json.loads((folder / "manifest.sig").read_text())
    assert f"by {SIGNER}" in result.stdout
    assert statement["public_key_fingerprint"] in result.stdout
    assert statement["signed_at"].endswith("+00:00")  # UTC, its offset written


@pytest.mark.parametrize(
    "path", ["certificate.json", "certificate.pdf", "allure-results/a-result.json"]
)
def test_one_changed_byte_in_any_file_fails_and_names_the_file(signed, path: str) -> None:
    folder, public = signed
    target = folder / path
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    result = run_cli("verify", str(folder), "--public-key", str(public))
    assert result.returncode == 1
    assert f"changed since the run: {path}" in result.stdout


def test_a_file_added_or_removed_fails(signed) -> None:
    folder, public = signed
    (folder / "allure-results" / "a-result.json").unlink()
    (folder / "extra.html").write_text("<p>added after signing</p>")
    found = verify_report(folder, serialization.load_pem_public_key(public.read_bytes()))
    assert found.problems == [
        "missing: allure-results/a-result.json",
        "not in the manifest: extra.html",
    ]


def test_a_manifest_rewritten_over_changed_files_is_not_the_one_signed(signed) -> None:
    """Whoever changes a file and writes a new manifest over it cannot sign it for the lab."""
    folder, public = signed
    signature = (folder / "manifest.sig").read_bytes()
    (folder / "certificate.json").write_text('{"verdict": "non-compliant"}\n')
    write_manifest(folder)
    (folder / "manifest.sig").write_bytes(signature)
    found = verify_report(folder, serialization.load_pem_public_key(public.read_bytes()))
    assert found.problems == ["manifest.json is not the manifest that was signed"]


@pytest.mark.parametrize(
    "field, value", [("signed_by", "Someone Else"), ("signed_at", "2020-01-01T00:00:00+00:00")]
)
def test_the_signer_and_the_time_cannot_be_changed(signed, field: str, value: str) -> None:
    folder, public = signed
    statement = json.loads((folder / "manifest.sig").read_text())
    statement[field] = value
    (folder / "manifest.sig").write_text(json.dumps(statement))
    found = verify_report(folder, serialization.load_pem_public_key(public.read_bytes()))
    assert found.problems == ["the signature in manifest.sig does not match what it signs"]


def test_another_key_fails_with_both_fingerprints(signed, tmp_path: Path) -> None:
    folder, _ = signed
    _, other, other_key = _pem_keys(tmp_path, "other")
    result = run_cli("verify", str(folder), "--public-key", str(other))
    assert result.returncode == 1
    assert f"not with the key given ({fingerprint(other_key.public_key())})" in result.stdout


def test_a_key_inside_the_report_is_refused(signed) -> None:
    folder, public = signed
    inside = folder / "allure-results" / "lab.pub.pem"
    shutil.copy(public, inside)
    result = run_cli("verify", str(folder), "--public-key", str(inside))
    assert result.returncode == 3
    assert "inside the report" in result.stderr


def test_an_unsigned_report_is_not_verified(tmp_path: Path) -> None:
    folder = _report(tmp_path / "report")
    _, public, _ = _pem_keys(tmp_path)
    result = run_cli("verify", str(folder), "--public-key", str(public))
    assert result.returncode == 1
    assert "has no manifest.sig: the report is not signed" in result.stdout


def test_a_report_changed_after_its_run_is_not_signed(tmp_path: Path) -> None:
    folder = _report(tmp_path / "report")
    private, _, _ = _pem_keys(tmp_path)
    (folder / "certificate.json").write_text('{"verdict": "non-compliant"}\n')
    result = run_cli("sign", str(folder), "--key", str(private), "--signer", SIGNER)
    assert result.returncode == 1
    assert "changed since the run: certificate.json" in result.stderr
    assert not (folder / "manifest.sig").exists()


def test_rebuilding_the_manifest_removes_a_signature_it_no_longer_matches(signed) -> None:
    folder, _ = signed
    write_manifest(folder)
    assert not (folder / "manifest.sig").exists()


def _openssh_fingerprint(public_key_raw: bytes) -> str:
    """RFC 4253's wire form (string "ssh-ed25519", string key), hashed as OpenSSH shows it."""
    kind = b"ssh-ed25519"
    blob = struct.pack(">I", len(kind)) + kind + struct.pack(">I", len(public_key_raw))
    blob += public_key_raw
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def test_ssh_keygen_keys_sign_and_verify_with_ssh_keygens_fingerprint(tmp_path: Path) -> None:
    """A key made by `ssh-keygen -t ed25519`, encrypted: opened with the passphrase from the
    environment; the fingerprint shown is the one `ssh-keygen -l` prints."""
    folder = _report(tmp_path / "report")
    key = tmp_path / "id_ed25519"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "a passphrase", "-C", "lab", "-f", str(key)],
        check=True,
    )
    shown = subprocess.run(
        ["ssh-keygen", "-l", "-f", f"{key}.pub"], check=True, capture_output=True, text=True
    ).stdout.split()[1]
    without = run_cli("sign", str(folder), "--key", str(key), "--signer", SIGNER)
    assert without.returncode == 3 and PASSPHRASE_VARIABLE in without.stderr
    result = run_cli(
        "sign", str(folder), "--key", str(key), "--signer", SIGNER,
        env={PASSPHRASE_VARIABLE: "a passphrase"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads((folder / "manifest.sig").read_text())["public_key_fingerprint"] == shown
    verified = run_cli("verify", str(folder), "--public-key", f"{key}.pub")
    assert verified.returncode == 0, verified.stdout
    raw = serialization.load_ssh_public_key(Path(f"{key}.pub").read_bytes()).public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    assert _openssh_fingerprint(raw) == shown


def test_a_key_of_another_kind_is_refused_by_name(tmp_path: Path) -> None:
    rsa = tmp_path / "rsa.key"
    rsa.write_bytes(
        generate_private_key(65537, 2048).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(SigningError, match="RSAPrivateKey; the report is signed with Ed25519"):
        load_private_key(rsa)


def test_a_signer_must_be_named(tmp_path: Path) -> None:
    folder = _report(tmp_path / "report")
    with pytest.raises(SigningError, match="say who signs"):
        sign_report(folder, Ed25519PrivateKey.generate(), "  ")


def test_a_key_or_signer_other_than_the_certificate_names_is_refused(tmp_path: Path) -> None:
    """The page says who will sign and with which key ([lab] signer, signing_key)."""
    folder = tmp_path / "report"
    folder.mkdir()
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    lab = {"signer": SIGNER, "signing_key": fingerprint(key.public_key())}
    (folder / "certificate.json").write_text(json.dumps({"lab": lab}), encoding="utf-8")
    write_manifest(folder)
    with pytest.raises(SigningError, match=r"names the key SHA256:.*; this key is SHA256:"):
        sign_report(folder, other, SIGNER)
    named = re.escape(f"names {SIGNER!r} to sign it")
    with pytest.raises(SigningError, match=named):
        sign_report(folder, key, "Someone Else")
    assert sign_report(folder, key, SIGNER)["signed_by"] == SIGNER


def test_a_link_added_to_a_signed_report_fails_it(signed, tmp_path: Path) -> None:
    """A folder linked in from elsewhere holds files no hash covers: not the report signed."""
    folder, public = signed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "certificate-corrected.html").write_text("<p>compliant</p>")
    (folder / "addendum").symlink_to(elsewhere, target_is_directory=True)
    found = verify_report(folder, serialization.load_pem_public_key(public.read_bytes()))
    assert found.problems == ["a link, not a file of the report: addendum"]


def test_without_a_key_the_files_are_checked_against_the_manifest_and_it_says_so(
    signed, tmp_path: Path
) -> None:
    """Integrity needs no key: a signed report is intact, and the signature is said not
    checked; an unsigned one is intact and said unsigned; one changed byte fails, naming the
    file."""
    folder, _ = signed
    result = run_cli("verify", str(folder))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"intact: every file of {folder} matches the report's manifest" in result.stdout
    assert "who signed is not checked without a key" in result.stdout
    unsigned = _report(tmp_path / "unsigned")
    result = run_cli("verify", str(unsigned))
    assert result.returncode == 0 and "it is not signed: anyone can rewrite" in result.stdout
    (unsigned / "certificate.pdf").write_bytes(bytes(range(255)))
    result = run_cli("verify", str(unsigned))
    assert result.returncode == 1
    assert "changed since the run: certificate.pdf" in result.stdout
    assert "NOT intact" in result.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("verify", str(empty))
    assert result.returncode == 1 and "not a livecert report" in result.stdout


def test_without_a_key_a_manifest_rewritten_under_an_old_signature_fails(signed) -> None:
    """The verdict changed, the manifest rebuilt over it, the old signature put back: the
    files match the new manifest, but the signature names another manifest's sha256."""
    folder, _ = signed
    signature = (folder / "manifest.sig").read_bytes()
    (folder / "certificate.json").write_text('{"verdict": "compliant!"}\n')
    write_manifest(folder)
    (folder / "manifest.sig").write_bytes(signature)
    result = run_cli("verify", str(folder))
    assert result.returncode == 1, result.stdout
    assert "manifest.json is not the manifest that was signed" in result.stdout
