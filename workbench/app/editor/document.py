"""The editor's file format: bytes on disk <-> the buffer ("\\n" line endings, no BOM).

``decode_file`` decodes with the core's one decoder (``workbench.core.text.decode_text_bytes``:
UTF-8, optional BOM, the majority line break as ``skillfile`` decides it) and says when the file
must open read-only; ``encode_text`` / ``saved_form`` restore the BOM and the line endings.

Decisions where the brief was silent:
  * The buffer always holds "\\n"; the file's dominant line ending (as ``skillfile`` decides it) is
    restored on save. A file with mixed endings is saved with its dominant one; a lone "\\r" (old
    Mac) becomes a line break. A new file gets "\\n" and no BOM.
  * Files that are not valid UTF-8, contain NUL bytes, or exceed ``MAX_EDIT_BYTES`` open
    read-only with a banner: saving them would lose bytes.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from workbench.app.dialogs import ask_yes_no
from workbench.core.text import decode_text_bytes

#: Files above this many bytes open read-only (the skillfile reader stops parsing at 1 MB).
MAX_EDIT_BYTES = 5_000_000


def decode_file(raw: bytes) -> tuple[str, bool, str, str]:
    """Bytes -> (buffer text with "\\n", has_bom, newline, problem). ``problem`` != "" = the file
    opens read-only (too large, NUL bytes, or not UTF-8: saving would lose bytes)."""
    problem = ""
    if len(raw) > MAX_EDIT_BYTES:
        problem = f"the file is {len(raw):,} bytes (over {MAX_EDIT_BYTES:,}): opened read-only"
    if b"\x00" in raw:
        problem = "the file contains NUL bytes (binary?): opened read-only"
    d = decode_text_bytes(raw)
    if d.bad_offset is not None:
        problem = problem or (
            f"not valid UTF-8 (first bad byte on line {d.bad_line}): opened read-only "
            "so that saving cannot replace those bytes"
        )
    text = d.text.replace("\r\n", "\n").replace("\r", "\n")
    return text, d.has_bom, d.newline, problem


def saved_form(text: str, has_bom: bool, newline: str) -> str:
    """The file content as str: "\\ufeff" + text with ``newline`` line breaks."""
    if newline != "\n":
        text = text.replace("\n", newline)
    return ("\ufeff" if has_bom else "") + text


def encode_text(text: str, has_bom: bool, newline: str) -> bytes:
    """Buffer text ("\\n") -> the bytes to save (BOM and line endings restored)."""
    return saved_form(text, has_bom, newline).encode("utf-8", "surrogatepass")


def ask_read_only(parent: QWidget, path: str) -> bool:
    """Modal question: overwrite the read-only file ``path``? True = yes (default button: No)."""
    return ask_yes_no(
        parent, "Read-only file", f"{path} is read-only.\n\nOverwrite it anyway? It stays read-only."
    )
