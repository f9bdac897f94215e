"""Small helpers for tests: ``from tests.helpers import write_skill``."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    folder: Path,
    name: str | None = None,
    description: str | None = "Use when testing.",
    body: str = "# Body\n",
    extra: str = "",
    raw: str | None = None,
) -> Path:
    """Write ``folder/SKILL.md`` and return its path. ``raw`` replaces the whole file."""
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "SKILL.md"
    if raw is None:
        fm = []
        if name is not None:
            fm.append(f"name: {name}")
        if description is not None:
            fm.append(f"description: {description}")
        if extra:
            fm.append(extra.rstrip("\n"))
        raw = "---\n" + "\n".join(fm) + "\n---\n" + body
    p.write_text(raw, encoding="utf-8")
    return p
