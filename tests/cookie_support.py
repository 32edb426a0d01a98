"""Start the example cookie casino (examples/cookie_casino) for a test, with its own database."""

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml
from cli_support import certify_mapping

ROOT = Path(__file__).resolve().parent.parent
COOKIE_MAPPING = ROOT / "examples" / "cookie_casino" / "mapping.yaml"


@contextmanager
def cookie_casino(*faults: str) -> Iterator[tuple[str, dict]]:
    """(base URL, environment naming its database and Python) of a running casino; stopped
    after. The casino announces the port it bound (port 0), so no two runs race for one."""
    with tempfile.TemporaryDirectory(prefix="cookie-casino-") as folder:
        db = Path(folder) / "casino.sqlite3"
        command = [sys.executable, "-m", "examples.cookie_casino", "--db", str(db), "--port", "0"]
        for fault in faults:
            command += ["--fault", fault]
        server = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        try:
            line = server.stdout.readline() if server.stdout else ""
            if "listening on " not in line:
                raise RuntimeError(f"the cookie casino did not start: {line!r}")
            url = line.split("listening on ", 1)[1].strip()
            env = {
                **os.environ,
                "COOKIE_CASINO_DB": str(db),
                "COOKIE_CASINO_PYTHON": sys.executable,
            }
            yield url, env
        finally:
            server.terminate()
            server.wait(timeout=10)


def accounts_mapping(folder: Path) -> Path:
    """The casino's mapping for a lab given accounts instead of the admin command: players are
    the accounts COOKIE_ACCOUNTS lists (user:password), logged in, their balances read."""
    data = yaml.safe_load(COOKIE_MAPPING.read_text(encoding="utf-8"))
    data["accounts"] = {"env": "COOKIE_ACCOUNTS", "logins_at_once": 4}
    login = data["operations"]["create_player"]
    login.pop("before")
    login["request"]["form"] = {"user": "${account.user}", "password": "${account.password}"}
    path = folder / "accounts.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def from_balance_mapping(folder: Path, batch: bool = False) -> Path:
    """The casino's mapping as if its answers said nothing of the bets: each round's one bet
    settled by the balance's change around it (settlement: from-balance); with `batch` a slip
    is still one request (a slip of several bets is then played only where its settlement is
    not read: one that must be refused)."""
    data = yaml.safe_load(COOKIE_MAPPING.read_text(encoding="utf-8"))
    data["declares"]["capabilities"] = ["instant-round", *(["batch-bets"] if batch else [])]
    data["shapes"]["round"].pop("bets")
    data["operations"]["play_round"]["settlement"] = "from-balance"
    path = folder / "from-balance.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def provision_accounts(env: dict, count: int, balance: str) -> str:
    """`count` accounts made with the casino's admin command, as COOKIE_ACCOUNTS lists them."""
    made = []
    admin = [env["COOKIE_CASINO_PYTHON"], "-m", "examples.cookie_casino.admin"]
    for _ in range(count):
        done = subprocess.run(
            [*admin, "--db", env["COOKIE_CASINO_DB"], "create", "--balance", balance],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        account = json.loads(done.stdout)
        made.append(f"{account['user']}:{account['password']}")
    return ",".join(made)


def certify_cookie_casino(
    folder: Path, url: str, env: dict, *args: str, mapping: Path = COOKIE_MAPPING
) -> tuple[int, dict, str]:
    return certify_mapping(folder, mapping, url, env, *args)


if __name__ == "__main__":  # the whole suite against the clean casino, both games
    with cookie_casino() as (url, env):
        status, certificate, output = certify_cookie_casino(
            Path(tempfile.mkdtemp(prefix="cookie-casino-report-")), url, env, "--game", "all"
        )
    print(output[-2500:])
    failed = [c for c, row in certificate["clauses"].items() if row["status"] == "failed"]
    print(json.dumps({"verdict": certificate["verdict"], "failed": failed}))
    sys.exit(1 if failed or certificate["harness_errors"] else 0)
