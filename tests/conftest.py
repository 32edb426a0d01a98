"""Self-tests of livecert. tests/ is put on sys.path so the hand-computed tables import plainly."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
