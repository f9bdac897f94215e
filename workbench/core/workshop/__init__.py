"""The workshop: a review queue for proposed skills and skill changes.

Drafted skills and edits (from the chat agent, the description-improvement loop, or by hand) wait
here for a person, who sees the diff and the risks and decides. Nothing reaches a live SKILL.md
without that decision, and every decision can be undone.

Typical use::

    store = WorkshopStore(workspace)
    p = store.propose_create("pdf-tools", text, {"scripts/x.py": b"..."}, target_root=root,
                             source="chat", note="drafted from the conversation")
    p = store.propose_description_update(skill_md, "Use when ...", source="eval")
    store.list(state="pending"); store.changes(p.id); store.apply(p.id); store.rollback(p.id)

Modules: ``store`` (records, lifecycle, apply/rollback/recovery), ``scanner`` (risk findings +
the linter hook), ``edit`` (description-only rewrite), ``paths`` (path safety), ``preview``
(diffs and the listing preview as if applied), ``errors``.
"""

from workbench.core.workshop.errors import (
    ApplyError,
    NotFoundError,
    ProposalError,
    StoreBusyError,
    StoreCorruptError,
    TransitionError,
    WorkshopError,
)
from workbench.core.workshop.scanner import Finding, LintResult, scan_files
from workbench.core.workshop.store import (
    APPLY_STEPS,
    KINDS,
    ROLLBACK_STEPS,
    STATES,
    Event,
    FileChange,
    Proposal,
    WorkshopStore,
    default_store_dir,
    default_target_root,
    workspaces_holding,
)

__all__ = [
    "APPLY_STEPS",
    "KINDS",
    "ROLLBACK_STEPS",
    "STATES",
    "ApplyError",
    "Event",
    "FileChange",
    "Finding",
    "LintResult",
    "NotFoundError",
    "Proposal",
    "ProposalError",
    "StoreBusyError",
    "StoreCorruptError",
    "TransitionError",
    "WorkshopError",
    "WorkshopStore",
    "default_store_dir",
    "default_target_root",
    "scan_files",
    "workspaces_holding",
]
