"""What a proposal would change: text diffs and the client listing as if it were applied.

Pure core (no Qt): the Workshop pane and ``workbench workshop show`` both use it.

The listing preview uses ``workbench.core.discovery.scan`` and ``workbench.core.listing
.render_listing`` (imported on first use). It scans the live workspace, then swaps the proposed
SKILL.md into the catalog *in memory* — read through the client's own ``profile.read`` so the
description is normalised the way that client does — and renders the listing again. Nothing is
written. When the scan or the rendering fails, the preview says so (``available=False`` and a
note, the exception logged) instead of guessing.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.model import SkillStatus
from workbench.core.skillfile import parse_skill_bytes

if TYPE_CHECKING:
    from workbench.core.listingkit import ListingReport
    from workbench.core.model import Environment
    from workbench.core.workshop.records import FileChange, Proposal

log = logging.getLogger(__name__)


def decode_for_display(data: bytes | None) -> str | None:
    """Text for showing a file, or None when it is binary (a NUL byte). Invalid UTF-8 is shown
    with replacement characters; a BOM is kept visible as U+FEFF."""
    if data is None:
        return ""
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def unified_diff(change: FileChange, context: int = 3) -> str:
    """A unified diff of one file (``a/<rel>`` → ``b/<rel>``); a one-line note for binary files."""
    old, new = decode_for_display(change.old), decode_for_display(change.new)
    if old is None or new is None:
        return f"Binary file {change.rel}: {len(change.old or b''):,} → {len(change.new):,} bytes\n"
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    fromfile = "/dev/null" if change.old is None else f"a/{change.rel}"
    lines = list(difflib.unified_diff(a, b, fromfile=fromfile, tofile=f"b/{change.rel}", n=context))
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)


@dataclass
class Row:
    """One row of a side-by-side diff. ``tag`` ∈ equal, replace, delete, insert; line numbers are
    1-based or None for a filler cell."""

    tag: str
    old_no: int | None
    old: str
    new_no: int | None
    new: str


def side_by_side(old: str, new: str) -> list[Row]:
    """Align two texts line by line (difflib.SequenceMatcher opcodes) for a two-column view."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        n = max(i2 - i1, j2 - j1)
        for k in range(n):
            i, j = i1 + k, j1 + k
            rows.append(
                Row(
                    tag,
                    i + 1 if i < i2 else None,
                    a[i] if i < i2 else "",
                    j + 1 if j < j2 else None,
                    b[j] if j < j2 else "",
                )
            )
    return rows


@dataclass
class ListingPreview:
    """The model-visible listing before and as if the proposal were applied.

    Attributes:
        available: False when the scan or the listing failed (see ``note``).
        client: the client id.
        before, after: the listing texts (exactly the model-visible text).
        note: why unavailable, or caveats (e.g. the target root is not scanned by this client).
        skill_state_before, skill_state_after: the proposal's skill state in the listing
            (full|truncated|name-only|omitted, or "" when not listed).
    """

    available: bool
    client: str = ""
    before: str = ""
    after: str = ""
    note: str = ""
    skill_state_before: str = ""
    skill_state_after: str = ""
    notes: list[str] = field(default_factory=list)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _state_of(report: ListingReport, path: Path) -> str:
    for s in report.skills:
        if os.path.abspath(s.path) == os.path.abspath(path):
            return s.state
    return ""


def listing_preview(
    proposal: Proposal, new_skill_md: bytes, env: Environment, client_id: str = "claude-code"
) -> ListingPreview:
    """Render ``client_id``'s listing for ``env`` now and with ``new_skill_md`` in place of the
    proposal's target. Never raises: a crash of the scan or the rendering is logged (warning) and
    becomes ``available=False`` with a note (a preview must never break review)."""
    from workbench.core.clients import get_profile
    from workbench.core.clients.base import Found
    from workbench.core.discovery import scan
    from workbench.core.listing import render_listing
    from workbench.core.model import Skill

    try:
        cat = scan(env, client_id)
        before = render_listing(cat, env.context_tokens)
        target = proposal.skill_md
        sf = parse_skill_bytes(new_skill_md, target)
        profile = get_profile(client_id)
        cat2 = copy.copy(cat)
        cat2.skills = [dataclasses.replace(s) for s in cat.skills]
        hits = [s for s in cat2.skills if _same(s.path, target)]
        note = ""
        if hits:
            for s in hits:
                rr = profile.read(sf, Found(s.path, s.depth), s.root, env)
                if rr.ok:
                    s.description, s.when_to_use, s.fields, s.file = (
                        rr.description,
                        rr.when_to_use,
                        rr.fields,
                        sf,
                    )
                else:
                    s.status, s.reason = SkillStatus.SKIPPED, rr.reason
                    note = f"{client_id} would skip the proposed file: {rr.reason}"
        else:
            roots = [
                r
                for r in cat2.roots
                if _same(r.path, proposal.target_dir.parent)
                or os.path.abspath(r.path) == os.path.abspath(proposal.target_dir.parent)
            ]
            if not roots:
                note = (
                    f"{proposal.target_dir.parent} is not a folder {client_id} scans here; "
                    "the skill would not be listed"
                )
            else:
                rr = profile.read(sf, Found(target, 1), roots[0], env)
                if rr.ok:
                    cat2.skills.append(
                        Skill(
                            path=target,
                            root=roots[0],
                            name=rr.name,
                            description=rr.description,
                            when_to_use=rr.when_to_use,
                            status=SkillStatus.LISTED,
                            file=sf,
                            fields=rr.fields,
                        )
                    )
                else:
                    note = f"{client_id} would skip the proposed file: {rr.reason}"
        after = render_listing(cat2, env.context_tokens)
        return ListingPreview(
            True,
            client_id,
            before.text,
            after.text,
            note,
            _state_of(before, target),
            _state_of(after, target),
        )
    except Exception as exc:  # noqa: BLE001 - a preview must never break review
        log.warning("listing preview of %s for %s failed", proposal.skill_md, client_id, exc_info=True)
        return ListingPreview(
            False, client_id, note=f"listing preview failed: {exc.__class__.__name__}: {exc}"
        )
