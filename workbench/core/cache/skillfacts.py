"""Persisted parse facts of a SKILL.md (``skillfile_facts``) and the partial ``SkillFile``
rebuilt from them (``skillfile_from_facts``; ``SkillFile.load_full()`` completes it). Used by
``parsestore`` (discovery) and the lint batch (which fills the store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.core.skillfile import SkillFile, Span

#: The attributes a persisted record keeps, in record order (after the record's version tag).
#: Everything else (``skillfile.LAZY_ATTRS``) is read again by ``SkillFile.load_full()``:
#: discovery rarely needs it for a file that parsed.
FACT_SLOTS = (
    "state",
    "message",
    "error_span",
    "has_bom",
    "newline",
    "not_utf8",
    "open_line",
    "close_line",
    "open_trailing_ws",
    "body_line",
    "data",
    "duplicate_keys",
    "dash_lines",
    "_sha256",
    "size",
    "mtime_ns",
    "encoding_span",
    "encoding_message",
)
_FACTS_VERSION = 2  # 2: encoding_span, encoding_message added (last)


def skillfile_facts(sf: SkillFile) -> tuple[Any, ...]:
    """The persisted form of ``sf`` (plain values for ``marshal``): ``(version, *FACT_SLOTS)``
    with spans as tuples. ``marshal.dumps`` of it raises ValueError when ``data`` holds a value
    marshal cannot store (a YAML timestamp): such files are simply not persisted."""
    es = sf.error_span
    return (
        _FACTS_VERSION,
        sf.state,
        sf.message,
        None if es is None else (es.line, es.column, es.end_line, es.end_column),
        sf.has_bom,
        sf.newline,
        sf.not_utf8,
        sf.open_line,
        sf.close_line,
        sf.open_trailing_ws,
        sf.body_line,
        sf.data,
        [(k, (s.line, s.column, s.end_line, s.end_column)) for k, s in sf.duplicate_keys],
        list(sf.dash_lines),
        sf.sha256,
        sf.size,
        sf.mtime_ns,
        None if sf.encoding_span is None else _span_tuple(sf.encoding_span),
        sf.encoding_message,
    )


def _span_tuple(sp: Span) -> tuple[int, int, int, int]:
    return (sp.line, sp.column, sp.end_line, sp.end_column)


_new = object.__new__
_set: dict[str, Any] = {f: SkillFile.__dict__[f].__set__ for f in SkillFile.__slots__}


def skillfile_from_facts(path: Path | str | None, facts: tuple[Any, ...]) -> SkillFile:
    """A ``SkillFile`` rebuilt from ``skillfile_facts`` output. The attributes that were not
    persisted are filled from a fresh read of ``path`` on first access (if the file changed in
    the meantime, every attribute is replaced by the new read, so the object stays consistent).
    Raises ValueError/TypeError/IndexError for a malformed record."""
    if facts[0] != _FACTS_VERSION or len(facts) != len(FACT_SLOTS) + 1:
        raise ValueError("unknown parse facts record")
    sf = _new(SkillFile)
    (
        _v,
        state,
        message,
        es,
        has_bom,
        newline,
        not_utf8,
        open_line,
        close_line,
        otws,
        body_line,
        data,
        dups,
        dash,
        sha,
        size,
        mtime_ns,
        enc,
        enc_msg,
    ) = facts
    s = _set
    s["path"](sf, Path(path) if path is not None and not isinstance(path, Path) else path)
    s["state"](sf, state)
    s["message"](sf, message)
    s["error_span"](sf, None if es is None else Span(*es))
    s["has_bom"](sf, has_bom)
    s["newline"](sf, newline)
    s["not_utf8"](sf, not_utf8)
    s["open_line"](sf, open_line)
    s["close_line"](sf, close_line)
    s["open_trailing_ws"](sf, otws)
    s["body_line"](sf, body_line)
    s["data"](sf, data)
    s["duplicate_keys"](sf, [(k, Span(*sp)) for k, sp in dups])
    s["dash_lines"](sf, list(dash))
    s["_sha256"](sf, sha)
    s["size"](sf, size)
    s["mtime_ns"](sf, mtime_ns)
    s["encoding_span"](sf, None if enc is None else Span(*enc))
    s["encoding_message"](sf, enc_msg)
    s["_lazy"](sf, True)
    return sf
