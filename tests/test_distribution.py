"""livecert installed like any tool: the sdist and the wheel built from the checkout carry
everything a run needs (the features, steps, fixtures, the contract, the catalogue, the
profiles, the report templates, the pinned Allure lock); the wheel, installed into a fresh
virtualenv outside the checkout, certifies Xoc Dia from an empty folder, its doctor works, and
the scenarios run under `pytest --pyargs` as a vendor's own pytest session would run them.

uv builds and installs (seconds where pip takes a minute, from the same registry); the
virtualenv is made outside the repository and shares nothing with the one running the tests.
"""

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UV = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))


def _run(argv: list[str], cwd: Path, timeout: float = 300, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("LIVECERT_")}
    # the installed copy alone: nothing of the checkout on the path
    environment.pop("PYTHONPATH", None)
    done = subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**environment, **env},
    )
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def test_every_package_of_the_tree_is_listed_for_the_distribution() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = setuptools["package-dir"]
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "livecert").rglob("__init__.py")
    }
    on_disk |= {
        name for name, folder in mapped.items() if (ROOT / folder / "__init__.py").is_file()
    }
    assert sorted(setuptools["packages"]) == sorted(on_disk)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, and the wheel built from it (so the sdist is proven complete too)."""
    out = tmp_path_factory.mktemp("dist")
    _run([UV, "build", "--out-dir", str(out), str(ROOT)], ROOT)
    return out


@pytest.fixture(scope="module")
def installed(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv outside the checkout with the wheel installed; its bin folder."""
    venv = tmp_path_factory.mktemp("venv") / "livecert"
    _run([UV, "venv", "--python", sys.executable, str(venv)], venv.parent)
    [wheel] = built.glob("livecert-*.whl")
    _run([UV, "pip", "install", "--python", str(venv / "bin" / "python"), str(wheel)], venv.parent)
    return venv / "bin"


def test_the_wheel_carries_the_suite_and_its_data(built: Path) -> None:
    [wheel] = built.glob("livecert-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "livecert/suite/features/test_certification.py",
        "livecert/suite/features/conftest.py",
        "livecert/suite/features/pytest.ini",
        "livecert/suite/features/sicbo/sweep.feature",
        "livecert/suite/features/xocdia/voids.feature",
        "livecert/suite/features/table/bad_input.feature",
        "livecert/suite/steps/common.py",
        "livecert/suite/fixtures/evidence.py",
        "livecert/suite/plugin.py",
        "livecert/contract/openapi.yaml",
        "livecert/rules/catalogue/RULES.md",
        "livecert/rules/profiles/variant-150.toml",
        "livecert/rules/sicbo.toml",
        "livecert/report/templates/certificate.html.j2",
        "livecert/report/allure/package-lock.json",
    ):
        assert name in names, name
    features = sorted(p.relative_to(ROOT) for p in (ROOT / "features").glob("*/*.feature"))
    packed = sorted(
        n for n in names if n.startswith("livecert/suite/features/") and n.endswith(".feature")
    )
    assert len(packed) == len(features)
    # no top-level `steps` or `fixtures` package to collide with another distribution's
    assert not [n for n in names if n.split("/")[0] in ("steps", "fixtures", "features")]
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[pytest11]\nlivecert.suite.plugin = livecert.suite.plugin" in text
    sdists = list(built.glob("livecert-*.tar.gz"))
    assert len(sdists) == 1


def test_the_installed_wheel_certifies_xoc_dia_from_an_empty_folder(
    installed: Path, tmp_path: Path
) -> None:
    """From a folder that is empty but for a `livecert/` of its own (a clone's, say): the run
    and its embedded reference import the installed livecert, never the folder's."""
    (tmp_path / "livecert").mkdir()
    (tmp_path / "livecert" / "__init__.py").write_text('raise ImportError("the folder\'s")\n')
    output = _run(
        [str(installed / "livecert"), "certify", "--game", "xocdia", "--no-html"], tmp_path
    )
    [folder] = [p for p in (tmp_path / "reports").iterdir() if p.name != "latest"]
    assert "the folder's" not in output
    certificate = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
    untested = {
        c
        for c, row in certificate["clauses"].items()
        if row["in_scope"] and row["status"] != "passed"
    }
    assert certificate["verdict"] == "compliant", (untested, output[-3000:])
    assert (tmp_path / "reports" / "latest").is_symlink()


def test_the_installed_doctor_and_python_m_livecert(installed: Path, tmp_path: Path) -> None:
    output = _run([str(installed / "livecert"), "doctor"], tmp_path)
    assert "checking the embedded reference server" in output
    version = _run([str(installed / "python"), "-m", "livecert", "--version"], tmp_path)
    assert version.strip() == "livecert 0.1.0"


def test_pytest_pyargs_runs_the_scenarios_from_an_empty_folder(
    installed: Path, tmp_path: Path
) -> None:
    """A vendor's own pytest session: markers select, JUnit is written as usual."""
    output = _run(
        [str(installed / "python"), "-m", "pytest", "--pyargs", "livecert.suite.features",
         "-m", "xocdia and (XD-PAY-09 or XD-VOID-02)", "--junitxml=junit.xml", "-q"],
        tmp_path,
    )  # fmt: skip
    assert " passed" in output and "failed" not in output, output[-3000:]
    assert (tmp_path / "junit.xml").is_file()


def test_the_plugin_is_inert_in_another_pytest_session(installed: Path, tmp_path: Path) -> None:
    """A vendor's own tests in the same virtualenv: livecert's options are known, and nothing
    else of the suite runs (no fixture, no preflight, no run record); a LIVECERT_* variable
    that would be a usage error in a certification is not even read."""
    (tmp_path / "test_own.py").write_text(
        "def test_own(request):\n"
        "    assert request.config.getoption('--target-url') is None\n"
        "    assert 'scene' not in request.fixturenames\n",
        encoding="utf-8",
    )
    output = _run(
        [str(installed / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        tmp_path,
        LIVECERT_TARGET_TIMEOUT="soon",
        LIVECERT_RESTART_TIMEOUT="0",
    )
    assert "1 passed" in output, output
    plugins = _run(
        [str(installed / "python"), "-m", "pytest", "--trace-config", "-q", "--co"], tmp_path
    )
    assert "livecert.suite.plugin" in plugins
    assert "livecert.suite.fixtures" not in plugins and "livecert.suite.steps" not in plugins


def test_the_plugin_module_registers_options_and_nothing_else() -> None:
    tree = ast.parse((ROOT / "livecert" / "suite" / "plugin.py").read_text(encoding="utf-8"))
    hooks = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert hooks == ["pytest_addoption"]
