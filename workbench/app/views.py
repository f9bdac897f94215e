"""The window's tab keys, without Qt: ``workbench --screenshot PNG --view TAB`` lists and checks them
in the command line (``workbench.cli.gui_parser``) before any Qt import."""

#: Tab keys of the right-hand tab widget, in tab order (``MainWindow.show_tab``).
TAB_KEYS = ("listing", "explain", "shadowing", "editor", "chat", "evals", "workshop", "capture")
