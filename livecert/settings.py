"""livecert's settings: one list, read from the command line, the environment, a config file and
the defaults, in that order of precedence.

The config file is `livecert.toml` in the current folder (or the file `--config` or
LIVECERT_CONFIG names), else the `[tool.livecert]` table of `./pyproject.toml`. Its keys are the
options' long names with underscores (`target_url`, `request_deadline`); its `[lab]` table holds
the lab's fields for the report; its relative paths (a mapping file, a profile, the report
folder) are from the file's folder. Credentials never come from a file: a token, or a password
in the target's URL, is refused there, pointing at the environment. `livecert config` prints
each setting, its value (a secret masked) and where it came from.

It imports nothing of the project (ARCHITECTURE.md): the command line reads it before anything
heavy is imported.
"""

import argparse
import math
import os
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CONFIG_ENV = "LIVECERT_CONFIG"
CONFIG_FILE = "livecert.toml"
LAB_TEXT_FIELDS = (
    "lab",
    "accreditation",
    "report_number",
    "client",
    "tester",
    "reviewer",
    "build_name",
    "build_version",
    "build_hash",
    "test_dates",
    "retest_of",  # the report number this run retests
    "signer",  # who will sign the report (livecert sign --signer), shown on its page
    "signing_key",  # that key's fingerprint (SHA256:..., as ssh-keygen -l shows it)
    "notes",
)
LAB_LIST_FIELDS = ("jurisdictions", "standards")  # text, or a list of texts
# arrays of tables: each names a clause, why, and who approved it
LAB_TABLE_FIELDS = {
    "waivers": ("clause", "reason", "approved_by"),
    "deviations": ("clause", "reason", "approved_by"),
}
LAB_FIELDS = (*LAB_TEXT_FIELDS, *LAB_LIST_FIELDS, *LAB_TABLE_FIELDS)

SECRET_SHOWN = "(set, not shown)"


class SettingsError(ValueError):
    """A config file or a setting's value that cannot be used: the message names what to fix."""


