"""Small text helpers shared by the command line and the core's user-facing messages."""

from __future__ import annotations

import codecs
import os
import re
from typing import Any, NamedTuple


def plural(n: int, noun: str, plural_form: str | None = None) -> str:
    """``"1 file"``, ``"0 files"``, ``"2 queries"``: the count and the noun, plural unless n == 1.

    ``plural_form`` for irregular nouns (default: noun + "s").
    """
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {plural_form or noun + 's'}"


def agree(n: int, one: str, many: str) -> str:
    """``one`` when n == 1 else ``many``: the verb agreeing with a count (``agree(n, "is", "are")``)."""
    return one if n == 1 else many


#: Characters never written raw to a terminal: C0 controls except tab and newline, DEL, C1
#: controls (ESC/CSI sequences recolour, retitle or rewrite the screen; CR overwrites a line)
#: and lone surrogates (``surrogateescape``-decoded bytes of a non-UTF-8 path, unencodable).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
#: The ASCII bytes ``_UNSAFE`` does not match (printable, tab, newline).
_SAFE_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n"


def _u_escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # as a UTF-16 surrogate pair: what JSON and JavaScript spell
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _escape_unencodable(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join(_u_escape(c) for c in exc.object[exc.start : exc.end]), exc.end


codecs.register_error("workbench-u-escape", _escape_unencodable)


def escape_unsafe(s: str) -> str:
    """``s`` with every terminal-unsafe character (``_UNSAFE``) written as ``\\uXXXX``.

    The escape is valid inside a JSON string and keeps a ``surrogateescape``-decoded path
    round-trippable (``json.loads`` gives back ``"\\udcff"``, ``os.fsencode`` the byte 0xFF).
    Linear in ``len(s)``; returns ``s`` itself when nothing needs escaping (an ASCII text is
    checked with ``bytes.translate`` in C: ~4x faster than the regex over a 6 MB lint report).
    """
    if s.isascii() and not s.encode("ascii").translate(None, _SAFE_ASCII):
        return s
    return _UNSAFE.sub(lambda m: _u_escape(m.group()), s)


#: Bytes ``bytes.translate`` deletes to find what ``escape_unsafe`` would escape in UTF-8:
#: everything except the unsafe ASCII bytes and 0xC2 (the lead byte of U+0080-U+00BF).
_NOT_UNSAFE_UTF8 = bytes(
    b for b in range(256) if (0x20 <= b < 0x7F or b in (9, 10) or b >= 0x80) and b != 0xC2
)
#: A C1 control (U+0080-U+009F) in UTF-8.
_C1_UTF8 = re.compile(b"\xc2[\x80-\x9f]")


def escape_unsafe_utf8(s: str) -> bytes:
    """``escape_unsafe(s).encode("utf-8")``, byte for byte: the text is encoded first and the
    unsafe characters are looked for in its bytes (``bytes.translate`` + a search for C1
    controls, in C: ~10x faster than the ``str`` regex over a large non-ASCII text, e.g. the
    44 MB ``scan --client all`` report); the ``str`` way only when something needs escaping."""
    try:
        b = s.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a path's undecodable byte)
        return escape_unsafe(s).encode("utf-8")
    found = b.translate(None, _NOT_UNSAFE_UTF8)
    if found and (found.strip(b"\xc2") or _C1_UTF8.search(b)):
        return escape_unsafe(s).encode("utf-8")
    return b


def escape_unsafe_json_utf8(s: str) -> bytes:
    """``escape_unsafe_utf8(s)`` for a JSON text made by ``json``'s encoders (they write every
    C0 control as ``\\uXXXX``, so ``s`` holds none raw): only DEL and the C1 controls are
    looked for, with ``bytes.find`` (memchr) and the C1 search only after a 0xC2 byte, instead
    of ``bytes.translate`` over every byte (~2% of a 10k-skill ``scan --client all``'s
    instructions). Anything to escape (or a lone surrogate) goes the general way."""
    try:
        b = s.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a path's undecodable byte)
        return escape_unsafe(s).encode("utf-8")
    if b.find(b"\x7f") < 0 and (b.find(b"\xc2") < 0 or _C1_UTF8.search(b) is None):
        return b
    return escape_unsafe(s).encode("utf-8")


def utf8_buffer(stream: Any) -> Any | None:
    """The binary buffer under ``stream`` that escaped UTF-8 bytes (``escape_unsafe_utf8``) may
    be written to directly: ``stream`` is a ``SafeTextStream`` over a UTF-8 text stream (not
    utf-8-sig: its BOM comes with the first text write) that has a ``buffer`` and writes ``\n``
    as is. None otherwise (write ``str`` to ``stream``). The one test for "bytes may bypass the
    text layer", used by ``write_utf8`` and ``SafeTextStream.write_escaped_utf8``."""
    if not isinstance(stream, SafeTextStream) or os.linesep != "\n":
        return None
    enc = (getattr(stream._stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return getattr(stream._stream, "buffer", None) if enc == "utf8" else None


def write_utf8(stream: Any, parts: list[bytes | str]) -> None:
    """Write ``parts`` to ``stream`` as ``stream.write("".join(parts))`` would, with ``bytes``
    parts already made by ``escape_unsafe_utf8`` (``str`` parts are escaped here): through
    ``SafeTextStream.write_escaped_utf8``, so a large report is neither joined into one ``str``
    nor escaped and encoded again. Other streams get the decoded text. Raises what the
    stream's write raises."""
    data = b"".join(p if isinstance(p, bytes) else escape_unsafe_utf8(p) for p in parts)
    if isinstance(stream, SafeTextStream):
        stream.write_escaped_utf8(data)
    else:
        stream.write(data.decode("utf-8"))


class SafeTextStream:
    """A write-only proxy of a text stream (``sys.stdout``/``sys.stderr``) that never writes a
    control character or an unencodable one raw: see ``escape_unsafe``; characters the stream's
    encoding cannot hold (e.g. a Latin-1 locale) become ``\\uXXXX`` too. Everything else
    (``flush``, ``isatty``, ``fileno``, ``buffer``...) is the wrapped stream's.

    Used by ``workbench.cli.main`` for every command's output: skills are untrusted text.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        enc = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "").replace("_", "")
        self._encoding = None if enc in ("utf8", "utf8sig") else getattr(stream, "encoding", None)

    def write(self, s: str) -> int:
        out = escape_unsafe(s)
        if self._encoding and not out.isascii():
            out = out.encode(self._encoding, "workbench-u-escape").decode(self._encoding)
        self._stream.write(out)
        return len(s)

    def write_escaped(self, s: str) -> int:
        """``write(s)`` for a text the caller built from ``escape_unsafe``'d pieces (``workbench
        lint --format json`` from the result cache's escaped JSON text): no second scan for
        unsafe characters, only the stream encoding's ``\\uXXXX`` escapes."""
        out = s
        if self._encoding and not out.isascii():
            out = out.encode(self._encoding, "workbench-u-escape").decode(self._encoding)
        self._stream.write(out)
        return len(s)

    def write_escaped_utf8(self, data: bytes) -> None:
        """``write_escaped(data.decode())`` for the UTF-8 bytes of an escaped text, without the
        str: when ``utf8_buffer(self)`` allows it (``sys.stdout`` in a UTF-8 locale) the bytes go
        straight to the binary buffer (the text layer is flushed first and the buffer after, so
        the order of writes is kept)."""
        buf = utf8_buffer(self)
        if buf is None:
            self.write_escaped(data.decode("utf-8"))
            return
        self._stream.flush()
        buf.write(data)
        buf.flush()

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class DecodedBytes(NamedTuple):
    """What ``decode_text_bytes`` made of a file's bytes.

    Fields:
        text: the decoded text, BOM removed, line endings as in the file (invalid UTF-8 bytes
            become U+FFFD).
        has_bom: the bytes started with a UTF-8 BOM (EF BB BF).
        newline: ``"\\r\\n"`` when CRLF line breaks are the majority, else ``"\\n"``.
        bad_offset: offset (in bytes, after the BOM) of the first byte that is not valid UTF-8,
            or None when the bytes are valid UTF-8.
        bad_line, bad_column: 1-based position of that byte (the column counts code points of
            the decoded line); 0 when the bytes are valid.
    """

    text: str
    has_bom: bool
    newline: str
    bad_offset: int | None = None
    bad_line: int = 0
    bad_column: int = 0


def decode_text_bytes(raw: bytes) -> DecodedBytes:
    """Decode a text file's bytes (SKILL.md and its neighbours) the way the workbench reads them.

    UTF-8 with an optional BOM (stripped and reported); invalid bytes are decoded with
    replacement characters and the first one's position is reported; never raises. The
    newline is the file's majority line break (CRLF vs LF), as ``skillfile.parse_skill_bytes``
    decides it. The one decoder: ``skillfile.parse_skill_bytes`` and the editor
    (``app/editor/document.decode_file``) use it.
    """
    has_bom = raw.startswith(b"\xef\xbb\xbf")
    if has_bom:
        raw = raw[3:]
    bad: int | None = None
    line = column = 0
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
        text = raw.decode("utf-8", "replace")
        line_start = raw.rfind(b"\n", 0, bad) + 1
        line = raw.count(b"\n", 0, bad) + 1
        column = len(raw[line_start:bad].decode("utf-8", "replace")) + 1
    newline = "\n"
    if "\r" in text:  # (a memchr: the common LF file pays no count)
        crlf = text.count("\r\n")
        if crlf and crlf >= text.count("\n") - crlf:
            newline = "\r\n"
    return DecodedBytes(text, has_bom, newline, bad, line, column)
