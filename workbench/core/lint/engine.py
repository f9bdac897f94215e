"""The lint engine: run every rule active under a profile over one file, many files, or text.

Public API (re-exported by ``workbench.core.lint``):

* ``lint_text(text, path=None, profile="agentskills", catalog=None) -> list[Diagnostic]``
* ``lint_file(path, profile="agentskills", catalog=None) -> list[Diagnostic]``
* ``lint_paths(paths, profile="agentskills", catalog=None) -> dict[Path, list[Diagnostic]]``
* ``lint_skillfile(sf, profile="agentskills", catalog=None)`` (for callers that already parsed)
* ``apply_fix(text, fix) -> str``
* ``find_skill_files(path) -> list[Path]``

Never raises on a skill file's content: a rule that crashes becomes a ``LINT000`` warning.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

from workbench.core.lint.context import CatalogEntry, CatalogIndex, LintContext
from workbench.core.lint.profiles import Profile, get_profile
from workbench.core.lint.registry import RULES, Rule, load_rules
from workbench.core.lint.types import ERROR, OFF, Diagnostic, Fix, TextEdit
from workbench.core.skillfile import SkillFile, parse_skill_text, read_skill_file

#: Directories never walked by ``find_skill_files`` (DESIGN.md section 3).
SKIP_DIRS = frozenset({".git", "node_modules"})

_active_cache: dict[tuple[str, int], list[tuple[Rule, str]]] = {}


def _active(profile: Profile) -> list[tuple[Rule, str]]:
    """(rule, severity) pairs that run under ``profile``, in code order."""
    key = (profile.id, id(profile))
    got = _active_cache.get(key)
    if got is None:
        load_rules()
        got = [(r, r.severity_for(profile)) for r in RULES.values()]
        got = [(r, s) for r, s in got if s != OFF]
        _active_cache[key] = got
    return got


def _clamp(d: Diagnostic, ctx: LintContext) -> Diagnostic:
    """Keep a diagnostic's range inside the text (1 <= column <= len(line) + 1)."""
    lines = ctx.lines
    n = max(1, len(lines))

    def fix_pos(line: int, col: int) -> tuple[int, int]:
        line = min(max(1, line), n)
        ln = len(lines[line - 1]) if lines else 0
        return line, min(max(1, col), ln + 1)

    l1, c1 = fix_pos(d.line, d.column)
    l2, c2 = fix_pos(d.end_line, d.end_column)
    if (l2, c2) < (l1, c1):
        l2, c2 = l1, c1
    if (l1, c1, l2, c2) == (d.line, d.column, d.end_line, d.end_column):
        return d
    return Diagnostic(l1, c1, l2, c2, d.severity, d.code, d.message, d.fix, d.rule, d.unverified)


def lint_skillfile(sf: SkillFile, profile: "str | Profile" = "agentskills",
                   catalog: Iterable[Any] | None = None) -> list[Diagnostic]:
    """Lint an already parsed ``SkillFile``. Returns diagnostics sorted by position.

    Raises KeyError for an unknown profile id.
    """
    prof = get_profile(profile)
    ctx = LintContext(sf, prof, catalog)
    out: list[Diagnostic] = []
    for r, sev in _active(prof):
        try:
            for f in r.check(ctx):
                s = f.severity or sev
                out.append(_clamp(Diagnostic(f.span.line, f.span.column, f.span.end_line, f.span.end_column,
                                             s, r.code, f.message, f.fix, r.name, r.unverified), ctx))
        except Exception as exc:  # a rule bug must never take the linter down
            out.append(Diagnostic(1, 1, 1, 1, "warning", "LINT000",
                                  f"internal error in rule {r.code} ({r.name}): {type(exc).__name__}: {exc}",
                                  rule="internal-error"))
    out.sort(key=lambda d: d.sort_key)
    return out


def lint_text(text: str, path: "Path | str | None" = None, profile: "str | Profile" = "agentskills",
              catalog: Iterable[Any] | None = None) -> list[Diagnostic]:
    """Lint SKILL.md text (e.g. an editor buffer).

    Args:
        text: the file content (a leading U+FEFF counts as a BOM).
        path: where the file is (or will be); gives the folder name for the name/folder rule and
            the folder for link and structure rules. None = those rules are skipped.
        profile: a profile id of ``PROFILES`` or a ``Profile``.
        catalog: other skills for cross-skill rules: ``(name, description, path)`` tuples or
            ``workbench.core.model.Skill`` objects. An entry whose path equals ``path`` is this
            file itself and is ignored.

    Returns: diagnostics sorted by (line, column, severity, code). Raises KeyError for an unknown
    profile; never raises for bad content.
    """
    return lint_skillfile(parse_skill_text(text, path), profile, catalog)


def lint_file(path: "Path | str", profile: "str | Profile" = "agentskills",
              catalog: Iterable[Any] | None = None) -> list[Diagnostic]:
    """Read and lint one SKILL.md. Unreadable files give a diagnostic, not an exception."""
    return lint_skillfile(read_skill_file(path), profile, catalog)


