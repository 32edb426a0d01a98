"""The Allure HTML report, built from the run's results by Allure's own generator.

The generator is Allure 2's commandline (`allure-commandline` on the npm registry, runs on Java),
pinned in `livecert/report/allure/package.json` and its lock file. When it is not installed yet
and Node and Java are present, it is installed on first use into livecert's cache folder
(`LIVECERT_CACHE_DIR`, else `$XDG_CACHE_HOME/livecert`, else `~/.cache/livecert`). Allure 2
embeds Google Analytics in its page unless `ALLURE_NO_ANALYTICS=true`; it is always set here, so
the report makes no request outside its own files.

One build: `allure-report.html`, one file that opens offline by a double click (one file for a
lab to keep and hash). Allure 2's generator cannot derive one output from another, and a second
build was half of a run's report time, so the multi-file report is not built; the run's history
(the trends) is taken out of the single file into `allure-history/`, which the next run beside
it feeds to the generator.
"""

import base64
import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from livecert.target_text import properties_value, visible_data

ALLURE_VERSION = "2.46.1"
SINGLE_FILE = "allure-report.html"
HISTORY_FOLDER = "allure-history"  # the trends, for the next run beside this one
OLD_REPORT_FOLDER = "allure-report"  # where earlier runs kept it (allure-report/history)
RESULTS_FOLDER = "allure-results"
RESULTS_ZIP = "allure-results.zip"  # the results once the HTML is built (pack_results)
# how the single file holds each of its files: d('history/history.json','<base64>')
_EMBEDDED_HISTORY = re.compile(r"d\('history/([\w.-]+\.json)','([A-Za-z0-9+/=]*)'\)")
NO_ANALYTICS = {"ALLURE_NO_ANALYTICS": "true"}

CATEGORIES = [
    {
        "name": "Target error",
        "description": "The target was down, answered 5xx or not JSON, or timed out.",
        "messageRegex": r"(?s).*(target error|TargetError|unreachable|timed out|not JSON).*",
        "matchedStatuses": ["failed", "broken"],
    },
]
# the line a failed scenario's Allure message ends with: livecert.suite.fixtures.allure_labels
# writes it (the report may not import the suite: the same words there, a test keeps them equal)
JUDGED_LINE = "Judged failed: "


def categories_for(certificate: dict) -> list[dict]:
    """One category per clause the certificate failed (a rule's, or the contract's), holding the
    scenarios whose failure was judged on it (not those whose messages happen to name it),
    then the target's errors."""
    per_clause = [
        {
            "name": f"{clause} {row['text']}",
            "description": (
                f"RULES.md line {row['catalogue_line']}: {row['text']}"
                if row.get("catalogue_line")
                else f"The certification contract: {row['text']}"
            ),
            "messageRegex": rf"(?s).*{JUDGED_LINE}[^\n]*\b{re.escape(clause)}\b.*",
            "matchedStatuses": ["failed"],
        }
        for clause, row in certificate["clauses"].items()
        if row["status"] == "failed"
    ]
    return [*per_clause, *CATEGORIES]


@dataclass(frozen=True)
class AllureOutcome:
    """What became of the HTML: the files built, or why not and how to build them."""

    built: list[Path]
    message: str


