"""`python -m livecert`, the same as the `livecert` command."""

import sys

from livecert.cli import main

sys.exit(main())
