"""livecert's settings: one list, command line > environment > config file > defaults; the
config file (livecert.toml, [tool.livecert] in pyproject.toml, --config) checked key by key,
credentials never read from it; `livecert config` shows every setting and where it came from,
secrets masked; every usage error exits 3, apart from the verdicts 0, 1 and 2; every command's
help names each option's environment variable."""

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import certify

from livecert.cli import main
from livecert.cli.options import CERTIFY_SETTINGS
from livecert.cli.parser import build_parser
from livecert.settings import (
    SETTINGS,
    SettingsError,
    find_config,
    load_config,
    resolve,
)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No LIVECERT_* variable of the machine running the tests leaks into a resolution."""
    for name in list(os.environ):
        if name.startswith("LIVECERT_"):
            monkeypatch.delenv(name)
    return monkeypatch


def _config(folder: Path, text: str, name: str = "livecert.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_command_line_wins_over_the_environment_over_the_file_over_the_default(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    config = load_config(_config(tmp_path, 'game = "sicbo"\ntimeout = 12\nrules = "variant-150"\n'))
    clean_env.setenv("LIVECERT_GAME", "xocdia")
    clean_env.setenv("LIVECERT_TARGET_TIMEOUT", "7")
    given = argparse.Namespace(game="all")
    names = ("game", "timeout", "rules", "request_deadline")
    resolved = resolve(names, given, config)
    assert [(n, resolved[n].value, resolved[n].source) for n in names] == [
        ("game", "all", "command line"),
        ("timeout", 7.0, "environment (LIVECERT_TARGET_TIMEOUT)"),
        ("rules", "variant-150", f"file ({tmp_path / 'livecert.toml'})"),
        ("request_deadline", 30.0, "default"),
    ]
    # a command's own default (the doctor waits 10 s) stands where nothing else is set
    clean_env.delenv("LIVECERT_TARGET_TIMEOUT")
    doctor = resolve(("timeout",), argparse.Namespace(), load_config(None), {"timeout": 10.0})
    assert doctor["timeout"].value == 10.0


def test_the_config_file_is_found_named_or_in_pyproject(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    assert find_config(None, tmp_path) is None
    _config(tmp_path, '[project]\nname = "x"\n', "pyproject.toml")
    assert find_config(None, tmp_path) is None  # a pyproject.toml without [tool.livecert]
    pyproject = _config(
        tmp_path,
        '[tool.livecert]\ngame = "xocdia"\n[tool.livecert.lab]\nlab = "L"\n',
        "pyproject.toml",
    )
    assert find_config(None, tmp_path) == pyproject
    config = load_config(pyproject)
    assert (config.values, config.lab) == ({"game": "xocdia"}, {"lab": "L"})
    own = _config(tmp_path, 'game = "sicbo"\n')
    assert find_config(None, tmp_path) == own  # livecert.toml first
    other = _config(tmp_path, 'game = "all"\n', "lab.toml")
    assert find_config(str(other), tmp_path) == other
    clean_env.setenv("LIVECERT_CONFIG", str(other))
    assert find_config(None, tmp_path) == other
    with pytest.raises(SettingsError, match="does not exist \\(named by --config\\)"):
        find_config(str(tmp_path / "missing.toml"), tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('operator_token = "op-secret"\n', "operator_token is a credential and is not read from a"),
        ('gaem = "sicbo"\n', "unknown setting 'gaem'; the settings are target_url, adapter"),
        ('game = "baccarat"\n', "game: 'baccarat' is not one of sicbo, xocdia, all"),
        ("timeout = -1\n", "timeout: -1 is not a number of seconds above 0"),
        ('html = "maybe"\n', "html: 'maybe' is not a yes or no"),
        ('[lab]\nlaboratory = "L"\n', "[lab]: unknown field(s) laboratory; the fields are lab,"),
        ("game = \n", "is not a readable TOML file"),
        ('target_url = "http://lab:pw-in-file@x"\n', "target_url holds a password"),
        ('restart_hook = ["ssh", "pw-in-a-list"]\n', "restart_hook: must be text (the value"),
    ],
)
def test_a_config_file_that_cannot_be_used_is_named_with_what_to_fix(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(SettingsError, match=None) as raised:
        load_config(_config(tmp_path, text))
    assert message in str(raised.value)
    assert str(tmp_path / "livecert.toml") in str(raised.value)
    assert "pw-in" not in str(raised.value)  # a secret's value is never repeated


def test_a_file_s_relative_paths_are_from_its_folder(tmp_path: Path) -> None:
    lab = tmp_path / "lab"
    lab.mkdir()
    config = load_config(
        _config(
            lab,
            'adapter = "vendor.yaml"\nrules = "odds.toml"\nreport_dir = "out"\n',
        )
    )
    assert config.values["adapter"] == str(lab / "vendor.yaml")
    assert config.values["rules"] == str(lab / "odds.toml")
    assert config.values["report_dir"] == lab / "out"
    named = load_config(_config(lab, 'adapter = "canonical"\nrules = "variant-150"\n'))
    assert (named.values["adapter"], named.values["rules"]) == ("canonical", "variant-150")


def test_livecert_config_shows_each_source_and_no_secret(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    _config(tmp_path, 'game = "xocdia"\nhtml = false\n[lab]\nlab = "Example Labs"\n')
    clean_env.chdir(tmp_path)
    clean_env.setenv("LIVECERT_OPERATOR_TOKEN", "op-secret-4711")
    clean_env.setenv("LIVECERT_RESTART_HOOK", "restart --password hook-secret-99")
    clean_env.setenv("LIVECERT_TARGET_URL", "http://lab:url-secret-31@casino.test/")
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines()[3:] if line.strip()}
    assert "xocdia" in rows["game"] and f"file ({tmp_path / 'livecert.toml'})" in rows["game"]
    assert "False" in rows["html"]
    assert "(set, not shown)" in rows["operator_token"]
    assert "environment (LIVECERT_OPERATOR_TOKEN)" in rows["operator_token"]
    assert "(not set)" in rows["dealer_token"] and "default" in rows["dealer_token"]
    assert "op-secret-4711" not in out and "hook-secret-99" not in out
    assert "url-secret-31" not in out and "http://lab:****@casino.test/" in rows["target_url"]
    assert "[lab]\nlab = Example Labs" in out
    _config(tmp_path, 'dealer_token = "dl"\n')
    assert main(["config"]) == 3
    assert "set LIVECERT_DEALER_TOKEN in the environment" in capsys.readouterr().err
    for text, words in (
        ('max_answer_size = "huge"\n', "--max-answer-size (or LIVECERT_MAX_ANSWER_SIZE"),
        ('rate_limit = "fast"\n', "--rate-limit (or LIVECERT_RATE_LIMIT"),
    ):
        _config(tmp_path, text)
        assert main(["config"]) == 3  # read as certify would read it
        assert words in capsys.readouterr().err


def test_a_livecert_toml_drives_a_run(tmp_path: Path) -> None:
    """The game, the report folder and the pages from the file; the clauses from the command
    line (both apply)."""
    _config(tmp_path, 'game = "xocdia"\nreport_dir = "from-the-file"\nhtml = false\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIVECERT_")}
    done = subprocess.run(
        [sys.executable, "-m", "livecert", "certify", "--clauses", "XD-VOID-02", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path / "from-the-file"
    assert (folder / "certificate.json").is_file()
    assert not (folder / "certificate.html").exists()  # html = false
    status, certificate, _ = certify(tmp_path / "again", "--no-html", "--clauses", "XD-VOID-02")
    assert status == 0
    assert certificate["scope"]["games"] == ["sicbo", "xocdia"]  # no file there: the default


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]


def test_every_command_and_option_has_help_naming_its_variable() -> None:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert set(helps) == {
        "certify",
        "serve",
        "doctor",
        "selftest",
        "report",
        "replay",
        "validate",
        "compare",
        "sign",
        "verify",
        "config",
        "load",
        "outcomes",
    }
    assert all(helps.values()), helps
    for name, command in sub.choices.items():
        if name == "serve":
            continue  # its own parser (livecert/reference/serve.py), checked below
        assert command.description, name
        for action in _options(command):
            assert action.help and len(action.help) > 20, (name, action.option_strings)
            setting = SETTINGS.get(getattr(action, "setting", ""))
            if setting is not None and setting.env:
                assert f"env {setting.env}" in action.help, (name, action.option_strings)
        # every setting of certify is an option backed by it (its env named in its help)
        backed = {getattr(a, "setting", None) for a in _options(command)}
        if name == "certify":
            assert set(CERTIFY_SETTINGS) <= backed
    from livecert.reference.serve import build_parser as serve_parser

    for action in _options(serve_parser()):
        assert action.help, action.option_strings


@pytest.mark.parametrize(
    "argv",
    [
        ["certify", "--game", "bogus"],
        ["certify", "--no-such-option"],
        ["doctor", "--timeout", "soon"],
        ["selftest", "--workers", "0"],
        ["certify", "--processes", "0"],
        ["certify", "--processes", "3", "--workers", "2"],  # more processes than tables
        ["frobnicate"],
        [],
    ],
)
def test_every_usage_error_exits_3_not_a_verdict(
    argv: list[str], capsys: pytest.CaptureFixture, clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_env.chdir(tmp_path)
    assert main(argv) == 3
    captured = capsys.readouterr()
    assert captured.err.strip() or captured.out.strip()


def test_an_unknown_option_is_said_with_its_commands_usage(
    capsys: pytest.CaptureFixture, clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_env.chdir(tmp_path)
    assert main(["certify", "--bogus"]) == 3
    said = capsys.readouterr().err
    assert said.startswith("usage: livecert certify ")
    assert "livecert certify: error: unrecognized arguments: --bogus" in said


def test_certify_help_groups_its_options() -> None:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    groups = {g.title: g for g in sub.choices["certify"]._action_groups}
    expected = {
        "the target": "--target-url",
        "bounds": "--request-deadline",
        "what runs": "--clauses",
        "the report": "--report-dir",
        "the embedded reference": "--reference-fault",
        "outcome histories": "--history",
    }
    for title, option in expected.items():
        assert option in {o for a in groups[title]._group_actions for o in a.option_strings}
    ungrouped = [a.option_strings for a in groups["options"]._group_actions]
    assert ungrouped == [["-h", "--help"], ["--config"]], ungrouped


def test_a_ca_bundle_that_is_not_there_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture, clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_env.chdir(tmp_path)
    assert main(["doctor", "--target-url", "https://127.0.0.1:9", "--ca-bundle", "lab.pem"]) == 3
    assert "--ca-bundle (or LIVECERT_CA_BUNDLE" in capsys.readouterr().err
    assert "LIVECERT_CA_BUNDLE" not in os.environ


def test_python_m_livecert_and_the_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "livecert", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "livecert 0.1.0")


def test_the_report_tools_are_installed_in_advance_or_named(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """A lab without network: `livecert report --install-tools` says where the generator is;
    LIVECERT_ALLURE names one already installed (here a stand-in file)."""
    allure = tmp_path / "allure"
    allure.write_text("#!/bin/sh\n", encoding="utf-8")
    clean_env.setenv("LIVECERT_ALLURE", str(allure))
    assert main(["report", "--install-tools"]) == 0
    assert f"the Allure report generator is ready: {allure}" in capsys.readouterr().out
    clean_env.setenv("LIVECERT_ALLURE", str(tmp_path / "missing"))
    assert main(["report", "--install-tools"]) == 1
    assert "LIVECERT_ALLURE=" in capsys.readouterr().err
    assert main(["report"]) == 3  # neither a folder nor --install-tools
