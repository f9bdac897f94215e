"""AppContext and its helpers: plain imports of core, errors logged and shown (issue 15)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from tests.helpers import write_skill
from workbench.app import scanpass
from workbench.app.context import AppContext
from workbench.app.editor.lintbridge import run_lint
from workbench.app.hosting import LazyPane, Placeholder
from workbench.app.settings import Settings
from workbench.app.workers import describe
from workbench.core.model import Environment

APP = Path(__file__).resolve().parents[2] / "workbench" / "app"


def test_app_imports_core_directly():
    """No importlib look-ups of the project's own modules and no signature-guessing fallbacks."""
    bad = []
    for f in sorted(APP.rglob("*.py")):
        text = f.read_text(encoding="utf-8")
        for pat in (r"import_module\(", r"except TypeError\b", r"\bcore_module\(", r"unavailable_reason"):
            if re.search(pat, text):
                bad.append(f"{f.relative_to(APP)}: {pat}")
    assert bad == []


def _env(tmp_path: Path) -> tuple[Environment, Path]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    p = write_skill(ws / ".claude" / "skills" / "alpha", "alpha", "Use when testing alpha.")
    home.mkdir()
    return Environment(workspace=ws, home=home), p


@pytest.fixture()
def ctx(tmp_path, qtbot):
    env, _p = _env(tmp_path)
    c = AppContext(Settings(persist=False), env, client_id="claude-code", watch=False)
    c.rescan()
    assert c.wait_for_scan(60_000)
    yield c
    c.shutdown()


def test_buffer_edit_updates_the_catalog_through_core_refresh(ctx, tmp_path):
    p = tmp_path / "ws" / ".claude" / "skills" / "alpha" / "SKILL.md"
    ctx.apply_buffer(p, "---\nname: alpha\ndescription: Use when edited.\n---\n# A\n")
    ctx.flush_updates()
    assert not ctx.scanning  # incremental: no walk
    assert [s.description for s in ctx.catalog().skills] == ["Use when edited."]
    assert ctx.has_overlay(p)


def test_a_failed_update_is_logged_shown_and_rescanned(ctx, tmp_path, monkeypatch, caplog, qtbot):
    def broken(*_a, **_k):
        raise RuntimeError("profile bug")

    monkeypatch.setattr("workbench.app.context.refresh_all", broken)
    shown: list[str] = []
    ctx.problem.connect(shown.append)
    p = tmp_path / "ws" / ".claude" / "skills" / "alpha" / "SKILL.md"
    with caplog.at_level(logging.WARNING, logger="workbench.app.context"):
        ctx.apply_buffer(p, "---\nname: alpha\ndescription: Use when changed.\n---\n")
        ctx.flush_updates()
    assert shown and "RuntimeError: profile bug" in shown[0]
    assert any(r.name == "workbench.app.context" and r.exc_info for r in caplog.records)
    assert ctx.wait_for_scan(60_000)  # the rescan gives the right answer
    assert ctx.catalog().skills[0].description == "Use when changed."


def test_one_clients_scan_failure_is_recorded_and_logged(tmp_path, monkeypatch, caplog):
    env, _p = _env(tmp_path)
    real = scanpass.scan

    def scan(env, cid, **kw):
        if cid == "codex":
            raise ValueError("codex bug")
        return real(env, cid, **kw)

    monkeypatch.setattr(scanpass, "scan", scan)
    with caplog.at_level(logging.WARNING, logger="workbench.app.scanpass"):
        res = scanpass.scan_everything(env, scanpass.make_parse_cache({}), 200_000, False)
    assert res.errors["codex"] == "scan failed: ValueError: codex bug"
    assert "codex" not in res.catalogs and res.catalogs["claude-code"].skills
    assert any("scan of codex failed" in r.getMessage() and r.exc_info for r in caplog.records)


def test_overlay_cache_serves_buffers(tmp_path):
    env, p = _env(tmp_path)
    overlays: dict[str, str] = {}
    cache = scanpass.make_parse_cache(overlays)
    assert cache.get(p).data["name"] == "alpha"
    overlays[str(p)] = "---\nname: buffered\ndescription: x\n---\n"
    assert cache.get(p).data["name"] == "buffered"
    del overlays[str(p)]
    assert cache.get(p).data["name"] == "alpha"


def test_a_failing_pane_becomes_a_logged_placeholder(ctx, qtbot, caplog):
    def factory(_ctx, _parent):
        raise RuntimeError("no pane today")

    lazy = LazyPane(ctx, "Broken", factory)
    qtbot.addWidget(lazy)
    with caplog.at_level(logging.ERROR, logger="workbench.app.hosting"):
        w = lazy.ensure()
    assert isinstance(w, Placeholder) and "RuntimeError: no pane today" in w.reason
    assert any(r.name == "workbench.app.hosting" and r.exc_info for r in caplog.records)


def test_run_lint_uses_the_engine_and_reports_a_crash(caplog):
    diags = run_lint("---\nname: Bad Name\ndescription: Use when testing.\n---\n# B\n")
    assert any(d.code.startswith("NAME") for d in diags)  # the real rules, not a stand-in
    with caplog.at_level(logging.WARNING, logger="workbench.app.editor.lintbridge"):
        crash = run_lint("---\nname: x\n---\n", profile="no-such-profile")
    assert [d.code for d in crash] == ["LINT-CRASH"] and "KeyError" in crash[0].message
    assert caplog.records


def test_error_line():
    assert describe("Traceback line one\nmore") == "Traceback line one"
    assert describe(ValueError("bad\nvalue")) == "ValueError: bad"
    assert describe("") == ""


def test_a_failed_background_render_is_shown_and_not_pending_forever(ctx, monkeypatch, qtbot, caplog):
    def broken(*_a):
        raise RuntimeError("render bug")

    monkeypatch.setattr("workbench.app.listingrenders.render_with_errors", broken)
    shown: list[str] = []
    ctx.problem.connect(shown.append)
    with caplog.at_level(logging.WARNING, logger="workbench.app.context"):
        ctx.set_context_tokens(64_000)  # re-renders the other clients' listings on a worker
        qtbot.waitUntil(lambda: not ctx.listings_pending, timeout=10_000)
    assert shown and "render bug" in shown[0]


def test_other_clients_listing_errors_are_recorded(ctx, monkeypatch, qtbot):
    real = scanpass.render_listing

    def render(cat, tokens, options):
        if cat.client == "codex":
            raise ValueError("codex listing bug")
        return real(cat, tokens, options)

    monkeypatch.setattr(scanpass, "render_listing", render)
    ctx.set_context_tokens(64_000)
    qtbot.waitUntil(lambda: not ctx.listings_pending, timeout=10_000)
    assert ctx.errors["codex"] == "listing failed: ValueError: codex listing bug"


def test_a_hosted_pane_may_veto_closing_and_a_broken_check_is_logged(open_window, tmp_path, caplog):
    env, _p = _env(tmp_path)
    win = open_window(env)
    chat = win.pane("chat")
    answers = [False]
    chat.maybe_close = lambda: answers[0]  # its own unsaved work (the hosted-pane protocol)
    assert not win.close() and win.isVisible()

    def broken() -> bool:
        raise RuntimeError("close check bug")

    chat.maybe_close = broken
    with caplog.at_level(logging.ERROR, logger="workbench.app.main_window"):
        assert win.close()
    assert any("close check failed" in r.getMessage() for r in caplog.records)
