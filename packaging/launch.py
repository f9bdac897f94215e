"""Entry script for the frozen (PyInstaller) build: the same as the `workbench` command."""

from workbench.cli import console_main

if __name__ == "__main__":
    console_main()
