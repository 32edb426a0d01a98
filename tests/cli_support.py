"""Run the `livecert` command the way a lab does, in a subprocess, for the self-tests."""

import json
import subprocess
import sys
from pathlib import Path


def livecert(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "livecert.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def certify(folder: Path, *args: str) -> tuple[int, dict, str]:
    """Run `livecert certify --quiet --report-dir folder ARGS`; the status, certificate, output."""
    done = livecert("certify", "--quiet", "--report-dir", str(folder), *args)
    certificate = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
    return done.returncode, certificate, done.stdout + done.stderr