def find_skill_files(path: "Path | str") -> list[Path]:
    """The SKILL.md files a PATH names: the file itself; ``DIR/SKILL.md`` (or ``DIR/skill.md``)
    for a skill folder; otherwise every ``SKILL.md`` below DIR, skipping ``.git`` and
    ``node_modules`` (dot-folders are walked, like discovery does). Sorted; symlinked folders are
    not followed (no cycles). Returns [] when nothing is found."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        return []
    for name in ("SKILL.md", "skill.md"):
        if (p / name).is_file() and (name == "SKILL.md" or name in os.listdir(p)):
            return [p / name]
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(p):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        if "SKILL.md" in filenames:
            found.append(Path(dirpath) / "SKILL.md")
    return sorted(found)


def lint_paths(paths: Iterable["Path | str"], profile: "str | Profile" = "agentskills",
               catalog: Iterable[Any] | None = None) -> dict[Path, list[Diagnostic]]:
    """Lint every SKILL.md that ``paths`` name (see ``find_skill_files``).

    The files linted together form the catalog for cross-skill rules (duplicate names and
    descriptions, listing budget) unless ``catalog`` is given.

    Returns {SKILL.md path: diagnostics}, in path order. A directory holding no SKILL.md at all
    maps to one ``STR002`` error keyed by the directory (skills-ref: "Missing required file:
    SKILL.md"). Raises FileNotFoundError for a path that does not exist (callers report a usage
    error) and KeyError for an unknown profile.
    """
    prof = get_profile(profile)
    files: list[Path] = []
    empty_dirs: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise FileNotFoundError(2, "no such file or directory", str(p))
        got = find_skill_files(p)
        if not got and p.is_dir():
            empty_dirs.append(p)
        files.extend(got)
    seen: set[Path] = set()
    uniq = []
    for f in files:
        k = f.absolute()
        if k not in seen:
            seen.add(k)
            uniq.append(f)
    parsed = [read_skill_file(f) for f in uniq]
    if catalog is None:
        cat = CatalogIndex([CatalogEntry(_catalog_name(sf), _catalog_desc(sf), sf.path) for sf in parsed])
    else:
        cat = catalog if isinstance(catalog, CatalogIndex) else CatalogIndex(catalog)
    out: dict[Path, list[Diagnostic]] = {}
    for sf in parsed:
        out[sf.path] = lint_skillfile(sf, prof, cat)  # type: ignore[index]
    for d in empty_dirs:
        out[d] = [Diagnostic(1, 1, 1, 1, ERROR, "STR002", "no SKILL.md in this folder (the file name "
                             "must be exactly SKILL.md)", rule="skill-file-missing")]
    return out


def _catalog_name(sf: SkillFile) -> str:
    v = sf.get("name") if sf.ok else None
    if isinstance(v, str) and v.strip():
        return v.strip()
    if sf.state == "yaml-error" and sf.has_frontmatter_block:
        lf = sf.line_fields().get("name")
        if lf and lf.value:
            return lf.value
    return sf.path.parent.name if sf.path is not None else ""


def _catalog_desc(sf: SkillFile) -> str:
    v = sf.get("description") if sf.ok else None
    if isinstance(v, str):
        return v
    if sf.state == "yaml-error" and sf.has_frontmatter_block:
        lf = sf.line_fields().get("description")
        if lf:
            return lf.value
    return ""


# ----------------------------------------------------------------------------------------
# fixes


def apply_fix(text: str, fix: "Fix | TextEdit | Iterable[TextEdit]") -> str:
    """Apply a fix's edits to ``text`` and return the new text.

    Positions are those of the diagnostics (1-based, end exclusive, code points, after a BOM);
    line 1 column 0 addresses a leading BOM. "\\n" in ``new_text`` becomes "\\r\\n" when the text's
    dominant line ending is CRLF.

    Raises ValueError when an edit is out of range or edits overlap.
    """
    if isinstance(fix, Fix):
        edits = list(fix.edits)
    elif isinstance(fix, TextEdit):
        edits = [fix]
    else:
        edits = list(fix)
    bom = 1 if text.startswith("\ufeff") else 0
    starts = [bom]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    crlf = text.count("\r\n")
    nl = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"

    def off(line: int, col: int) -> int:
        if line < 1 or line > len(starts):
            raise ValueError(f"edit line {line} out of range (1..{len(starts)})")
        if line == 1 and col == 0:
            if not bom:
                raise ValueError("column 0 addresses a BOM and the text has none")
            return 0
        end = (starts[line] - 1) if line < len(starts) else len(text)
        o = starts[line - 1] + col - 1
        if col < 1 or o > end:
            raise ValueError(f"edit column {col} out of range on line {line}")
        return o

    spans = sorted(((off(e.line, e.column), off(e.end_line, e.end_column), e.new_text) for e in edits),
                   key=lambda t: (t[0], t[1]))
    for (s1, e1, _), (s2, e2, _) in zip(spans, spans[1:]):
        if s2 < e1:
            raise ValueError("fix edits overlap")
    for s, e, new in reversed(spans):
        if e < s:
            raise ValueError("edit ends before it starts")
        if nl == "\r\n":
            new = new.replace("\r\n", "\n").replace("\n", "\r\n")
        text = text[:s] + new + text[e:]
    return text
