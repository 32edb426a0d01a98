"""The doctor's answer: one line per check (ok, warn or FAIL) with what to do."""

from dataclasses import dataclass, field

from livecert.adapters.secrets import SECRETS
from livecert.target_text import terminal_lines

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass
class Check:
    """One line of the doctor's answer: what was checked, how it went, what to do."""

    status: str
    what: str
    advice: str = ""


@dataclass
class Diagnosis:
    checks: list[Check] = field(default_factory=list)

    def add(self, status: str, what: str, advice: str = "") -> None:
        self.checks.append(Check(status, what, advice))

    @property
    def healthy(self) -> bool:
        return all(c.status != FAIL for c in self.checks)

    def lines(self) -> list[str]:
        out = []
        for check in self.checks:
            out.append(f"[{check.status:>4}] {check.what}")
            if check.advice:
                out.append(f"       -> {check.advice}")
        verdict = "ready to certify" if self.healthy else "fix the FAIL lines before certifying"
        # an answer quoted in a line may hold a token or a session: shown by its name
        return [SECRETS.mask(line) or "" for line in out] + ["", f"livecert doctor: {verdict}"]

    def text(self) -> str:
        """The lines for the terminal: the target's words in them (its name, its messages)
        shown visibly, each line one line."""
        return terminal_lines(self.lines())
