"""Saving the editor's buffer and reacting to changes on disk (``EditorPane``'s file side).

Saving: ``atomic_write`` (temp file, fsync, rename) with ``expected_sha256`` = the hash of the
disk file when it was opened / last saved / last reloaded; a mismatch raises ``ConflictError`` and
the user is asked (``conflict_prompt``): Reload, Keep mine (overwrite deliberately) or Cancel, with
Show diff in the dialog. Saves run on the GUI thread (a small file; the conflict prompt needs the
answer before continuing).

External changes (watcher event for the open file, or a hash mismatch at save):
  * buffer unmodified -> reload silently; only the changed region of the text is replaced, so the
    caret and scroll position stay (and the reload is one undo step);
  * buffer modified -> the conflict prompt; "Keep mine" here keeps the buffer and accepts the
    disk version as the one the next save overwrites (no write happens until you save);
  * file deleted -> the buffer is kept and marked modified; saving recreates the file.

``SavingMixin`` holds these methods; ``EditorPane`` provides the state it names below.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer, SignalInstance

from workbench.app.editor.codeeditor import CodeEditor
from workbench.app.editor.conflict import CANCEL, KEEP_MINE, RELOAD
from workbench.app.editor.disk import FileWatch
from workbench.app.editor.document import decode_file, encode_text
from workbench.core.safefile import ConflictError, ReadOnlyError, sha256_of

log = logging.getLogger(__name__)


class SavingMixin:
    """``save``, ``reload_from_disk``, ``check_disk`` of ``EditorPane`` (module docstring)."""

    # provided by EditorPane
    editor: CodeEditor
    disk: FileWatch
    saved: SignalInstance
    file_reloaded: SignalInstance
    conflict_prompt: Callable[[Any, str, str, str | None], str]
    read_only_prompt: Callable[[Any, str], bool]
    show_banner: Callable[..., None]
    hide_banner: Callable[[], None]
    has_unsaved_changes: Callable[[], bool]
    text: Callable[[], str]
    _update_status: Callable[[], None]
    _submit_recovery: Callable[[str | None], None]
    _recovery_timer: QTimer
    _path: str | None
    _disk_sha: str
    _has_bom: bool
    _newline: str
    _read_only_reason: str
    _allow_read_only: bool
    _prompting: bool
    _recheck: bool
    _declined_sha: str

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
        assert self._path is not None  # only ``save`` writes, after checking ``_path``
        return self.disk.write(self._path, data, expected, self._allow_read_only)
