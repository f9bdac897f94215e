"""Errors are seen (issue 15 item 7): every broad catch in core logs what it swallowed, at debug
for an expected fallback (a process pool that cannot run) and at warning for a bug (a rule or a
client profile that crashed), besides what the user is shown."""

from __future__ import annotations

import concurrent.futures
import logging
import os
from pathlib import Path

import pytest

from tests.helpers import write_skill
from workbench.core.model import Environment


def _crashed(caplog: pytest.LogCaptureFixture, logger: str, level: int) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == logger and r.levelno == level and r.exc_info]


def test_a_rule_crash_is_logged_besides_lint000(caplog: pytest.LogCaptureFixture) -> None:
    from workbench.core.lint.context import LintContext
    from workbench.core.lint.profiles import lint_profile
    from workbench.core.lint.registry import Rule
    from workbench.core.lint.runner import run_rules
    from workbench.core.skillfile import parse_skill_text

    def boom(ctx: LintContext) -> list[object]:
        raise ZeroDivisionError("rule bug")

    bad = Rule("TEST999", "boom", "error", {}, boom)  # type: ignore[arg-type]
    ctx = LintContext(
        parse_skill_text("---\nname: a\n---\n", Path("/x/a/SKILL.md")), lint_profile("agentskills")
    )
    with caplog.at_level(logging.WARNING):
        out = run_rules([(bad, "error")], ctx)
    assert [d.code for d in out] == ["LINT000"] and "ZeroDivisionError: rule bug" in out[0].message
    (rec,) = _crashed(caplog, "workbench.core.lint.runner", logging.WARNING)
    assert rec.getMessage() == "rule TEST999 crashed on /x/a/SKILL.md"


def test_a_profile_crash_is_logged_and_the_skill_kept_as_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from workbench.core.clients import get_profile
    from workbench.core.discovery import scan

    ws = tmp_path / "ws"
    write_skill(ws / ".agents" / "skills" / "a", name="a")
    env = Environment(workspace=ws, home=tmp_path / "h", bins=set(), env={})
    profile = get_profile("agentskills")

    def boom(*a: object, **k: object) -> object:
        raise KeyError("profile bug")

    monkeypatch.setattr(profile, "read", boom)
    with caplog.at_level(logging.WARNING):
        cat = scan(env, "agentskills")
    (sk,) = cat.skills
    assert sk.status == "skipped" and "internal error reading" in sk.reason
    (rec,) = _crashed(caplog, "workbench.core.discovery", logging.WARNING)
    assert str(sk.path) in rec.getMessage()


def _no_fork() -> int:
    raise OSError("no processes here")


class _NoPool:
    def __init__(self, *a: object, **k: object) -> None:
        raise OSError("no processes here")


def test_a_pool_that_cannot_start_is_logged_at_debug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The parse pool (parsecache) and the lint pool (batch) fall back to serial work: expected on
    some machines, so debug, not warning."""
    from workbench.core import parsecache
    from workbench.core.lint import batch
    from workbench.core.lint.profiles import lint_profile

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _NoPool)
    monkeypatch.setattr(batch, "parallel_ok", lambda: True)
    monkeypatch.setattr(batch, "fork_ok", lambda: True)
    monkeypatch.setattr(os, "fork", _no_fork)  # the lint and parse pools fork their workers themselves
    monkeypatch.setattr(parsecache, "fork_ok", lambda: True)
    (tmp_path / "SKILL.md").write_text("---\nname: a\n---\n")
    with caplog.at_level(logging.DEBUG):
        pf = parsecache.ParseCache().prefetcher(jobs=2)
        pf.add([str(tmp_path / "SKILL.md")])
        assert pf.finish() == 0
        assert batch._run_parallel(["/nope/SKILL.md"], lint_profile("agentskills"), 2, (None, None)) is None
    assert len(_crashed(caplog, "workbench.core.parsecache", logging.DEBUG)) == 1
    assert len(_crashed(caplog, "workbench.core.lint.batch", logging.DEBUG)) == 1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
