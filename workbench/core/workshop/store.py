"""The proposal store: records, lifecycle, apply with a journal, rollback, recovery.

Where the store lives (decision): under ``appdirs.state_dir()/workshop/<folder-name>-<hash>/``,
keyed by the workspace's resolved path (``default_store_dir``), not inside the workspace:

* a read-only workspace (the shared corpus, a checkout you may not write) can still get proposals;
* nothing the workshop keeps (proposed SKILL.md copies, rollback bytes) can ever be discovered by
  a client walking the workspace, nor committed to the project's git by accident;
* the records hold absolute target paths and previous bytes of files outside the workspace
  (``~/.claude/skills``), which are machine-local anyway.
The cost: moving the workspace folder starts an empty queue (the old one stays under its old key;
``workspace.txt`` in each store folder names its workspace). Pass ``store_dir=`` to override.

Layout::

    <store>/workshop.db          SQLite: proposals, generations, applies, journal, events
    <store>/events.jsonl         append-only copy of every event (replayed if the DB is lost)
    <store>/blobs/<sha256>       content-addressed bytes: previous and new files of every apply
    <store>/proposals/<id>/g<N>/ one immutable folder per generation:
        PROPOSAL.md              the proposed SKILL.md
        files/<relpath>          proposed support files
        meta.json                the generation record (hashes, findings)
    <store>/apply.lock           OS lock held while files are written (apply/rollback/recovery)

Lifecycle (OpenClaw's Skill Workshop): ``pending`` → ``applied`` | ``rejected`` | ``quarantined``;
``pending`` ↔ ``stale`` is recomputed from disk on ``list``/``get``/``apply`` (an update is bound
to the sha256 of the live SKILL.md and of each support file it overwrites; a create goes stale
when its target folder appears). Only pending proposals can be revised, applied, rejected or
quarantined. Every decision can be undone with ``rollback``: applied → files restored → pending;
rejected/quarantined → pending ("reopened"). A stale proposal returns to pending by itself if
the target comes back to the bound content (e.g. the competing proposal is rolled back).

State is event-sourced: every change is an event row plus its projection into the record tables
in one SQLite transaction (``_project``), and a JSON line appended to ``events.jsonl`` after the
commit. A corrupt database is moved aside (``workshop.db.corrupt-<time>``), the user is told via
``WorkshopStore.notices``, and the records are rebuilt by replaying ``events.jsonl``.

Apply protocol (crash-safe, see ``apply``): 1 rollback data (previous and new bytes into
``blobs/``), 2 journal row committed (it names the staging folder), 3 the complete new version of
the skill folder is staged in a sibling folder outside the skill folder (``switch.stage_path``:
a copy of the live folder plus the proposed files, with their executable bits), 4 the staged
folder and the live one are switched by rename (``switch.exchange``; each planned file checked
against the hash it had when planned, before and after), 5 one transaction records ``applied`` and
swaps the journal row for a ``cleanup`` row, 6 the old version is deleted and the cleanup row
with it. An exception in steps 3-4 switches back and deletes the staging folder at once. A
process that dies leaves the journal row; the next ``WorkshopStore`` open (or the next
apply/rollback) takes the apply lock, switches the old folder back if the switch happened, and
deletes staging folders (decision: roll *back*, not forward — opening a store never performs an
apply the person did not see finish; they can apply again). So the skill folder is always
all-old or all-new, no temp file is ever left inside it, and the records match it.
"""

from __future__ import annotations

import builtins
import contextlib
import datetime as _dt
import hashlib
import json
import os
import re
import secrets
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from workbench.core import appdirs
from workbench.core.safefile import ConflictError, atomic_write, fsync_dir, sha256_of
from workbench.core.skillfile import parse_skill_bytes
from workbench.core.text import agree, plural
from workbench.core.workshop.edit import replace_description
from workbench.core.workshop.errors import (
    ApplyError,
    NotFoundError,
    ProposalError,
    StoreBusyError,
    StoreCorruptError,
    TransitionError,
    WorkshopError,
)
from workbench.core.workshop.paths import SKILL_MD, check_inside, check_relpath
from workbench.core.workshop.scanner import Finding, LintResult, blocking, lint_proposal, scan_files
from workbench.core.workshop.switch import copy_folder, exchange, remove_tree, repair, stage_path

STATES = ("pending", "applied", "rejected", "quarantined", "stale")
KINDS = ("create", "update")
SCHEMA_VERSION = 1

#: Points where ``WorkshopStore.fault_hook(step)`` is called during apply/rollback (tests inject
#: failures or simulated crashes there). ``file:<i>`` is called after the i-th file is written.
APPLY_STEPS = ("rollback-data", "journal", "dirs", "file:<i>", "files", "switched", "committed", "cleaned")
ROLLBACK_STEPS = ("rollback-journal", "restore:<i>", "restored", "rollback-committed")

