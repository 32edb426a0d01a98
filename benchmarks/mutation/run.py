"""Mutation score of the certification suite over the reference's settlement and round-state code.

Each mutant is one change made by a cosmic-ray operator (`cosmic-ray`, from PyPI) to one function
listed in `scope.toml`. A mutant is run in a private copy of the repository (so the working tree
is never touched): the target's `quick` command, stopping at the first failure, then its `full`
command where the target has one. A mutant the suite fails on is *killed*; one that exceeds the
time limit (three times the unmutated run) is a *timeout*; one that passes *survived* and must be
explained in `equivalent.toml` (why no behaviour of the reference changed) or closed with a new
scenario. The script exits 1 while any survivor is unexplained.

Not run, and counted apart: mutants inside code that runs only when a seeded fault is switched on
(the body of `if "name" in faults ...`, the other operands of that `and`, the `x if "name" in
faults else y` branch: dead in a clean reference, so equivalent by construction) as `fault-only`;
mutants of type annotations in a module whose annotations are never evaluated (it has the
`__future__` import of annotations) as `annotation`; and the identity-comparison operators
scope.toml leaves out.

    pip install -e ".[mutation]"
    python benchmarks/mutation/run.py                     # every target, 2 workers
    python benchmarks/mutation/run.py --target rounding --workers 1 --limit 20
    python benchmarks/mutation/run.py --resume            # go on after an interruption

The report goes to benchmarks/mutation/report.json and report.md (override with --out).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cosmic_ray.commands.init import _all_work_items
from cosmic_ray.mutating import use_mutation
from cosmic_ray.plugins import get_operator

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

KILLED, SURVIVED, TIMEOUT, FAULT_ONLY, ANNOTATION, EXCLUDED, NO_CHANGE = (
    "killed",
    "survived",
    "timeout",
    "fault-only",
    "annotation",
    "excluded",
    "no-change",
)


@dataclass
class Mutant:
    """One mutation and what became of it."""

    target: str
    module: str
    definition: str  # the function, or "<module>" for module-level code (tables of odds)
    operator: str
    occurrence: int
    line: int
    col: int
    source_line: str
    status: str = ""
    stage: str = ""  # the command that decided: quick, full, or "" when not run
    seconds: float = 0.0
    diff: str = ""
    why: str = ""  # for survivors: the explanation from equivalent.toml


def keyed(rows: list) -> dict[str, object]:
    """Mutants (or recorded rows) by ident plus their rank among identical ones, in line order."""
    seen: Counter = Counter()
    out = {}
    for row in sorted(rows, key=lambda r: _get(r, "line")):
        ident = _ident(row)
        out[f"{ident}#{seen[ident]}"] = row
        seen[ident] += 1
    return out


def _get(row, name: str):
    return row[name] if isinstance(row, dict) else getattr(row, name)


def _ident(row) -> str:
    """What a mutation changes, by content: module, function, operator, line text, column. It
    survives edits elsewhere in the module (line numbers and cosmic-ray's occurrence counters move;
    this does not)."""
    return "|".join(
        str(_get(row, n)) for n in ("module", "definition", "operator", "source_line", "col")
    )


@dataclass
class Target:
    """A module, the functions in scope, and the two commands that judge its mutants."""

    name: str
    module: str
    definitions: list[str]
    quick: str
    full: str
    mutants: list[Mutant] = field(default_factory=list)


def load_scope(path: Path, only: set[str] | None) -> tuple[list[Target], set[str]]:
    """Read scope.toml: the targets and the operators left out."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    full_default = data["defaults"]["full"]
    targets = []
    for entry in data["target"]:
        if only and entry["name"] not in only:
            continue
        targets.append(
            Target(
                name=entry["name"],
                module=entry["module"],
                definitions=list(entry["definitions"]),
                quick=entry["quick"],
                full=entry.get("full", full_default),
            )
        )
    return targets, set(data["defaults"].get("excluded_operators", []))


