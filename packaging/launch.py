"""Entry script for the frozen (PyInstaller) build: the same as the `workbench` command."""

import sys

from workbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
