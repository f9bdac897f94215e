"""Small helpers for tests: ``from tests.helpers import write_skill, backdate``."""

from __future__ import annotations

import os
import time
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


#: A PDF skill's trigger queries (should / should not trigger), shared by the eval GUI tests.
POS = [
    "merge these two PDFs into one",
    "extract the text from invoice.pdf",
    "fill the form in tax.pdf",
    "split report.pdf into chapters",
    "rotate pages 3-5 of scan.pdf",
    "pull the tables out of q3.pdf",
    "add a watermark to the PDF",
    "compress this 40 MB pdf",
    "OCR the scanned PDF",
    "sign contract.pdf",
]
NEG = [
    "plot sales.csv as a bar chart",
    "write a commit message",
    "what's the weather tomorrow",
    "convert this Word doc to markdown",
    "review my pull request",
    "resize logo.png to 64px",
    "explain this stack trace",
    "count rows in users.csv",
    "translate README to French",
    "draft release notes",
]


def backdate(root: Path, seconds: float = 60.0) -> None:
    """Set the mtime (and atime) of ``root`` and every file, folder and link below it to
    ``seconds`` ago (links themselves, not their targets): the caches store nothing "racily
    new" (modified less than 2 s before a run), so a test of a warm run ages its tree first."""
    past = time.time() - seconds
    for dp, dn, fn in os.walk(root):
        for name in fn + dn:
            os.utime(os.path.join(dp, name), (past, past), follow_symlinks=False)
        os.utime(dp, (past, past))