def _is_fault_check(node: ast.AST) -> bool:
    """`"name" in faults` or `"name" in self.faults`."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return False
    right = node.comparators[0]
    name = right.attr if isinstance(right, ast.Attribute) else getattr(right, "id", None)
    return (
        isinstance(node.ops[0], ast.In)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and name == "faults"
    )


def _guard(test: ast.AST) -> ast.AST | None:
    """The fault check that gates `test`, when `test` is one or an `and` holding one."""
    if _is_fault_check(test):
        return test
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return next((v for v in test.values if _is_fault_check(v)), None)
    return None


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def fault_only_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Source ranges that run, or matter, only when a seeded fault is switched on."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        # `x = a and "name" in faults`: x is False in a clean run whatever `a` is
        gated = isinstance(node, ast.Assign) and isinstance(node.value, ast.BoolOp)
        if gated and (check := _guard(node.value)) is not None:
            spans += [_span(v) for v in node.value.values if v is not check]
        if isinstance(node, ast.If | ast.IfExp) and (check := _guard(node.test)):
            body = node.body if isinstance(node, ast.If) else [node.body]
            spans += [_span(stmt) for stmt in body]
            if isinstance(node.test, ast.BoolOp):
                spans += [_span(v) for v in node.test.values if v is not check]
    return spans


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Type annotations: never evaluated under `from __future__ import annotations`."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            spans.append(_span(node.annotation))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            spans.append(_span(node.returns))
    return spans


def _inside(pos: tuple[int, int], end: tuple[int, int], spans) -> bool:
    return any(lo <= pos and end <= hi for lo, hi in spans)


def enumerate_mutants(target: Target, excluded: set[str], copy: Path) -> list[Mutant]:
    """Every cosmic-ray mutation of the target's functions (in `copy`, the source the workers
    mutate), fault-only, annotation and excluded ones marked."""
    module = copy / target.module
    source = module.read_text(encoding="utf-8")
    lines = source.splitlines()
    spans = fault_only_spans(source)
    annotations = annotation_spans(source)
    lazy_annotations = "from __future__ import annotations" in source
    mutants = []
    os.chdir(copy)  # cosmic-ray names modules by the path it was given
    for item in _all_work_items([Path(target.module)], {}):
        spec = item.mutations[0]
        if (spec.definition_name or "<module>") not in target.definitions:
            continue
        (line, col), end = tuple(spec.start_pos), tuple(spec.end_pos)
        mutant = Mutant(
            target=target.name,
            module=target.module,
            definition=spec.definition_name or "<module>",
            operator=spec.operator_name,
            occurrence=spec.occurrence,
            line=line,
            col=col,
            source_line=lines[line - 1].strip(),
        )
        if _inside((line, col), end, spans):
            mutant.status = FAULT_ONLY
        elif lazy_annotations and _inside((line, col), end, annotations):
            mutant.status = ANNOTATION
        elif spec.operator_name.split("/")[-1] in excluded:
            mutant.status = EXCLUDED
        mutants.append(mutant)
    return mutants


def load_equivalents(path: Path) -> list[dict]:
    """The hand-written explanations of surviving mutants."""
    if not path.exists():
        return []
    return tomllib.loads(path.read_text(encoding="utf-8")).get("equivalent", [])


def explain(mutant: Mutant, equivalents: list[dict]) -> str:
    """The explanation that names this mutant: module, line text, the operator's name or a prefix
    of it (`ReplaceComparisonOperator_` covers every comparison swap), and the column if given."""
    for entry in equivalents:
        if (
            entry["module"] == mutant.module
            and entry["line"] == mutant.source_line
            and mutant.operator.split("/")[-1].startswith(entry["operator"])
            and entry.get("col", mutant.col) == mutant.col
        ):
            kind = entry.get("kind", "equivalent")
            return entry["why"] if kind == "equivalent" else f"{kind}: {entry['why']}"
    return ""


def is_equivalent(mutant: Mutant) -> bool:
    """A survivor explained as equivalent (not one marked `unspecified` by the rules)."""
    return bool(mutant.why) and not mutant.why.startswith("unspecified:")


def make_copies(root: Path, workers: int) -> list[Path]:
    """One private copy of the working tree (tracked and new files, not ignored) per worker."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    copies = []
    for index in range(workers):
        copy = root / f"w{index}"
        if copy.exists():
            shutil.rmtree(copy)
        for name in filter(None, files):
            rel = name.decode()
            if rel.startswith("benchmarks/mutation/report") or not (REPO / rel).is_file():
                continue
            dest = copy / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dest)
        copies.append(copy)
    return copies


def run_command(command: str, copy: Path, timeout: float) -> tuple[str, float]:
    """Run one judging command in a copy: "pass", "fail" or "timeout", and the seconds it took."""
    # No bytecode cache (a mutant of the same size written in the same second as a cached .pyc
    # would be masked by it) and, so that does not cost 2 s a run, no assertion rewriting.
    env = dict(
        os.environ,
        PYTHONPATH=str(copy),
        PYTHONDONTWRITEBYTECODE="1",
        PYTEST_ADDOPTS="--assert=plain",
    )
    env.pop("CI", None)
    command = command.replace("{python}", sys.executable)
    started = time.monotonic()
    with subprocess.Popen(
        ["bash", "-c", command],
        cwd=copy,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    ) as proc:
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            return "timeout", time.monotonic() - started
    return ("pass" if code == 0 else "fail"), time.monotonic() - started


