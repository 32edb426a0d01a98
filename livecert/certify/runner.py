"""`livecert certify`: run the features against a target and write the report folder.

The scenarios run in a pytest subprocess (the same suite `pytest features` runs), writing Allure
results, JUnit XML and the run record; this module then builds certificate.json from the record
and points reports/latest at the new folder.

Secrets: the pytest run masks every secret it learns and tells this process each one over a
pipe (livecert.adapters.secrets); the command line is recorded with the tokens' variable names;
and before the certificate is built, and again before the manifest, every file of the folder is
searched for every secret of the run. One found is masked where it is, the verdict is
`incomplete` with a harness error naming the file; one in a page built after the certificate
stops the run before the manifest (a report with a secret in it is never published quietly).
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from livecert.adapters.bounds import (  # parse_size: the cli reads --max-answer-size through it
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_REQUEST_DEADLINE,
    Bounds,
    parse_size,  # noqa: F401
)
from livecert.adapters.rate import (  # parse_rate: the cli reads --rate-limit through it
    RequestRate,
    parse_rate,  # noqa: F401
)
from livecert.adapters.registry import CANONICAL, AdapterOptions, is_canonical
from livecert.adapters.secrets import (
    MIN_LENGTH,
    PIPE_VARIABLE,
    SECRETS,
    register_url_password,
)
from livecert.certify.certificate import build_certificate
from livecert.certify.compare import CompareError, read_certificate, retest_section
from livecert.certify.lab import lab_section
from livecert.certify.outcomes import (
    OUTCOMES_FOLDER,
    harness_round_ids,
    histories_given,
    history_source_problem,
    outcome_records,
)
from livecert.certify.progress import RunProgress
from livecert.certify.report_folder import (
    guard_folder,
    new_report_dir,
    point_latest,
    previous_report,
    show_junit_visibly,
)
from livecert.certify.scope import OUTCOME_DUTIES, is_contract_clause
from livecert.certify.suite_command import (
    SECRET_FLAGS,
    CertifyError,
    feature_files,
    pytest_command,
    shown_command,
    suite_environment,
    suite_root,
)
from livecert.certify.terminal import say_on_terminal, silent
from livecert.certify.validation import (
    add_validation,
    run_validation,
    validation_folder,
    validation_parallel,
)
from livecert.certify.workers import ROUND_TRIP_OPERATION, choose_workers
from livecert.fairness import HistoryError
from livecert.harness.exchange_archive import FOLDER as EXCHANGES_FOLDER
from livecert.harness.exchange_archive import read_archive
from livecert.harness.run_record import read_run_record
from livecert.harness.sweep import sweep_only_problem
from livecert.report import publish
from livecert.report.allure_report import RESULTS_ZIP
from livecert.report.har import write_har
from livecert.report.junit import SCENARIOS_JUNIT
from livecert.report.publish import SCRIPTS_FOLDER, SecretInReport
from livecert.rules.paytable import use_profile
from livecert.rules.profiles import load_profile
from livecert.target_text import copy_visible, escaped_surrogates

EXIT_CODES = {"compliant": 0, "non-compliant": 1, "incomplete": 2}
GAME_CHOICES = ("sicbo", "xocdia", "all")
PYTEST_OUTPUT = "pytest-output.txt"  # pytest's lines while the terminal shows progress bars


@dataclass
class CertifyOptions:
    target_url: str | None = None
    adapter: str | None = None  # canonical, a mapping file, or a plugin name
    rules: str | None = None  # the rule profile (None: the documents)
    operator_token: str | None = None
    dealer_token: str | None = None
    timeout: float = 30.0
    request_deadline: float = DEFAULT_REQUEST_DEADLINE  # seconds for one whole request
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    rate_limit: RequestRate | None = None  # --rate-limit: requests per second or minute
    workers: int | None = None  # tables in play at once (None: chosen from the round trip)
    processes: int | None = None  # the processes they run in (None: chosen)
    max_duration: float | None = None  # seconds for the whole run (None: no end)
    game: str = "all"
    report_dir: Path | None = None
    reference_faults: list[str] = field(default_factory=list)
    reference_rounding: str | None = None
    reference_without: list[str] = field(default_factory=list)
    restart_hook: str | None = None  # the lab's command that restarts the target (REG-INTR-01)
    restart_timeout: float = 120.0
    clauses: tuple[str, ...] = ()
    sweep_only: tuple[str, ...] = ()  # paytable clauses the sweep is narrowed to (a partial run)
    quiet: bool = False
    output: Path | None = None  # where pytest's output goes instead of the terminal
    html: bool = True
    pytest_args: list[str] = field(default_factory=list)
    lab: dict = field(default_factory=dict)  # the lab's fields ([lab], or --lab FILE)
    nodeids: list[str] = field(default_factory=list)  # only these scenarios (livecert replay)
    progress: bool = False  # bars on a terminal (rich); pytest's own lines then go to a file
    har: bool = False  # also write exchanges.har (--har)
    retests: Path | None = None  # the report folder this run retests (--retests)
    histories: list[Path] = field(default_factory=list)  # outcome histories (--history)
    history_tables: list[str] = field(default_factory=list)  # --history-from-target TABLE
    detect: float | None = None  # the bias the power statement sizes a history for (--detect)
    validate: bool = False  # method validation after the run (--validate)
    validate_per_clause: int | None = None  # mutants per passed clause (None: by the cost)
    # the command line the certificate records, where it is not this process's own (a
    # validation's mutant run: the command that replays that run)
    command: list[str] | None = None

    @property
    def rule_clauses(self) -> list[str]:
        """The selected clauses that select scenarios: every scenario proves the contract's."""
        return [c for c in self.clauses if not is_contract_clause(c) and c not in OUTCOME_DUTIES]

    @property
    def games(self) -> tuple[str, ...]:
        return ("sicbo", "xocdia") if self.game == "all" else (self.game,)