#: Project skill folder per client, used when a create names no target root (clients.md §8).
DEFAULT_PROJECT_ROOTS = {
    "claude-code": ".claude/skills",
    "codex": ".agents/skills",
    "openclaw": "skills",
    "gemini-cli": ".gemini/skills",
    "opencode": ".opencode/skills",
    "vscode-copilot": ".github/skills",
    "cursor": ".cursor/skills",
    "agentskills": ".agents/skills",
    "copilot-cli": ".github/skills",
}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS proposals (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, target_root TEXT,
    target_dir TEXT NOT NULL, base TEXT NOT NULL, source TEXT, note TEXT,
    state TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', generation INTEGER NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS generations (
    proposal_id TEXT NOT NULL, gen INTEGER NOT NULL, created_at TEXT NOT NULL, source TEXT,
    note TEXT, files TEXT NOT NULL, findings TEXT NOT NULL, lint TEXT NOT NULL,
    PRIMARY KEY (proposal_id, gen));
CREATE TABLE IF NOT EXISTS applies (
    apply_id TEXT PRIMARY KEY, proposal_id TEXT NOT NULL, gen INTEGER NOT NULL, plan TEXT NOT NULL,
    applied_at TEXT NOT NULL, rolled_back_at TEXT, forced INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS journal (
    proposal_id TEXT PRIMARY KEY, op TEXT NOT NULL, apply_id TEXT NOT NULL, plan TEXT NOT NULL,
    started_at TEXT NOT NULL, pid INTEGER);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, proposal_id TEXT NOT NULL, at TEXT NOT NULL,
    kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_by_proposal ON events (proposal_id, seq);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the event history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event history is append-only'); END;
"""


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _executable(p: Proposal) -> set[str]:
    """Relpaths the proposal's current generation marks executable."""
    return {rel for rel, info in p.files.items() if info.get("executable")}


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


def workspaces_holding(ident: str) -> list[Path]:
    """Workspaces whose store (under ``state_dir()/workshop/``) holds a proposal whose id is
    ``ident`` or starts with it; read from each store's ``proposals/<id>/`` folders and
    ``workspace.txt`` (no database is opened). Used when a command names a proposal by id
    without saying which workspace (issue 13 item 7). Never raises; [] when none."""
    base = appdirs.state_dir() / "workshop"
    out: list[Path] = []
    if not ident:
        return out
    try:
        stores = sorted(base.iterdir())
    except OSError:
        return out
    for d in stores:
        try:
            ids = [e.name for e in (d / "proposals").iterdir()]
            if not any(i.startswith(ident) for i in ids):
                continue
            ws = Path((d / "workspace.txt").read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            continue
        if ws.is_dir() and ws not in out:
            out.append(ws)
    return out


def default_store_dir(workspace: Path | str) -> Path:
    """``state_dir()/workshop/<name>-<sha256(realpath)[:12]>`` for a workspace (see module doc)."""
    real = os.path.realpath(os.path.expanduser(str(workspace)))
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(real).name or "root")[:40]
    return appdirs.state_dir() / "workshop" / f"{slug}-{_sha(real.encode('utf-8', 'surrogatepass'))[:12]}"


def default_target_root(workspace: Path | str, client_id: str = "claude-code") -> Path:
    """Where a create proposal puts the new skill when no root is given: the client's project
    skill folder under the workspace (``DEFAULT_PROJECT_ROOTS``)."""
    return Path(workspace).expanduser().absolute() / DEFAULT_PROJECT_ROOTS.get(client_id, ".agents/skills")


#: Characters a proposed skill folder name may not contain (whitespace, control, Windows-reserved).
_BAD_FOLDER_CHARS = re.compile(r'[\s\x00-\x1f\x7f<>:"|?*\\]')


@dataclass
class Proposal:
    """One proposal as stored, with its current generation's scan results.

    Attributes:
        id: short hex id (commands accept any unique prefix).
        kind: "create" | "update".
        name: the skill name (create: the folder name; update: frontmatter name or folder name).
        state: one of ``STATES``; ``reason`` says why for stale/rejected/quarantined.
        target_dir: the live skill folder (absolute, symlinks not resolved).
        target_root: the root a create writes into (None for updates).
        generation: current generation number (1-based).
        base: {relpath: sha256 hex or None (absent)} of the live files when proposed (update).
        files: {relpath: {"sha256", "size"}} of the current generation, "SKILL.md" included.
        findings: scanner findings of the current generation (at propose/revise time).
        lint: linter result of the proposed SKILL.md.
        source: who proposed ("manual", "chat", "eval", "cli", ...); note: free text.
        created_at, updated_at: ISO-8601 UTC.
        active_apply: the apply record while applied ({"apply_id", "plan", "applied_at"}), else None.
    """

    id: str
    kind: str
    name: str
    state: str
    target_dir: Path
    target_root: Path | None
    generation: int
    base: dict[str, str | None]
    files: dict[str, dict[str, Any]]
    findings: list[Finding]
    lint: LintResult
    source: str = ""
    note: str = ""
    reason: str = ""
    created_at: str = ""
    updated_at: str = ""
    active_apply: dict[str, Any] | None = None

    @property
    def skill_md(self) -> Path:
        """The live SKILL.md this proposal writes."""
        return self.target_dir / SKILL_MD

    @property
    def blocking_findings(self) -> list[Finding]:
        return blocking(self.findings)

    def allowed_actions(self) -> list[str]:
        """Transitions allowed now: pending → revise/apply/reject/quarantine; applied → rollback;
        rejected/quarantined → rollback (reopen); stale → none (it may return to pending)."""
        return {
            "pending": ["revise", "apply", "reject", "quarantine"],
            "applied": ["rollback"],
            "rejected": ["rollback"],
            "quarantined": ["rollback"],
            "stale": [],
        }.get(self.state, [])

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "kind": self.kind,
            "name": self.name,
            "reason": self.reason,
            "target": str(self.skill_md),
            "target_dir": str(self.target_dir),
            "target_root": str(self.target_root) if self.target_root else None,
            "generation": self.generation,
            "source": self.source,
            "note": self.note,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "base": self.base,
            "files": self.files,
            "findings": [f.to_json() for f in self.findings],
            "blocking": len(self.blocking_findings),
            "lint": self.lint.to_json(),
            "allowed_actions": self.allowed_actions(),
        }


