"""`python -m livecert.reference` runs the same command as `livecert serve`."""

import sys

from livecert.reference.serve import main

if __name__ == "__main__":
    sys.exit(main())
