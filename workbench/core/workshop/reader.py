"""Reading the workshop's records: proposals (with ``stale`` recomputed from disk), their
events and file changes. ``ProposalReader`` is a base of ``WorkshopStore``. Pure Python (no Qt).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path, PurePosixPath

from workbench.core.safefile import sha256_of
from workbench.core.workshop.errors import NotFoundError, StoreCorruptError
from workbench.core.workshop.journal import Journal
from workbench.core.workshop.lintcheck import LintResult
from workbench.core.workshop.paths import SKILL_MD
from workbench.core.workshop.records import STATES, Event, FileChange, Kind, Proposal, State, sha_hex
from workbench.core.workshop.risk import Risk


class ProposalReader(Journal):
    """Queries over the store's records (see ``WorkshopStore``)."""

    # ------------------------------------------------------------------ reading records
    def _resolve_id(self, conn: sqlite3.Connection, ident: str) -> str:
        ident = (ident or "").strip()
        if not ident:
            raise NotFoundError("no proposal id given")
        rows = conn.execute(
            "SELECT id FROM proposals WHERE id LIKE ? ESCAPE '\\'",
            (ident.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%",),
        ).fetchall()
        if not rows:
            raise NotFoundError(f"no proposal {ident!r} in the workshop of {self.workspace}")
        exact = [r[0] for r in rows if r[0] == ident]
        if exact:
            return str(exact[0])
        if len(rows) > 1:
            raise NotFoundError(
                f"proposal id {ident!r} is ambiguous: {', '.join(sorted(r[0] for r in rows))}"
            )
        return str(rows[0][0])

    def _record(self, ident: str) -> Proposal:
        with self._read() as conn:
            pid = self._resolve_id(conn, ident)
            return self._load(conn, pid)

    def _load(self, conn: sqlite3.Connection, pid: str) -> Proposal:
        r = conn.execute(
            "SELECT id, kind, name, target_root, target_dir, base, source, note, state, reason,"
            " generation, created_at, updated_at FROM proposals WHERE id=?",
            (pid,),
        ).fetchone()
        if r is None:
            raise NotFoundError(f"no proposal {pid!r}")
        g = conn.execute(
            "SELECT files, findings, lint FROM generations WHERE proposal_id=? AND gen=?", (pid, r[10])
        ).fetchone()
        a = conn.execute(
            "SELECT apply_id, plan, applied_at FROM applies WHERE proposal_id=? AND rolled_back_at"
            " IS NULL ORDER BY applied_at DESC LIMIT 1",
            (pid,),
        ).fetchone()
        return Proposal(
            id=r[0],
            kind=Kind(r[1]),
            name=r[2],
            target_root=Path(r[3]) if r[3] else None,
            target_dir=Path(r[4]),
            base=json.loads(r[5]),
            source=r[6] or "",
            note=r[7] or "",
            state=State(r[8]),
            reason=r[9] or "",
            generation=r[10],
            created_at=r[11],
            updated_at=r[12],
            files=json.loads(g[0]) if g else {},
            findings=[Risk.from_json(x) for x in json.loads(g[1])] if g else [],
            lint=LintResult.from_json(json.loads(g[2])) if g else LintResult(False),
            active_apply=(
                {"apply_id": a[0], "plan": json.loads(a[1]), "applied_at": a[2]}
                if a and r[8] == "applied"
                else None
            ),
        )

    def _stale_reason(self, p: Proposal) -> str:
        if p.kind == "create":
            if os.path.lexists(p.target_dir):
                return f"the target folder {p.target_dir} now exists"
            return ""
        for rel, sha in p.base.items():
            cur = sha256_of(p.target_dir / PurePosixPath(rel))
            if cur == sha:
                continue
            if rel == SKILL_MD:
                return (
                    f"{p.skill_md} was deleted since it was proposed"
                    if cur is None
                    else f"{p.skill_md} changed on disk since it was proposed"
                )
            if sha is None:
                return f"{rel} was created in the skill folder since it was proposed"
            return f"{rel} {'was deleted' if cur is None else 'changed on disk'} since it was proposed"
        return ""

    def _refresh(self, p: Proposal) -> Proposal:
        """Recompute pending ↔ stale from disk; records the change as an event."""
        if p.state not in ("pending", "stale"):
            return p
        reason = self._stale_reason(p)
        if p.state == "pending" and reason:
            with self._tx() as tx:
                tx.emit(p.id, "stale", {"reason": reason})
            p.state, p.reason = State.STALE, reason
        elif p.state == "stale" and not reason:
            with self._tx() as tx:
                tx.emit(
                    p.id, "unstale", {"reason": "the target is back to the content it was proposed against"}
                )
            p.state, p.reason = State.PENDING, ""
        elif p.state == "stale" and reason != p.reason:
            p.reason = reason
        return p

    def get(self, ident: str) -> Proposal:
        """The proposal with this id (or unique prefix), staleness recomputed.

        Raises NotFoundError (unknown or ambiguous id), StoreBusyError."""
        return self._refresh(self._record(ident))

    def proposals(self, state: str | None = None) -> list[Proposal]:
        """All proposals, oldest first, staleness recomputed; ``state`` filters (one of STATES)."""
        if state is not None and state not in STATES:
            raise ValueError(f"unknown state {state!r}; expected one of {', '.join(STATES)}")
        with self._read() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM proposals ORDER BY created_at, id")]
            props = [self._load(conn, pid) for pid in ids]
        props = [self._refresh(p) for p in props]
        return [p for p in props if state is None or p.state == state]

    def events(self, ident: str) -> list[Event]:
        """The append-only history of one proposal, oldest first."""
        with self._read() as conn:
            pid = self._resolve_id(conn, ident)
            rows = conn.execute(
                "SELECT seq, proposal_id, at, kind, detail FROM events WHERE proposal_id=? ORDER BY seq",
                (pid,),
            ).fetchall()
        return [Event(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def changes(self, ident: str) -> list[FileChange]:
        """Each file of the current generation against what it replaces: the live file for a
        pending/stale/rejected proposal, the pre-apply bytes for an applied one. SKILL.md first."""
        p = self.get(ident)
        new = self.generation_files(p.id)
        before: dict[str, str | None] = {}
        if p.active_apply:
            before = {e["rel"]: e["before"] for e in p.active_apply["plan"]["entries"]}
        out = []
        for rel in sorted(new, key=lambda r: (r != SKILL_MD, r)):
            path = p.target_dir / PurePosixPath(rel)
            if rel in before:
                sha = before[rel]
                old = self.blob(sha) if sha else None
            else:
                try:
                    old = path.read_bytes() if path.is_file() else None
                except OSError:
                    old = None
            out.append(FileChange(rel, path, old, new[rel]))
        return out

    def _live(self, target_dir: Path, rels: list[str]) -> dict[str, bytes | None]:
        out: dict[str, bytes | None] = {}
        for rel in rels:
            f = target_dir / PurePosixPath(rel)
            try:
                out[rel] = f.read_bytes() if f.is_file() else None
            except OSError:
                out[rel] = None
        return out

    @staticmethod
    def _refusal(p: Proposal, verb: str) -> str:
        why = f" ({p.reason})" if p.reason else ""
        return f"proposal {p.id} is {p.state}{why}: only pending proposals can be {verb}"

    def generation_files(self, pid: str, gen: int | None = None) -> dict[str, bytes]:
        """{relpath: bytes} of a generation ("SKILL.md" = PROPOSAL.md). Default: the current one.

        Raises NotFoundError; StoreCorruptError if the generation folder was damaged."""
        p = self._record(pid)
        gen = gen or p.generation
        with self._read() as conn:
            row = conn.execute(
                "SELECT files FROM generations WHERE proposal_id=? AND gen=?", (p.id, gen)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"proposal {p.id} has no generation {gen}")
        meta = json.loads(row[0])
        out: dict[str, bytes] = {}
        d = self._gen_dir(p.id, gen)
        for rel, info in meta.items():
            f = d / "PROPOSAL.md" if rel == SKILL_MD else d / "files" / PurePosixPath(rel)
            try:
                data = f.read_bytes()
            except OSError as exc:
                raise StoreCorruptError(f"proposal file {f} is missing: {exc}") from exc
            if sha_hex(data) != info["sha256"]:
                raise StoreCorruptError(
                    f"proposal file {f} was modified (hash mismatch); generations are immutable"
                )
            out[rel] = data
        return out
