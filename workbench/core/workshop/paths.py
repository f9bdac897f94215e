"""Path safety for proposals: support-file paths must stay inside the skill folder.

A proposal names support files by a path relative to the skill folder (``scripts/run.py``,
``references/api.md``). ``check_relpath`` refuses anything that could write elsewhere:
absolute paths, drive letters, ``..`` components, backslashes (a Windows separator that POSIX would
keep as part of a name), empty components, NUL bytes, ``.git`` internals, and ``SKILL.md`` itself
(that is the proposal text, not a support file). ``check_inside`` additionally resolves the live
folder on disk so that a symlinked sub-folder pointing outside the skill is refused too.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

SKILL_MD = "SKILL.md"


def check_relpath(rel: str) -> str | None:
    """Why ``rel`` is not an acceptable support-file path, or None when it is.

    ``rel`` uses "/" separators. Returns a one-line reason (no exception) so the risk checks can turn
    it into a finding and ``propose_*`` into a ``ProposalError``.
    """
    if not isinstance(rel, str) or not rel:
        return "empty file path"
    if "\x00" in rel:
        return f"{rel!r}: file path contains a NUL byte"
    if "\\" in rel:
        return f"{rel!r}: use '/' separators; backslashes are refused"
    if rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        return f"{rel!r}: absolute paths leave the skill folder"
    if rel.startswith("~"):
        return f"{rel!r}: '~' paths leave the skill folder"
    parts = rel.split("/")
    if any(p == ".." for p in parts):
        return f"{rel!r}: '..' leaves the skill folder"
    if any(p in ("", ".") for p in parts):
        return f"{rel!r}: empty or '.' path component"
    if parts[0] == ".git":
        return f"{rel!r}: writing into .git is refused"
    if rel == SKILL_MD:
        return f"{rel!r}: SKILL.md is the proposal text itself, not a support file"
    return None


def check_inside(skill_dir: Path, rel: str) -> str | None:
    """Why writing ``skill_dir/rel`` would leave ``skill_dir`` on the live disk, or None.

    Resolves symlinks of every existing parent (a ``scripts -> /etc`` link is refused) and refuses
    a target file that is itself a symlink (atomic replace would cut the link and the content would
    land somewhere the user does not expect).
    """
    why = check_relpath(rel) if rel != SKILL_MD else None
    if why:
        return why
    base = Path(os.path.realpath(skill_dir))
    target = Path(skill_dir) / PurePosixPath(rel)
    if target.is_symlink():
        return f"{rel!r}: the live file is a symlink (to {os.readlink(target)}); refused"
    parent = Path(os.path.realpath(target.parent))
    try:
        parent.relative_to(base)
    except ValueError:
        return f"{rel!r}: its folder resolves to {parent}, outside the skill folder {base}"
    return None


def files_from_folder(folder: Path) -> tuple[bytes, dict[str, bytes]]:
    """Read a proposal given as a folder: its SKILL.md and every other file (support files).

    Returns (SKILL.md bytes, {relpath: bytes}). Skips ``.git`` and ``__pycache__``.

    Raises:
        ValueError: no SKILL.md in the folder, or a symlink anywhere in it (a symlink could make
            the applied skill read or write outside its folder; refused, with its path).
    """
    folder = Path(folder)
    skill = folder / SKILL_MD
    if skill.is_symlink():
        raise ValueError(f"{skill}: is a symlink; a proposal must contain real files")
    if not skill.is_file():
        raise ValueError(f"{folder}: no SKILL.md in the proposal folder")
    files: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        d = Path(dirpath)
        for name in list(dirnames):
            if name in (".git", "__pycache__"):
                dirnames.remove(name)
            elif (d / name).is_symlink():
                raise ValueError(f"{d / name}: is a symlink; a proposal must contain real files")
        for name in filenames:
            p = d / name
            if p.is_symlink():
                raise ValueError(f"{p}: is a symlink; a proposal must contain real files")
            rel = p.relative_to(folder).as_posix()
            if rel == SKILL_MD:
                continue
            files[rel] = p.read_bytes()
    return skill.read_bytes(), files


def executable_files(folder: Path) -> set[str]:
    """Relpaths (as ``files_from_folder`` names them) of the files in ``folder`` that have an
    executable bit for their owner; SKILL.md, ``.git`` and ``__pycache__`` are left out."""
    folder = Path(folder)
    out: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = [n for n in dirnames if n not in (".git", "__pycache__")]
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_symlink() and os.stat(p).st_mode & 0o100:
                rel = p.relative_to(folder).as_posix()
                if rel != SKILL_MD:
                    out.add(rel)
    return out
