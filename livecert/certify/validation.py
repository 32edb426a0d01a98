"""Method validation on the target itself (`livecert certify --validate [N]`).

A clause that passed is only as good as its checks are able to fail on this target: a check that
reads a field the target's answers never fill, or a balance its shape never moves, passes
whatever the target does. For each clause the certification passed, validation runs that
clause's scenarios again against the same target, once per answer mutant aimed at it (up to N
of its operators, livecert.harness.mutants), each in a run of its own. The mutant alters what
the harness reads, never what it sends. A mutant is *killed* when the clause it aims at failed
and nothing outside the clauses it declares did; one that failed others is *misattributed*; one
nothing failed *survives*; one that found nothing to alter on this target is *not applied*, and
counts neither way; a run that ended unjudged is *incomplete*.

The runs' report folders are kept beside the certification's (`NAME.validation/`), never in it:
they are not signed, and their certificates say they are validation runs.
"""

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from livecert.adapters.registry import CANONICAL, is_canonical
from livecert.adapters.secrets import SECRETS
from livecert.certify.report_folder import guard_folder
from livecert.harness.mutants import Mutant, TargetShape, operators_for
from livecert.harness.run_record import read_run_record
from livecert.harness.sweep import sweep_clauses
from livecert.rules import load_paytable

if TYPE_CHECKING:
    from livecert.certify.runner import CertifyOptions

KILLED, MISATTRIBUTED, SURVIVED = "killed", "misattributed", "survived"
NOT_APPLIED, INCOMPLETE = "not applied", "incomplete"
COST_FACTOR = 3  # a default validation costs at most about this many certifications
RUN_OVERHEAD_SECONDS = 4.0  # a run's own start and end (pytest, the target's start-up)
NOT_SHOWN = "passed, sensitivity not shown on this target"
GAME_PREFIXES = {"SB-": "sicbo", "XD-": "xocdia"}


@dataclass
class MutantRun:
    """One run of a clause's scenarios with one mutant."""

    mutant: str
    operator: str
    family: str
    clause: str
    declares: list[str]
    summary: str
    game: str
    verdict: str = ""
    failed: list[str] = field(default_factory=list)
    altered: int = 0
    seconds: float = 0.0
    outcome: str = ""
    scenarios: list[str] = field(default_factory=list)  # those run (a survivor's are named)
    folder: str = ""
    error: str = ""  # why the run could not be judged, when it raised


def outcome_of(declares: Iterable[str], clause: str, failed: list[str], verdict: str,
               altered: int) -> str:  # fmt: skip
    """Killed when the aimed clause failed and nothing outside the declared clauses did; a run
    that ended unjudged is incomplete, whatever it altered before."""
    if verdict == "incomplete" and clause not in failed:
        return INCOMPLETE
    if altered == 0:
        return NOT_APPLIED
    if not failed:
        return INCOMPLETE if verdict == "incomplete" else SURVIVED
    if clause in failed and set(failed) <= set(declares):
        return KILLED
    return MISATTRIBUTED


def game_for(clause: str, games: tuple[str, ...]) -> str:
    """A game's own clause runs on that game; a duty of both on Xoc Dia where it is in scope
    (its rounds are the shorter), else on the one game certified."""
    own = next((g for prefix, g in GAME_PREFIXES.items() if clause.startswith(prefix)), None)
    if own is not None:
        return own
    return "xocdia" if "xocdia" in games else games[0]


def sweep_narrowed(clause: str, game: str) -> tuple[str, ...]:
    """The sweep narrowed to the clause's row when it is one, else to the game's row of fewest
    selections (every outcome is still played, the clause's own scenarios are all run); a
    return to player's is the whole sweep, whose every selection it is measured over."""
    table = load_paytable(game)
    if clause in sweep_clauses(table):
        return (clause,)
    if clause in (table.rtp_clause, "REG-RTP-01"):  # measured over every selection
        return ()
    counts: dict[str, int] = {}
    for selection in table.selections:
        counts[selection.clause] = counts.get(selection.clause, 0) + 1
    return (min(sorted(counts), key=lambda c: counts[c]),)


def target_shape(records: list[dict]) -> TargetShape:
    """The certified target's shape, as its run recorded it. A run recorded before the shape
    was (an older report): the contract from the adapter it named; whether it pushed its rounds
    is not known, taken as no (so no pushed event's operator is chosen)."""
    shape = next((r for r in records if r.get("type") == "target_shape"), None)
    if shape is not None:
        return TargetShape(pushes=bool(shape.get("pushes")), contract=bool(shape.get("contract")))
    target = next((r for r in records if r.get("type") == "target"), {})
    return TargetShape(contract=(target.get("adapter") or {}).get("kind") == CANONICAL)