def stages(target: Target) -> list[tuple[str, str]]:
    """The judging commands in order; a target whose first command is already exhaustive for
    its code has no second one."""
    return [(n, c) for n, c in (("quick", target.quick), ("full", target.full)) if c]


def judge(mutant: Mutant, target: Target, copy: Path, timeouts: dict[str, float]) -> None:
    """Apply the mutant in `copy`, run quick then full, restore the file."""
    operator = get_operator(mutant.operator)()
    path = copy / mutant.module
    with use_mutation(path, operator, mutant.occurrence) as (original, mutated):
        if mutated is None:
            mutant.status = NO_CHANGE
            return
        mutant.diff = "\n".join(
            difflib.unified_diff(
                original.splitlines(),
                mutated.splitlines(),
                mutant.module,
                mutant.module,
                n=0,
                lineterm="",
            )
        )
        total = 0.0
        for stage, command in stages(target):
            outcome, seconds = run_command(command, copy, timeouts[stage])
            total += seconds
            if outcome != "pass":
                mutant.status = KILLED if outcome == "fail" else TIMEOUT
                mutant.stage = stage
                break
        else:
            mutant.status = SURVIVED
            mutant.stage = stages(target)[-1][0]
        mutant.seconds = round(total, 1)


def baseline(target: Target, copy: Path) -> dict[str, float]:
    """Both commands must pass unmutated; their times set each mutant's time limit."""
    limits = {}
    for stage, command in stages(target):
        outcome, seconds = run_command(command, copy, 1800)
        if outcome != "pass":
            sys.exit(f"{target.name}: the unmutated {stage} command does not pass: {command}")
        limits[stage] = max(60.0, 3 * seconds)
        print(f"{target.name}: baseline {stage} {seconds:.1f} s", flush=True)
    return limits


def summarise(targets: list[Target]) -> dict:
    """Counts per target and overall. The mutation score is (killed + timeout) / (mutants run -
    survivors shown equivalent); the kill rate counts every survivor against the suite."""
    rows = {}
    everything: Counter = Counter()
    for target in targets:
        counts = Counter(m.status for m in target.mutants)
        everything.update(counts)
        rows[target.name] = dict(counts)
    run = everything[KILLED] + everything[TIMEOUT] + everything[SURVIVED]
    detected = everything[KILLED] + everything[TIMEOUT]
    equivalent = sum(
        1 for t in targets for m in t.mutants if m.status == SURVIVED and is_equivalent(m)
    )
    return {
        "per_target": rows,
        "overall": dict(everything),
        "run": run,
        "equivalent": equivalent,
        "kill_rate": detected / run if run else 0.0,  # survivors counted against the suite
        "score": detected / (run - equivalent) if run > equivalent else 0.0,  # the usual score
    }


