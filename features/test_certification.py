"""Binds the feature files to pytest: one test per scenario (and per Examples row).

`livecert certify` names in LIVECERT_FEATURE_FILES the files that hold a scenario its selection
can pick (their tags include a selected game and, for a `--clauses` run, a selected clause), so
that a run of a few clauses does not parse every file; the `-m` selection still decides which
scenarios run. Without it every file is bound. Either way the folders are bound in the same
order, each folder's features sorted by name (pytest-bdd's order), so that the sweep still plays
before the return-to-player scenarios that reuse its rounds.
"""

import os
from pathlib import Path

from pytest_bdd import scenarios

HERE = Path(__file__).resolve().parent  # absolute: a session's bdd_features_base_dir is not ours
FOLDERS = ("sicbo", "xocdia", "table")
_NAMED = [Path(p) for p in os.environ.get("LIVECERT_FEATURE_FILES", "").split(os.pathsep) if p]

for _folder in FOLDERS:
    if not _NAMED:
        scenarios(str(HERE / _folder))
        continue
    _files = [str(path) for path in _NAMED if path.parent.name == _folder]
    if _files:
        scenarios(*_files)
