"""Run the `livecert` command the way a lab does, in a subprocess, for the self-tests."""

import json
from pathlib import Path

from livecert.certify.selftest import livecert_command as livecert


def certify(folder: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict, str]:
    """Run `livecert certify --report-dir folder ARGS`; the status, certificate, and what it
    printed (not a terminal: pytest's lines, no progress bars)."""
    done = livecert("certify", "--report-dir", str(folder), *args, env=env)
    certificate = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
    return done.returncode, certificate, done.stdout + done.stderr


def certify_url(folder: Path, url: str, *args: str) -> tuple[int, dict, str]:
    """`livecert certify --no-html` of Sic Bo at `url` with made-up tokens, a 2 s timeout unless
    `args` give one: for the fake targets, whose answers and messages are under test."""
    return certify(
        folder,
        "--no-html",
        "--game",
        "sicbo",
        "--target-url",
        url,
        "--operator-token",
        "op-token",
        "--dealer-token",
        "dl-token",
        *(() if "--timeout" in args else ("--timeout", "2")),
        *args,
    )


def certify_mapping(
    folder: Path, mapping: Path, url: str, env: dict, *args: str
) -> tuple[int, dict, str]:
    """`livecert certify` of the target at `url` through the mapping file `mapping`, into
    folder/report."""
    return certify(
        folder / "report",
        "--adapter",
        str(mapping),
        "--target-url",
        url,
        "--no-html",
        *args,
        env=env,
    )


def certify_through(
    folder: Path, url: str, server, game: str, clauses: str, *args: str
) -> tuple[int, dict, str]:
    """`livecert certify --no-html` of `game` on `clauses`, at `url` standing in front of the
    embedded reference `server` (a proxy), with the server's tokens."""
    return certify(
        folder,
        "--no-html",
        "--game",
        game,
        "--clauses",
        clauses,
        "--target-url",
        url,
        "--operator-token",
        server.operator_token,
        "--dealer-token",
        server.dealer_token,
        *args,
    )
