"""The fairness battery over a table's outcome history (REG-FAIR-01, REG-FAIR-02): the history
read and checked, the lab's tests at 99% with Holm's correction, and the power statement.

The battery's statistics (numpy, scipy.stats: about a second to import) are imported when
`analyse` or `as_text` is first used, not with the package: every `livecert certify` reads the
history module's errors, and only a run given a history analyses one.
"""

from typing import TYPE_CHECKING, Any

from livecert.fairness.history import History, HistoryError, build_history, read_history_file

if TYPE_CHECKING:  # what a type checker reads; at run time, __getattr__ below
    from livecert.fairness.analysis import analyse, as_text

__all__ = ["History", "HistoryError", "analyse", "as_text", "build_history", "read_history_file"]

_ANALYSIS = {"analyse", "as_text"}


def __getattr__(name: str) -> Any:
    """`analyse` and `as_text`, imported with the statistics the first time one is asked for."""
    if name in _ANALYSIS:
        from livecert.fairness import analysis

        return getattr(analysis, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
