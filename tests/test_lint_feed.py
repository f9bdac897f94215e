"""Issue 14 round 4: ``workbench lint`` starts linting while it walks (``batch.LintFeed`` fed by
``find_skill_files(on_file=)``); the report and the cache entries are those of a serial run."""

from __future__ import annotations

import marshal
import os
import shutil
import time
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core.lint import batch
from workbench.core.skillwalk import find_skill_files


def _tree(corpus: Path, root: Path) -> Path:
    """The corpus's openclaw skills twice, once under a ``.claude/skills`` root (two profiles,
    two catalogs), with old mtimes so that every cache keeps its entries."""
    shutil.copytree(corpus / "openclaw", root / "plain")
    shutil.copytree(corpus / "openclaw", root / "proj" / ".claude" / "skills")
    old = time.time() - 60
    for p in [root, *root.rglob("*")]:
        os.utime(p, (old, old), follow_symlinks=False)
    return root


def _run(capsys, monkeypatch, home: Path, *args: str) -> tuple[int, str, dict[str, dict]]:
    monkeypatch.setenv("WORKBENCH_HOME", str(home))
    rc = main(["lint", *args])
    out = capsys.readouterr().out
    caches = {}
    for f in sorted(home.rglob("*.marshal")):
        obj = marshal.loads(f.read_bytes())
        if f.parent.name == "reports":  # the kept report: its checks (its file's inode differs)
            obj = {"checks": obj["checks"], "code": obj["code"], "size": obj["report"][0]}
        caches[f"{f.parent.name}/{f.name}"] = obj.get("entries", obj)
    return rc, out, caches


@pytest.mark.parametrize("extra", [[], ["--profile", "codex"]])
def test_walk_fed_lint_equals_serial(corpus, tmp_path, capsys, monkeypatch, extra):
    root = _tree(corpus, tmp_path / "t")
    started = []
    real_start = batch.LintFeed.start

    def start(self):
        ok = real_start(self)
        started.append(ok)
        return ok

    monkeypatch.setattr(batch.LintFeed, "start", start)
    monkeypatch.setattr(batch, "PARALLEL_MIN_FILES", 10)  # the pool starts during the walk
    args = [str(root), "--format", "json", *extra]
    serial = _run(capsys, monkeypatch, tmp_path / "h1", *args, "--jobs", "1")
    assert started == []  # --jobs 1: nothing forked
    fed = _run(capsys, monkeypatch, tmp_path / "h2", *args, "--jobs", "2")
    # the workers started during the walk (unless a thread left by another test forbids a fork)
    assert started == [batch.parallel_ok()]
    assert fed[:2] == serial[:2] and '"diagnostics": [\n' in fed[1]
    assert fed[2] == serial[2] and len(fed[2]) >= 3  # result cache(s), parse store, listings
    warm = _run(capsys, monkeypatch, tmp_path / "h2", *args, "--jobs", "2")
    assert warm[:2] == serial[:2] and len(started) == 1  # every file cached: no pool


def test_on_file_sees_every_file_the_walk_returns(corpus, tmp_path):
    root = _tree(corpus, tmp_path / "t")
    seen: list[str] = []
    got = find_skill_files(root, on_file=seen.append)
    assert sorted(seen) == sorted(map(str, got)) and len(got) == 2 * 54
    from workbench.core.cache.fscache import DirCache

    dirs = DirCache(tmp_path / "fs")
    find_skill_files(root, dirs=dirs)
    seen.clear()
    assert find_skill_files(root, dirs=dirs, on_file=seen.append) == got  # a remembered walk
    assert sorted(seen) == sorted(map(str, got))


def test_caches_saved_on_a_thread_equal_a_save_here(corpus, tmp_path, capsys, monkeypatch):
    """``Caches.save_async`` (the report is written while a thread saves): the files are on
    disk when ``main`` returns, equal to those saved before the report."""
    from workbench.commands import lint as lint_cmd

    root = _tree(corpus, tmp_path / "t")
    args = [str(root), "--format", "json", "--jobs", "1"]
    threaded = _run(capsys, monkeypatch, tmp_path / "h1", *args)
    monkeypatch.setattr(lint_cmd.Caches, "save_async", lambda self: (self.save(), lambda: None)[1])
    here = _run(capsys, monkeypatch, tmp_path / "h2", *args)
    assert threaded == here and len(here[2]) >= 3


def test_needs_save_says_whether_save_would_write(tmp_path):
    """A warm ``workbench lint`` starts no saving thread (``Caches.save_async``)."""
    from workbench.core.cache.parsestore import ParseStore
    from workbench.core.cache.resultcache import ResultCache
    from workbench.core.lint.profiles import lint_profile

    c = ResultCache(lint_profile("agentskills"), tmp_path / "r", parse_store=ParseStore(tmp_path / "p"))
    assert not c.needs_save
    c.parse_store.put_entry("/x/SKILL.md", (1, 2, 3, b""))
    assert c.needs_save
    c.save()
    assert not c.needs_save and (tmp_path / "p" / "facts.marshal").is_file()
