"""``EditorPane``: one SKILL.md in an editor with live lint, preview, safe save and recovery.

Hosted as a tab by the main window. Self-contained: it needs no app context; everything it uses
can be injected (lint function, recovery store, conflict prompt, watcher).

Flow of an edit (style.md §7.7-7.11):
  keystroke -> ``contentsChange`` -> generation += 1, (re)start the lint timer (``LINT_DELAY_MS``)
  and the recovery timer (``RECOVERY_DELAY_MS``) -> lint timer fires: token += 1, the buffer is
  linted off the GUI thread (``workers.run_in_background``, lane "editor") -> the result comes back on the GUI thread and is shown only
  if its token is the newest one **and** the buffer has not changed since the request (otherwise a
  newer request is pending anyway). Shown diagnostics are pinned as QTextCursors.

What is linted: the text as it would be saved (BOM + the file's line endings), so diagnostics
about BOMs and CRLF match the file on disk. ``buffer_changed`` carries that same text.

Saving: ``atomic_write`` (temp file, fsync, rename) with ``expected_sha256`` = the hash of the
disk file when it was opened / last saved / last reloaded; a mismatch raises ``ConflictError`` and
the user is asked (``conflict_prompt``): Reload, Keep mine (overwrite deliberately) or Cancel, with
Show diff in the dialog. Saves run on the GUI thread (a small file; the conflict prompt needs the
answer before continuing); lint and recovery writes do not.

Encodings (decisions where the brief was silent):
  * The buffer always holds "\\n"; the file's dominant line ending (as ``skillfile`` decides it) is
    restored on save. A file with mixed endings is saved with its dominant one; a lone "\\r" (old
    Mac) becomes a line break. A new file gets "\\n" and no BOM.
  * Files that are not valid UTF-8, contain NUL bytes, or exceed ``MAX_EDIT_BYTES`` open
    read-only with a banner: saving them would lose bytes.

External changes (watcher event for the open file, or a hash mismatch at save):
  * buffer unmodified -> reload silently; only the changed region of the text is replaced, so the
    caret and scroll position stay (and the reload is one undo step);
  * buffer modified -> the conflict prompt; "Keep mine" here keeps the buffer and accepts the
    disk version as the one the next save overwrites (no write happens until you save);
  * file deleted -> the buffer is kept and marked modified; saving recreates the file.
"""

from __future__ import annotations

import contextlib
import html
import logging
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QMessageBox, QSplitter, QVBoxLayout, QWidget

from workbench.app import workers
from workbench.app.editor.codeeditor import CodeEditor
from workbench.app.editor.conflict import CANCEL, KEEP_MINE, RELOAD, ask_conflict
from workbench.app.editor.findbar import FindReplaceBar
from workbench.app.editor.highlighter import SkillHighlighter
from workbench.app.editor.lintbridge import resolve_lint, run_lint
from workbench.app.editor.preview import SkillPreview, render_html
from workbench.app.editor.problems import ProblemsList
from workbench.app.emptystate import EmptyState
from workbench.app.workers import Job
from workbench.core.recovery import RecoveryEntry, RecoveryStore, recovery_key
from workbench.core.safefile import ConflictError, ReadOnlyError, atomic_write, sha256_of
from workbench.core.text import plural

log = logging.getLogger(__name__)

#: Files above this many bytes open read-only (the skillfile reader stops parsing at 1 MB).
MAX_EDIT_BYTES = 5_000_000

LintFn = Callable[[str, Any, str], list]
ConflictPrompt = Callable[[Any, str, str, "str | None"], str]

#: The runner's lanes: lint and preview jobs ("editor", two threads); recovery writes/removals
#: ("recovery", one thread, so they happen in request order).
EDITOR_LANE, RECOVERY_LANE = "editor", "recovery"