def cache_dir() -> Path:
    if explicit := os.environ.get("LIVECERT_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "livecert"


def generator_dir() -> Path:
    return cache_dir() / f"allure-{ALLURE_VERSION}"


ALLURE_ENV = "LIVECERT_ALLURE"  # an Allure 2 commandline already installed (an offline lab's)


def generator_path() -> Path:
    """The `allure` command: the one LIVECERT_ALLURE names (a path, or a command on PATH), else
    the pinned one in the cache."""
    if named := os.environ.get(ALLURE_ENV):
        return Path(shutil.which(named) or named)
    return generator_dir() / "node_modules" / "allure-commandline" / "dist" / "bin" / "allure"


def _pinned_files() -> list[tuple[str, str]]:
    folder = resources.files("livecert.report").joinpath("allure")
    return [
        (name, folder.joinpath(name).read_text("utf-8"))
        for name in ("package.json", "package-lock.json")
    ]


def install_generator(say=print) -> str | None:
    """Install the pinned generator into the cache (once; a lock keeps parallel runs from racing).
    Answer None when it is there, else what is missing and how to build the HTML."""
    if generator_path().exists():
        return None
    if named := os.environ.get(ALLURE_ENV):
        return f"{ALLURE_ENV}={named} names no file, so the Allure HTML was not built"
    npm, java = shutil.which("npm"), shutil.which("java")
    if npm is None or java is None:
        missing = " and ".join(
            n for n, found in (("Node.js (npm)", npm), ("Java", java)) if not found
        )
        return f"{missing} not found, so the Allure HTML was not built"
    folder = generator_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if generator_path().exists():
            return None
        say(
            f"livecert: installing the Allure report generator {ALLURE_VERSION} "
            f"into {folder} (once)"
        )
        for name, text in _pinned_files():
            (folder / name).write_text(text, encoding="utf-8")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0 or not generator_path().exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            return f"npm could not install allure-commandline {ALLURE_VERSION}: {tail[0]}"
    return None


def how_to_build(folder: Path) -> str:
    return (
        "to build it, install Node.js (npm) and Java 8 or newer, then run: "
        f"livecert report {folder}"
    )


def _profile_words(profile: dict | str) -> str:
    if isinstance(profile, str):
        return profile
    sha = f" (sha256 {profile['sha256']})" if profile.get("sha256") else ""
    return f"{profile['name']}{sha}"


def _adapter_words(adapter: dict | None) -> str:
    if not adapter:
        return "canonical (the certification contract)"
    sha = f", sha256 {adapter['sha256']}" if adapter.get("sha256") else ""
    source = f" ({adapter['source']}{sha})" if adapter.get("source") else ""
    return f"{adapter['kind']} {adapter['name']}{source}"


def environment_properties(certificate: dict) -> str:
    """Allure's Environment widget: target identity, versions, rounding, document hashes."""
    target, harness = certificate["target"], certificate["harness"]
    pairs = {
        "Verdict": certificate.get("verdict_statement") or certificate["verdict"],
        "Target URL": target.get("url") or certificate["run"].get("target_url", ""),
        "Target implementation": f"{target.get('name', '?')} {target.get('version', '')}".strip()
        if "name" in target
        else target.get("preflight", "?"),
        "Harness": f"livecert {harness['version']}",
        "Contract version": harness["contract_version"],
        "Rules profile": _profile_words(certificate["scope"]["rules_profile"]),
        "Adapter": _adapter_words(target.get("adapter")),
        "Games": ", ".join(certificate["scope"]["games"]),
        "Currency": target.get("currency", "?"),
        "Minor unit (decimals)": target.get("minor_unit", "?"),
        "Rounding rule": target.get("rounding", "?"),
        "Declared maximum RTP": ", ".join(
            f"{g} {v}%" for g, v in (target.get("max_rtp") or {}).items()
        ),
        "RULES.md sha256": certificate["rules"]["catalogue"]["sha256"],
    }
    for document in certificate["rules"]["documents"]:
        pairs[f"sha256 {document['name']}"] = document["sha256"]
    if target.get("faults"):
        pairs["Seeded faults (reference)"] = ", ".join(target["faults"])
    validation = certificate.get("validation")
    if validation:  # --validate: the sensitivity of the clauses' checks on this target
        pairs["Method validation"] = validation["statement"]
        pairs["Sensitivity not shown"] = ", ".join(validation["not_shown"]) or "none"
        pairs |= {
            f"Sensitivity {clause}": row["sensitivity"]
            for clause, row in validation["clauses"].items()
        }
    escaped = {key.replace(" ", "\\ "): properties_value(value) for key, value in pairs.items()}
    return "".join(f"{key}={value}\n" for key, value in escaped.items())


def executor(certificate: dict) -> dict:
    """Allure's Executors widget: what ran the scenarios and to what verdict (the verdict shown
    there and in Environment, not as a test case of its own: it is no scenario, and would be
    counted as one)."""
    harness, target = certificate["harness"], certificate["target"]
    verdict = certificate.get("verdict_statement") or certificate["verdict"]
    name = target.get("name") or target.get("url") or certificate["run"].get("target_url", "")
    return {
        "name": "livecert",
        "type": "livecert",
        "buildName": f"livecert {harness['version']}: {verdict}",
        "reportName": f"Certification of {name}",  # Allure shows the run's date beside it
    }


def show_results_visibly(results: Path) -> None:
    """The scenarios' results as Allure shows them, the target's words in their names and
    messages shown visibly (a bidi override in a failure message would reorder it on the page);
    the attachments, the exchanges as they came, are left as they are."""
    for path in sorted([*results.glob("*-result.json"), *results.glob("*-container.json")]):
        data = json.loads(path.read_text(encoding="utf-8"))
        shown = visible_data(data)
        if shown != data:
            path.write_text(json.dumps(shown), encoding="utf-8")


def prepare_results(results: Path, certificate: dict, previous_report: Path | None) -> None:
    """Environment, categories and the previous run's history, written into the results."""
    show_results_visibly(results)
    (results / "environment.properties").write_text(
        environment_properties(certificate), encoding="utf-8"
    )
    categories = json.dumps(categories_for(certificate), indent=1)
    (results / "categories.json").write_text(categories, encoding="utf-8")
    shown = visible_data(executor(certificate))  # the target's name is the target's words
    (results / "executor.json").write_text(json.dumps(shown), encoding="utf-8")
    for history in (
        (previous_report / HISTORY_FOLDER, previous_report / OLD_REPORT_FOLDER / "history")
        if previous_report
        else ()
    ):
        if history.is_dir():
            shutil.copytree(history, results / "history", dirs_exist_ok=True)
            break


def _generate(results: Path, out: Path, single_file: bool) -> subprocess.CompletedProcess:
    command = [str(generator_path()), "generate", str(results), "-o", str(out), "--clean"]
    if single_file:
        command.insert(2, "--single-file")
    env = dict(os.environ, **NO_ANALYTICS)
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)


