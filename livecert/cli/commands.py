"""What each `livecert` command does once its options are parsed: its settings resolved (command
line > environment > config file > defaults), its usage checked, then the run.

Every usage error is one line on stderr naming what to fix, and exit status 3 (USAGE_ERROR),
apart from the verdicts 0, 1 and 2. The heavy modules are imported by the command that needs
them, so that `--help`, `config` and a usage error stay instant.
"""

import argparse
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from livecert.cli.options import (
    CERTIFY_SETTINGS,
    DOCTOR_DEFAULTS,
    DOCTOR_SETTINGS,
    USAGE_ERROR,
)
from livecert.settings import (
    SETTINGS,
    ConfigFile,
    Resolved,
    SettingsError,
    apply,
    describe,
    find_config,
    load_config,
    resolve,
)

if TYPE_CHECKING:  # certify's options, imported by the command that runs
    pass


def _not_utf8_setting(args: argparse.Namespace) -> str | None:
    """The target's URL or a credential holding a byte that is not UTF-8, named with its flag
    and environment variable (no request can carry it: said here, not as the target's error)."""
    from livecert.target_text import not_utf8

    for flag, variable in (
        ("target_url", "LIVECERT_TARGET_URL"),
        ("operator_token", "LIVECERT_OPERATOR_TOKEN"),
        ("dealer_token", "LIVECERT_DEALER_TOKEN"),
    ):
        value = getattr(args, flag, None)
        if isinstance(value, str) and (bad := not_utf8(value)) is not None:
            return f"--{flag.replace('_', '-')} (or {variable}) {bad}"
    return None


def _usage(command: str, message: str) -> int:
    print(f"livecert {command}: {message}", file=sys.stderr)
    return USAGE_ERROR


def _adapter_reading(name: str) -> Callable[[str], object]:
    """How the adapters read a size or a rate (imported only when one is given as text)."""
    from livecert.certify.runner import parse_rate, parse_size  # the adapters' own readings

    return {"max_answer_size": parse_size, "rate_limit": parse_rate}[name]


def _settings(
    args: argparse.Namespace, names: Iterable[str], defaults: dict | None = None
) -> tuple[dict[str, Resolved], ConfigFile]:
    """Resolve `names` onto `args` by precedence, a size and a rate read as the adapters read
    them; the resolution (each value's source) and the config file read. SettingsError says
    what is wrong."""
    config = load_config(find_config(args.config))
    resolved = resolve(names, args, config, defaults)
    apply(args, resolved)
    if "ca_bundle" in names and getattr(args, "ca_bundle", None):
        trust_authorities(args.ca_bundle)
    for name in ("max_answer_size", "rate_limit"):
        value = getattr(args, name, None)
        if name in names and isinstance(value, str):
            setting = SETTINGS[name]
            try:
                setattr(args, name, _adapter_reading(name)(value))
            except ValueError as error:
                where = f"{setting.option} (or {setting.env}, or the file)"
                raise SettingsError(f"{where}: {error}") from None
    return resolved, config


def trust_authorities(ca_file: str) -> None:
    """Every session of the run, here and in the suite's processes, trusts the CA file the lab
    names (adapters.bounded_session reads LIVECERT_CA_BUNDLE); a file that is not there is said
    now."""
    from pathlib import Path

    path = Path(ca_file).expanduser()
    if not path.is_file():
        raise SettingsError(
            f"--ca-bundle (or LIVECERT_CA_BUNDLE, or the file's ca_bundle): no file {ca_file!r}"
        )
    os.environ["LIVECERT_CA_BUNDLE"] = str(path.resolve())


def _warn_of_secret_flags(command: str, argv: list[str]) -> None:
    """A token given as a flag shows in the process list (`ps`) to every user of the machine:
    say so once per flag, and what to use instead."""
    from livecert.certify.suite_command import SECRET_FLAGS, secret_flag

    for flag in dict.fromkeys(f for f in map(secret_flag, argv) if f):
        print(
            f"livecert {command}: {flag} shows in the process list; prefer "
            f"{SECRET_FLAGS[flag].removeprefix('$')}",
            file=sys.stderr,
        )