def decode_file(raw: bytes) -> tuple[str, bool, str, str]:
    """Bytes -> (buffer text with "\\n", has_bom, newline, problem). ``problem`` != "" = read-only."""
    problem = ""
    if len(raw) > MAX_EDIT_BYTES:
        problem = f"the file is {len(raw):,} bytes (over {MAX_EDIT_BYTES:,}): opened read-only"
    if b"\x00" in raw:
        problem = "the file contains NUL bytes (binary?): opened read-only"
    bom = raw.startswith(b"\xef\xbb\xbf")
    if bom:
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        text = raw.decode("utf-8", "replace")
        problem = problem or (
            f"not valid UTF-8 (first bad byte on line {line}): opened read-only "
            "so that saving cannot replace those bytes"
        )
    crlf = text.count("\r\n")
    newline = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, bom, newline, problem


def encode_text(text: str, has_bom: bool, newline: str) -> bytes:
    """Buffer text ("\\n") -> the bytes to save (BOM and line endings restored)."""
    return saved_form(text, has_bom, newline).encode("utf-8", "surrogatepass")


def _ask_read_only(parent: QWidget, path: str) -> bool:
    """Modal question: overwrite the read-only file ``path``? True = yes (default button: No)."""
    answer = QMessageBox.question(
        parent,
        "Read-only file",
        f"{path} is read-only.\n\nOverwrite it anyway? It stays read-only.",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


def saved_form(text: str, has_bom: bool, newline: str) -> str:
    """The file content as str: "\\ufeff" + text with ``newline`` line breaks."""
    if newline != "\n":
        text = text.replace("\n", newline)
    return ("\ufeff" if has_bom else "") + text


def _lint_crash(exc: BaseException) -> list:
    """The diagnostic shown when the lint function raised (never raised further)."""
    from workbench.app.editor.lintbridge import Diagnostic

    return [Diagnostic(1, 1, 1, 2, "error", "LINT-CRASH", f"lint failed: {exc}")]


def _default_lint(text: str, path: Any, profile: str) -> list:
    return run_lint(text, path=path, profile=profile)


class EditorPane(QWidget):
    """Editor for one SKILL.md: highlighting, diagnostics, quick fixes, preview, safe save.

    Args:
        parent: the hosting widget.
        profile_provider: ``callable() -> str | None``, the lint profile (client id) to use;
            asked at every lint request. None -> "agentskills".
        watcher: a shared ``workbench.core.watch.RootWatcher``; when it does not cover the opened
            file the pane starts its own (non-recursive, on the file's folder).
        lint_function: ``fn(text, path, profile) -> list[Diagnostic]`` (tests inject slow or fixed
            linters); default: ``workbench.core.lint.lint_text`` or the stand-in.
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
    _watch_batch = Signal(object)

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
        self.recovery_store = recovery_store
        self.conflict_prompt: ConflictPrompt = conflict_prompt or ask_conflict
        self.read_only_prompt = read_only_prompt or _ask_read_only
        self._allow_read_only = False
        self._shared_watcher = watcher
        self._own_watcher: Any = None
        self._unsubscribe: Callable[[], None] | None = None

        self._path: str | None = None
        self._disk_sha: str = ""  # "" = the file must not exist (new / deleted)
        self._has_bom = False
        self._newline = "\n"
        self._read_only_reason = ""
        self._generation = 0
        self._token = 0
        self._token_generation: dict[int, int] = {}
        self._jobs: dict[int, tuple[str, int]] = {}  # job token -> ("lint" | "preview", pane token)
        self._job_objects: set[Job] = set()
        self._recovery_jobs: list[Job] = []
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
        self.banner = QLabel(self)
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.hide()
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
        self.actions_table: dict[str, QAction] = {}
        for name, title, keys, slot in (
            ("save", "Save", QKeySequence.StandardKey.Save, self.save),
            ("find", "Find…", QKeySequence("Ctrl+F"), lambda: self.find_bar.open_find(False)),
            ("replace", "Replace…", QKeySequence("Ctrl+H"), lambda: self.find_bar.open_find(True)),
            (
                "toggle-preview",
                "Toggle Preview",
                QKeySequence("Ctrl+Shift+V"),
                lambda: self.set_preview_visible(self.preview.isHidden()),
            ),
        ):
            act = QAction(title, self)
            act.setShortcut(keys)
            act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            act.triggered.connect(slot)
            self.addAction(act)
            self.actions_table[name] = act
        self.actions_table["quick-fix"] = self.editor.quick_fix_action

        doc = self.editor.document()
        doc.contentsChange.connect(self._on_contents_change)
        doc.modificationChanged.connect(self._on_modification_changed)
        self.editor.cursorPositionChanged.connect(self._update_status)
        self.editor.bom_removal_requested.connect(self._remove_bom)
        self.problems.activated_item.connect(self.editor.jump_to)
        self._watch_batch.connect(self._on_watch_batch)
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
        self._release_watch()
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
        self._attach_watch()
        self._update_status()
        for e in self.empty_states:
            e.refresh()
        self._lint_timer.stop()
        QTimer.singleShot(0, self, self.lint_now)
        if not self.preview.isHidden():  # a new file is shown at once, not after the debounce
            QTimer.singleShot(0, self, self.render_preview_now)
        return True

    def save(self) -> bool:
        """Write the buffer atomically; True when written.

        A changed disk file is never overwritten silently: ``conflict_prompt`` decides (Reload ->
        the disk version replaces the buffer; Keep mine -> overwrite; Cancel -> nothing). Write
        errors are shown in the banner and return False (the buffer and the disk file stay as they
        were).
        """
        if self._path is None:
            return False
        if self._read_only_reason:
            self.show_banner(f"Not saved: {self._read_only_reason}", "warning")
            return False
        data = encode_text(self.text(), self._has_bom, self._newline)
        expected = self._disk_sha
        for _attempt in range(5):
            try:
                new_sha = self._write(data, expected)
            except ConflictError as exc:
                choice = self._ask_conflict()
                if choice == KEEP_MINE:
                    expected = exc.actual or ""
                    continue
                if choice == RELOAD:
                    self.reload_from_disk()
                return False
            except ReadOnlyError as exc:
                if self.read_only_prompt(self, str(exc.path)):
                    self._allow_read_only = True  # for this file, until another is opened
                    continue
                self.show_banner(f"Not saved: {exc.path} is read-only", "warning")
                return False
            except OSError as exc:
                self.show_banner(f"Could not save {self._path}: {exc.strerror or exc}", "error")
                return False
            self._disk_sha = new_sha
            self.editor.document().setModified(False)
            self._recovery_timer.stop()
            self._submit_recovery(None)
            self.hide_banner()
            self._update_status()
            self.saved.emit(self._path)
            return True
        return False

    def reload_from_disk(self) -> bool:
        """Replace the buffer with the disk file, keeping the caret; False if it cannot be read."""
        if self._path is None:
            return False
        try:
            raw = Path(self._path).read_bytes()
        except OSError as exc:
            self.show_banner(f"Cannot reload {self._path}: {exc.strerror or exc}", "error")
            return False
        text, bom, newline, problem = decode_file(raw)
        self._disk_sha = sha256_of(Path(self._path)) or ""
        self._has_bom, self._newline, self._read_only_reason = bom, newline, problem
        self.editor.setReadOnly(bool(problem))
        self.editor.replace_all_text(text)
        self.editor.document().setModified(False)
        self._recovery_timer.stop()
        self._submit_recovery(None)
        self.hide_banner()
        if problem:
            self.show_banner(problem, "warning")
        self._update_status()
        self.file_reloaded.emit(self._path)
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

    def shutdown(self) -> None:
        """Stop timers, watchers and workers; wait for them (call before deleting the pane)."""
        if self._shut_down:
            return
        self._shut_down = True
        self._lint_timer.stop()
        self._recovery_timer.stop()
        self._preview_timer.stop()
        self._release_watch()
        workers.wait_jobs(self._job_objects, 10_000)
        self.flush_recovery()

    # -- recovery -------------------------------------------------------------------------
    def _store(self) -> RecoveryStore:
        if self.recovery_store is None:
            self.recovery_store = RecoveryStore()
        return self.recovery_store

    def write_recovery_now(self) -> None:
        """Queue a recovery write of the buffer (if modified) on the serial recovery worker."""
        if self._path is None or not self.has_unsaved_changes():
            return
        self._submit_recovery(self.text())

    def _submit_recovery(self, text: str | None) -> None:
        if self._path is None:
            return
        store, path = self._store(), self._path
        bom, nl, base = self._has_bom, self._newline, self._disk_sha
        args: tuple[Any, ...] = (path,) if text is None else (path, text, base, bom, nl)
        job = workers.run_in_background(
            store.remove if text is None else store.write,
            *args,
            lane=RECOVERY_LANE,
            connect={"errored": self._on_recovery_error},
        )
        self._recovery_jobs = [j for j in self._recovery_jobs if not j.done.is_set()] + [job]

    def _on_recovery_error(self, _token: int, exc: BaseException) -> None:
        log.warning("recovery file not written", exc_info=exc)
        if not self._shut_down:
            self.show_banner(f"Could not write the recovery copy of this buffer: {exc}", "warning")

    def flush_recovery(self, timeout: float = 10.0) -> None:
        """Wait until queued recovery writes/removals are on disk (tests, shutdown)."""
        workers.wait_jobs(self._recovery_jobs, int(timeout * 1000))
        self._recovery_jobs = []

    @classmethod
    def recoverable(cls, store: RecoveryStore | None = None) -> list[RecoveryEntry]:
        """Recovery entries left by a crash: not held by a live pane here, nor by another
        running instance (its pid is alive). Malformed entries are included (``error`` set)."""
        store = store or RecoveryStore()
        live = set()
        for pane in list(cls._instances):
            if shiboken6.isValid(pane) and not pane._shut_down and pane._path:
                live.add(recovery_key(pane._path))
        out = []
        for e in store.entries():
            if e.key in live:
                continue
            if e.pid and e.pid != os.getpid() and _pid_alive(e.pid):
                continue
            out.append(e)
        return out

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
        self._start_job("lint", token, self.lint_function, text, path, self.profile())
        if self._path is not None:
            self.buffer_changed.emit(self._path, text)
        # isHidden, not isVisible: a pane built before its tab is shown (the window's lazy tabs)
        # is not visible yet, and its first preview used to stay blank (issue 13 item 6).
        if not self.preview.isHidden():
            self._preview_timer.start()
        return token

    def _start_job(self, kind: str, token: int, fn: Callable[..., Any], *args: Any) -> None:
        """Run a lint or preview job on the editor lane; its result comes back to ``_on_job_*``
        (bound methods: Qt drops them once the pane is deleted)."""
        job = workers.run_in_background(
            fn,
            *args,
            lane=EDITOR_LANE,
            connect={
                "returned": self._on_job_returned,
                "errored": self._on_job_errored,
                "finished": self._on_job_finished,
            },
        )
        self._jobs[job.token] = (kind, token)
        self._job_objects.add(job)

    def _on_job_returned(self, job_token: int, result: Any) -> None:
        kind, token = self._jobs.get(job_token, ("", 0))
        if kind == "lint":
            self._on_lint_done(token, list(result))
        elif kind == "preview":
            self._on_preview_done(token, result)

    def _on_job_errored(self, job_token: int, exc: BaseException) -> None:
        kind, token = self._jobs.get(job_token, ("", 0))
        log.warning("%s job failed", kind or "editor", exc_info=exc)
        if kind == "lint":
            self._on_lint_done(token, _lint_crash(exc))
        elif kind == "preview":
            self._on_preview_done(token, f"<p>cannot render: {html.escape(str(exc))}</p>")

    def _on_job_finished(self, job_token: int) -> None:
        self._jobs.pop(job_token, None)
        self._job_objects = {j for j in self._job_objects if j.token != job_token}

    def wait_idle(self, timeout_ms: int = 10_000) -> bool:
        """Block until running lint/preview jobs finished (their results are still queued)."""
        return workers.wait_jobs(self._job_objects, timeout_ms)

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
    def _attach_watch(self) -> None:
        if self._path is None or self._shut_down:
            return
        w = self._shared_watcher
        covered = False
        if w is not None:
            pp = Path(self._path)
            covered = any(pp == Path(r) or Path(r) in pp.parents for r in getattr(w, "paths", []))
            if covered:
                self._unsubscribe = w.subscribe(self._listener)
        if not covered:
            from workbench.core.watch import RootWatcher

            folder = os.path.dirname(self._path)
            if os.path.isdir(folder):
                self._own_watcher = RootWatcher(
                    [folder], self._listener, debounce_ms=150, recursive=False, skill_files_only=False
                )

    def _release_watch(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._own_watcher is not None:
            self._own_watcher.stop()
            self._own_watcher = None

    def _active_watcher(self) -> Any:
        return self._own_watcher or (self._shared_watcher if self._unsubscribe else None)

    def _listener(self, batch: list) -> None:  # watcher thread
        with contextlib.suppress(RuntimeError):
            self._watch_batch.emit(batch)

    def _on_watch_batch(self, batch: list) -> None:
        if self._path is None or self._shut_down:
            return
        if any(os.path.abspath(p) == self._path for _kind, p in batch):
            self.check_disk()

    def check_disk(self) -> None:
        """Compare the disk file with what the buffer is based on and react (see module doc)."""
        if self._path is None:
            return
        if self._prompting:
            self._recheck = True
            return
        sha = sha256_of(Path(self._path)) or ""
        if sha == self._disk_sha:
            return  # our own save, or no real change
        if not sha:
            self._disk_sha = ""
            self.editor.document().setModified(True)
            self.show_banner(f"{self._path} was deleted on disk. Saving will create it again.", "warning")
            return
        if not self.has_unsaved_changes():
            self.reload_from_disk()
            return
        if sha == self._declined_sha:
            return  # already asked about exactly this disk version; the save will ask again
        self._declined_sha = sha
        choice = self._ask_conflict()
        if choice == RELOAD:
            self.reload_from_disk()
        elif choice == KEEP_MINE:
            self._disk_sha = sha
            self.show_banner("Kept your version: saving will overwrite the version on disk.", "info")
        else:
            self.show_banner("The file changed on disk; saving will ask again.", "warning")

    def _ask_conflict(self) -> str:
        path = self._path
        assert path is not None  # only asked about an open file (callers check ``_path``)
        theirs: str | None
        try:
            theirs = decode_file(Path(path).read_bytes())[0]
        except OSError as exc:  # the prompt then says the disk version cannot be shown
            log.info("disk version of %s not read for the conflict prompt: %s", path, exc)
            theirs = None
        self._prompting = True
        try:
            choice = self.conflict_prompt(self, path, self.text(), theirs)
        finally:
            self._prompting = False
        if choice not in (RELOAD, KEEP_MINE, CANCEL):
            choice = CANCEL
        if self._recheck:
            self._recheck = False
            QTimer.singleShot(0, self.check_disk)
        return choice

    def _write(self, data: bytes, expected: str) -> str:
        path = self._path
        assert path is not None  # only ``save`` writes, after checking ``_path``
        w = self._active_watcher()
        ctx = w.suppress(path) if w is not None else contextlib.nullcontext()
        with ctx:
            return atomic_write(path, data, expected_sha256=expected, allow_read_only=self._allow_read_only)

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
        self._start_job("preview", self._preview_token, render_html, text)
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
        bg = {"error": "#ffebe9", "warning": "#fff8c5", "info": "#ddf4ff"}.get(level, "#ddf4ff")
        self.banner.setStyleSheet(f"QLabel {{ background: {bg}; padding: 4px; }}")
        self.banner.setText(text)
        self.banner.setProperty("level", level)
        self.banner.show()

    def hide_banner(self) -> None:
        self.banner.hide()
        self.banner.setText("")

    def _update_status(self) -> None:
        cur = self.editor.textCursor()
        line = cur.blockNumber() + 1
        col = cur.positionInBlock() + 1
        e, w, i = self.editor.diagnostics.counts()
        _fn, real = resolve_lint()
        engine = "" if real or self.lint_function is not _default_lint else " · lint: stand-in"
        mod = " · modified" if self.has_unsaved_changes() else ""
        ro = " · read-only" if self._read_only_reason else ""
        self.status.setText(
            f"Ln {line}, Col {col} · UTF-8{' BOM' if self._has_bom else ''} · "
            f"{'CRLF' if self._newline == chr(13) + chr(10) else 'LF'} · "
            f"{plural(e, 'error')}, {plural(w, 'warning')}, {plural(i, 'info')}{mod}{ro}{engine}"
        )

    # Override QWidget::closeEvent
    def closeEvent(self, event) -> None:  # noqa: N802
        self.shutdown()
        super().closeEvent(event)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True