def _text(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{value!r} is not text")
    return str(value)


def seconds(value: object) -> float:
    """A number of seconds above 0 (from text or a TOML number)."""
    try:
        number = float(_text(value))
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{value!r} is not a number of seconds above 0")
    return number


def count(value: object) -> int:
    """A whole number above 0."""
    text = _text(value)
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{value!r} is not a whole number above 0")
    return int(text)


def workers(value: object) -> int | str:
    """`auto` (chosen from the target's round trip) or a whole number above 0."""
    if _text(value).strip().lower() == "auto":
        return "auto"
    try:
        return count(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a whole number above 0 or auto") from None


def flag(value: object) -> bool:
    """A yes/no: a TOML boolean, or 1/0, true/false, yes/no from the environment."""
    if isinstance(value, bool):
        return value
    text = _text(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{value!r} is not a yes or no (true/false, 1/0)")


def choice(*allowed: str) -> Callable[[object], str]:
    def read(value: object) -> str:
        text = _text(value)
        if text not in allowed:
            raise ValueError(f"{value!r} is not one of {', '.join(allowed)}")
        return text

    return read


@dataclass(frozen=True)
class Setting:
    """One setting: its option, its environment variable, its key in a config file, how its
    text is read, its default, and whether it is a secret (never from a file, never shown)."""

    name: str  # the argparse dest and the config file's key, e.g. "target_url"
    env: str | None
    default: Any = None
    read: Callable[[object], Any] = _text
    secret: bool = False
    in_file: bool = True

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


GAMES = ("sicbo", "xocdia", "all")
SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("target_url", "LIVECERT_TARGET_URL"),
        Setting("operator_token", "LIVECERT_OPERATOR_TOKEN", secret=True, in_file=False),
        Setting("dealer_token", "LIVECERT_DEALER_TOKEN", secret=True, in_file=False),
        Setting("adapter", "LIVECERT_ADAPTER"),
        Setting("rules", "LIVECERT_RULES"),
        Setting("game", "LIVECERT_GAME", "all", choice(*GAMES)),
        Setting("report_dir", "LIVECERT_REPORT_DIR", None, lambda v: Path(_text(v))),
        Setting("timeout", "LIVECERT_TARGET_TIMEOUT", 30.0, seconds),
        Setting("ca_bundle", "LIVECERT_CA_BUNDLE", None, _text),
        Setting("request_deadline", "LIVECERT_REQUEST_DEADLINE", 30.0, seconds),
        Setting("max_answer_size", "LIVECERT_MAX_ANSWER_SIZE", None),
        Setting("max_duration", "LIVECERT_MAX_DURATION", None, seconds),
        Setting("rate_limit", "LIVECERT_RATE_LIMIT", None),
        # the command may name a secret of the lab's (a password in a URL): never shown
        Setting("restart_hook", "LIVECERT_RESTART_HOOK", None, _text, secret=True),
        Setting("restart_timeout", "LIVECERT_RESTART_TIMEOUT", 120.0, seconds),
        Setting("clauses", "LIVECERT_CLAUSES", ""),
        Setting("sweep_only", "LIVECERT_SWEEP_ONLY", ""),
        Setting("workers", "LIVECERT_WORKERS", "auto", workers),
        Setting("processes", "LIVECERT_PROCESSES", "auto", workers),
        Setting("selftest_workers", "LIVECERT_SELFTEST_WORKERS", 2, count),
        Setting("html", "LIVECERT_HTML", True, flag),
        Setting("quiet", "LIVECERT_QUIET", False, flag),
    )
}


@dataclass
class ConfigFile:
    """The config file read, if any: where it is, its settings and its [lab] table."""

    path: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    lab: dict[str, Any] = field(default_factory=dict)


def find_config(explicit: str | None, folder: Path | None = None) -> Path | None:
    """The config file to read: the one named (by --config, else LIVECERT_CONFIG), else
    livecert.toml here, else ./pyproject.toml when it has a [tool.livecert] table."""
    named = explicit or os.environ.get(CONFIG_ENV)
    if named:
        path = Path(named)
        if not path.is_file():
            raise SettingsError(
                f"the config file {path} does not exist (named by "
                f"{'--config' if explicit else CONFIG_ENV})"
            )
        return path
    here = folder or Path.cwd()
    if (here / CONFIG_FILE).is_file():
        return here / CONFIG_FILE
    pyproject = here / "pyproject.toml"
    if pyproject.is_file() and "livecert" in _toml(pyproject).get("tool", {}):
        return pyproject
    return None


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SettingsError(f"{path} is not a readable TOML file: {error}") from None


def check_lab(lab: object, where: str) -> dict[str, Any]:
    """A [lab] table as the report uses it: known fields, text where text is meant, and each
    waiver or deviation naming its clause, why and who approved it."""
    if not isinstance(lab, dict):
        raise SettingsError(f'{where}: [lab] must be a table, e.g. lab = "Example Labs"')
    unknown = sorted(set(lab) - set(LAB_FIELDS))
    if unknown:
        raise SettingsError(
            f"{where} [lab]: unknown field(s) {', '.join(unknown)}; the fields are "
            f"{', '.join(LAB_FIELDS)}"
        )
    for key in LAB_TEXT_FIELDS:
        if key in lab and not isinstance(lab[key], str | int):
            raise SettingsError(f'{where} [lab]: {key} must be text, e.g. {key} = "..."')
    for key in LAB_LIST_FIELDS:
        value = lab.get(key, [])
        if not isinstance(value, str) and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise SettingsError(f'{where} [lab]: {key} must be a list of texts, e.g. ["GLI-19"]')
    for key, needed in LAB_TABLE_FIELDS.items():
        rows = lab.get(key, [])
        example = f'[[lab.{key}]] clause = "SB-PAY-08", reason = "...", approved_by = "..."'
        if not isinstance(rows, list):
            raise SettingsError(f"{where} [lab]: {key} must be an array of tables: {example}")
        for number, row in enumerate(rows, 1):
            missing = [k for k in needed if not isinstance(row, dict) or not str(row.get(k, ""))]
            extra = sorted(set(row) - set(needed)) if isinstance(row, dict) else []
            if missing or extra:
                what = f"needs {', '.join(missing)}" if missing else f"has no {', '.join(extra)}"
                raise SettingsError(f"{where} [lab]: {key} #{number} {what}: {example}")
    return {k: str(v) if k in LAB_TEXT_FIELDS else v for k, v in lab.items()}


def read_lab_file(path: Path) -> dict[str, Any]:
    """`--lab FILE`: a TOML file of the lab's fields, as its [lab] table or at its top level."""
    if not path.is_file():
        raise SettingsError(f"--lab: the file {path} does not exist")
    data = _toml(path)
    return check_lab(data["lab"] if set(data) == {"lab"} else data, f"--lab {path}")


def load_config(path: Path | None) -> ConfigFile:
    """Read and check a config file: every key a known setting, every value readable."""
    if path is None:
        return ConfigFile()
    data = _toml(path)
    where = str(path)
    if path.name == "pyproject.toml":
        data, where = data.get("tool", {}).get("livecert", {}), f"{path} [tool.livecert]"
    if not isinstance(data, dict):
        raise SettingsError(f"{where} is not a table of settings")
    lab = check_lab(data.pop("lab", {}), where)
    values: dict[str, Any] = {}
    for key, raw in data.items():
        setting = SETTINGS.get(key)
        if setting is None:
            known = ", ".join(s.name for s in SETTINGS.values() if s.in_file)
            raise SettingsError(f"{where}: unknown setting {key!r}; the settings are {known}")
        if not setting.in_file:
            raise SettingsError(
                f"{where}: {key} is a credential and is not read from a file (a file is copied, "
                f"committed, shown); set {setting.env} in the environment instead"
            )
        values[key] = _read(setting, raw, f"{where}: {key}")
        if key in PATH_KEYS:
            values[key] = _from_file_folder(key, values[key], path.parent)
    if url_password(values.get("target_url") or ""):
        raise SettingsError(
            f"{where}: target_url holds a password, a credential not read from a file; set "
            "LIVECERT_TARGET_URL in the environment instead"
        )
    return ConfigFile(path, values, lab)


def _read(setting: Setting, raw: object, where: str) -> Any:
    try:
        return setting.read(raw)
    except ValueError as error:
        if setting.secret:  # its value is not repeated: it may hold a secret
            raise SettingsError(f"{where}: must be text (the value is not shown)") from None
        raise SettingsError(f"{where}: {error}") from None


def url_password(url: str) -> str | None:
    """The password a URL holds (http://user:password@host), if any."""
    try:
        return urlsplit(url).password
    except ValueError:
        return None


def shown_url(url: str) -> str:
    """A URL with its password, if any, replaced by `****`."""
    password = url_password(url)
    return url.replace(f":{password}@", ":****@", 1) if password else url


PATH_KEYS = ("adapter", "rules", "report_dir")  # a file's relative paths: from the file's folder


def _from_file_folder(key: str, value: Any, folder: Path) -> Any:
    """A path the file gives, relative to the file's folder (a mapping file beside it, say);
    an adapter or a profile given by name (canonical, variant-150) stays a name."""
    if key == "report_dir":
        return value if value.is_absolute() else folder / value
    if key in ("adapter", "rules") and str(value).endswith((".yaml", ".yml", ".toml")):
        path = Path(value)
        return str(path if path.is_absolute() else folder / path)
    return value


@dataclass(frozen=True)
class Resolved:
    """A setting's effective value and where it came from."""

    value: Any
    source: str  # "command line", "environment (NAME)", "file (PATH)" or "default"


def resolve(
    names: Iterable[str],
    given: argparse.Namespace,
    config: ConfigFile,
    defaults: dict[str, Any] | None = None,
) -> dict[str, Resolved]:
    """Each named setting's value by precedence: the command line (an option given: not None
    in `given`) > the environment > the config file > the default (`defaults` overrides the
    list's, for a command whose default differs)."""
    out: dict[str, Resolved] = {}
    for name in names:
        setting = SETTINGS[name]
        from_line = getattr(given, name, None)
        env_text = os.environ.get(setting.env) if setting.env else None
        if from_line is not None:
            if isinstance(from_line, str):  # the option's text, read as the setting's values
                from_line = _read(setting, from_line, setting.option)
            out[name] = Resolved(from_line, "command line")
        elif env_text not in (None, ""):
            where = f"environment ({setting.env})"
            out[name] = Resolved(_read(setting, env_text, where), where)
        elif name in config.values:
            out[name] = Resolved(config.values[name], f"file ({config.path})")
        else:
            default = (defaults or {}).get(name, setting.default)
            out[name] = Resolved(default, "default")
    return out


def apply(args: argparse.Namespace, resolved: dict[str, Resolved]) -> None:
    """Set each resolved value on the parsed arguments, where the command reads it."""
    for name, item in resolved.items():
        setattr(args, name, item.value)


def describe(resolved: dict[str, Resolved], config: ConfigFile) -> list[str]:
    """`livecert config`'s lines: every setting, its value (a secret masked) and its source,
    then the [lab] fields."""
    where = str(config.path) if config.path else f"none ({CONFIG_FILE} not found here)"
    rows = []
    for name, item in resolved.items():
        setting = SETTINGS[name]
        if item.value in (None, ""):
            shown = "(not set)"
        elif setting.secret:
            shown = SECRET_SHOWN
        elif isinstance(item.value, float):
            shown = f"{item.value:g}"
        elif name == "target_url":
            shown = shown_url(str(item.value))
        else:
            shown = str(item.value)
        rows.append((name, shown, item.source, setting.env or "-"))
    header = ("setting", "value", "from", "environment variable")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = [f"config file: {where}", ""]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
        lines.append("  ".join([*cells, row[3]]))
    if config.lab:
        lines += ["", "[lab]"]
        lines += [f"{key} = {value}" for key, value in config.lab.items()]
    return lines
