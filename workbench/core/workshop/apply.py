"""Apply, rollback and recovery of workshop proposals (the protocol is in ``workshop.store``'s
module docstring). ``Applier`` is a base of ``WorkshopStore``. Pure Python (no Qt).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from pathlib import Path, PurePosixPath
from typing import Any

from workbench.core.safefile import ConflictError, atomic_write, fsync_dir, sha256_of
from workbench.core.text import plural
from workbench.core.workshop.errors import ApplyError, TransitionError, WorkshopError
from workbench.core.workshop.paths import SKILL_MD
from workbench.core.workshop.reader import ProposalReader
from workbench.core.workshop.records import Proposal, executable_rels, now_iso, sha_hex
from workbench.core.workshop.risk import blocking
from workbench.core.workshop.risks import check_files
from workbench.core.workshop.switch import copy_folder, exchange, remove_tree, repair, stage_path

log = logging.getLogger(__name__)


def _tree_stat(folder: Path) -> dict[str, tuple[int, int]]:
    """{relpath: (size, mtime_ns)} of every file and link under ``folder`` (no links followed)."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, _dirs, names in os.walk(folder):
        for n in names:
            st = os.lstat(os.path.join(dirpath, n))
            out[os.path.relpath(os.path.join(dirpath, n), folder)] = (st.st_size, st.st_mtime_ns)
    return out


def _tree_hashes_match(folder: Path, plan: dict[str, Any]) -> bool:
    """Every planned file under ``folder`` holds its ``after`` bytes."""
    return all(sha256_of(folder / PurePosixPath(e["rel"])) == e["after"] for e in plan["entries"])


def _remove_empty_dirs(dirs: list[str], why: str) -> list[str]:
    """Remove the folders an apply created, innermost first; a non-empty one is kept and named
    in the returned problems (``why`` explains it)."""
    problems = []
    for d in reversed(dirs):
        try:
            os.rmdir(d)
        except FileNotFoundError:
            pass
        except OSError:
            problems.append(f"{d} is not empty{why}; kept")
    return problems


