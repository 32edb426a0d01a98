"""What `livecert certify` prints at the end of a run: the verdict in words, the target, the
clause counts, the failed clauses, the sweeps and where the report folder is. Built from the
certificate alone, so `livecert report` and a test can print it for any report folder."""

from pathlib import Path

from livecert.adapters.registry import is_canonical


def _statement(certificate: dict) -> str:
    return certificate.get("verdict_statement") or certificate["verdict"]


def target_words(certificate: dict) -> str:
    """The target as it named itself, or what it answered when it never did, and where."""
    target = certificate["target"]
    where = target.get("url") or certificate["run"].get("target_url")
    if "name" in target:
        return f"{target['name']} {target.get('version', '')} at {where}"
    return f"{target.get('preflight', 'never asked')} (at {where})"


def summary_lines(certificate: dict, folder: Path) -> list[str]:
    """What certify prints at the end: the verdict, the clause counts, where the report is."""
    statuses = certificate["clauses"]
    in_scope = certificate["scope"]["clauses_in_scope"]
    count = {
        s: sum(1 for c in in_scope if statuses.get(c, {}).get("status") == s)
        for s in ("passed", "failed", "not-tested", "not-applicable")
    }
    lines = [
        "",
        f"livecert {certificate['harness']['version']} — verdict: "
        f"{_statement(certificate).upper()}",
        f"  target: {target_words(certificate)}",
        f"  clauses in scope: {len(in_scope)} — passed {count['passed']}, failed "
        f"{count['failed']}, not tested {count['not-tested']}"
        + (f", not applicable {count['not-applicable']}" if count["not-applicable"] else ""),
    ]
    adapter = certificate["target"].get("adapter") or {}
    if not is_canonical(adapter.get("kind")):
        source = (
            f" ({adapter['source']}, sha256 {adapter['sha256']})" if adapter.get("sha256") else ""
        )
        lines.insert(3, f"  adapter: {adapter['kind']} {adapter['name']}{source}")
    profile = certificate["scope"].get("rules_profile") or {}
    if isinstance(profile, dict) and profile.get("name", "documents") != "documents":
        lines.insert(3, f"  rules profile: {profile['name']} (sha256 {profile.get('sha256')})")
    for clause in in_scope:
        row = statuses.get(clause, {})
        if row.get("status") == "failed":
            first = row["failed_scenarios"][0] if row["failed_scenarios"] else ""
            lines.append(
                f"  FAILED {clause}: {len(row['failed_scenarios'])} scenario(s), e.g. {first}"
            )
    lines += validation_lines(certificate)
    for game, sweep in certificate["sweep"].items():
        lines.append(
            f"  sweep {game}: {sweep['outcomes_played']}/{sweep['outcomes_possible']} "
            f"outcomes x {sweep['selections']} selections, "
            f"{sweep['settlements_checked']} settlements checked, "
            f"{sweep['mismatches']} mismatches"
        )
    latency = certificate.get("latency")
    if latency and latency.get("requests"):
        slowest = max(latency["by_operation"].items(), key=lambda item: item[1]["p95_ms"] or 0)
        lines.append(
            f"  requests: {latency['requests']:,} to the target in "
            f"{certificate['run'].get('duration_seconds', '?')} s; median "
            f"{latency['median_ms']} ms, p95 {latency['p95_ms']} ms; slowest operation "
            f"{slowest[0]} (p95 {slowest[1]['p95_ms']} ms)"
        )
        workers = certificate["run"].get("workers")
        if workers and workers["tables_in_play"] > 1:
            lines.append(
                f"  workers: {workers['tables_in_play']} tables in play, "
                f"{workers['processes']} process(es) of {workers['tables_per_process']} "
                f"({workers['why']})"
            )
        if latency.get("throttled"):
            lines.append(
                f"  {latency['throttled']:,} answer(s) 429 (too many requests): a read or a "
                "keyed write with a Retry-After was sent again after it, any other ended the "
                "run; --rate-limit keeps a run under the server's limit"
            )
    for reason in certificate["verdict_reasons"]:
        first, _, more = reason.partition("\n")  # a mapping file's problems, listed above
        count = len(more.split("\n"))
        lines.append(
            f"  {first} ({count} more line(s) in certificate.json)" if more else f"  {first}"
        )
    lines.append(f"  report: {folder}/")
    for name, what in (
        ("certificate.html", "the certificate, printable"),
        ("certificate.pdf", "the same, as PDF"),
        ("allure-report.html", "the Allure report, opens offline"),
        ("certificate.json", "the certificate as data"),
        ("junit.xml", "JUnit XML for CI, a case per clause"),
        ("manifest.json", "sha256 of every file; manifest.sha256 holds its own hash"),
    ):
        if (folder / name).exists():
            lines.append(f"    {name:<19} {what}")
    lines += [f"  {message}" for message in certificate.get("published", [])]
    return lines


def validation_lines(certificate: dict) -> list[str]:
    """The method validation in brief: the mutants' outcomes, the clauses not shown."""
    validation = certificate.get("validation")
    if not validation:
        return []
    outcomes = ", ".join(f"{o} {n}" for o, n in validation["outcomes"].items() if n)
    lines = [f"  validation: {validation['mutants']} mutants ({outcomes or 'none run'}), "
             f"{validation['seconds']} s, runs in {validation['folder']}"]  # fmt: skip
    for clause in validation["not_shown"]:
        lines.append(f"  SENSITIVITY NOT SHOWN {clause}: "
                     f"{validation['clauses'][clause]['sensitivity']}")  # fmt: skip
    return lines
