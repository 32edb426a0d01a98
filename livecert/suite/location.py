"""Where the installed suite's features are, for `livecert certify` (which runs them in a pytest
subprocess and never imports the suite)."""

from importlib.resources import files
from pathlib import Path


def features_dir() -> Path:
    """The folder of the feature files and of the module that binds them to pytest, in the
    checkout (editable install) or in the installed package alike."""
    return Path(str(files("livecert.suite.features")))