def _uses_contract(args: argparse.Namespace) -> bool:
    from livecert.certify.runner import is_canonical  # the adapters' own test, via certify

    return is_canonical(args.adapter)


def run_doctor(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.certify.doctor import Bounds, diagnose, diagnose_reference
    from livecert.rules.paytable import use_profile
    from livecert.rules.profiles import ProfileError, load_profile

    _warn_of_secret_flags("doctor", argv)
    try:
        _settings(args, DOCTOR_SETTINGS, DOCTOR_DEFAULTS)
    except SettingsError as error:
        return _usage("doctor", str(error))
    try:
        use_profile(load_profile(args.rules))
    except ProfileError as error:
        return _usage("doctor", str(error))
    bounds = Bounds.for_run(
        args.request_deadline, max_duration=args.max_duration, rate_limit=args.rate_limit
    )
    if args.max_answer_size is not None:
        bounds = replace(bounds, max_answer_bytes=args.max_answer_size)
    if _uses_contract(args) and not args.target_url:
        print("livecert doctor: no --target-url; checking the embedded reference server")
        diagnosis = diagnose_reference(args.timeout, probe=args.probe, bounds=bounds)
    else:
        if _uses_contract(args) and not (args.operator_token and args.dealer_token):
            return _usage(
                "doctor",
                "--target-url needs --operator-token and --dealer-token (or "
                "LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN)",
            )
        diagnosis = diagnose(
            args.target_url,
            args.operator_token,
            args.dealer_token,
            args.timeout,
            args.adapter,
            probe=args.probe,
            bounds=bounds,
        )
    print(diagnosis.text())
    return 0 if diagnosis.healthy else 1


def run_selftest(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.certify.selftest import main as selftest_main

    try:
        _settings(args, ("selftest_workers",))
    except SettingsError as error:
        return _usage("selftest", str(error))
    chosen = [*args.fault, *(f.strip() for f in args.faults.split(",") if f.strip())]
    draws = args.draws if args.draws is not None else (5 if args.full else 0)
    if draws < 0:
        return _usage("selftest", "--draws must be 0 or more")
    return selftest_main(
        args.report_dir,
        args.selftest_workers,
        chosen,
        full=args.full,
        draws=draws,
        seed=args.seed,
    )


def run_report(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.certify.report_folder import install_report_tools
    from livecert.certify.runner import CertifyError, rebuild_report
    from livecert.target_text import terminal_lines

    if args.install_tools:
        problem, where = install_report_tools()
        if problem:
            print(f"livecert report: {problem}", file=sys.stderr)
            return 1
        print(f"livecert report: the Allure report generator is ready: {where}")
        if args.folder is None:
            return 0
    if args.folder is None:
        return _usage("report", "name a report folder (or --install-tools)")
    try:
        messages = rebuild_report(args.folder)
    except CertifyError as error:
        return _usage("report", str(error))
    print(terminal_lines(messages))
    return 0


def run_replay(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.certify.compare import CompareError
    from livecert.certify.replay import replay
    from livecert.certify.runner import CertifyError
    from livecert.target_text import terminal_lines

    if bool(args.scenario) == bool(args.failed):
        return _usage("replay", "name one failed scenario, or give --failed for all of them")
    tokens = (os.environ.get("LIVECERT_OPERATOR_TOKEN"), os.environ.get("LIVECERT_DEALER_TOKEN"))
    try:
        status, verdicts, folder = replay(args.folder, args.scenario, *tokens)
    except (CertifyError, CompareError) as error:
        return _usage("replay", str(error))
    lines = [f"replayed {len({v['scenario'] for v in verdicts})} scenario(s) of {args.folder}"]
    lines += [
        f"  {v['finding']:<10} {v['clause']:<13} {v['scenario']}: {v['why']}" for v in verdicts
    ]
    lines.append(f"  the replay's report: {folder}/")
    print(terminal_lines(lines))
    return status


def run_validate(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.certify.compare import CompareError
    from livecert.certify.runner import CertifyError
    from livecert.certify.validate_report import validate_report
    from livecert.target_text import terminal_lines

    if args.per_clause is not None and args.per_clause < 1:
        return _usage("validate", f"--per-clause must be 1 or more, not {args.per_clause}")
    tokens = (os.environ.get("LIVECERT_OPERATOR_TOKEN"), os.environ.get("LIVECERT_DEALER_TOKEN"))
    try:
        section = validate_report(args.folder, args.per_clause, *tokens)
    except (CertifyError, CompareError) as error:
        return _usage("validate", str(error))
    lines = [section["statement"]]
    lines += [f"  {clause}: {row['sensitivity']}" for clause, row in section["clauses"].items()]
    lines.append(f"  the validation: {section['folder']}/validation.json")
    print(terminal_lines(lines))
    return 1 if section["not_shown"] else 0


def run_compare(args: argparse.Namespace, argv: list[str]) -> int:
    import json

    from livecert.certify.compare import CompareError, compare, comparison_lines, read_certificate
    from livecert.target_text import terminal_lines

    try:
        old, new = read_certificate(args.old), read_certificate(args.new)
    except CompareError as error:
        return _usage("compare", str(error))
    old_name, new_name = args.old.resolve().name, args.new.resolve().name
    difference = compare(old, new)
    output = args.output or args.new.resolve().parent / f"compare-{old_name}-{new_name}.json"
    try:
        output.write_text(json.dumps(difference, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        return _usage("compare", f"cannot write {output}: {error.strerror}")
    print(terminal_lines([*comparison_lines(difference, old_name, new_name), f"written: {output}"]))
    return 1 if difference["newly_failing"] else 0


def run_sign(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.report.signing import SigningError, load_private_key, sign_report
    from livecert.target_text import terminal_lines

    if not args.folder.is_dir():
        return _usage("sign", f"{args.folder} is not a report folder")
    try:
        key = load_private_key(args.key)
    except SigningError as error:
        return _usage("sign", str(error))
    try:
        statement = sign_report(args.folder, key, args.signer)
    except SigningError as error:
        print(terminal_lines([f"livecert sign: {error}"]), file=sys.stderr)
        return 1
    print(
        terminal_lines(
            [
                f"signed {args.folder / 'manifest.json'}: {args.folder / 'manifest.sig'}",
                f"  by {statement['signed_by']} at {statement['signed_at']}",
                f"  key {statement['public_key_fingerprint']}",
            ]
        )
    )
    return 0


def run_verify(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.report.signing import (
        SigningError,
        load_public_key,
        outside,
        verify_integrity,
        verify_report,
    )
    from livecert.target_text import terminal_lines

    if not args.folder.is_dir():
        return _usage("verify", f"{args.folder} is not a report folder")
    if args.public_key is None:
        problems, signed = verify_integrity(args.folder)
        if problems:
            lines = [f"NOT intact: {args.folder}", *(f"  {p}" for p in problems)]
            print(terminal_lines(lines))
            return 1
        who = (
            "it is signed, and its manifest is the one signed; who signed is not checked "
            "without a key: give --public-key with the signer's key"
            if signed
            else "it is not signed: anyone can rewrite a manifest, so nothing says the files "
            "are the run's"
        )
        said = f"intact: every file of {args.folder} matches the report's manifest"
        print(terminal_lines([said, f"  {who}"]))
        return 0
    if not outside(args.folder, args.public_key):
        return _usage(
            "verify",
            f"{args.public_key} is inside the report: a key shipped with a report cannot vouch "
            "for it; use the signer's key from where you trust it",
        )
    try:
        key = load_public_key(args.public_key)
    except SigningError as error:
        return _usage("verify", str(error))
    found = verify_report(args.folder, key)
    if found.verified:
        print(
            terminal_lines(
                [
                    f"verified: {args.folder} is as signed",
                    f"  by {found.signed_by} at {found.signed_at}",
                    f"  key {found.fingerprint}",
                ]
            )
        )
        return 0
    lines = [f"NOT verified: {args.folder}", *(f"  {p}" for p in found.problems)]
    print(terminal_lines(lines))
    return 1


def run_config(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.target_text import terminal_lines

    try:  # a size and a rate are read as certify reads them, the file once
        resolved, config = _settings(args, (*CERTIFY_SETTINGS, "selftest_workers"))
    except SettingsError as error:
        return _usage("config", str(error))
    print(terminal_lines(describe(resolved, config)))
    return 0


def run_load(args: argparse.Namespace, argv: list[str]) -> int:
    """`livecert load`: imported here, since Locust patches the process for gevent."""
    import json

    try:
        from livecert.load.runner import LoadOptions, merge, run_load, summary
    except ImportError as error:
        return _usage("load", f"needs Locust: pip install 'livecert[load]' ({error})")
    if args.merge is not None:
        merged = merge(args.merge)
        print(json.dumps(merged, indent=2))
        return {"compliant": 0, "non-compliant": 1}.get(merged["verdict"], 2)
    url = args.target_url or os.environ.get("LIVECERT_TARGET_URL")
    operator = os.environ.get("LIVECERT_OPERATOR_TOKEN")
    dealer = os.environ.get("LIVECERT_DEALER_TOKEN")
    if url and not (operator and dealer):
        return _usage(
            "load", "a target URL needs LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN"
        )
    if url and args.reference_fault:
        return _usage("load", "--reference-fault applies to the embedded reference, not a URL")
    options = LoadOptions(
        url, operator, dealer, args.players, args.tables, args.game, args.duration,
        args.spawn_rate, tuple(args.reference_fault), args.report_dir,
    )  # fmt: skip
    status, report = run_load(options)
    from livecert.target_text import terminal_lines

    print(terminal_lines(summary(report, args.report_dir)))
    return status


def run_outcomes(args: argparse.Namespace, argv: list[str]) -> int:
    from pathlib import Path

    from livecert.certify.outcomes import (
        AdapterOptions,
        harness_round_ids,
        histories_given,
        history_source_problem,
        outcome_records,
        write_chart,
    )
    from livecert.certify.runner import Bounds
    from livecert.fairness import HistoryError, as_text

    _warn_of_secret_flags("outcomes", argv)
    try:
        _settings(args, DOCTOR_SETTINGS, DOCTOR_DEFAULTS)
    except SettingsError as error:
        return _usage("outcomes", str(error))
    if bool(args.history) == bool(args.history_tables):
        return _usage("outcomes", "give --history FILE or --from-target TABLE (one of them)")
    if args.history_tables and not args.target_url and _uses_contract(args):
        return _usage("outcomes", "--from-target needs --target-url (and the tokens)")
    for folder in args.exclude_run:
        if not any((folder / "exchanges").glob("*.jsonl.gz")):
            return _usage(
                "outcomes",
                f"--exclude-run {folder}: not a report folder with its exchanges "
                "(exchanges/*.jsonl.gz): the rounds that run played cannot be left out",
            )
    try:
        histories = histories_given(args.history)
        excluded = set().union(*(harness_round_ids(d) for d in args.exclude_run))
    except (HistoryError, OSError) as error:
        return _usage("outcomes", str(error))
    timeouts = (min(5.0, args.timeout), args.timeout)
    options = AdapterOptions(
        args.target_url, args.operator_token, args.dealer_token, timeouts,
        Bounds.for_run(args.request_deadline),
    )  # fmt: skip
    if args.history_tables and (problem := history_source_problem(args.adapter, options)):
        return _usage("outcomes", problem)
    records = outcome_records(
        histories, args.history_tables, args.adapter, options, args.report_dir,
        args.detect, excluded,
    )  # fmt: skip
    problems = [r["message"] for r in records if r["type"] != "outcome_analysis"]
    for problem in problems:
        print(f"livecert outcomes: {problem}", file=sys.stderr)
    analyses = [r["analysis"] for r in records if r["type"] == "outcome_analysis"]
    for analysis in analyses:
        print(as_text(analysis))
        write_chart(Path(args.report_dir), analysis)
    if analyses:
        print(f"written: {args.report_dir}/")
    if problems and not analyses:
        return USAGE_ERROR
    statuses = {v["status"] for a in analyses for v in a["duties"].values()}
    return 1 if "failed" in statuses else 2 if "not-tested" in statuses or problems else 0
