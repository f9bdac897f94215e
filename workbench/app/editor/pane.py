"""``EditorPane``: one SKILL.md in an editor with live lint, preview, safe save and recovery.

Hosted as a tab by the main window. Self-contained: it needs no app context; everything it uses
can be injected (lint function, recovery store, conflict prompt, watcher).

Flow of an edit (style.md §7.7-7.11):
  keystroke -> ``contentsChange`` -> generation += 1, (re)start the lint timer (``LINT_DELAY_MS``)
  and the recovery timer (``RECOVERY_DELAY_MS``) -> lint timer fires: token += 1, the buffer is
  linted off the GUI thread (``jobs.BufferJobs``, on the app's runner) -> the result comes back
  on the GUI thread and is shown only if its token is the newest one **and** the buffer has not
  changed since the request (otherwise a newer request is pending anyway). Shown diagnostics are
  pinned as QTextCursors.

What is linted: the text as it would be saved (BOM + the file's line endings), so diagnostics
about BOMs and CRLF match the file on disk. ``buffer_changed`` carries that same text.

Saving and external changes: see ``saving.py`` (atomic, hash-checked writes; a changed disk file
is never overwritten silently). Lint and recovery writes run off the GUI thread.

Encodings: see ``document.py`` (the buffer holds "\\n"; BOM and line endings restored on save).
Parts: ``jobs`` (lint/preview off the GUI thread), ``autosave`` (recovery copies), ``disk``
(watching and writing the file), ``chrome`` (banner, status line, shortcuts).
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from workbench.app.editor.autosave import RecoveryWriter, crashed_entries
from workbench.app.editor.chrome import Banner, install_actions, status_text
from workbench.app.editor.codeeditor import CodeEditor
from workbench.app.editor.conflict import ask_conflict
from workbench.app.editor.disk import FileWatch
from workbench.app.editor.document import ask_read_only, decode_file, saved_form
from workbench.app.editor.findbar import FindReplaceBar
from workbench.app.editor.highlighter import SkillHighlighter
from workbench.app.editor.jobs import BufferJobs, LintFn
from workbench.app.editor.lintbridge import run_lint
from workbench.app.editor.preview import SkillPreview
from workbench.app.editor.problems import ProblemsList
from workbench.app.editor.saving import SavingMixin
from workbench.app.emptystate import EmptyState
from workbench.core.recovery import RecoveryEntry, RecoveryStore, recovery_key
from workbench.core.safefile import sha256_of

log = logging.getLogger(__name__)

ConflictPrompt = Callable[[Any, str, str, "str | None"], str]


def _default_lint(text: str, path: Any, profile: str) -> list:
    return run_lint(text, path=path, profile=profile)


class EditorPane(SavingMixin, QWidget):
    """Editor for one SKILL.md: highlighting, diagnostics, quick fixes, preview, safe save.

    Args:
        parent: the hosting widget.
        profile_provider: ``callable() -> str | None``, the lint profile (client id) to use;
            asked at every lint request. None -> "agentskills".
        watcher: a shared ``workbench.core.watch.RootWatcher``; when it does not cover the opened
            file the pane starts its own (non-recursive, on the file's folder).
        lint_function: ``fn(text, path, profile) -> list[Diagnostic]`` (tests inject slow or fixed
            linters); default: ``lintbridge.run_lint`` (``workbench.core.lint.lint_text``).
        recovery_store: where recovery files go (default ``RecoveryStore()`` in state_dir).
        conflict_prompt: ``fn(parent, path, mine, theirs_or_None) -> "reload"|"keep-mine"|"cancel"``
            (default: ``conflict.ask_conflict``, a modal dialog).
        read_only_prompt: ``fn(parent, path) -> bool``: overwrite a read-only file? (default: a
            modal question; the file keeps its read-only mode).

    Signals:
        buffer_changed(str, str): path, text as it would be saved; debounced like the lint.
        saved(str): path, after a successful write.
        diagnostics_changed(str, int, int): path, errors, warnings of the shown diagnostics.
        file_reloaded(str): path, after the buffer was replaced by the disk version.
        lint_applied(int): token of a lint result that was shown (tests, status).
        preview_updated(int): token of a preview render that was shown.

    Attributes:
        editor (CodeEditor), preview (SkillPreview), problems (ProblemsList),
        find_bar (FindReplaceBar), banner (QLabel), status (QLabel),
        applied_tokens / dropped_tokens: lint tokens shown / discarded as stale.
    """

    buffer_changed = Signal(str, str)
    saved = Signal(str)
    diagnostics_changed = Signal(str, int, int)
    file_reloaded = Signal(str)
    lint_applied = Signal(int)
    preview_updated = Signal(int)

    LINT_DELAY_MS = 150
    PREVIEW_DELAY_MS = 400
    RECOVERY_DELAY_MS = 1000

    _instances: weakref.WeakSet[EditorPane] = weakref.WeakSet()

    def __init__(
        self,
        parent: QWidget | None = None,
        profile_provider: Callable[[], str | None] | None = None,
        watcher: Any = None,
        *,
        lint_function: LintFn | None = None,
        recovery_store: RecoveryStore | None = None,
        conflict_prompt: ConflictPrompt | None = None,
        read_only_prompt: Callable[[QWidget, str], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        EditorPane._instances.add(self)
        self.profile_provider = profile_provider
        self.lint_function: LintFn = lint_function or _default_lint
        self.conflict_prompt: ConflictPrompt = conflict_prompt or ask_conflict
        self.read_only_prompt = read_only_prompt or ask_read_only
        self._allow_read_only = False
        self.recovery = RecoveryWriter(recovery_store, self)
        self.jobs = BufferJobs(self)
        self.disk = FileWatch(watcher, self)

        self._path: str | None = None
        self._disk_sha: str = ""  # "" = the file must not exist (new / deleted)
        self._has_bom = False
        self._newline = "\n"
        self._read_only_reason = ""
        self._generation = 0
        self._token = 0
        self._token_generation: dict[int, int] = {}
        self._prompting = False
        self._recheck = False
        self._declined_sha = ""  # disk version the user already answered "Cancel" to
        self._shut_down = False
        self.applied_tokens: list[int] = []
        self.dropped_tokens: list[int] = []

        # widgets
        self.editor = CodeEditor(self)
        self.highlighter = SkillHighlighter(self.editor.document())
        self.preview = SkillPreview(self)
        self.problems = ProblemsList(self.editor.diagnostics, self)
        self.find_bar = FindReplaceBar(self.editor, self)
        self.banner = Banner(self)
        self.status = QLabel(self)
        self.h_split = QSplitter(Qt.Orientation.Horizontal, self)
        self.h_split.addWidget(self.editor)
        self.h_split.addWidget(self.preview)
        self.h_split.setStretchFactor(0, 3)
        self.h_split.setStretchFactor(1, 2)
        self.v_split = QSplitter(Qt.Orientation.Vertical, self)
        self.v_split.addWidget(self.h_split)
        self.v_split.addWidget(self.problems)
        self.v_split.setStretchFactor(0, 4)
        self.v_split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.banner)
        lay.addWidget(self.find_bar)
        lay.addWidget(self.v_split, 1)
        lay.addWidget(self.status)

        # timers
        self._lint_timer = QTimer(self)
        self._lint_timer.setSingleShot(True)
        self._lint_timer.setInterval(self.LINT_DELAY_MS)
        self._lint_timer.timeout.connect(self.lint_now)
        self._recovery_timer = QTimer(self)
        self._recovery_timer.setSingleShot(True)
        self._recovery_timer.setInterval(self.RECOVERY_DELAY_MS)
        self._recovery_timer.timeout.connect(self.write_recovery_now)
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(self.PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.render_preview_now)
        self._preview_token = 0
        self._last_html = ""

        # actions (shortcuts active while focus is inside the pane)
        self.actions_table = install_actions(
            self,
            {
                "save": self.save,
                "find": lambda: self.find_bar.open_find(False),
                "replace": lambda: self.find_bar.open_find(True),
                "toggle-preview": lambda: self.set_preview_visible(self.preview.isHidden()),
            },
        )
        self.actions_table["quick-fix"] = self.editor.quick_fix_action

        doc = self.editor.document()
        doc.contentsChange.connect(self._on_contents_change)
        doc.modificationChanged.connect(self._on_modification_changed)
        self.editor.cursorPositionChanged.connect(self._update_status)
        self.editor.bom_removal_requested.connect(self._remove_bom)
        self.problems.activated_item.connect(self.editor.jump_to)
        self.disk.changed.connect(self._on_disk_changed)
        self.jobs.linted.connect(self._on_lint_done)
        self.jobs.rendered.connect(self._on_preview_done)
        self.recovery.failed.connect(self._on_recovery_failed)
        self.empty_states = [
            EmptyState(
                self.editor,
                "No file open. Select a skill in the tree to edit its SKILL.md, or open one from disk.",
                [("Open SKILL.md…", self._open_dialog)],
                is_empty=lambda: self._path is None,
            ),
            EmptyState(
                self.problems,
                "No problems: the linter found nothing in this file.",
                [("Lint again", self.lint_now)],
                is_empty=lambda: self._path is not None and self.problems.topLevelItemCount() == 0,
            ),
        ]
        self._update_status()

    def _open_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        path, _filter = QFileDialog.getOpenFileName(
            self, "Open SKILL.md", "", "SKILL.md (SKILL.md);;All files (*)"
        )
        if path:
            self.open_file(path)

    # ---------------------------------------------------------------- public API
    @property
    def path(self) -> str | None:
        """Absolute path of the open file (None before ``open_file``)."""
        return self._path

    @property
    def has_bom(self) -> bool:
        return self._has_bom

    @property
    def newline(self) -> str:
        return self._newline

    @property
    def read_only_reason(self) -> str:
        """Why the buffer is read-only ("" when editable)."""
        return self._read_only_reason

    def text(self) -> str:
        """The buffer ("\\n" line endings, no BOM)."""
        return self.editor.buffer_text()

    def has_unsaved_changes(self) -> bool:
        return self.editor.document().isModified()

    def open_file(self, path: str | Path) -> bool:
        """Load ``path`` into the buffer (a missing file gives an empty new buffer).

        Returns False (and shows the reason in the banner) when the file cannot be read; the
        previous buffer is then kept. Never raises for file content.
        """
        p = os.path.abspath(os.fspath(path))
        try:
            raw = Path(p).read_bytes()
            exists = True
        except FileNotFoundError:
            raw, exists = b"", False
        except OSError as exc:
            self.show_banner(f"Cannot open {p}: {exc.strerror or exc}", "error")
            return False
        text, bom, newline, problem = decode_file(raw)
        self.disk.release()
        self._path = p
        self._allow_read_only = False
        self._disk_sha = (sha256_of(Path(p)) or "") if exists else ""
        self._has_bom, self._newline = bom, newline
        self._read_only_reason = problem
        self.editor.setReadOnly(bool(problem))
        self.editor.diagnostics.clear()
        self.editor.setPlainText(text)
        self.editor.document().setModified(False)
        self.hide_banner()
        if problem:
            self.show_banner(problem, "warning")
        elif not exists:
            self.show_banner("New file: it will be created when you save.", "info")
        if not self._shut_down:
            self.disk.attach(p)
        self._update_status()
        for e in self.empty_states:
            e.refresh()
        self._lint_timer.stop()
        QTimer.singleShot(0, self, self.lint_now)
        if not self.preview.isHidden():  # a new file is shown at once, not after the debounce
            QTimer.singleShot(0, self, self.render_preview_now)
        return True

    def close_buffer(self, discard: bool = False) -> bool:
        """Close the file. With unsaved changes and not ``discard``: refuse (False).

        Closing removes the recovery file (the user chose to drop the changes) and stops the
        pane's background work. A crash — or dropping the pane without calling this — keeps the
        recovery file, which is the point.
        """
        if self.has_unsaved_changes() and not discard:
            return False
        self._recovery_timer.stop()
        if self._path is not None:
            self._submit_recovery(None)
        self.shutdown()
        self._path = None
        return True

    def maybe_close(self) -> bool:
        """Never vetoes here: the main window asks about unsaved changes itself
        (``MainWindow.resolve_unsaved``: save, discard or cancel)."""
        return True

    def shutdown(self) -> None:
        """Stop timers, watchers and workers; wait for them (call before deleting the pane)."""
        if self._shut_down:
            return
        self._shut_down = True
        self._lint_timer.stop()
        self._recovery_timer.stop()
        self._preview_timer.stop()
        self.disk.release()
        self.jobs.wait(10_000)
        self.flush_recovery()

    # -- recovery -------------------------------------------------------------------------
    @property
    def recovery_store(self) -> RecoveryStore:
        return self.recovery.store

    def write_recovery_now(self) -> None:
        """Queue a recovery write of the buffer (if modified) on the serial recovery lane."""
        if self._path is None or not self.has_unsaved_changes():
            return
        self._submit_recovery(self.text())

    def _submit_recovery(self, text: str | None) -> None:
        if self._path is None:
            return
        if text is None:
            self.recovery.remove(self._path)
        else:
            self.recovery.write(self._path, text, self._disk_sha, self._has_bom, self._newline)

    def _on_recovery_failed(self, message: str) -> None:
        if not self._shut_down:
            self.show_banner(message, "warning")

    def flush_recovery(self, timeout: float = 10.0) -> None:
        """Wait until queued recovery writes/removals are on disk (tests, shutdown)."""
        self.recovery.flush(timeout)

    @classmethod
    def recoverable(cls, store: RecoveryStore | None = None) -> list[RecoveryEntry]:
        """Recovery entries left by a crash: not held by a live pane here, nor by another
        running instance (its pid is alive). Malformed entries are included (``error`` set)."""
        live = {
            recovery_key(pane._path)
            for pane in list(cls._instances)
            if shiboken6.isValid(pane) and not pane._shut_down and pane._path
        }
        return crashed_entries(store or RecoveryStore(), live)

    def restore(self, entry: RecoveryEntry) -> bool:
        """Load a recovery entry into this pane (opening its file first). True on success.

        The buffer becomes "modified". If the disk file changed since the crashed session
        opened it, the next save asks (conflict prompt) instead of overwriting.
        """
        if not entry.ok or not entry.path:
            return False
        if self._path != os.path.abspath(entry.path) and not self.open_file(entry.path):
            return False
        if self._read_only_reason:
            return False
        self.editor.replace_all_text(entry.text)
        self._has_bom, self._newline = entry.has_bom, entry.newline
        if entry.base_sha256 != self._disk_sha:
            self._disk_sha = entry.base_sha256
            self.show_banner(
                "Restored unsaved changes. The file on disk changed since; saving "
                "will ask before overwriting it.",
                "warning",
            )
        else:
            self.show_banner("Restored unsaved changes from the last session.", "info")
        self.editor.document().setModified(True)
        self._update_status()
        return True

    # -- lint -------------------------------------------------------------------------
    def profile(self) -> str:
        if self.profile_provider is not None:
            try:
                prof = self.profile_provider()
            except Exception as exc:  # noqa: BLE001 - the default profile is used; said in the log
                log.warning("profile provider failed; linting with agentskills", exc_info=exc)
                prof = None
            if prof:
                return str(prof)
        return "agentskills"

    def lint_now(self) -> int:
        """Start a lint of the current buffer now (bypassing the debounce); returns its token."""
        self._lint_timer.stop()
        if self._shut_down:
            return self._token
        text = saved_form(self.text(), self._has_bom, self._newline)
        self._token += 1
        token = self._token
        self._token_generation[token] = self._generation
        path = Path(self._path) if self._path else None
        self.jobs.lint(token, self.lint_function, text, path, self.profile())
        if self._path is not None:
            self.buffer_changed.emit(self._path, text)
        # isHidden, not isVisible: a pane built before its tab is shown (the window's lazy tabs)
        # is not visible yet, and its first preview used to stay blank (issue 13 item 6).
        if not self.preview.isHidden():
            self._preview_timer.start()
        return token

    def wait_idle(self, timeout_ms: int = 10_000) -> bool:
        """Block until running lint/preview jobs finished (their results are still queued)."""
        return self.jobs.wait(timeout_ms)

    def _on_lint_done(self, token: int, diags: list) -> None:
        gen = self._token_generation.pop(token, None)
        if token != self._token or gen != self._generation or self._shut_down:
            self.dropped_tokens.append(token)  # stale: a newer request exists or is pending
            return
        self.editor.diagnostics.set_diagnostics(diags)
        self.applied_tokens.append(token)
        e, w, _i = self.editor.diagnostics.counts()
        self.diagnostics_changed.emit(self._path or "", e, w)
        self.lint_applied.emit(token)
        self._update_status()

    # -- edits ------------------------------------------------------------------------
    def _on_contents_change(self, _pos: int, removed: int, added: int) -> None:
        if not removed and not added:
            return  # a format-only change (highlighter)
        self._generation += 1
        if not self._shut_down:
            self._lint_timer.start()
            # started on every edit: the document is marked modified only after the first edit's
            # contentsChange, and ``write_recovery_now`` checks it when the timer fires
            self._recovery_timer.start()

    def _on_modification_changed(self, modified: bool) -> None:
        if modified and self._path is not None and not self._shut_down:
            self._recovery_timer.start()  # a paste / quick fix / replace-all as the first edit
        elif not modified and self._path is not None:
            self._recovery_timer.stop()
            self._submit_recovery(None)
        self._update_status()

    def _remove_bom(self) -> None:
        self._has_bom = False
        self.editor.document().setModified(True)
        self._generation += 1
        self._lint_timer.start()
        self._update_status()

    # -- watching ---------------------------------------------------------------------
    def _on_disk_changed(self) -> None:
        if self._path is not None and not self._shut_down:
            self.check_disk()

    # -- preview ----------------------------------------------------------------------
    def render_preview_now(self) -> int:
        """Render the preview of the current buffer in the background; returns its token.

        Like lint results, only the newest render is shown (older ones are dropped)."""
        self._preview_timer.stop()
        if self._shut_down:
            return self._preview_token
        self._preview_token += 1
        # render_html (markdown-it + YAML: pure Python, ~70 ms on 500 lines) runs off the GUI
        # thread; only QTextBrowser.setHtml runs on it
        text = saved_form(self.text(), self._has_bom, self._newline)
        self.jobs.render(self._preview_token, text)
        return self._preview_token

    def _on_preview_done(self, token: int, page: str) -> None:
        if token != self._preview_token or self._shut_down or page == self._last_html:
            return
        self._last_html = page
        self.preview.set_html(page, Path(self._path).parent if self._path else None)
        self.preview_updated.emit(token)

    # -- chrome -----------------------------------------------------------------------
    def set_preview_visible(self, visible: bool) -> None:
        self.preview.setVisible(visible)
        if visible:
            self._last_html = ""  # shown again: render and signal even when the text is unchanged
            self.render_preview_now()

    def show_banner(self, text: str, level: str = "info") -> None:
        """Show ``text`` in the banner ("error" | "warning" | "info")."""
        self.banner.show_message(text, level)

    def hide_banner(self) -> None:
        self.banner.clear_message()

    def _update_status(self) -> None:
        cur = self.editor.textCursor()
        self.status.setText(
            status_text(
                cur.blockNumber() + 1,
                cur.positionInBlock() + 1,
                self.editor.diagnostics.counts(),
                has_bom=self._has_bom,
                newline=self._newline,
                modified=self.has_unsaved_changes(),
                read_only=bool(self._read_only_reason),
            )
        )

    # Override QWidget::closeEvent
    def closeEvent(self, event) -> None:  # noqa: N802
        self.shutdown()
        super().closeEvent(event)
