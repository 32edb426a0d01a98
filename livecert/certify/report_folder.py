"""The report folder of a run: made with the run's time, pointed at by `latest`, searched for
the run's secrets, and the files pytest writes there shown visibly."""

from datetime import UTC, datetime
from pathlib import Path
from xml.etree import ElementTree

from livecert.adapters.secrets import SECRETS, leaks, mask_files
from livecert.target_text import LINES, visible


def new_report_dir(base: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = base / stamp
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = base / f"{stamp}-{suffix}"
    folder.mkdir(parents=True)
    return folder


def point_latest(folder: Path) -> None:
    latest = folder.parent / "latest"
    if latest.is_symlink() or latest.exists():
        if not latest.is_symlink():
            return  # someone's own folder called latest: leave it alone
        latest.unlink()
    latest.symlink_to(folder.name, target_is_directory=True)


def guard_folder(folder: Path) -> list[str]:
    """The files of `folder` holding a secret the run knows, each masked where it is ('file:
    $NAME' for each); nothing when the folder is clean."""
    known = SECRETS.values()
    found = leaks(folder, known)
    if found:
        mask_files(folder, sorted({line.rsplit(": ", 1)[0] for line in found}))
    return found


def show_junit_visibly(path: Path) -> None:
    """pytest's junit-scenarios.xml with the target's words shown visibly: pytest already
    writes the characters XML forbids as `#x1B`; the ones it allows but a viewer obeys (a bidi
    override, C1 controls) are written as escapes here too."""
    if not path.is_file():
        return
    try:
        tree = ElementTree.parse(path)
    except ElementTree.ParseError:
        return  # not pytest's file: leave it as it is
    changed = False
    for element in tree.iter():
        for name, value in element.attrib.items():
            if (shown := visible(value, LINES)) != value:
                element.set(name, shown)
                changed = True
        for part in ("text", "tail"):
            value = getattr(element, part)
            if value and (shown := visible(value, LINES)) != value:
                setattr(element, part, shown)
                changed = True
    if changed:
        tree.write(path, encoding="utf-8", xml_declaration=True)


def previous_report(folder: Path) -> Path | None:
    """The run `latest` points at beside `folder` (for Allure's history), if another run."""
    latest = folder.parent / "latest"
    if latest.is_dir() and latest.resolve() != folder.resolve():
        return latest.resolve()
    return None


def install_report_tools() -> tuple[str | None, Path]:
    """Install the pinned Allure generator now (what a lab without network does in advance):
    what went wrong, if anything, and where the `allure` command is."""
    from livecert.report.allure_report import generator_path, install_generator

    return install_generator(), generator_path()