def unexplained_stop(returncode: int, records: list[dict]) -> str | None:
    """What the run record cannot account for in pytest's exit status: a crash of the test run
    (its internal error, status 3), or an interruption (status 2) that no target error, mapping
    error or run's end explains. The scenarios after it were never judged, so the run is
    incomplete, whatever passed before it. Status 3 after a preflight error is the run's own
    stop before the first scenario (the target unreachable, a mapping file refused), said
    there: not a crash."""
    stopped_before = any(
        r["type"] in ("target_error", "run_cut") and r.get("stage") == "preflight" for r in records
    )
    if returncode == 3 and not stopped_before:
        return (
            "the test run crashed (pytest's internal error, status 3; see the output): the "
            "scenario in flight and those after it were not judged"
        )
    explained = any(
        r["type"] in ("target_error", "run_cut")
        or (r["type"] == "scenario" and (r.get("target_error") or r.get("harness_error")))
        for r in records
    )
    if returncode == 2 and not explained:
        return (
            "the test run was interrupted (status 2; see the output): the scenarios after it "
            "were not run"
        )
    if returncode < 0:
        return (
            f"the test run was killed by signal {-returncode} (see the output): the scenario "
            "in flight and those after it were not judged"
        )
    return None


def _run_suite(command: list[str], env: dict, output: Path | None) -> int:
    """Run the pytest suite with its output (the target's words in it) shown visibly, on the
    terminal or in `output`; its exit status. Every secret the suite learns is registered here
    as it is told (a pipe where the platform passes one, POSIX). When the terminal's reader has
    gone (a closed pipe) the run still finishes and writes its report; the next print ends the
    command quietly."""
    read_end = write_end = None
    if os.name == "posix":
        read_end, write_end = os.pipe()
        env = dict(env, **{PIPE_VARIABLE: str(write_end)})
        listener = SECRETS.listen(read_end)
    try:
        with contextlib.ExitStack() as stack:
            sink = (
                sys.stdout
                if output is None
                else stack.enter_context(output.open("w", encoding="utf-8"))
            )
            process = stack.enter_context(
                subprocess.Popen(
                    command,  # in the caller's folder: its relative paths (a hook's) stay right
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    pass_fds=(write_end,) if write_end is not None else (),
                )
            )
            if write_end is not None:
                os.close(write_end)  # the child holds the only writer: its end is the pipe's end
                write_end = None
            assert process.stdout is not None
            copy_visible(process.stdout, sink)
            status = process.wait()
        if read_end is not None:
            listener.join(timeout=30)
        return status
    finally:
        if write_end is not None:
            os.close(write_end)


