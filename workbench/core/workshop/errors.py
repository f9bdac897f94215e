"""Errors raised by the workshop (proposal store, lifecycle, apply/rollback).

All derive from ``WorkshopError`` so callers (CLI, GUI, chat tool) can catch one type and show
``str(exc)``: every message names the proposal or path it is about and says what to do.
"""

from __future__ import annotations


class WorkshopError(Exception):
    """Base class of every workshop error. ``str(exc)`` is a one-line, user-facing message."""


class ProposalError(WorkshopError):
    """Bad input at propose/revise time (path leaving the skill folder, target exists, target not
    writable, unparseable frontmatter for a description edit, ...). Nothing was stored."""


class NotFoundError(WorkshopError):
    """No proposal with that id (or the id prefix is ambiguous)."""


class TransitionError(WorkshopError):
    """A refused lifecycle transition (e.g. apply of a stale or rejected proposal, apply blocked by
    critical risks, rollback when the live file changed since apply).

    Attributes: proposal_id, state (the proposal's state when refused).
    """

    def __init__(self, message: str, proposal_id: str = "", state: str = ""):
        super().__init__(message)
        self.proposal_id, self.state = proposal_id, state


class ApplyError(WorkshopError):
    """Writing the files of an apply or rollback failed (disk full, permission, a file changed
    under us). The operation was undone: the skill is as it was before, the store consistent."""


class StoreBusyError(WorkshopError):
    """The workshop database (or the apply lock) is held by another process. Retryable: try again
    in a moment. Nothing was changed."""


class StoreCorruptError(WorkshopError):
    """The workshop database could not be opened or repaired (after moving a damaged file aside)."""
