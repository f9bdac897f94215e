"""``run_gui(args)``: open the window (called by ``workbench.cli.main`` with ``gui_parser`` args).

``workbench [WORKSPACE]`` opens the folder (default: the current directory; with no argument and
no skills found, the bundled demo). ``--screenshot PNG`` renders the window offscreen once the
scan finished (``--view`` picks the tab, ``--size WxH`` the window size), writes the PNG and
returns 0; it never reads or writes the user's settings file and starts no file watcher.

Decisions (spec silent):
* ``--client`` and ``--context-tokens`` override the remembered settings; since argparse cannot
  tell an explicit ``--client claude-code`` from the default, the remembered client wins unless
  a different one is given (``--screenshot`` always uses the argument, for reproducible images).
* In screenshot mode, when nothing is selected, the first listed skill is selected so the
  details, listing highlight and explain panes show something real.

Errors are seen: ``run_gui`` configures logging (stderr, level from ``WORKBENCH_LOG_LEVEL``,
default WARNING; the modules of ``workbench`` log through ``logging.getLogger(__name__)``) and
installs ``errorhook`` (``sys.excepthook`` + ``threading.excepthook``): an uncaught exception is
logged and shown in a dialog with the traceback, and the app goes on.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from workbench.options import UsageError, client_ids, environment_from_args

if TYPE_CHECKING:
    from workbench.core.parsepool import ParsePool

log = logging.getLogger(__name__)


def configure_logging(environ: dict[str, str] | None = None) -> int:
    """Send ``workbench`` log records to stderr at ``WORKBENCH_LOG_LEVEL`` (default WARNING).

    Returns the level used. An unknown level name falls back to WARNING (and says so). Adds one
    handler to the ``workbench`` logger only (never the root logger), once.
    """
    env = os.environ if environ is None else environ
    name = (env.get("WORKBENCH_LOG_LEVEL") or "WARNING").upper()
    level = logging.getLevelName(name)
    bad = not isinstance(level, int)
    if bad:
        level = logging.WARNING
    logger = logging.getLogger("workbench")
    logger.setLevel(level)
    if not any(getattr(h, "_workbench", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("workbench: %(levelname)s %(name)s: %(message)s"))
        handler._workbench = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    if bad:
        log.warning("WORKBENCH_LOG_LEVEL=%s is not a level name; using WARNING", name)
    return int(level)


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x", 1))
    except ValueError:
        raise UsageError(f"--size {text!r}: expected WIDTHxHEIGHT, e.g. 1400x900") from None
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise UsageError(f"--size {text!r}: width and height must be between 200 and 10000")
    return w, h


def start_parse_pool(args: Any, env: Any) -> ParsePool | None:
    """Fork the window's parse processes now (``core.parsepool.ParsePool.start``), before Qt
    and any thread; they walk a WORKSPACE argument and parse its SKILL.md files at once (none
    without one: the current folder may be anything). None when processes cannot be used here.
    First the window process's allocator is set (``memory.fix_mmap_threshold``: its peak RSS)."""
    from workbench.app.memory import fix_mmap_threshold
    from workbench.core.parsepool import ParsePool

    fix_mmap_threshold()

    named = getattr(args, "workspace", None) is not None
    return ParsePool.start(speculate=env.workspace if named else None)


def build_window(
    args: Any,
    *,
    persist_settings: bool = True,
    watch: bool | None = None,
    env=None,
    parse_pool: ParsePool | None = None,
):
    """Create (settings, context, window) from parsed gui args, start the scan; no event loop.

    ``parse_pool`` (``start_parse_pool``): the first scan parses in it, then it is shut down.
    Raises UsageError for bad options (missing workspace, bad --client). Needs a QApplication.
    """
    from workbench.app.context import AppContext
    from workbench.app.main_window import MainWindow
    from workbench.app.settings import Settings

    allow_demo = getattr(args, "workspace", None) is None
    client_ids(args, allow_all=False)  # validates --client (UsageError)
    env = env if env is not None else environment_from_args(args)
    settings = Settings(persist=persist_settings)
    screenshot = getattr(args, "screenshot", None) is not None
    client = args.client if (screenshot or args.client != "claude-code") else None
    ctx = AppContext(
        settings,
        env,
        client_id=client,
        context_tokens=args.context_tokens,
        allow_demo=allow_demo,
        watch=watch,
        parse_pool=parse_pool,
    )
    ctx.workspace_mode = getattr(args, "workspace_mode", None) or "auto"  # --as
    ctx.rescan()  # start scanning first: the window is built while the worker scans
    win = MainWindow(ctx)
    return settings, ctx, win