def certify(options: CertifyOptions) -> tuple[int, dict, Path]:
    """Run the certification; answer the exit status, the certificate and the report folder."""
    ends_at = time.time() + options.max_duration if options.max_duration is not None else None
    problem = sweep_only_problem(options.sweep_only)
    if problem:
        raise CertifyError(problem)
    retested = None
    if options.retests is not None:  # read before the run: a wrong folder is a usage error
        try:
            retested = read_certificate(options.retests)
        except CompareError as error:
            raise CertifyError(f"--retests: {error}") from None
    try:  # read before the run: a bad row is a usage error naming its line
        histories = histories_given(options.histories)
    except HistoryError as error:
        raise CertifyError(f"--history: {error}") from None
    if set(options.clauses) & set(OUTCOME_DUTIES) and not (histories or options.history_tables):
        raise CertifyError(
            f"--clauses {', '.join(sorted(set(options.clauses) & set(OUTCOME_DUTIES)))} are "
            "judged from an outcome history: give --history FILE or --history-from-target TABLE"
        )
    if options.history_tables and options.target_url is None and is_canonical(options.adapter):
        raise CertifyError(
            "--history-from-target reads a running target's table: give --target-url (the "
            "embedded reference lives only inside the run), or --history FILE"
        )
    root = suite_root()
    base = options.report_dir
    folder = new_report_dir(Path("reports")) if base is None else base
    folder.mkdir(parents=True, exist_ok=True)
    for earlier in (EXCHANGES_FOLDER, SCRIPTS_FOLDER):  # a folder used again: this run's only
        shutil.rmtree(folder / earlier, ignore_errors=True)
    env = suite_environment()
    files = feature_files(root, options.games, options.rule_clauses)
    env["LIVECERT_FEATURE_FILES"] = os.pathsep.join(str(f) for f in files)
    if options.restart_hook:  # by the environment, like the tokens: it may hold a secret
        env["LIVECERT_RESTART_HOOK"] = options.restart_hook
    register_url_password(options.target_url)
    for name, token in SECRET_FLAGS.items():
        value = getattr(options, name.removeprefix("--").replace("-", "_"))
        if value:
            env[token.removeprefix("$")] = value  # to the suite by its environment, not argv
            if not SECRETS.register(value, token):
                print(
                    f"livecert certify: {token} is shorter than {MIN_LENGTH} characters and "
                    "cannot be kept out of the report; use a longer token",
                    file=sys.stderr,
                )
    timeouts = (min(5.0, options.timeout), options.timeout)
    adapter_options = AdapterOptions(
        options.target_url, options.operator_token, options.dealer_token, timeouts,
        Bounds.for_run(
            options.request_deadline, options.max_answer_bytes, options.max_duration, ends_at,
            options.rate_limit,
        ),  # the run's own bounds: its rate and its end hold for these reads too
    )  # fmt: skip
    if options.history_tables and (
        problem := history_source_problem(options.adapter, adapter_options)
    ):
        raise CertifyError(f"--history-from-target: {problem}")
    try:
        workers = choose_workers(
            options.workers,
            options.target_url,
            options.adapter,
            adapter_options,
            options.processes,
        )
    except ValueError as error:
        raise CertifyError(str(error)) from None
    command = pytest_command(options, folder, root, ends_at, workers)
    say = silent if options.quiet else say_on_terminal
    if options.quiet or options.progress:  # pytest's lines are kept, in the report folder
        options.output = options.output or folder / PYTEST_OUTPUT
    live = None
    if options.progress:
        live = RunProgress(folder / "run-record.jsonl")
        live.start()
    started, started_at = time.monotonic(), _now()
    try:  # no scenario proves the outcome duties: a run of only those runs none
        only_outcomes = bool(options.clauses) and set(options.clauses) <= set(OUTCOME_DUTIES)
        # (a selection of contract clauses and outcome duties runs every scenario, as the
        # contract clauses alone do)
        returncode = 0 if only_outcomes else _run_suite(command, env, options.output)
    finally:
        if live is not None:
            live.stop()
    elapsed, ended_at = time.monotonic() - started, _now()
    say(f"livecert: the scenarios took {elapsed:.1f} s; building the certificate")
    show_junit_visibly(folder / SCENARIOS_JUNIT)
    leaked = guard_folder(folder)
    record_path = folder / "run-record.jsonl"
    records = read_run_record(record_path) if record_path.exists() else []
    if workers.samples_ms:  # the reads that chose --workers auto were sent to the target too
        records.append({"type": "latency", "samples": {ROUND_TRIP_OPERATION: workers.samples_ms}})
    if returncode not in (0, 1, 3) and not any(r["type"] == "target" for r in records):
        records.append(
            {
                "type": "target_error",
                "message": f"the test run ended with status {returncode} before any "
                "scenario ran (see the output above)",
            }
        )
    elif stop := unexplained_stop(returncode, records):
        records.append({"type": "harness_error", "message": stop})
    if leaked:
        records.append(
            {
                "type": "harness_error",
                "message": "a secret of the run was written into the report (a harness "
                f"defect; masked there since): {', '.join(leaked)}",
            }
        )
    invoked = options.command
    if invoked is None and sys.argv[1:2] == ["certify"]:
        invoked = sys.argv[2:]
    run = {
        "command": ["livecert", "certify", *shown_command(invoked)] if invoked is not None else [],
        "target_url": options.target_url
        or (None if is_canonical(options.adapter) else "(the adapter's own)")
        or "(embedded reference server)",
        "adapter": options.adapter or CANONICAL,
        "pytest_exit_status": returncode,
        "duration_seconds": round(elapsed, 1),
        "bounds": {
            "request_deadline_seconds": options.request_deadline,
            "max_answer_bytes": options.max_answer_bytes,
            "rate_limit": str(options.rate_limit) if options.rate_limit else None,
            "max_duration_seconds": options.max_duration,
        },
        "workers": {
            "tables_in_play": workers.per_process * workers.processes,  # what the run puts
            "tables_per_process": workers.per_process,
            "processes": workers.processes,
            "why": workers.why,
        },
        "report_dir": str(folder),
        "files": {
            "run_record": "run-record.jsonl",
            # written before the pages: packed into this zip only once the HTML is built
            "allure_results": "allure-results",
            "allure_results_packed": RESULTS_ZIP,
            "junit": "junit.xml",
            "junit_scenarios": SCENARIOS_JUNIT,
            "certificate": "certificate.json",
        },
    }
    if histories or options.history_tables:  # the archive is read only for a history
        records += outcome_records(
            histories, options.history_tables, options.adapter, adapter_options,
            folder / OUTCOMES_FOLDER, options.detect, harness_round_ids(folder),
        )  # fmt: skip
    use_profile(load_profile(options.rules))  # the certificate's RTP tables follow the profile
    certificate = build_certificate(
        records, options.games, run, options.clauses, options.sweep_only,
        options.lab.get("waivers", []),
    )  # fmt: skip
    certificate |= lab_section(certificate, options.lab, root, started_at, ended_at)
    mutant = next((r for r in records if r["type"] == "mutant"), None)
    if mutant is not None:  # what the harness read was altered: never a certification
        certificate["validation_run"] = {k: v for k, v in mutant.items() if k != "type"}
    if options.validate:
        say("livecert: validating the method on this target (answer mutants)")
        add_validation(certificate, run_validation(
            certificate, records, options, validation_folder(folder),
            options.validate_per_clause, validation_parallel(options, workers.processes), certify,
            ends_at,
        ))  # fmt: skip
    if retested is not None:
        certificate["retest"] = retest_section(retested, certificate)
    certificate = SECRETS.mask_data(certificate)  # the target's URL may hold a password
    # a target's words may hold a lone surrogate (JSON's "\ud800"): written as JSON's escape
    text = escaped_surrogates(json.dumps(certificate, indent=2, ensure_ascii=False))
    (folder / "certificate.json").write_text(text + "\n", encoding="utf-8")
    if options.har:  # optional: the exchanges/ archive holds the same, gzip
        write_har(folder, read_archive(folder))
    previous = previous_report(folder)
    try:
        published = publish(
            folder, certificate, records, previous, html=options.html, guard=guard_folder,
            say=say,
        )  # fmt: skip
    except SecretInReport as error:
        raise CertifyError(str(error)) from None
    certificate["published"] = published.messages
    if base is None:
        point_latest(folder)
    return EXIT_CODES[certificate["verdict"]], certificate, folder


def _now() -> str:
    """A moment of the run in UTC, its offset written (2026-12-02T10:00:00+00:00)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def rebuild_report(folder: Path) -> list[str]:
    """Build a finished run's pages again from its certificate.json and run record."""
    certificate_path, record_path = folder / "certificate.json", folder / "run-record.jsonl"
    if not certificate_path.is_file() or not record_path.is_file():
        raise CertifyError(f"{folder} is not a livecert report folder (no certificate.json)")
    certificate = json.loads(certificate_path.read_text(encoding="utf-8"))
    published = publish(folder, certificate, read_run_record(record_path), previous_report(folder))
    return [*published.messages, f"manifest.json sha256 {published.manifest_sha256}"]
