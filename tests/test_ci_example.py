"""The example CI workflow does what the README says: certify, keep the report, fail unless
compliant. (It cannot run here; this checks what it would run.)"""

from pathlib import Path

import yaml

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