def build_allure(
    folder: Path, certificate: dict, previous_report: Path | None, say=print
) -> AllureOutcome:
    """Build the single-file Allure report in `folder` from `folder/allure-results`, then pack
    the results into allure-results.zip (the HTML holds them all; the zip rebuilds it)."""
    results = folder / RESULTS_FOLDER
    try:
        unpack_results(folder)  # a report built before: its results were packed
    except (ValueError, zipfile.BadZipFile) as error:
        return AllureOutcome([], f"{RESULTS_ZIP} cannot be unpacked: {error}")
    if not results.is_dir():
        return AllureOutcome([], "no Allure results in the report folder")
    prepare_results(results, certificate, previous_report)
    problem = install_generator(say)
    if problem:
        return AllureOutcome([], f"{problem}; {how_to_build(folder)}")
    with tempfile.TemporaryDirectory() as scratch:
        done = _generate(results, Path(scratch), single_file=True)
        if done.returncode != 0:
            return AllureOutcome([], f"allure generate --single-file failed: {done.stderr[-300:]}")
        shutil.move(Path(scratch) / "index.html", folder / SINGLE_FILE)
    built = [folder / SINGLE_FILE]
    if history := keep_history(folder / SINGLE_FILE, folder / HISTORY_FOLDER):
        built.append(history)
    built.append(pack_results(folder))
    return AllureOutcome(built, f"Allure HTML: {folder / SINGLE_FILE} (opens offline)")


def pack_results(folder: Path) -> Path:
    """allure-results/ as allure-results.zip (deflated), the folder removed: the single-file
    HTML already holds every result, and a report is mailed and archived whole."""
    results, packed = folder / RESULTS_FOLDER, folder / RESULTS_ZIP
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in sorted(p for p in results.rglob("*") if p.is_file()):
            archive.write(path, path.relative_to(folder).as_posix())
    shutil.rmtree(results)
    return packed


def unpack_results(folder: Path) -> None:
    """allure-results/ back from allure-results.zip (to build the pages again)."""
    packed = folder / RESULTS_ZIP
    if not packed.is_file() or (folder / RESULTS_FOLDER).is_dir():
        return
    with zipfile.ZipFile(packed) as archive:
        for member in archive.namelist():  # only the results' own files, nowhere else
            if not member.startswith(f"{RESULTS_FOLDER}/") or ".." in Path(member).parts:
                raise ValueError(f"{packed} holds {member!r}, outside {RESULTS_FOLDER}/")
        archive.extractall(folder)
    packed.unlink()


def keep_history(page: Path, into: Path) -> Path | None:
    """The history files the single page embeds (Allure's trends), written into `into` for the
    next run; None when the page holds none."""
    found = _EMBEDDED_HISTORY.findall(page.read_text(encoding="utf-8", errors="replace"))
    if not found:
        return None
    into.mkdir(exist_ok=True)
    for name, encoded in found:
        (into / name).write_bytes(base64.b64decode(encoded))
    return into