@dataclass
class FileChange:
    """One file of a proposal against what it replaces. ``old`` None = the file does not exist."""

    rel: str
    path: Path
    old: bytes | None
    new: bytes

    @property
    def changed(self) -> bool:
        return self.old != self.new


@dataclass
class Event:
    """One history entry. ``kind`` e.g. proposed, revised, stale, unstale, applied, apply-blocked,
    apply-failed, apply-interrupted, rolled-back, rejected, quarantined, reopened."""

    seq: int
    proposal_id: str
    at: str
    kind: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "proposal_id": self.proposal_id,
            "at": self.at,
            "kind": self.kind,
            "detail": self.detail,
        }


class _Tx:
    def __init__(self, store: WorkshopStore, conn: sqlite3.Connection):
        self.store, self.conn = store, conn
        self.log: list[str] = []

    def emit(self, pid: str, kind: str, detail: dict[str, Any] | None = None, at: str | None = None) -> None:
        detail = detail or {}
        at = at or _now()
        self.conn.execute(
            "INSERT INTO events(proposal_id, at, kind, detail) VALUES (?,?,?,?)",
            (pid, at, kind, json.dumps(detail)),
        )
        _project(self.conn, pid, kind, detail, at)
        self.log.append(json.dumps({"proposal_id": pid, "at": at, "kind": kind, "detail": detail}))


def _project(conn: sqlite3.Connection, pid: str, kind: str, d: dict[str, Any], at: str) -> None:
    """Apply one event to the record tables (used live and when replaying events.jsonl)."""
    if kind == "proposed":
        conn.execute(
            "INSERT INTO proposals(id, kind, name, target_root, target_dir, base, source, note, state,"
            " reason, generation, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,'pending','',1,?,?)",
            (
                pid,
                d["kind"],
                d["name"],
                d.get("target_root"),
                d["target_dir"],
                json.dumps(d["base"]),
                d.get("source", ""),
                d.get("note", ""),
                at,
                at,
            ),
        )
        _insert_gen(conn, pid, 1, at, d)
    elif kind == "revised":
        _insert_gen(conn, pid, int(d["generation"]), at, d)
        conn.execute(
            "UPDATE proposals SET generation=?, base=?, note=? WHERE id=?",
            (int(d["generation"]), json.dumps(d["base"]), d.get("note", ""), pid),
        )
    elif kind in ("stale", "rejected", "quarantined"):
        conn.execute("UPDATE proposals SET state=?, reason=? WHERE id=?", (kind, d.get("reason", ""), pid))
    elif kind in ("unstale", "reopened"):
        conn.execute("UPDATE proposals SET state='pending', reason='' WHERE id=?", (pid,))
    elif kind == "applied":
        conn.execute(
            "INSERT INTO applies(apply_id, proposal_id, gen, plan, applied_at) VALUES (?,?,?,?,?)",
            (d["apply_id"], pid, int(d["generation"]), json.dumps(d["plan"]), at),
        )
        conn.execute("UPDATE proposals SET state='applied', reason='' WHERE id=?", (pid,))
    elif kind == "rolled-back":
        conn.execute(
            "UPDATE applies SET rolled_back_at=?, forced=? WHERE apply_id=?",
            (at, 1 if d.get("forced") else 0, d["apply_id"]),
        )
        conn.execute("UPDATE proposals SET state='pending', reason='' WHERE id=?", (pid,))
    conn.execute("UPDATE proposals SET updated_at=? WHERE id=?", (at, pid))