def chosen_mutants(passed: list[str], per_clause: int, shape: TargetShape) -> list[Mutant]:
    """Up to `per_clause` mutants aimed at each passed clause, of the operators that fit the
    target's shape, in their order."""
    return [
        Mutant(op, clause) for clause in passed for op in operators_for(clause, shape)[:per_clause]
    ]


def scenario_seconds(records: list[dict]) -> dict[str, float]:
    """Per clause, the seconds its scenarios took in the certification."""
    seconds: dict[str, float] = {}
    for record in records:
        if record.get("type") == "scenario":
            for clause in record.get("clauses", ()):
                seconds[clause] = seconds.get(clause, 0.0) + float(record.get("duration") or 0)
    return seconds


def default_per_clause(
    passed: list[str], records: list[dict], certified_seconds: float, parallel: int,
    shape: TargetShape,
) -> int:  # fmt: skip
    """The most mutants per clause whose runs, estimated from the clauses' scenarios in the
    certification, cost at most COST_FACTOR certifications; at least one."""
    seconds = scenario_seconds(records)
    budget = COST_FACTOR * certified_seconds * max(1, parallel)
    best = 1
    fitting = {c: len(operators_for(c, shape)) for c in passed}
    most = max(fitting.values(), default=0)
    for n in range(1, most + 1):
        cost = sum(
            min(n, fitting[c]) * (seconds.get(c, 0.0) + RUN_OVERHEAD_SECONDS) for c in passed
        )
        if cost > budget:
            break
        best = n
    return best


def failed_anywhere(
    certificate: dict, records: list[dict], before: Iterable[str] = ()
) -> list[str]:
    """Every clause the run failed: the certificate's, and those its scenarios judged failed
    outside the clauses selected (a run of one clause's scenarios may break another's: the
    mutant is then misattributed, not passed); less those the certification itself failed
    (`before`), which fail with or without the mutant."""
    failed = {c for c, row in certificate["clauses"].items() if row["status"] == "failed"}
    for record in records:
        if record.get("type") == "scenario":
            failed.update(record.get("judged_failed") or ())
    return sorted(failed - set(before))


# the options a mutant's run sets itself, and how many values each takes ("?": an optional
# one); every other option of the validated command is kept as it was
SET_BY_THE_RUN = {
    "--game": 1, "--clauses": 1, "--sweep-only": 1, "--report-dir": 1, "--workers": 1,
    "--processes": 1,
    "--lab": 1, "--retests": 1, "--history": 1, "--history-from-target": 1, "--quiet": 0,
    "--no-html": 0, "--har": 0, "--no-progress": 0, "--validate": "?", "--max-duration": 1,
    "--rate-limit": 1,
}  # fmt: skip


def _set_by_the_run(flag: str) -> str | None:
    """The option of SET_BY_THE_RUN that `flag` names, written whole or abbreviated as argparse
    allows (the command was accepted, so an abbreviation names one option only)."""
    if flag in SET_BY_THE_RUN or not flag.startswith("--"):
        return flag if flag in SET_BY_THE_RUN else None
    named = [option for option in SET_BY_THE_RUN if option.startswith(flag)]
    return named[0] if len(named) == 1 else None


def mutant_command(
    argv: list[str], mutant: Mutant, game: str, sweep: tuple[str, ...], folder: Path,
    bounds: "CertifyOptions | None" = None,
) -> list[str]:  # fmt: skip
    """The `livecert certify` arguments that replay a mutant's run of the validated command
    `argv`: its target as it was, the clause's scenarios on its game, the sweep narrowed, this
    run's folder and bounds (`bounds`' --max-duration and --rate-limit: what the run had), and
    the mutant named to pytest."""
    cut = argv.index("--") if "--" in argv else len(argv)
    options, passed_on = argv[:cut], argv[cut + 1 :]
    kept: list[str] = []
    skip = False
    for n, arg in enumerate(options):
        if skip:
            skip = False
            continue
        flag, has_value, _ = arg.partition("=")
        option = _set_by_the_run(flag)
        if option is None:
            kept.append(arg)
        elif not has_value:
            takes = SET_BY_THE_RUN[option]
            following = options[n + 1] if n + 1 < len(options) else "-"
            skip = takes == 1 or (takes == "?" and not following.startswith("-"))
    run = ["--game", game, "--clauses", ",".join(mutant.scope)]
    run += ["--sweep-only", ",".join(sweep)] if sweep else []
    run += [
        "--workers",
        "1",
        "--processes",
        "1",
        "--no-html",
        "--quiet",
        "--report-dir",
        str(folder),
    ]
    if bounds is not None and bounds.max_duration is not None:
        run += ["--max-duration", f"{bounds.max_duration:.0f}"]
    if bounds is not None and bounds.rate_limit is not None:
        run += ["--rate-limit", str(bounds.rate_limit)]
    return [*kept, *run, "--", *passed_on, f"--livecert-mutant={mutant.name}"]


