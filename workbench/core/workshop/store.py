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
``pending`` ↔ ``stale`` is recomputed from disk on ``proposals``/``get``/``apply`` (an update is bound
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

Modules: ``records`` (Proposal, State, Kind, where stores live), ``journal`` (database, events,
blobs, generations, the apply lock), ``reader`` (queries), ``apply`` (apply/rollback/recovery),
``store`` (proposing, revising and decisions: ``WorkshopStore``).
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Set as AbstractSet
from pathlib import Path, PurePosixPath
from typing import Any

from workbench.core.skillfile import parse_skill_bytes
from workbench.core.workshop.apply import Applier
from workbench.core.workshop.edit import replace_description
from workbench.core.workshop.errors import ProposalError, TransitionError
from workbench.core.workshop.lintcheck import LintResult, lint_proposal
from workbench.core.workshop.paths import SKILL_MD, check_inside, check_relpath
from workbench.core.workshop.records import Proposal, default_target_root, executable_rels, sha_hex
from workbench.core.workshop.risk import Risk
from workbench.core.workshop.risks import check_files

#: Characters a proposed skill folder name may not contain (whitespace, control, Windows-reserved).
_BAD_FOLDER_CHARS = re.compile(r'[\s\x00-\x1f\x7f<>:"|?*\\]')


class WorkshopStore(Applier):
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
        findings: list[Risk],
        lint: LintResult,
        exe: AbstractSet[str] = frozenset(),
    ) -> dict[str, Any]:
        files: dict[str, dict[str, Any]] = {}
        for rel, b in all_files.items():
            files[rel] = {"sha256": sha_hex(b), "size": len(b)}
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
        findings = check_files(all_files, target_dir=target, executable=exe)
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
        base = {rel: (sha_hex(b) if b is not None else None) for rel, b in live.items()}
        findings = check_files(all_files, target_dir=target, previous=live, executable=exe)
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
            (executable_rels(p) & set(support))
            if executable is None
            else self._check_executable(executable, support)
        )
        if all_files == prev and exe == executable_rels(p):
            raise ProposalError(f"proposal {p.id}: the revision is identical to generation {p.generation}")
        base = dict(p.base)
        live = None
        if p.kind == "update":
            live = self._live(p.target_dir, list(all_files))
            for rel, b in live.items():
                base.setdefault(rel, sha_hex(b) if b is not None else None)
        findings = check_files(all_files, target_dir=p.target_dir, previous=live, executable=exe)
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
