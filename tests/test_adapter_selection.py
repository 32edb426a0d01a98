"""`--adapter NAME|PATH`: the canonical adapter, a mapping file, or a plugin from the
`livecert.adapters` entry point group; and what a lab sees when the choice cannot work: one
message, verdict `incomplete`, exit 2, nothing passed, no stack trace.
"""

import hashlib
import importlib
import os
import signal
import textwrap
import threading
from pathlib import Path

import pytest
from cli_support import certify
from vendor_support import MAPPING, vendor_server

from livecert.adapters.registry import code_sha256
from livecert.certify.doctor import diagnose
from livecert.certify.selftest import livecert_command
from livecert.harness.embedded import EmbeddedServer

PLUGIN = '''
"""A third party's adapter: the canonical one, registered under its own name."""

from livecert.adapters.http import HttpAdapter


def create(options):
    return HttpAdapter(
        options.target_url, options.operator_token, options.dealer_token, timeout=options.timeout
    )
'''


def install_plugin(folder: Path) -> dict[str, str]:
    """A plugin distribution on PYTHONPATH: its module and its entry point metadata."""
    (folder / "acme_livecert.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    info = folder / "acme_livecert-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-livecert\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[livecert.adapters]\nacme = acme_livecert:create\n")
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def certify_vendor(tmp_path: Path, url: str, env: dict, game: str) -> tuple[int, dict, str]:
    args = ("--adapter", str(MAPPING), "--target-url", url, "--no-html", "--game", game)
    return certify(tmp_path / "report", *args, env=env)


def assert_incomplete_with(status: int, certificate: dict, output: str, words: str) -> None:
    assert status == 2, output
    assert certificate["verdict"] == "incomplete"
    assert any(words in e for e in certificate["target_errors"]), certificate["target_errors"]
    assert "Traceback" not in output
    assert not any(row["status"] == "passed" for row in certificate["clauses"].values())


def test_a_plugin_adapter_is_found_by_its_entry_point_name(tmp_path: Path) -> None:
    env = install_plugin(tmp_path)
    server = EmbeddedServer()
    server.start()
    try:
        status, certificate, output = certify(
            tmp_path / "report",
            "--adapter",
            "acme",
            "--target-url",
            server.url,
            "--operator-token",
            server.operator_token,
            "--dealer-token",
            server.dealer_token,
            "--no-html",
            "--game",
            "sicbo",
            "--clauses",
            "SB-RND-04",  # a few scenarios: the plugin's selection is under test, not the sweep
            env=env,
        )
    finally:
        server.stop()
    assert (status, certificate["verdict"]) == (0, "compliant"), output[-2000:]
    adapter = certificate["target"]["adapter"]
    assert (adapter["kind"], adapter["name"], adapter["source"]) == (
        "plugin",
        "acme",
        "acme-livecert 1.0",
    )
    assert certificate["clauses"]["CONTRACT-01"]["status"] == "not-tested"
    # the plugin's code is named by its hash, not only by a version a rebuild can keep
    source = (tmp_path / "acme_livecert.py").read_bytes()
    expected = hashlib.sha256(b"acme_livecert.py\0" + source + b"\0").hexdigest()
    assert adapter["sha256"] == expected


def test_a_plugin_package_hash_covers_every_file_of_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash is the whole package's, whichever module the entry point names, and changes
    with any of its files (a sub-module, a data file), not with compiled caches."""
    package = tmp_path / "acme_pkg"
    (package / "wire" / "__pycache__").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "wire/__init__.py": "",
        "wire/codes.py": "BIG = 'B'\n",
        "wire/codes.json": '{"BIG": "B"}',
    }
    for name, text in files.items():
        (package / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    expected = hashlib.sha256()
    for name in sorted(files):
        expected.update(f"acme_pkg/{name}".encode() + b"\0" + files[name].encode() + b"\0")
    whole = code_sha256("acme_pkg.wire.codes")
    assert whole == code_sha256("acme_pkg") == expected.hexdigest()
    (package / "wire" / "__pycache__" / "codes.cpython-311.pyc").write_bytes(b"cache")
    assert code_sha256("acme_pkg") == whole
    for name in ("wire/codes.py", "wire/codes.json"):
        (package / name).write_text(files[name] + " ", encoding="utf-8")
        changed = code_sha256("acme_pkg")
        assert changed != whole, name
        whole = changed
    assert code_sha256("no_such_module_anywhere") is None


def test_an_unknown_adapter_names_the_installed_plugins(tmp_path: Path) -> None:
    status, certificate, output = certify(
        tmp_path / "report",
        "--adapter",
        "nosuch",
        "--target-url",
        "http://127.0.0.1:9",
        "--no-html",
        "--game",
        "sicbo",
        env=install_plugin(tmp_path),
    )
    assert_incomplete_with(status, certificate, output, "no plugin of that name")
    assert "acme" in output and "canonical" in output


def test_a_broken_mapping_file_ends_the_run_incomplete_naming_the_problem(tmp_path: Path) -> None:
    broken = tmp_path / "mapping.yaml"
    text = MAPPING.read_text(encoding="utf-8").replace("  balance:\n", "  balanse:\n")
    broken.write_text(text, encoding="utf-8")
    status, certificate, output = certify(
        tmp_path / "report",
        "--adapter",
        str(broken),
        "--target-url",
        "http://127.0.0.1:9",
        "--no-html",
        "--game",
        "sicbo",
    )
    # the schema names the key it does not know, where it is
    assert_incomplete_with(status, certificate, output, "operations: must not contain {'balanse'}")


def test_wrong_vendor_credentials_end_the_run_incomplete(tmp_path: Path) -> None:
    with vendor_server() as (url, env):
        env = {**env, "SAOMAI_STUDIO_PASSWORD": "not-the-password"}
        status, certificate, output = certify_vendor(tmp_path, url, env, "xocdia")
    assert_incomplete_with(status, certificate, output, "log in as studio")


@pytest.mark.timing
def test_a_vendor_that_goes_down_mid_run_ends_it_incomplete(tmp_path: Path) -> None:
    """The run stops after the scenario that met the dead target; nothing after it passes."""
    with vendor_server() as (url, env):
        killer = threading.Timer(4.0, os.kill, (int(env["VENDOR_PID"]), signal.SIGKILL))
        killer.start()
        try:
            status, certificate, output = certify_vendor(tmp_path, url, env, "sicbo")
        finally:
            killer.cancel()
    assert status == 2, output[-2000:]
    assert certificate["verdict"] == "incomplete"
    errors = " ".join(certificate["target_errors"])
    assert "cannot connect" in errors or "broke" in errors, errors
    assert "Traceback" not in output


def test_the_doctor_checks_a_mapping_and_its_logins() -> None:
    with vendor_server() as (url, env):
        old = dict(os.environ)
        os.environ.update(env)
        try:
            healthy = diagnose(url, None, None, 5.0, str(MAPPING))
            os.environ["SAOMAI_OPS_PASSWORD"] = "wrong"
            refused = diagnose(url, None, None, 5.0, str(MAPPING))
        finally:
            os.environ.clear()
            os.environ.update(old)
    assert healthy.healthy, healthy.lines()
    text = "\n".join(healthy.lines())
    assert "mapping file" in text and "the contract does not apply" in text
    assert not refused.healthy
    assert any("log in as ops" in c.what for c in refused.checks if c.status == "FAIL")


def test_the_doctor_lists_every_problem_of_a_broken_mapping(tmp_path: Path) -> None:
    broken = tmp_path / "mapping.yaml"
    text = MAPPING.read_text(encoding="utf-8").replace("  get_round:\n", "  get_rounds:\n")
    broken.write_text(text, encoding="utf-8")
    done = livecert_command("doctor", "--adapter", str(broken), "--target-url", "http://x:1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "get_rounds" in done.stdout and "fix the mapping file" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