def validated_argv() -> list[str] | None:
    """This process's `livecert certify` arguments (None where it was not started so)."""
    return sys.argv[2:] if sys.argv[1:2] == ["certify"] else None


def _mutant_run(mutant: Mutant, base: "CertifyOptions", folder: Path,
                certify: Callable[..., Any], before: list[str],
                ends_at: float | None = None) -> MutantRun:  # fmt: skip
    op = mutant.operator
    game = game_for(mutant.clause, base.games)
    run = MutantRun(mutant.name, op.name, op.family, mutant.clause, list(mutant.declares),
                    op.summary, game, folder=str(folder))  # fmt: skip
    left = None if ends_at is None else ends_at - time.time()
    if left is not None and left <= 0:  # the whole run's --max-duration: no run starts past it
        run.verdict, run.outcome = "incomplete", INCOMPLETE
        run.error = "not run: the run's --max-duration had passed"
        return run
    sweep = sweep_narrowed(mutant.clause, game)
    argv = base.command if base.command is not None else validated_argv()
    options = replace(
        base,
        max_duration=left,
        game=game,
        clauses=mutant.scope,
        sweep_only=sweep,
        report_dir=folder,
        quiet=True,
        progress=False,
        html=False,
        har=False,
        workers=1,
        processes=None,
        validate=False,
        retests=None,
        histories=[],
        history_tables=[],
        output=folder.parent / f"{folder.name}.output.txt",
        pytest_args=[*base.pytest_args, f"--livecert-mutant={mutant.name}"],
        lab={},
    )
    if argv is not None:
        options.command = mutant_command(argv, mutant, game, sweep, folder, options)
    started = time.monotonic()
    try:
        _, certificate, _ = certify(options)
        records = read_run_record(folder / "run-record.jsonl")
    except Exception as error:
        run.seconds = round(time.monotonic() - started, 1)
        run.verdict, run.outcome = "incomplete", INCOMPLETE
        run.error = f"{type(error).__name__}: {error}"
        return run
    run.seconds = round(time.monotonic() - started, 1)
    run.verdict = certificate["verdict"]
    run.failed = failed_anywhere(certificate, records, before)
    counted = [r for r in records if r["type"] == "mutant_altered"]
    if not counted:  # a process that never finished its session: unjudged, not "not applied"
        run.verdict = "incomplete"
    run.altered = sum(r.get("count", 0) for r in counted)
    run.scenarios = [r["name"] for r in records if r["type"] == "scenario"]
    run.outcome = outcome_of(run.declares, run.clause, run.failed, run.verdict, run.altered)
    return run


def run_validation(
    certificate: dict,
    records: list[dict],
    base: "CertifyOptions",
    folder: Path,
    per_clause: int | None,
    parallel: int,
    certify: Callable[..., Any],
    ends_at: float | None = None,
) -> dict:
    """Validate each clause `certificate` passed; the certificate's `validation` section. With
    `ends_at` (the time.time() the run's --max-duration ends it), each mutant run is bounded by
    what is left, and none starts after it (each such one incomplete, saying why)."""
    passed = [c for c, row in certificate["clauses"].items() if row["status"] == "passed"]
    certified_seconds = float(certificate.get("run", {}).get("duration_seconds") or 0)
    shape = target_shape(records)
    chosen_n = per_clause
    if chosen_n is None:
        chosen_n = default_per_clause(passed, records, certified_seconds, parallel, shape)
    mutants = chosen_mutants(passed, chosen_n, shape)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    before = [c for c, row in certificate["clauses"].items() if row["status"] == "failed"]

    def one(mutant: Mutant) -> MutantRun:
        name = mutant.name.replace("@", "_at_")
        return _mutant_run(mutant, base, folder / name, certify, before, ends_at)

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        runs = list(pool.map(one, mutants))
    section = validation_section(passed, runs, chosen_n, per_clause is None, shape)
    section["seconds"] = round(time.monotonic() - started, 1)
    section["folder"] = str(folder)
    written = SECRETS.mask_data({**section, "runs": [asdict(r) for r in runs]})
    path = folder / "validation.json"
    path.write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    # every file of the runs searched for the run's secrets, as a report's are (each masked),
    # and what was found said in the section and in its file
    leaked = guard_folder(folder)
    if leaked:
        section["secrets_masked"] = written["secrets_masked"] = leaked
        path.write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    return section