def write_report(targets: list[Target], out: Path, started: float, args) -> dict:
    """report.json (every mutant) and report.md (the figures and every survivor)."""
    summary = summarise(targets)
    survivors = [m for t in targets for m in t.mutants if m.status == SURVIVED]
    unexplained = [m for m in survivors if not m.why]
    data = {
        "command": " ".join(["python", "benchmarks/mutation/run.py", *args]),
        "cosmic_ray": _version("cosmic-ray"),
        "minutes": round((time.monotonic() - started) / 60, 1),
        "summary": summary,
        "unexplained_survivors": len(unexplained),
        "mutants": [asdict(m) for t in targets for m in t.mutants],
    }
    (out / "report.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    md = [
        "# Mutation score of the certification suite",
        "",
        f"Command: `{data['command']}` (cosmic-ray {data['cosmic_ray']}, {data['minutes']} min).",
        "",
        "| target | run | killed | timeout | survived (equivalent) | kill rate | mutation score "
        "| not run: fault-only | annotation | excluded operator |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for target in targets:
        c = Counter(m.status for m in target.mutants)
        run = c[KILLED] + c[TIMEOUT] + c[SURVIVED]
        equivalent = sum(1 for m in target.mutants if m.status == SURVIVED and is_equivalent(m))
        rate = (c[KILLED] + c[TIMEOUT]) / run if run else 0
        score = (c[KILLED] + c[TIMEOUT]) / (run - equivalent) if run > equivalent else 0
        md.append(
            f"| {target.name} (`{target.module}`) | {run} | {c[KILLED]} | {c[TIMEOUT]} | "
            f"{c[SURVIVED]} ({equivalent}) | {rate:.1%} | {score:.1%} | {c[FAULT_ONLY]} | "
            f"{c[ANNOTATION]} | {c[EXCLUDED]} |"
        )
    o = summary["overall"]
    md.append(
        f"| **all** | {summary['run']} | {o.get(KILLED, 0)} | {o.get(TIMEOUT, 0)} | "
        f"{o.get(SURVIVED, 0)} ({summary['equivalent']}) | {summary['kill_rate']:.1%} | "
        f"**{summary['score']:.1%}** | {o.get(FAULT_ONLY, 0)} | {o.get(ANNOTATION, 0)} | "
        f"{o.get(EXCLUDED, 0)} |"
    )
    unjudged = sum(1 for t in targets for m in t.mutants if not m.status)
    if unjudged:
        md += ["", f"**{unjudged} mutants were not judged** (the run was stopped before them)."]
    md += [
        "",
        "Kill rate: (killed + timeout) / run. Mutation score: (killed + timeout) / (run - "
        "survivors shown equivalent below). Not run: mutants only a seeded fault can reach, "
        "mutants of type annotations (never evaluated), and identity-comparison operators (see "
        "scope.toml).",
    ]
    md += ["", f"## Survivors ({len(survivors)}, {len(unexplained)} unexplained)", ""]
    for m in survivors:
        md += [
            f"### {m.module}:{m.line} `{m.definition}` {m.operator.split('/')[-1]}",
            "",
            "```diff",
            m.diff,
            "```",
            "",
            f"Why it survives: {m.why or '**UNEXPLAINED**'}",
            "",
        ]
    (out / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    return data


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", help="only this target (repeatable)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="at most N mutants per target")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/livecert-mutation"))
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument(
        "--resume", action="store_true", help="keep the results in OUT/progress.jsonl, run the rest"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="write the report from OUT/progress.jsonl without running anything",
    )
    args = parser.parse_args(argv)
    args.out, args.workdir = args.out.resolve(), args.workdir.resolve()
    started = time.monotonic()
    targets, excluded = load_scope(HERE / "scope.toml", set(args.target or []) or None)
    equivalents = load_equivalents(HERE / "equivalent.toml")
    args.resume = args.resume or args.report_only
    copies = make_copies(args.workdir, 1 if args.report_only else args.workers)
    free: queue.Queue[Path] = queue.Queue()
    for copy in copies:
        free.put(copy)
    lock = threading.Lock()
    progress = args.out / "progress.jsonl"
    previous: dict = {}
    if args.resume and progress.exists():
        latest = {}  # the last word on each mutant (a re-run replaces an earlier line)
        for line in progress.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            latest[(_ident(row), row["line"], row["occurrence"])] = row
        previous = keyed(list(latest.values()))
    elif progress.exists():
        progress.unlink()
    for target in targets:
        target.mutants = enumerate_mutants(target, excluded, copies[0])
        for key, mutant in keyed(target.mutants).items():
            if not mutant.status and (known := previous.get(key)):
                for name in ("status", "stage", "seconds", "diff"):
                    setattr(mutant, name, known[name])
        todo = [m for m in target.mutants if not m.status]
        if args.limit:
            todo = todo[: args.limit]
            target.mutants = todo + [m for m in target.mutants if m.status]
        if not todo or args.report_only:
            print(f"{target.name}: {len(todo)} mutants left to judge", flush=True)
            continue
        limits = baseline(target, copies[0])
        done = 0

        count = len(todo)

        def work(mutant: Mutant, target=target, limits=limits, total=count) -> None:
            nonlocal done
            copy = free.get()
            try:
                judge(mutant, target, copy, limits)
                mutant.why = explain(mutant, equivalents) if mutant.status == SURVIVED else ""
            finally:
                free.put(copy)
            with lock, progress.open("a", encoding="utf-8") as log:
                log.write(json.dumps(asdict(mutant)) + "\n")
                done += 1
                print(
                    f"{target.name} {done}/{total} {mutant.status:8} {mutant.stage:5} "
                    f"{mutant.seconds:6.1f}s {mutant.module}:{mutant.line} {mutant.operator}",
                    flush=True,
                )

        with ThreadPoolExecutor(args.workers) as pool:
            list(pool.map(work, todo))
    for mutant in (m for t in targets for m in t.mutants if m.status == SURVIVED):
        mutant.why = explain(mutant, equivalents)
    data = write_report(targets, args.out, started, argv if argv is not None else sys.argv[1:])
    print(json.dumps(data["summary"], indent=1))
    return 1 if data["unexplained_survivors"] else 0


if __name__ == "__main__":
    sys.exit(main())