class Applier(ProposalReader):
    """Apply/rollback/recover of proposals (see ``WorkshopStore``)."""

    # ------------------------------------------------------------------ apply
    def _opened(self) -> None:
        """Right after opening: finish what a killed apply/rollback left (unless another process
        holds the apply lock: it does that itself)."""
        with self._oplock(blocking=False) as got:
            if got:
                self._recover_locked()

    def _plan(
        self,
        p: Proposal,
        files: dict[str, bytes],
        live: dict[str, bytes | None],
        apply_id: str,
        exe: set[str],
    ) -> dict[str, Any]:
        dirs: list[str] = []
        # folders to create, outermost first: the skill folder chain and support sub-folders
        need = [p.target_dir / PurePosixPath(rel).parent for rel in sorted(files)]
        for d in need:
            chain = []
            cur = d
            while not cur.exists() and str(cur) not in dirs and cur != cur.parent:
                chain.append(str(cur))
                cur = cur.parent
            dirs.extend(reversed(chain))
        entries = []
        for rel in sorted(files, key=lambda r: (r == SKILL_MD, r)):
            old = live.get(rel)
            path = p.target_dir / PurePosixPath(rel)
            try:
                mode_before = path.stat().st_mode & 0o7777 if old is not None else None
            except OSError:
                mode_before = None
            entries.append(
                {
                    "rel": rel,
                    "path": str(path),
                    "before": sha_hex(old) if old is not None else None,
                    "after": sha_hex(files[rel]),
                    "mode_before": mode_before,
                    "executable": rel in exe,
                }
            )
        # the switch happens on the real folder (a symlinked skill folder keeps its link)
        live_dir = Path(os.path.realpath(p.target_dir)) if p.kind == "update" else p.target_dir
        return {
            "entries": entries,
            "created_dirs": dirs,
            "mode": "switch",
            "kind": p.kind,
            "live_dir": str(live_dir),
            "stage": str(stage_path(live_dir, apply_id)),
            "prev": str(stage_path(live_dir, apply_id, "prev")),
            "parent_dirs": [d for d in dirs if not Path(d).is_relative_to(p.target_dir)],
        }

    def apply(self, ident: str) -> Proposal:
        """Write a pending proposal into the live skill (see the module docstring for the
        protocol). Risks (``check_files``) are recomputed now; critical ones added by the proposal block.

        Raises:
            TransitionError: not pending (stale, rejected, ...) or blocked by critical findings.
            ApplyError: staging or the switch failed, or the live folder changed meanwhile; the
                live skill folder was left as it was (or switched back).
            StoreBusyError: another process holds the database or the apply lock.
        """
        with self._oplock():
            self._recover_locked()
            p = self.get(ident)
            if p.state != "pending":
                raise TransitionError(self._refusal(p, "applied"), p.id, p.state)
            files = self.generation_files(p.id)
            exe = executable_rels(p)
            live = self._live(p.target_dir, list(files))
            findings = check_files(
                files, target_dir=p.target_dir, previous=live if p.kind == "update" else None, executable=exe
            )
            block = blocking(findings)
            if block:
                with self._tx() as tx:
                    tx.emit(p.id, "apply-blocked", {"findings": [f.to_json() for f in block]})
                first = "; ".join(f"{f.file}:{f.line}: {f.message}" for f in block[:3])
                raise TransitionError(
                    f"apply of {p.id} blocked by {plural(len(block), 'critical finding')}: {first}",
                    p.id,
                    p.state,
                )
            apply_id = f"{p.id}-{secrets.token_hex(3)}"
            plan = self._plan(p, files, live, apply_id, exe)
            # 1. rollback data first: previous bytes (and the new ones) into the blob store
            for rel, old in live.items():
                if old is not None:
                    self._put_blob(old)
                self._put_blob(files[rel])
            self._fault("rollback-data")
            # 2. the journal: from here on, a crash is rolled back at the next open
            with self._tx() as tx:
                tx.conn.execute(
                    "INSERT INTO journal(proposal_id, op, apply_id, plan, started_at, pid)"
                    " VALUES (?,?,?,?,?,?)",
                    (p.id, "apply", apply_id, json.dumps(plan), now_iso(), os.getpid()),
                )
            self._fault("journal")
            # 3-4. stage the new folder beside the live one, then switch
            try:
                self._stage_and_switch(plan, files)
            except Exception as exc:  # noqa: BLE001 - restored, then re-raised as ApplyError
                log.warning("apply of %s failed; restoring the previous folder", p.id, exc_info=True)
                problems = self._unswitch(plan)
                with self._tx() as tx:
                    tx.conn.execute("DELETE FROM journal WHERE proposal_id=?", (p.id,))
                    tx.emit(p.id, "apply-failed", {"error": str(exc), "problems": problems})
                extra = f" ({'; '.join(problems)})" if problems else ""
                raise ApplyError(
                    f"apply of {p.id} failed: {exc}; the skill was restored to its previous state{extra}"
                ) from exc
            # 5. record it, atomically with swapping the journal row for the cleanup of the old folder
            cleanup_key = f"~cleanup:{apply_id}"
            with self._tx() as tx:
                tx.conn.execute("DELETE FROM journal WHERE proposal_id=?", (p.id,))
                tx.conn.execute(
                    "INSERT INTO journal(proposal_id, op, apply_id, plan, started_at, pid)"
                    " VALUES (?,?,?,?,?,?)",
                    (
                        cleanup_key,
                        "cleanup",
                        apply_id,
                        json.dumps({"stage": plan["stage"]}),
                        now_iso(),
                        os.getpid(),
                    ),
                )
                tx.emit(p.id, "applied", {"apply_id": apply_id, "generation": p.generation, "plan": plan})
            self._fault("committed")
            # 6. delete the old version (a crash here is finished at the next open)
            self._cleanup(cleanup_key, plan["stage"])
            self._fault("cleaned")
        return self.get(p.id)

    def _stage_and_switch(self, plan: dict[str, Any], files: dict[str, bytes]) -> None:
        """Steps 3-4 of apply: build the staging folder, then switch it in. Raises on any problem
        (the caller switches back and deletes the staging folder)."""
        live_dir, stage, prev = Path(plan["live_dir"]), Path(plan["stage"]), Path(plan["prev"])
        for d in plan["parent_dirs"]:
            os.makedirs(d, exist_ok=True)
        if not os.access(live_dir.parent, os.W_OK):
            raise ApplyError(
                f"{live_dir.parent} is not writable: the new version is staged beside the skill "
                "folder and switched in by rename"
            )
        snap: dict[str, tuple[int, int]] = {}
        if plan["kind"] == "update":
            self._check_before(plan, live_dir)
            snap = _tree_stat(live_dir)
            copy_folder(live_dir, stage)
        else:
            os.mkdir(stage)
        self._fault("dirs")
        for i, e in enumerate(plan["entries"]):
            dest = stage / PurePosixPath(e["rel"])
            dest.parent.mkdir(parents=True, exist_ok=True)
            mode = 0o755 if e.get("executable") else (e.get("mode_before") or 0o644)
            if os.path.lexists(dest):
                os.unlink(dest)  # a copied symlink or hard link: never write through it
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(files[e["rel"]])
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(dest, mode)
            self._fault(f"file:{i}")
        for dirpath, _dirs, _files in os.walk(stage):
            fsync_dir(Path(dirpath))
        self._fault("files")
        if plan["kind"] == "update":
            self._check_before(plan, live_dir)
            exchange(live_dir, stage, prev)
            if _tree_stat(stage) != snap:  # edited between the copy and the switch: undo
                raise ApplyError(
                    f"{live_dir} changed while the apply was staged; nothing was changed, try again"
                )
            self._check_before(plan, stage)
        else:
            if os.path.lexists(live_dir):
                raise ApplyError(f"{live_dir} appeared while the apply was staged; not overwritten")
            os.rename(stage, live_dir)
            fsync_dir(live_dir.parent)
        self._fault("switched")

    @staticmethod
    def _check_before(plan: dict[str, Any], folder: Path) -> None:
        """Raise ConflictError unless every planned file in ``folder`` still has its planned
        ``before`` hash."""
        for e in plan["entries"]:
            path = folder / PurePosixPath(e["rel"])
            cur = sha256_of(path)
            if cur != e["before"]:
                raise ConflictError(path, e["before"] or "", cur)

    @staticmethod
    def _switched(plan: dict[str, Any]) -> bool:
        """Whether the live path holds the staged version (judged by the planned hashes)."""
        live_dir, stage = Path(plan["live_dir"]), Path(plan["stage"])
        if plan["kind"] == "create":
            return os.path.lexists(live_dir) and not os.path.lexists(stage)
        for e in plan["entries"]:
            if e["before"] != e["after"]:
                return sha256_of(live_dir / PurePosixPath(e["rel"])) == e["after"] and os.path.lexists(stage)
        return False

    def _unswitch(self, plan: dict[str, Any]) -> list[str]:
        """Undo steps 3-4 (in-process failure or crash recovery): the old folder back at the live
        path, the staging folder and the folders created above the skill deleted. Returns
        problems (left as is)."""
        live_dir, stage, prev = Path(plan["live_dir"]), Path(plan["stage"]), Path(plan["prev"])
        problems: list[str] = []
        repair(live_dir, stage, prev)
        if self._switched(plan):
            if plan["kind"] == "update":
                exchange(live_dir, stage, prev)
            elif _tree_hashes_match(live_dir, plan):
                os.rename(live_dir, stage)
            else:
                problems.append(f"{live_dir} changed since the apply; left as it is")
        remove_tree(stage)
        return problems + _remove_empty_dirs(plan.get("parent_dirs", []), "")

    def _cleanup(self, key: str, stage: str) -> None:
        """Delete the old version parked at ``stage`` and its cleanup journal row."""
        remove_tree(Path(stage))
        with self._tx() as tx:
            tx.conn.execute("DELETE FROM journal WHERE proposal_id=?", (key,))

    def _undo(self, plan: dict[str, Any], force: bool = False, step: str | None = None) -> list[str]:
        """Restore the ``before`` bytes of every entry whose file holds ``after`` (any content
        when ``force``; the overwritten bytes are kept as a blob first), delete files the apply
        created, then remove created folders that are empty. Returns problems (files left as is)."""
        problems: list[str] = []
        for i, e in enumerate(reversed(plan["entries"])):
            path = Path(e["path"])
            cur = sha256_of(path)
            if cur == e["before"]:
                continue
            if cur != e["after"] and not force:
                problems.append(f"{path} changed since the apply; left as it is")
                continue
            if cur is not None and cur != e["after"]:
                self._put_blob(path.read_bytes())  # forced: keep what we overwrite
            if e["before"] is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                fsync_dir(path.parent)
            else:
                atomic_write(path, self.blob(e["before"]), mode=e.get("mode_before"))
            if step:
                self._fault(f"{step}:{i}")
        return problems + _remove_empty_dirs(plan.get("created_dirs", []), " (files added after the apply)")

    def _recover_locked(self) -> None:
        """Roll back applies/rollbacks that a dead process left in the journal (lock held)."""
        with self._read() as conn:
            rows = conn.execute("SELECT proposal_id, op, apply_id, plan FROM journal").fetchall()
        for pid, op, apply_id, plan_s in rows:
            plan = json.loads(plan_s)
            if op == "cleanup":  # an applied proposal whose old folder was not deleted yet
                try:
                    self._cleanup(pid, plan["stage"])
                except OSError as exc:
                    self.notices.append(
                        f"the previous version of an applied skill could not be deleted from "
                        f"{plan['stage']} yet: {exc}"
                    )
                continue
            try:
                problems = (
                    self._unswitch(plan)
                    if op == "apply" and plan.get("mode") == "switch"
                    else self._undo(plan)
                )
            except (OSError, WorkshopError) as exc:
                self.notices.append(f"an interrupted {op} of proposal {pid} could not be undone yet: {exc}")
                continue
            with self._tx() as tx:
                tx.conn.execute("DELETE FROM journal WHERE proposal_id=?", (pid,))
                if op == "apply":
                    tx.emit(pid, "apply-interrupted", {"apply_id": apply_id, "problems": problems})
                else:
                    tx.emit(
                        pid, "rolled-back", {"apply_id": apply_id, "interrupted": True, "problems": problems}
                    )
            what = (
                "an apply of proposal {0} was interrupted; the skill was restored to its previous state"
                if op == "apply"
                else "a rollback of proposal {0} was interrupted; it was completed"
            )
            self.notices.append(what.format(pid) + (f" ({'; '.join(problems)})" if problems else ""))

    def recover(self) -> list[str]:
        """Run recovery now (normally automatic at open and before apply/rollback); returns the
        notices it produced."""
        before = len(self.notices)
        with self._oplock():
            self._recover_locked()
        return self.notices[before:]

    # ------------------------------------------------------------------ rollback
    def rollback(self, ident: str, force: bool = False) -> Proposal:
        """Undo the last decision on a proposal.

        applied: restore the exact previous bytes of every file the apply wrote, delete files it
        created and folders it created (when empty); the proposal returns to pending (then maybe
        stale). Refused when a live file changed since the apply, unless ``force`` (the changed
        content is kept in the store's blobs and named in the event). rejected/quarantined:
        reopened to pending. Raises TransitionError (pending/stale, or changed files without
        force), ApplyError (restoring failed: the applied files were put back).
        """
        with self._oplock():
            self._recover_locked()
            p = self.get(ident)
            if p.state in ("rejected", "quarantined"):
                with self._tx() as tx:
                    tx.emit(p.id, "reopened", {"was": p.state})
                return self.get(p.id)
            if p.state != "applied" or not p.active_apply:
                raise TransitionError(
                    f"proposal {p.id} is {p.state}: only applied, rejected or quarantined "
                    "proposals can be rolled back",
                    p.id,
                    p.state,
                )
            plan = p.active_apply["plan"]
            changed = [e["path"] for e in plan["entries"] if sha256_of(Path(e["path"])) != e["after"]]
            if changed and not force:
                raise TransitionError(
                    f"rollback of {p.id} refused: changed since the apply: {', '.join(changed)} "
                    "(use --force to restore the previous content anyway; the current content "
                    "is kept in the workshop store)",
                    p.id,
                    p.state,
                )
            apply_id = p.active_apply["apply_id"]
            overwritten = {
                e["path"]: sha256_of(Path(e["path"])) for e in plan["entries"] if e["path"] in changed
            }
            with self._tx() as tx:
                tx.conn.execute(
                    "INSERT INTO journal(proposal_id, op, apply_id, plan, started_at, pid)"
                    " VALUES (?,?,?,?,?,?)",
                    (p.id, "rollback", apply_id, json.dumps(plan), now_iso(), os.getpid()),
                )
            self._fault("rollback-journal")
            try:
                problems = self._undo(plan, force=force, step="restore")
                self._fault("restored")
            except Exception as exc:  # noqa: BLE001 - re-applied, then re-raised as ApplyError
                log.warning("rollback of %s failed; keeping the applied version", p.id, exc_info=True)
                self._redo(plan)
                with self._tx() as tx:
                    tx.conn.execute("DELETE FROM journal WHERE proposal_id=?", (p.id,))
                    tx.emit(p.id, "rollback-failed", {"apply_id": apply_id, "error": str(exc)})
                raise ApplyError(f"rollback of {p.id} failed: {exc}; the applied version was kept") from exc
            with self._tx() as tx:
                tx.conn.execute("DELETE FROM journal WHERE proposal_id=?", (p.id,))
                tx.emit(
                    p.id,
                    "rolled-back",
                    {
                        "apply_id": apply_id,
                        "forced": bool(force),
                        "overwritten": overwritten,
                        "problems": problems,
                    },
                )
            self._fault("rollback-committed")
        return self.get(p.id)

    def _redo(self, plan: dict[str, Any]) -> None:
        """Put the applied bytes back after a failed rollback (files currently at ``before``)."""
        for d in plan.get("created_dirs", []):
            os.makedirs(d, exist_ok=True)
        for e in plan["entries"]:
            path = Path(e["path"])
            if sha256_of(path) == e["before"]:
                atomic_write(path, self.blob(e["after"]))