def survivor(run: MutantRun) -> dict[str, Any]:
    """A mutant not killed, as the certificate names it: its operator, its outcome, the clauses
    it failed (when misattributed) and the scenarios it ran in."""
    return {"mutant": run.mutant, "operator": run.operator, "outcome": run.outcome,
            "failed": run.failed, "scenarios": run.scenarios}  # fmt: skip


def validation_section(
    passed: list[str], runs: list[MutantRun], per_clause: int, chosen: bool, shape: TargetShape
) -> dict:
    """Per passed clause, its sensitivity on this target; the runs in brief."""
    clauses: dict[str, dict] = {}
    for clause in passed:
        aimed = [r for r in runs if r.clause == clause]
        counted = [r for r in aimed if r.outcome != NOT_APPLIED]
        killed = [r for r in counted if r.outcome == KILLED]
        row: dict[str, Any] = {
            "operators": len(operators_for(clause, shape)),
            "run": len(counted),
            "killed": len(killed),
            "not_applied": [r.mutant for r in aimed if r.outcome == NOT_APPLIED],
            "survivors": [survivor(r) for r in counted if r.outcome != KILLED],
        }
        if killed:
            row["sensitivity"] = f"{len(killed)} of {len(counted)} mutants killed"
        else:
            why = "no mutant was killed" if aimed else (
                "no operator aims at it" if not operators_for(clause)
                else "no operator fits this target"
            )  # fmt: skip
            row["sensitivity"] = f"{NOT_SHOWN} ({why})"
        row["shown"] = bool(killed)
        clauses[clause] = row
    not_shown = [c for c, row in clauses.items() if not row["shown"]]
    unaimed = [c for c in not_shown if not clauses[c]["operators"]]
    return {
        "per_clause": per_clause,
        "per_clause_chosen": chosen,  # chosen for a cost of about COST_FACTOR certifications
        "mutants": len(runs),
        "outcomes": {
            o: sum(r.outcome == o for r in runs)
            for o in (KILLED, MISATTRIBUTED, SURVIVED, INCOMPLETE, NOT_APPLIED)
        },
        "clauses": clauses,
        "not_shown": not_shown,
        "no_operator": unaimed,
        "statement": ("Method validation on this target: no clause passed, so none was validated.")
        if not passed
        else (
            f"Method validation on this target: {len(passed) - len(not_shown)} of {len(passed)} "
            f"passed clauses showed their checks can fail here; {len(not_shown)} passed with "
            f"sensitivity not shown on this target ({len(unaimed)} of them because no operator "
            "fitting this target aims at them yet; the verdict is not changed: a lab decides)."
        ),
    }


def validation_parallel(options: "CertifyOptions", processes: int) -> int:
    """Mutant runs at once. The embedded reference (a server of each run's own): one per core.
    Any other target: as many as the certification had processes (one where a mapping's
    tables or accounts are shared), and one only under a rate limit (each run would have its
    own) or a restart hook (a restart would cut the other runs' rounds)."""
    if options.rate_limit is not None or options.restart_hook:
        return 1
    if options.target_url is None and is_canonical(options.adapter):
        return max(processes, os.cpu_count() or 1)
    return max(1, processes)


def validation_folder(report: Path) -> Path:
    """Where a report's validation runs are kept: beside it, never in it."""
    return report.parent / f"{report.name}.validation"


def add_validation(certificate: dict, section: dict) -> None:
    """The validation in the certificate: its section, each passed clause's sensitivity, and
    the verdict statement's sentence on the clauses whose sensitivity was not shown."""
    certificate["validation"] = section
    for clause, row in section["clauses"].items():
        certificate["clauses"][clause]["sensitivity"] = row["sensitivity"]
    said = certificate["verdict_statement"].rstrip()
    said += "" if said.endswith(".") else "."
    certificate["verdict_statement"] = f"{said} {section['statement']}"