def _select_something(ctx) -> None:
    from workbench.app.emptystate import select_first_skill

    if ctx.selected_path is None:
        select_first_skill(ctx)


def take_screenshot(win, path: Path, view: str | None, timeout_ms: int = 120_000) -> None:
    """Wait for the scan, show ``view``, render the window and write ``path`` (PNG, atomic)."""
    from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice

    from workbench.core.safefile import atomic_write

    win.settle(timeout_ms)
    _select_something(win.ctx)
    if view:
        win.show_tab(view)
    win.settle(timeout_ms)
    if view:
        win.settle_tab(view)
    for _ in range(5):
        QCoreApplication.processEvents()
    pm = win.grab()
    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    pm.save(buf, "PNG")
    buf.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, bytes(ba.data()))


def run_gui(args: Any) -> int:
    """Open the window; return the process exit code (0 ok, 2 usage error via UsageError)."""
    screenshot: Path | None = getattr(args, "screenshot", None)
    size = _parse_size(getattr(args, "size", None) or "1400x900")
    client_ids(args, allow_all=False)  # bad options fail before Qt starts (no display needed)
    env = environment_from_args(args)
    pool = start_parse_pool(args, env)  # before Qt is imported: the only thread forks
    try:
        return _run_gui(args, env, screenshot, size, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def _run_gui(
    args: Any, env: Any, screenshot: Path | None, size: tuple[int, int], pool: ParsePool | None
) -> int:
    from workbench.app.main_window import TAB_KEYS

    view = getattr(args, "view", None)
    if view is not None and view not in TAB_KEYS:
        raise UsageError(f"--view {view!r}: expected one of {', '.join(TAB_KEYS)}")
    if screenshot is not None and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if (
        sys.platform.startswith("linux")
        and not os.environ.get("QT_QPA_PLATFORM")
        and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY")
    ):
        raise UsageError(
            "no display to open the window on (DISPLAY/WAYLAND_DISPLAY unset); use "
            "--screenshot PNG, or set QT_QPA_PLATFORM=offscreen"
        )
    from workbench.core import forkrun

    # Qt starts threads that ``threading`` cannot see: no fork from here on (the parse
    # processes, ``pool``, were forked before).
    forkrun.forbid("the window runs Qt threads")
    from PySide6.QtWidgets import QApplication

    from workbench.app import _shiboken_none

    _shiboken_none.apply()  # PySide6 6.12 on Python 3.11 drops None references (see that module)
    # instance() is typed QCoreApplication; the GUI only ever creates a QApplication
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))
    app.setApplicationName("Skill Workbench")
    app.setOrganizationName("skill-workbench")
    from workbench.app import icons

    app.setWindowIcon(icons.app_icon())
    configure_logging()
    from workbench.app import errorhook

    if screenshot is not None:
        _settings, ctx, win = build_window(
            args, persist_settings=False, watch=False, env=env, parse_pool=pool
        )
        win.resize(*size)
        win.show()
        try:
            take_screenshot(win, Path(screenshot), view)
        except OSError as exc:
            print(f"workbench: {screenshot}: cannot write screenshot: {exc}", file=sys.stderr)
            return 2
        finally:
            ctx.shutdown()
            win.close()
        return 0
    _settings, ctx, win = build_window(args, env=env, parse_pool=pool)
    errorhook.install(win)
    if view:
        win.show_tab(view)
    win.show()
    try:
        return int(app.exec())
    finally:
        errorhook.uninstall()
