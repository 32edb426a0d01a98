"""The pytest command a certification runs: the suite's folder and feature files, its plugins,
its environment (the caller's, without the suite's variables) and its arguments; and the command
line as the certificate records it (a token's flag shown as its variable)."""

import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from livecert.adapters.secrets import SECRETS
from livecert.certify.workers import WorkersChoice
from livecert.report.junit import SCENARIOS_JUNIT
from livecert.settings import SETTINGS
from livecert.suite.location import features_dir

if TYPE_CHECKING:
    from livecert.certify.runner import CertifyOptions

# the pytest plugins the certification suite needs, loaded by name (autoloading is off)
SUITE_PLUGINS = ("pytest_bdd.plugin", "allure_pytest_bdd.plugin", "_hypothesis_pytestplugin")
_TAG = re.compile(r"(?<![\w@])@([\w.-]+)")  # a Gherkin tag, e.g. @SB-PAY-08
SECRET_FLAGS = {
    "--operator-token": "$LIVECERT_OPERATOR_TOKEN",
    "--dealer-token": "$LIVECERT_DEALER_TOKEN",
}


class CertifyError(RuntimeError):
    """certify cannot run as asked (no features folder, a bad report folder, ...)."""


def suite_root() -> Path:
    """The folder of the features and of their pytest settings (livecert.suite.features): the
    checkout's features/ under an editable install, the installed package's otherwise."""
    root = features_dir()
    if not (root / "test_certification.py").is_file() or not (root / "pytest.ini").is_file():
        raise CertifyError(
            f"the certification features are incomplete at {root}: reinstall livecert"
        )
    return root


def feature_files(root: Path, games: tuple[str, ...], clauses: list[str]) -> list[Path]:
    """The feature files holding a scenario that `-m (games) and (clauses)` can select: a
    scenario's tags, its feature's and its examples' included, all appear in its file, so a file
    whose tags name no selected game (or, with clauses, no selected clause) holds none."""
    chosen = []
    for path in sorted(root.glob("*/*.feature")):
        tags = set(_TAG.findall(path.read_text(encoding="utf-8")))
        if tags & set(games) and (not clauses or tags & set(clauses)):
            chosen.append(path)
    return chosen


# the settings' variables (every one the suite reads is one of them): certify resolved its
# settings (livecert/settings.py) and passes them as options, so the suite must not fall back
# on the caller's environment
SUITE_VARIABLES = frozenset(s.env for s in SETTINGS.values() if s.env)


