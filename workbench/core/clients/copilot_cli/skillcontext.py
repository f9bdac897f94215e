"""What GitHub Copilot CLI's ``skill`` tool delivers when the model loads a skill.

Measured on GitHub Copilot CLI 1.0.102 by the conformance lab (a scripted ``skill`` tool call
through the recording stand-in; ``tests/conformance/test_copilot_skill_tool.py``):

* the ``tool_result`` is one line, ``Skill "<name>" loaded successfully. Follow the instructions in
  the skill context.`` (``LOADED``);
* the skill itself follows as a separate user message holding one text block::

      <skill-context name="NAME">
      Base directory for this skill: DIR
      <blank line>
      Summarized directories:               <- only when a folder holds more than 50 entries
        - rel/path/ (N items)
      Related files (use view tool to read):    <- only when there are files
        - /abs/path/of/a/file               <- sorted (code-unit order), at most 100
        ...and more files (listing truncated)   <- only past 100
      <blank line>
      BODY                                  <- leading blank (whitespace-only) lines removed
      </skill-context>

  (BODY is kept as written after that, trailing white space included, and ``\\n</skill-context>``
  follows it.)
* the folder walk: depth first in the file system's directory order (``os.scandir``; the lab
  showed the client's choice of the first 100 files equals that order), symbolic links ignored
  (files and folders), ``SKILL.md`` in any letter case at any depth left out, the folders in
  ``SKIPPED_DIRS`` (exact names, any depth) not entered, a folder with more than 50 entries
  (``SUMMARY_MIN``) named in "Summarized directories" instead of being entered; the walk stops
  once 100 files (``MAX_FILES``) are collected and one more exists;
* an unknown name: ``Skill "x" not found. Available skills: a, b, ...`` (listed skills, then the
  built-ins), without ``is_error``.

Unverified: whether skipped folders and links count among a folder's "items" (here: every entry
counts), and Windows paths. The texts above are interface facts (line shapes), not prose.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

LOADED = 'Skill "{name}" loaded successfully. Follow the instructions in the skill context.'
NOT_FOUND = 'Skill "{name}" not found. Available skills: {names}'
MAX_FILES = 100
SUMMARY_MIN = 51
SKIPPED_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        "dist",
        "build",
        "out",
        "target",
        "vendor",
        "coverage",
        ".cache",
        "bin",
        "obj",
        ".next",
    }
)
_LEADING_BLANK = re.compile(r"\A(?:[ \t\r]*\n)+")


def related_files(skill_dir: Path) -> tuple[list[str], list[tuple[str, int]], bool]:
    """Walk ``skill_dir`` as the client does (module docstring).

    Returns ``(files, summarized, truncated)``: up to ``MAX_FILES`` absolute file paths (sorted),
    ``(relative folder path with "/", entry count)`` of each summarized folder in walk order, and
    whether more files existed past the cap. Unreadable folders are left out; never raises.
    """
    files: list[str] = []
    summarized: list[tuple[str, int]] = []
    truncated = False

    def walk(folder: str, rel: str) -> bool:
        """False once the cap is reached (stop everything)."""
        nonlocal truncated
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            return True
        for e in entries:
            if e.is_symlink():
                continue
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if e.name in SKIPPED_DIRS:
                    continue
                sub_rel = f"{rel}{e.name}/"
                try:
                    count = len(os.listdir(e.path))
                except OSError:
                    continue
                if count >= SUMMARY_MIN:
                    summarized.append((sub_rel, count))
                    continue
                if not walk(e.path, sub_rel):
                    return False
            elif e.name.lower() != "skill.md":
                if len(files) >= MAX_FILES:
                    truncated = True
                    return False
                files.append(e.path)
        return True

    walk(str(skill_dir), "")
    files.sort()
    return files, summarized, truncated


def skill_context(name: str, skill_dir: Path, body: str) -> str:
    """The ``<skill-context>`` text block the client sends after loading skill ``name`` whose
    folder is ``skill_dir`` and whose SKILL.md body (after the frontmatter) is ``body``."""
    files, summarized, truncated = related_files(skill_dir)
    parts = [f'<skill-context name="{name}">\nBase directory for this skill: {skill_dir}\n']
    sections: list[str] = []
    if summarized:
        sections.append("Summarized directories:")
        sections += [f"  - {rel} ({n} items)" for rel, n in summarized]
    if files:
        sections.append("Related files (use view tool to read):")
        sections += [f"  - {f}" for f in files]
        if truncated:
            sections.append("  ...and more files (listing truncated)")
    if sections:
        parts.append("\n".join(sections) + "\n")
    parts.append(_LEADING_BLANK.sub("", body) + "\n</skill-context>")
    return "\n".join(parts)
