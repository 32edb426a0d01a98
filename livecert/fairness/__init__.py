"""The fairness battery over a table's outcome history (REG-FAIR-01, REG-FAIR-02): the history
read and checked, the lab's tests at 99% with Holm's correction, and the power statement."""

from livecert.fairness.analysis import analyse, as_text
from livecert.fairness.history import History, HistoryError, build_history, read_history_file

__all__ = ["History", "HistoryError", "analyse", "as_text", "build_history", "read_history_file"]