def suite_environment() -> dict[str, str]:
    """The pytest run's environment: the caller's, without the suite's variables (certify sets
    those it resolved: the tokens, the hook) and without PYTEST_ADDOPTS (nothing but the suite's
    pytest.ini shapes a certification), plugin autoloading off (SUITE_PLUGINS only)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in SUITE_VARIABLES and name != "PYTEST_ADDOPTS"
    }
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if ca_file := os.environ.get("LIVECERT_CA_BUNDLE"):  # resolved by the CLI: the adapters
        env["LIVECERT_CA_BUNDLE"] = ca_file  # read it, in every process of the run
    return env


def pytest_command(
    options: "CertifyOptions",
    folder: Path,
    root: Path,
    ends_at: float | None = None,
    workers: WorkersChoice | None = None,
) -> list[str]:
    """The pytest command of the run; `ends_at` is when --max-duration ends (seconds since the
    epoch, counted from when certify started); `workers` spreads it over processes."""
    marker = " or ".join(options.games)
    rule_clauses = options.rule_clauses  # selecting only contract clauses runs them all
    if rule_clauses:
        marker = f"({marker}) and ({' or '.join(rule_clauses)})"
    command = [
        sys.executable,
        "-P",  # the caller's folder is not put first on the path: the installed livecert runs
        "-m",
        "pytest",
        *([str(root / nodeid) for nodeid in options.nodeids] or [str(root)]),
        "-c",
        str(root / "pytest.ini"),  # the suite's settings, whatever surrounds it
        "-m",
        marker,
        "-p",
        "no:cacheprovider",
        # only the plugins the suite is written for (PYTEST_DISABLE_PLUGIN_AUTOLOAD in
        # certify()): a plugin installed beside livecert (one reordering tests, say) must not
        # change a certification, and loading every installed one costs each run its import
        *(arg for plugin in SUITE_PLUGINS for arg in ("-p", plugin)),
        "-p",
        "livecert.suite.plugin",  # the suite's options; the features' conftest loads the rest
        # its hunt for exceptions raised in finalisers collects the garbage twice at the end, a
        # few tenths of a second of every run; a certification reads no warnings
        "-p",
        "no:unraisableexception",
        # every step states what it checked in its own words: pytest's assertion rewriting
        # would only cost a second per run (plugins re-rewritten when bytecode is not cached)
        "--assert=plain",
        "--tb=line",
        # certify reads pytest's output and shows it (the target's words in it) visibly: pytest's
        # own colour codes would be shown as text too
        "--color=no",
        "-q" if not options.quiet else "-qq",
        f"--livecert-record={folder / 'run-record.jsonl'}",
        f"--alluredir={folder / 'allure-results'}",
        f"--junitxml={folder / SCENARIOS_JUNIT}",
        f"--target-timeout={options.timeout:g}",
        f"--restart-timeout={options.restart_timeout:g}",
        f"--request-deadline={options.request_deadline:g}",
        f"--max-answer-size={options.max_answer_bytes}",
    ]
    if options.rate_limit is not None:
        command.append(f"--rate-limit={options.rate_limit}")
    if workers is not None and workers.workers > 1:
        command.append(f"--tables-in-play={workers.per_process}")
        if workers.processes > 1:  # scheduled with their groups (fixtures/workers.py)
            command += ["-p", "xdist.plugin", f"--numprocesses={workers.processes}"]
            # a worker that dies ends the run, incomplete (fixtures/target.py records it): a
            # worker started in its place could be left with no work, the run never ending
            command.append("--max-worker-restart=0")
    if options.max_duration is not None:
        ends_at = ends_at if ends_at is not None else time.time() + options.max_duration
        command += [f"--max-duration={options.max_duration:g}", f"--run-ends-at={ends_at:.3f}"]
    if options.target_url:
        command.append(f"--target-url={options.target_url}")
    if options.rules:
        rules = options.rules
        if rules.endswith(".toml"):
            rules = str(Path(rules).resolve())
        command.append(f"--rules={rules}")
    if options.adapter:
        adapter = options.adapter
        if adapter.endswith((".yaml", ".yml")):
            adapter = str(Path(adapter).resolve())  # pytest runs in the checkout
        command.append(f"--adapter={adapter}")
    for fault in options.reference_faults:
        command.append(f"--reference-fault={fault}")
    if options.reference_rounding:
        command.append(f"--reference-rounding={options.reference_rounding}")
    for capability in options.reference_without:
        command.append(f"--reference-without={capability}")
    if options.sweep_only:
        command.append(f"--sweep-only={','.join(options.sweep_only)}")
    return command + options.pytest_args


def secret_flag(arg: str) -> str | None:
    """The secret flag `arg` names (argparse takes `--operator-token`, `--operator-token=X` or
    an unambiguous prefix such as `--operator`), if any."""
    flag = arg.partition("=")[0]
    if len(flag) < 4 or not flag.startswith("--"):
        return None
    return next((f for f in SECRET_FLAGS if f.startswith(flag)), None)


def shown_command(argv: list[str]) -> list[str]:
    """The command line as the certificate records it: a secret flag's value as its variable
    (`--operator-token $LIVECERT_OPERATOR_TOKEN`), every other secret masked."""
    shown: list[str] = []
    hidden: str | None = None
    for arg in argv:
        if hidden is not None:
            shown.append(hidden)
            hidden = None
            continue
        flag = secret_flag(arg)  # pytest's own options after `--` have the same names
        if flag is None:
            shown.append(SECRETS.mask(arg) or arg)
        elif "=" in arg:
            shown.append(f"{arg.partition('=')[0]}={SECRET_FLAGS[flag]}")
        else:
            shown.append(arg)
            hidden = SECRET_FLAGS[flag]
    return shown
