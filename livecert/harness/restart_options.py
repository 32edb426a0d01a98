"""The restart hook's options (`--restart-hook`, `--restart-timeout`), defined once for
`livecert certify` and the pytest suite, with their checks; light (no adapter), for the CLI."""

import argparse
import math
import os
import shlex
from collections.abc import Callable
from typing import Any

DEFAULT_TIMEOUT = 120.0  # seconds for the hook, then as long again for the target to answer
HOOK_ENV, TIMEOUT_ENV = "LIVECERT_RESTART_HOOK", "LIVECERT_RESTART_TIMEOUT"
# the options' help, one text for `livecert certify` and the pytest suite
HOOK_HELP = (
    f"a command that restarts the target's server (env {HOOK_ENV}), run without a shell "
    "mid-round for interrupted games (REG-INTR-01); it must redirect the output of any server "
    "it starts in the background. Its exit status is not trusted: the restart must be seen (a "
    "new `instance` in /v1/info, or the target down). Without it, or a mapping's "
    "restart_target, REG-INTR-01 is not tested. The embedded reference is restarted by the "
    "harness itself"
)
TIMEOUT_HELP = (
    f"seconds the restart hook may take, and again for the target to answer after it (env "
    f"{TIMEOUT_ENV}; default {DEFAULT_TIMEOUT:g})"
)


def seconds_above_zero(text: str) -> float | None:
    """`text` as a number of seconds, finite and above 0; None when it is not one."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def restart_timeout(text: str) -> float:
    """--restart-timeout's value: seconds, finite and above 0 (an option type)."""
    value = seconds_above_zero(text)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"--restart-timeout={text!r} (or {TIMEOUT_ENV}) must be a number of seconds above "
            "0, e.g. 120"
        )
    return value


def default_timeout() -> str:
    """The default of --restart-timeout, as text (the option's type checks it)."""
    return os.environ.get(TIMEOUT_ENV, f"{DEFAULT_TIMEOUT:g}")


def split_hook(command: str) -> list[str]:
    """The hook's argv, split like a shell would; ValueError names what is wrong."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise ValueError(
            f"--restart-hook cannot be split into a command: {error} (the command is not "
            "shown: it may hold a secret)"
        ) from None
    if not argv:
        raise ValueError(
            "--restart-hook is empty: give the command that restarts the target's server"
        )
    return argv


def hook_problem(command: str | None, lab_target: bool) -> str | None:
    """What is wrong with a --restart-hook (None: nothing, or none given): a command that
    cannot be split, or a hook for the embedded reference, which the harness restarts itself."""
    if command is None:
        return None
    try:
        split_hook(command)
    except ValueError as error:
        return str(error)
    if not lab_target:
        return (
            "--restart-hook restarts a target of the lab's (--target-url or a mapping/plugin "
            "--adapter); the embedded reference server is restarted by the harness itself. "
            "Drop --restart-hook or name the target."
        )
    return None


def add_restart_options(add: Callable[..., Any], timeout_default: Any = None) -> None:
    """Both options, through an argparse parser's (or a pytest group's) add function; the
    timeout's default is the caller's, or LIVECERT_RESTART_TIMEOUT read at once."""
    add("--restart-hook", metavar="COMMAND", default=os.environ.get(HOOK_ENV), help=HOOK_HELP)
    add(
        "--restart-timeout",
        metavar="SECONDS",
        type=restart_timeout,
        default=default_timeout() if timeout_default is None else timeout_default,
        help=TIMEOUT_HELP,
    )
