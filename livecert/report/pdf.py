"""certificate.pdf, printed from certificate.html by headless Chromium when it is installed."""

import shutil
import subprocess
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The first Chromium-family browser on PATH (Debian's package installs `chromium`)."""
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def chromium_args(browser: str) -> list[str]:
    """Headless, no sandbox (CI runs as root), no first-run work, and no network at all: the
    pages are self-contained, so a request outside them can only be a defect."""
    return [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-component-extensions-with-background-pages",
        "--disable-client-side-phishing-detection",
        "--disable-default-apps",
        "--disable-domain-reliability",
        "--disable-extensions",
        "--disable-sync",
        "--disable-breakpad",
        "--metrics-recording-only",
        "--no-pings",
        "--no-service-autorun",
        "--password-store=basic",
        "--use-mock-keychain",
        # PreconnectToSearch: a connection to the search engine at start-up (Chromium 150)
        "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter,"
        "CertificateTransparencyComponentUpdater,AutofillServerCommunication,PreconnectToSearch",
        # Google's own services (its accounts' ListAccounts, the search page's eligibility
        # checks) sent where nothing answers: Chromium 150 asks them at start-up otherwise
        "--gaia-url=http://127.0.0.1:9",
        "--google-base-url=http://127.0.0.1:9",
        "--proxy-server=127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
    ]


def print_pdf(page: Path, out: Path, timeout: float = 120) -> str | None:
    """Print `page` to `out`; answer None when done, else why not (no browser, an error)."""
    browser = find_chromium()
    if browser is None:
        return (
            "no Chromium on PATH (Debian: apt-get install chromium); certificate.html is complete"
        )
    command = [
        *chromium_args(browser),
        "--no-pdf-header-footer",
        f"--print-to-pdf={out}",
        page.resolve().as_uri(),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"Chromium did not finish printing within {timeout:g} s"
    if done.returncode != 0 or not out.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"Chromium could not print the PDF (exit {done.returncode}): {tail[0]}"
    return None