def _insert_gen(conn: sqlite3.Connection, pid: str, gen: int, at: str, d: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO generations(proposal_id, gen, created_at, source, note, files, findings, lint)"
        " VALUES (?,?,?,?,?,?,?,?)",
        (
            pid,
            gen,
            at,
            d.get("source", ""),
            d.get("note", ""),
            json.dumps(d["files"]),
            json.dumps(d.get("findings", [])),
            json.dumps(d.get("lint", {})),
        ),
    )


class WorkshopStore:
    """The review queue of one workspace. See the module docstring for layout and guarantees.

    Args:
        workspace: the project folder (the store is keyed by its resolved path).
        store_dir: override the store folder (default ``default_store_dir(workspace)``).
        timeout: seconds to wait for a busy database or apply lock before ``StoreBusyError``.
        lint_profile: the linter profile run on proposed SKILL.md files.

    Attributes:
        notices: user-facing messages produced while opening (corrupt DB moved aside, an
            interrupted apply rolled back). Show them; the CLI prints them to stderr.
        fault_hook: None, or a callable ``(step: str) -> None`` called at each step of apply and
            rollback (``APPLY_STEPS``/``ROLLBACK_STEPS``); tests raise in it to simulate failures.

    Raises (constructor): ``StoreBusyError`` when the database is locked; ``StoreCorruptError``
    when it is damaged and cannot be rebuilt.
    """

    def __init__(
        self,
        workspace: Path | str,
        *,
        store_dir: Path | str | None = None,
        timeout: float = 5.0,
        lint_profile: str = "agentskills",
    ):
        self.workspace = Path(workspace).expanduser().absolute()
        self.dir = Path(store_dir) if store_dir else default_store_dir(self.workspace)
        self.timeout = timeout
        self.lint_profile = lint_profile
        self.notices: list[str] = []
        self.fault_hook: Callable[[str], None] | None = None
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "blobs").mkdir(exist_ok=True)
        (self.dir / "proposals").mkdir(exist_ok=True)
        ws_file = self.dir / "workspace.txt"
        if not ws_file.exists():
            ws_file.write_text(str(self.workspace) + "\n", encoding="utf-8")
        self.db_path = self.dir / "workshop.db"
        self.log_path = self.dir / "events.jsonl"
        self._open_db()
        with self._oplock(blocking=False) as got:
            if got:
                self._recover_locked()

    # ------------------------------------------------------------------ database plumbing
    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(str(self.db_path), timeout=self.timeout, isolation_level=None)
            conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.OperationalError as exc:
            raise self._busy_or_corrupt(exc) from exc
        return conn

    def _busy_or_corrupt(self, exc: Exception) -> WorkshopError:
        msg = str(exc).lower()
        if "locked" in msg or "busy" in msg:
            return StoreBusyError(
                f"the workshop database {self.db_path} is in use by another workbench "
                "process; try again in a moment (nothing was changed)"
            )
        return StoreCorruptError(f"the workshop database {self.db_path} cannot be used: {exc}")

    def _open_db(self) -> None:
        existed = self.db_path.exists() and self.db_path.stat().st_size > 0
        try:
            conn = self._connect()
            try:
                row = conn.execute("PRAGMA quick_check").fetchone()
                if not row or row[0] != "ok":
                    raise sqlite3.DatabaseError(f"integrity check: {row[0] if row else 'no answer'}")
                conn.executescript(_SCHEMA)
                conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
                )
                n = conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            finally:
                conn.close()
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc).lower() or "busy" in str(exc).lower():
                raise self._busy_or_corrupt(exc) from exc
            self._move_aside(exc)
            return
        except sqlite3.DatabaseError as exc:
            self._move_aside(exc)
            return
        if n == 0 and self.log_path.exists() and self.log_path.stat().st_size > 0:
            restored = self._replay()
            if existed or restored:
                self.notices.append(
                    "the workshop database was missing its records; "
                    f"{plural(restored, 'proposal')} "
                    f"{agree(restored, 'was', 'were')} restored from {self.log_path}"
                )

    def _move_aside(self, exc: Exception) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        aside = self.db_path.with_name(f"workshop.db.corrupt-{stamp}-{secrets.token_hex(2)}")
        for suffix in ("", "-journal", "-wal", "-shm"):
            src = Path(str(self.db_path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
        try:
            conn = self._connect()
            try:
                conn.executescript(_SCHEMA)
                conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
                )
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc2:
            raise StoreCorruptError(
                f"cannot create a new workshop database at {self.db_path}: {exc2}"
            ) from exc2
        restored = self._replay()
        self.notices.append(
            f"the workshop database was damaged ({exc}); it was moved to {aside} and "
            f"{plural(restored, 'proposal')} {agree(restored, 'was', 'were')} restored from the event log "
            f"{self.log_path}. Proposal files were not touched."
        )

    def _replay(self) -> int:
        """Rebuild the record tables from events.jsonl. Returns the number of proposals restored."""
        if not self.log_path.exists():
            return 0
        bad = 0
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if not line.strip():
                        continue
                    try:
                        ev = json.loads(line)
                        pid, kind, at, detail = ev["proposal_id"], ev["kind"], ev["at"], ev["detail"]
                        conn.execute("SAVEPOINT ev")
                        conn.execute(
                            "INSERT INTO events(proposal_id, at, kind, detail) VALUES (?,?,?,?)",
                            (pid, at, kind, json.dumps(detail)),
                        )
                        _project(conn, pid, kind, detail, at)
                        conn.execute("RELEASE ev")
                    except (ValueError, KeyError, TypeError, sqlite3.DatabaseError):
                        bad += 1
                        with contextlib.suppress(sqlite3.DatabaseError):
                            conn.execute("ROLLBACK TO ev")
                            conn.execute("RELEASE ev")
            conn.execute("COMMIT")
            n = conn.execute("SELECT COUNT(*) FROM proposals").fetchone()[0]
        finally:
            conn.close()
        if bad:
            self.notices.append(
                f"{plural(bad, 'damaged line')} in {self.log_path} {agree(bad, 'was', 'were')} skipped"
            )
        return n

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            yield conn
        except sqlite3.OperationalError as exc:
            raise self._busy_or_corrupt(exc) from exc
        finally:
            conn.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[_Tx]:
        conn = self._connect()
        tx = _Tx(self, conn)
        try:
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield tx
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            raise self._busy_or_corrupt(exc) from exc
        finally:
            conn.close()
        if tx.log:
            with open(self.log_path, "a", encoding="utf-8") as fh:
                fh.write("".join(line + "\n" for line in tx.log))
                fh.flush()
                os.fsync(fh.fileno())

    @contextlib.contextmanager
    def _oplock(self, blocking: bool = True) -> Iterator[bool]:
        """Hold ``apply.lock`` (an OS file lock, released by the OS if the process dies)."""
        fh = open(self.dir / "apply.lock", "a+b")
        got = False
        try:
            deadline = time.monotonic() + (self.timeout if blocking else 0)
            while True:
                got = _try_lock(fh)
                if got or time.monotonic() >= deadline:
                    break
                time.sleep(0.05)
            if not got and blocking:
                raise StoreBusyError(
                    "another workbench process is applying or rolling back a proposal in "
                    "this workspace; try again in a moment"
                )
            yield got
        finally:
            if got:
                _unlock(fh)
            fh.close()

    def _fault(self, step: str) -> None:
        if self.fault_hook is not None:
            self.fault_hook(step)

    # ------------------------------------------------------------------ blobs and generations
    def _put_blob(self, data: bytes) -> str:
        sha = _sha(data)
        p = self.dir / "blobs" / sha
        if not (p.exists() and p.stat().st_size == len(data)):
            atomic_write(p, data)
        return sha

    def blob(self, sha: str) -> bytes:
        """Bytes stored under a sha256. Raises StoreCorruptError if missing or damaged."""
        p = self.dir / "blobs" / sha
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise StoreCorruptError(f"rollback data {p} is missing: {exc}") from exc
        if _sha(data) != sha:
            raise StoreCorruptError(f"rollback data {p} is damaged (hash mismatch)")
        return data

    def _gen_dir(self, pid: str, gen: int) -> Path:
        return self.dir / "proposals" / pid / f"g{gen}"

    def _write_generation(self, pid: str, gen: int, files: dict[str, bytes], meta: dict[str, Any]) -> None:
        final = self._gen_dir(pid, gen)
        final.parent.mkdir(parents=True, exist_ok=True)
        if final.exists():  # an orphan of a propose that crashed before its record was committed
            shutil.rmtree(final)
        tmp = final.parent / f".tmp-g{gen}-{secrets.token_hex(3)}"
        tmp.mkdir()
        for rel, data in files.items():
            dest = tmp / "PROPOSAL.md" if rel == SKILL_MD else tmp / "files" / PurePosixPath(rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(dest, data)
        atomic_write(tmp / "meta.json", json.dumps(meta, indent=1).encode())
        os.rename(tmp, final)
        fsync_dir(final.parent)

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
            if _sha(data) != info["sha256"]:
                raise StoreCorruptError(
                    f"proposal file {f} was modified (hash mismatch); generations are immutable"
                )
            out[rel] = data
        return out

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
            return exact[0]
        if len(rows) > 1:
            raise NotFoundError(
                f"proposal id {ident!r} is ambiguous: {', '.join(sorted(r[0] for r in rows))}"
            )
        return rows[0][0]

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
            kind=r[1],
            name=r[2],
            target_root=Path(r[3]) if r[3] else None,
            target_dir=Path(r[4]),
            base=json.loads(r[5]),
            source=r[6] or "",
            note=r[7] or "",
            state=r[8],
            reason=r[9] or "",
            generation=r[10],
            created_at=r[11],
            updated_at=r[12],
            files=json.loads(g[0]) if g else {},
            findings=[Finding.from_json(x) for x in json.loads(g[1])] if g else [],
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
            p.state, p.reason = "stale", reason
        elif p.state == "stale" and not reason:
            with self._tx() as tx:
                tx.emit(
                    p.id, "unstale", {"reason": "the target is back to the content it was proposed against"}
                )
            p.state, p.reason = "pending", ""
        elif p.state == "stale" and reason != p.reason:
            p.reason = reason
        return p

    def get(self, ident: str) -> Proposal:
        """The proposal with this id (or unique prefix), staleness recomputed.

        Raises NotFoundError (unknown or ambiguous id), StoreBusyError."""
        return self._refresh(self._record(ident))

    def list(self, state: str | None = None) -> list[Proposal]:
        """All proposals, oldest first, staleness recomputed; ``state`` filters (one of STATES)."""
        if state is not None and state not in STATES:
            raise ValueError(f"unknown state {state!r}; expected one of {', '.join(STATES)}")
        with self._read() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM proposals ORDER BY created_at, id")]
            props = [self._load(conn, pid) for pid in ids]
        props = [self._refresh(p) for p in props]
        return [p for p in props if state is None or p.state == state]

    def events(self, ident: str) -> builtins.list[Event]:
        """The append-only history of one proposal, oldest first."""
        with self._read() as conn:
            pid = self._resolve_id(conn, ident)
            rows = conn.execute(
                "SELECT seq, proposal_id, at, kind, detail FROM events WHERE proposal_id=? ORDER BY seq",
                (pid,),
            ).fetchall()
        return [Event(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def changes(self, ident: str) -> builtins.list[FileChange]:
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

    # ------------------------------------------------------------------ proposing
    def _check_files(self, files: dict[str, bytes] | None, target_dir: Path, live: bool) -> dict[str, bytes]:
        files = dict(files or {})
        bad = []
        for rel, data in files.items():
            why = check_relpath(rel)
            if why is None and live:
                why = check_inside(target_dir, rel)
            if why:
                bad.append(why)
            elif not isinstance(data, (bytes, bytearray)):
                bad.append(f"{rel!r}: content must be bytes, got {type(data).__name__}")
        if bad:
            raise ProposalError("refused: " + "; ".join(bad))
        return {k: bytes(v) for k, v in files.items()}

    def _new_id(self) -> str:
        with self._read() as conn:
            while True:
                pid = secrets.token_hex(4)
                if not conn.execute("SELECT 1 FROM proposals WHERE id LIKE ?", (pid + "%",)).fetchone():
                    return pid

    def _gen_record(
        self,
        all_files: dict[str, bytes],
        findings: builtins.list[Finding],
        lint: LintResult,
        exe: AbstractSet[str] = frozenset(),
    ) -> dict[str, Any]:
        files: dict[str, dict[str, Any]] = {}
        for rel, b in all_files.items():
            files[rel] = {"sha256": _sha(b), "size": len(b)}
            if rel in exe:
                files[rel]["executable"] = True
        return {"files": files, "findings": [f.to_json() for f in findings], "lint": lint.to_json()}

    @staticmethod
    def _check_executable(executable: Any, files: dict[str, bytes]) -> set[str]:
        exe = set(executable or ())
        unknown = sorted(exe - set(files))
        if unknown:
            raise ProposalError(f"executable names files the proposal does not contain: {', '.join(unknown)}")
        return exe

    def propose_create(
        self,
        name: str,
        skill_md_text: str | bytes,
        files: dict[str, bytes] | None = None,
        target_root: Path | str | None = None,
        source: str = "manual",
        note: str = "",
        executable: Any = (),
    ) -> Proposal:
        """Propose a new skill ``<target_root>/<name>/SKILL.md`` plus support files.

        Args:
            name: the skill folder name (no "/", no leading ".").
            skill_md_text: the SKILL.md content (str is written as UTF-8 as is).
            files: {relpath: bytes} support files inside the new folder.
            target_root: the skills root (default ``default_target_root(workspace)``).
            source, note: who proposed and why (shown in the queue).
            executable: relpaths of ``files`` to write with the executable bit (mode 0o755; the
                others get 0o644, or the mode of the live file they replace).

        Raises:
            ProposalError: bad name, a path leaving the skill folder, or the target exists.
        """
        why = check_relpath(name) if name else "empty name"
        if not why and _BAD_FOLDER_CHARS.search(name):
            # A folder every client, shell and OS can handle: no whitespace, control characters
            # or characters Windows forbids. (Spec rules such as lowercase are lint findings.)
            why = "use letters, digits, '-', '_' or '.' (no spaces or special characters)"
        if not why and len(name) > 255:
            why = "longer than 255 characters"
        if why or "/" in name or name.startswith(".") or name == SKILL_MD:
            raise ProposalError(f"invalid skill folder name {name!r}" + (f": {why}" if why else ""))
        root = Path(target_root).expanduser() if target_root else default_target_root(self.workspace)
        if not root.is_absolute():
            root = self.workspace / root
        root = Path(os.path.abspath(root))
        target = root / name
        if os.path.lexists(target):
            raise ProposalError(f"{target} already exists; propose an update of that skill instead")
        if root.exists() and not root.is_dir():
            raise ProposalError(f"target root {root} is not a folder")
        files = self._check_files(files, target, live=False)
        exe = self._check_executable(executable, files)
        data = skill_md_text.encode("utf-8") if isinstance(skill_md_text, str) else bytes(skill_md_text)
        all_files = {SKILL_MD: data, **files}
        findings = scan_files(all_files, target_dir=target, executable=exe)
        lint = lint_proposal(data.decode("utf-8", "replace"), target / SKILL_MD, self.lint_profile)
        pid = self._new_id()
        rec = self._gen_record(all_files, findings, lint, exe)
        detail = {
            "kind": "create",
            "name": name,
            "target_root": str(root),
            "target_dir": str(target),
            "base": {},
            "source": source,
            "note": note,
            "generation": 1,
            **rec,
        }
        self._write_generation(pid, 1, all_files, detail)
        with self._tx() as tx:
            tx.emit(pid, "proposed", detail)
        return self.get(pid)

    def _update_target(self, skill_md_path: Path | str) -> tuple[Path, bytes]:
        p = Path(skill_md_path).expanduser()
        if not p.is_absolute():
            p = self.workspace / p
        if p.is_dir():
            p = p / SKILL_MD
        p = Path(os.path.abspath(p))
        if p.name != SKILL_MD:
            raise ProposalError(f"{p}: an update targets a SKILL.md (or its folder)")
        if not p.is_file():
            raise ProposalError(f"{p}: no such skill file")
        why = check_inside(p.parent, SKILL_MD)
        if why:
            raise ProposalError(f"refused: {why}")
        if not (os.access(p, os.W_OK) and os.access(p.parent, os.W_OK)):
            raise ProposalError(f"{p}: not writable (a read-only skill cannot be updated in place)")
        try:
            return p, p.read_bytes()
        except OSError as exc:
            raise ProposalError(f"{p}: cannot read: {exc.strerror or exc}") from exc

    def _live(self, target_dir: Path, rels: builtins.list[str]) -> dict[str, bytes | None]:
        out: dict[str, bytes | None] = {}
        for rel in rels:
            f = target_dir / PurePosixPath(rel)
            try:
                out[rel] = f.read_bytes() if f.is_file() else None
            except OSError:
                out[rel] = None
        return out

    def propose_update(
        self,
        skill_md_path: Path | str,
        new_text: str | bytes,
        files: dict[str, bytes] | None = None,
        source: str = "manual",
        note: str = "",
        executable: Any = (),
    ) -> Proposal:
        """Propose new content for an existing, writable skill (SKILL.md and/or support files).

        The proposal is bound to the sha256 of the live SKILL.md and of each support file it
        writes (absent = None); it goes stale when any of them changes. Support files are added or
        replaced, never deleted (decision: a proposal cannot delete files). ``executable``: as
        in ``propose_create`` (a replaced file keeps its live mode unless listed).

        Raises:
            ProposalError: no such SKILL.md, not writable, a path leaving the skill folder
                (``..``, absolute, through a symlink), or nothing would change.
        """
        path, raw = self._update_target(skill_md_path)
        target = path.parent
        files = self._check_files(files, target, live=True)
        exe = self._check_executable(executable, files)
        data = new_text.encode("utf-8") if isinstance(new_text, str) else bytes(new_text)
        all_files = {SKILL_MD: data, **files}
        live = self._live(target, list(all_files))
        if all(live.get(rel) == b for rel, b in all_files.items()) and not any(
            not os.access(target / PurePosixPath(rel), os.X_OK) for rel in exe
        ):
            raise ProposalError(f"{path}: the proposal does not change anything")
        base = {rel: (_sha(b) if b is not None else None) for rel, b in live.items()}
        findings = scan_files(all_files, target_dir=target, previous=live, executable=exe)
        lint = lint_proposal(data.decode("utf-8", "replace"), path, self.lint_profile)
        sf = parse_skill_bytes(raw)
        fm_name = sf.get("name") if sf.ok else None
        name = fm_name if isinstance(fm_name, str) and fm_name.strip() else target.name
        pid = self._new_id()
        rec = self._gen_record(all_files, findings, lint, exe)
        detail = {
            "kind": "update",
            "name": name,
            "target_root": None,
            "target_dir": str(target),
            "base": base,
            "source": source,
            "note": note,
            "generation": 1,
            **rec,
        }
        self._write_generation(pid, 1, all_files, detail)
        with self._tx() as tx:
            tx.emit(pid, "proposed", detail)
        return self.get(pid)

    def propose_description_update(
        self, skill_md_path: Path | str, new_description: str, source: str = "eval", note: str = ""
    ) -> Proposal:
        """Propose a change of only the ``description`` value (see ``workshop.edit``): every
        other byte of the file is kept. Raises ProposalError when the frontmatter cannot be
        edited safely or nothing changes."""
        path, raw = self._update_target(skill_md_path)
        try:
            new = replace_description(raw, new_description)
        except ValueError as exc:
            raise ProposalError(f"{path}: {exc}") from exc
        return self.propose_update(path, new, {}, source=source, note=note)

    def revise(
        self,
        ident: str,
        skill_md_text: str | bytes | None = None,
        files: dict[str, bytes] | None = None,
        source: str | None = None,
        note: str = "",
        executable: Any = None,
    ) -> Proposal:
        """Add a new immutable generation to a pending proposal (text and/or files; None keeps the
        previous generation's; ``executable`` None keeps the previous marks of the files kept).
        Raises TransitionError unless pending; ProposalError on bad paths."""
        p = self.get(ident)
        if p.state != "pending":
            raise TransitionError(self._refusal(p, "revised"), p.id, p.state)
        prev = self.generation_files(p.id)
        data = (
            prev[SKILL_MD]
            if skill_md_text is None
            else (skill_md_text.encode("utf-8") if isinstance(skill_md_text, str) else bytes(skill_md_text))
        )
        support = (
            {k: v for k, v in prev.items() if k != SKILL_MD}
            if files is None
            else self._check_files(files, p.target_dir, live=p.kind == "update")
        )
        all_files = {SKILL_MD: data, **support}
        exe = (
            (_executable(p) & set(support))
            if executable is None
            else self._check_executable(executable, support)
        )
        if all_files == prev and exe == _executable(p):
            raise ProposalError(f"proposal {p.id}: the revision is identical to generation {p.generation}")
        base = dict(p.base)
        live = None
        if p.kind == "update":
            live = self._live(p.target_dir, list(all_files))
            for rel, b in live.items():
                base.setdefault(rel, _sha(b) if b is not None else None)
        findings = scan_files(all_files, target_dir=p.target_dir, previous=live, executable=exe)
        lint = lint_proposal(data.decode("utf-8", "replace"), p.skill_md, self.lint_profile)
        gen = p.generation + 1
        detail = {
            "generation": gen,
            "base": base,
            "source": source if source is not None else p.source,
            "note": note or p.note,
            **self._gen_record(all_files, findings, lint, exe),
        }
        self._write_generation(p.id, gen, all_files, detail)
        with self._tx() as tx:
            tx.emit(p.id, "revised", detail)
        return self.get(p.id)

    # ------------------------------------------------------------------ simple transitions
    @staticmethod
    def _refusal(p: Proposal, verb: str) -> str:
        why = f" ({p.reason})" if p.reason else ""
        return f"proposal {p.id} is {p.state}{why}: only pending proposals can be {verb}"

    def reject(self, ident: str, reason: str = "") -> Proposal:
        """pending → rejected. Raises TransitionError otherwise."""
        return self._decide(ident, "rejected", reason)

    def quarantine(self, ident: str, reason: str = "") -> Proposal:
        """pending → quarantined (kept for inspection, e.g. a suspected injection attempt)."""
        return self._decide(ident, "quarantined", reason)

    def _decide(self, ident: str, state: str, reason: str) -> Proposal:
        p = self.get(ident)
        if p.state != "pending":
            raise TransitionError(self._refusal(p, state), p.id, p.state)
        with self._tx() as tx:
            tx.emit(p.id, state, {"reason": reason or ""})
        return self.get(p.id)

    # ------------------------------------------------------------------ apply
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
                    "before": _sha(old) if old is not None else None,
                    "after": _sha(files[rel]),
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
        protocol). Scanner findings are recomputed now; critical ones added by the proposal block.

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
            exe = _executable(p)
            live = self._live(p.target_dir, list(files))
            findings = scan_files(
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
                    (p.id, "apply", apply_id, json.dumps(plan), _now(), os.getpid()),
                )
            self._fault("journal")
            # 3-4. stage the new folder beside the live one, then switch
            try:
                self._stage_and_switch(plan, files)
            except Exception as exc:
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
                        _now(),
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

    def _unswitch(self, plan: dict[str, Any]) -> builtins.list[str]:
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

    def _undo(self, plan: dict[str, Any], force: bool = False, step: str | None = None) -> builtins.list[str]:
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

    def recover(self) -> builtins.list[str]:
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
                    (p.id, "rollback", apply_id, json.dumps(plan), _now(), os.getpid()),
                )
            self._fault("rollback-journal")
            try:
                problems = self._undo(plan, force=force, step="restore")
                self._fault("restored")
            except Exception as exc:
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


def _try_lock(fh) -> bool:
    if sys.platform == "win32":  # pragma: no cover - Windows has no fcntl
        try:
            import msvcrt

            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    import fcntl

    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def _unlock(fh) -> None:
    if sys.platform == "win32":  # pragma: no cover - Windows has no fcntl
        import msvcrt

        fh.seek(0)
        with contextlib.suppress(OSError):
            msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
