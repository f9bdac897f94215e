"""The workshop store's persistence: the SQLite database of events and their projection into
record tables, ``events.jsonl`` (replayed when the database is lost), content-addressed blobs,
the immutable generation folders, and the apply lock.

``Journal`` is the base of ``WorkshopStore`` (``workshop.store``; layout and guarantees are in its
module docstring). Pure Python (no Qt).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

from workbench.core.safefile import atomic_write, fsync_dir
from workbench.core.text import agree, plural
from workbench.core.workshop.errors import StoreBusyError, StoreCorruptError, WorkshopError
from workbench.core.workshop.paths import SKILL_MD
from workbench.core.workshop.records import SCHEMA_VERSION, default_store_dir, now_iso, sha_hex

log = logging.getLogger(__name__)

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


class _Tx:
    """One open transaction: ``emit`` writes an event and its projection; ``log`` holds the JSON
    lines appended to ``events.jsonl`` after the commit."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.log: list[str] = []

    def emit(self, pid: str, kind: str, detail: dict[str, Any] | None = None, at: str | None = None) -> None:
        detail = detail or {}
        at = at or now_iso()
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


class Journal:
    """The storage under a workshop store folder (see ``WorkshopStore`` for the arguments).

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
        self._opened()

    def _opened(self) -> None:
        """Called at the end of the constructor, the database open (``Applier`` recovers there)."""

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
        return int(n)

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
        tx = _Tx(conn)
        try:
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield tx
                conn.execute("COMMIT")
            except BaseException:  # rolled back, then re-raised
                log.debug("store transaction rolled back", exc_info=True)
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
        sha = sha_hex(data)
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
        if sha_hex(data) != sha:
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


def _try_lock(fh: IO[bytes]) -> bool:
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


def _unlock(fh: IO[bytes]) -> None:
    if sys.platform == "win32":  # pragma: no cover - Windows has no fcntl
        import msvcrt

        fh.seek(0)
        with contextlib.suppress(OSError):
            msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
