"""The example CI workflow does what the README says: certify, keep the report, fail unless
compliant. (It cannot run here; this checks what it would run.)"""

import subprocess
from pathlib import Path

import yaml

from livecert.certify.report_folder import previous_report
from livecert.certify.runner import EXIT_CODES

WORKFLOW = Path(__file__).resolve().parent.parent / "examples" / "ci" / "github-actions.yml"


def steps() -> list[dict]:
    [job] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"].values()
    return job["steps"]


def test_the_certify_step_fails_the_job_unless_compliant() -> None:
    [step] = [s for s in steps() if "livecert certify" in s.get("run", "")]
    command = step["run"]
    assert "--target-url" not in command  # the URL and tokens come from secrets via the env
    assert set(step["env"]) == {
        "LIVECERT_TARGET_URL",
        "LIVECERT_OPERATOR_TOKEN",
        "LIVECERT_DEALER_TOKEN",
    }
    assert "|| true" not in command and not step.get("continue-on-error")
    assert EXIT_CODES == {"compliant": 0, "non-compliant": 1, "incomplete": 2}


def test_the_report_is_kept_whatever_the_verdict() -> None:
    certify = next(s["run"] for s in steps() if "livecert certify" in s.get("run", ""))
    folder = certify.split("--report-dir", 1)[1].split()[0]
    [upload] = [s for s in steps() if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["if"] == "always()"
    assert upload["with"]["path"].rstrip("/") == folder


def test_the_previous_runs_history_is_restored_where_certify_looks_and_kept_after(
    tmp_path: Path,
) -> None:
    """The workflow's own shell steps, run here: the cache's history becomes the `latest` run
    beside the report folder (Allure's trends), and this run's history is kept for the next."""
    by_name = {s.get("name", ""): s for s in steps()}
    [restore] = [s for s in steps() if s.get("uses", "").startswith("actions/cache/restore")]
    [save] = [s for s in steps() if s.get("uses", "").startswith("actions/cache/save")]
    assert restore["with"]["path"] == save["with"]["path"] == "reports/previous/allure-history"
    assert save["if"] == "always()"
    certify = next(s["run"] for s in steps() if "livecert certify" in s.get("run", ""))
    folder = tmp_path / certify.split("--report-dir", 1)[1].split()[0]
    subprocess.run(["bash", "-c", by_name["Show certify the previous run"]["run"]], cwd=tmp_path,
                   check=True)  # fmt: skip
    assert previous_report(folder) == (tmp_path / "reports" / "previous").resolve()
    (folder / "allure-history").mkdir(parents=True)
    (folder / "allure-history" / "history.json").write_text("{}")
    keep = by_name["Keep this run's Allure history for the next run"]["run"]
    subprocess.run(["bash", "-c", keep], cwd=tmp_path, check=True)
    assert (tmp_path / save["with"]["path"] / "history.json").read_text() == "{}"
