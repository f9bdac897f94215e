"""The workshop: a review queue for proposed skills and skill changes.

Drafted skills and edits (from the chat agent, the description-improvement loop, or by hand) wait
here for a person, who sees the diff and the risks and decides. Nothing reaches a live SKILL.md
without that decision, and every decision can be undone.

Typical use::

    store = WorkshopStore(workspace)
    p = store.propose_create("pdf-tools", text, {"scripts/x.py": b"..."}, target_root=root,
                             source="chat", note="drafted from the conversation")
    p = store.propose_description_update(skill_md, "Use when ...", source="eval")
    store.proposals(state="pending"); store.changes(p.id); store.apply(p.id); store.rollback(p.id)

Modules: ``store`` (``WorkshopStore``: proposing and decisions) on ``apply`` (apply/rollback/
recovery), ``reader`` (queries) and ``journal`` (database, events, blobs); ``records``
(``Proposal``, ``State``, ``Kind``); ``risks`` (``check_files``: the risk checks, on ``risktext``,
``shellrules`` and ``workbench.core.riskpatterns``) and ``risk`` (``Risk``, ``Severity``);
``lintcheck`` (the linter hook); ``edit`` (description-only rewrite), ``paths`` (path safety),
``preview`` (diffs and the listing preview as if applied), ``errors``.
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
from workbench.core.workshop.lintcheck import LintResult
from workbench.core.workshop.records import (
    APPLY_STEPS,
    KINDS,
    ROLLBACK_STEPS,
    STATES,
    Event,
    FileChange,
    Kind,
    Proposal,
    State,
    default_store_dir,
    default_target_root,
    workspaces_holding,
)
from workbench.core.workshop.risk import Risk, Severity
from workbench.core.workshop.risks import check_files
from workbench.core.workshop.store import WorkshopStore

__all__ = [
    "APPLY_STEPS",
    "KINDS",
    "ROLLBACK_STEPS",
    "STATES",
    "ApplyError",
    "Event",
    "FileChange",
    "Kind",
    "LintResult",
    "NotFoundError",
    "Proposal",
    "ProposalError",
    "Risk",
    "Severity",
    "State",
    "StoreBusyError",
    "StoreCorruptError",
    "TransitionError",
    "WorkshopError",
    "WorkshopStore",
    "check_files",
    "default_store_dir",
    "default_target_root",
    "workspaces_holding",
]
