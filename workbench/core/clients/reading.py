"""Reading helpers shared by the client profiles: names, tags, frontmatter retries, small
config files. Each states the client rule it reproduces; nothing here walks a folder
(``clients.walk``) or decides collisions (``clients.common.CommonProfile``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

import yaml

from workbench.core.cache.fscache import stat as fs_stat
from workbench.core.clients.base import Found
from workbench.core.skillfile import load_yaml

if TYPE_CHECKING:
    from workbench.core.skillfile import SkillFile


def folder_name(found_or_path: Found | Path) -> str:
    """The skill folder's name (the usual name fallback)."""
    p = str(found_or_path.path if isinstance(found_or_path, Found) else found_or_path)
    if os.altsep is None:  # POSIX: two rfind calls (called per client per file)
        end = p.rfind("/")
        return p[p.rfind("/", 0, end) + 1 : end] if end > 0 else ""
    return os.path.basename(os.path.dirname(p))


def best_name(sf: SkillFile | None, path: Path) -> str:
    """A best-guess name for a file the client skips: frontmatter name, else the folder name."""
    if sf is not None:
        v = sf.get("name") if sf.ok else None
        if not isinstance(v, str) and sf.has_frontmatter_block:
            lf = sf.line_fields().get("name")
            v = lf.value if lf else None
        if isinstance(v, str) and v.strip():
            return v.strip()
    return path.parent.name


_TAG = re.compile(r"<[^>]+>")


def strip_tags(s: str) -> str:
    """Remove ``<...>`` tags (VS Code ``/<[^>]+>/g``)."""
    return _TAG.sub("", s)


def state_reason(sf: SkillFile) -> str:
    """A one-line reason for a file that did not parse (the skillfile message)."""
    return sf.message or sf.state


def unreadable(sf: SkillFile) -> bool:
    """States where no client gets any text: unreadable, too large, binary."""
    return sf.state in ("unreadable", "too-large", "binary")


def line_value_first_line(sf: SkillFile, key: str) -> str | None:
    """The value of ``key`` as a *single-line* parser sees it (continuation lines ignored).

    OpenClaw's fallback (``skill-contract.ts``) reads ``key: value`` lines only.
    """
    lf = sf.line_fields().get(key)
    if lf is None:
        return None
    lines = sf.text.split("\n")
    ln = lines[lf.value_span.line - 1].rstrip("\r")
    v = ln[lf.value_span.column - 1 :].strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        v = v[1:-1]
    return v


_TOP_KV = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-]*)([ \t]*:[ \t]+)(.*)$")


def quote_retry(frontmatter: str) -> dict[str, Any] | None:
    """Retry YAML after quoting unquoted top-level values that contain ``": "`` (agentskills.io
    client guide, ``adding-skills-support.mdx``: "retry with quoting for unquoted
    ``key: value: with colon``"). Our own equivalent: each such value is wrapped in double
    quotes (backslashes and quotes escaped). Returns the mapping, or None if it still fails.
    """
    out = []
    changed = False
    for line in frontmatter.split("\n"):
        m = _TOP_KV.match(line)
        if m:
            v = m.group(3).rstrip()
            if v and v[0] not in "'\"[{|>&*!" and ": " in v:
                v = v.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{m.group(1)}{m.group(2)}"{v}"'
                changed = True
        out.append(line)
    if not changed:
        return None
    try:
        data = load_yaml("\n".join(out) + "\n")
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


_FILE_MEMO: dict[tuple[str, str], tuple[tuple[int, int] | None, Any]] = {}


def memo_file(path: str | Path, kind: str, loader: Callable[[Any], Any]) -> Any:
    """``loader(path)`` memoised on the file's (size, mtime_ns); a missing file is memoised too.

    Used for small per-client config files (Codex ``config.toml``, ``openclaw.json``) that gates
    consult once per skill. Only a regular file is handed to ``loader``: anything else (a FIFO,
    whose open would block forever; a folder; a device) counts as missing (value None).
    """
    key = (str(path), kind)
    st = fs_stat(str(path))  # one stat per scan (``fscache.snapshot``), not one per skill
    ident: tuple[int, int] | None = None if st is None else (st.st_size, st.st_mtime_ns)
    regular = st is not None and S_ISREG(st.st_mode)
    ent = _FILE_MEMO.get(key)
    if ent is not None and ent[0] == ident:
        return ent[1]
    val = loader(path) if regular else None
    _FILE_MEMO[key] = (ident, val)
    return val


def load_json_file(path: Path) -> dict[str, Any] | None:
    """A JSON object from ``path``, or None when missing, not a regular file (never opened: a FIFO
    would block) or not plain JSON (JSON5 not parsed)."""
    try:
        if not S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def walk_up(start: Path, stop: Path | None) -> list[Path]:
    """Folders from ``start`` up to ``stop`` (inclusive), nearest first; just ``[start]`` when
    ``stop`` is None or not an ancestor."""
    if stop is None:
        return [start]
    out = [start]
    if start == stop:
        return out
    for p in start.parents:
        out.append(p)
        if p == stop:
            return out
    return [start]


def truthy_path(data: Any, dotted: str) -> bool:
    """True when ``data`` has a truthy value at ``a.b.c`` (OpenClaw ``requires.config``)."""
    cur = data
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return False
        cur = cur[part]
    return bool(cur)


def parse_loose_mapping(value: Any) -> dict[str, Any] | None:
    """A metadata value as a mapping: already a dict, or a JSON/YAML string (OpenClaw writes
    ``metadata: {"openclaw": {...}}`` on one line; the fallback parser leaves it a string)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            v = json.loads(value)
        except ValueError:
            try:
                v = load_yaml(value)
            except (yaml.YAMLError, ValueError, TypeError, RecursionError):
                return None
        return v if isinstance(v, dict) else None
    return None


def js_string(value: object) -> str | None:
    """A YAML scalar as JavaScript's ``String()`` prints it (None for lists, maps and null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value).removesuffix(".0") if value.is_integer() else repr(value)
    if isinstance(value, str):
        return value.strip()
    return None


_PLAIN_PAIR = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+(.*\S)[ \t]*$")


def retry_quoted(frontmatter: str) -> dict[str, Any] | None:
    """Claude Code's (and OpenCode's) second try at frontmatter that strict YAML rejects: every top-level
    ``key: value`` line whose plain value holds ``": "`` gets that value double-quoted, then the
    text is parsed again. The mapping, or None when it still fails (lab: ``yaml-unquoted-colon``
    passes; ``yaml-tab``, ``yaml-bad-indent``, ``yaml-unclosed-quote`` stay broken; Claude Code
    2.1.328, OpenCode 1.18.33)."""
    out = []
    changed = False
    for line in frontmatter.split("\n"):
        m = _PLAIN_PAIR.match(line)
        if m and ": " in m.group(2) and m.group(2)[0] not in "\"'[{>|&*!%@`":
            value = m.group(2).replace("\\", "\\\\").replace('"', '\\"')
            line = f'{m.group(1)}: "{value}"'
            changed = True
        out.append(line)
    if not changed:
        return None
    try:
        data = load_yaml("\n".join(out))  # bounded: aliases, depth, integer digits
    except (yaml.YAMLError, ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None
