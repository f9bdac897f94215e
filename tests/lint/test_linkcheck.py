"""BODY012 dead links (``workbench lint --check-links``), against a local HTTP server on
127.0.0.1 only: HEAD then GET on 404/405, 403 as info, templates skipped, concurrency, opt-in."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from workbench import cli
from workbench.core.lint import linkcheck
from workbench.core.lint.linkcheck import LinkStatus, check_urls, is_checked, link_diagnostics, probe


class _Handler(BaseHTTPRequestHandler):
    seen: list[tuple[str, str]] = []
    lock = threading.Lock()
    active = 0
    peak = 0

    def _answer(self, method: str) -> None:
        cls = type(self)
        with cls.lock:
            cls.seen.append((method, self.path))
            cls.active += 1
            cls.peak = max(cls.peak, cls.active)
        # the request counts as in flight until its answer is decided, not until it is sent:
        # once sent, the client may start its next request before this thread could count
        # this one done (a peak one too high, seen in CI)
        try:
            path = self.path
            location = None
            if path.startswith("/slow"):
                time.sleep(0.3)
                code = 200
            elif path == "/ok":
                code = 200
            elif path == "/redirect":
                code, location = 302, "/ok"
            elif path == "/nohead":
                code = 405 if method == "HEAD" else 200
            elif path == "/headmissing":
                code = 404 if method == "HEAD" else 200
            elif path == "/forbidden":
                code = 403
            else:
                code = 404
        finally:
            with cls.lock:
                cls.active -= 1
        self.send_response(code)
        if location is not None:
            self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's names
        self._answer("HEAD")

    def do_GET(self) -> None:  # noqa: N802
        self._answer("GET")

    def log_message(self, *args) -> None:  # quiet
        pass


@pytest.fixture
def server():
    _Handler.seen = []
    _Handler.peak = 0
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def _skill(tmp_path: Path, base: str) -> Path:
    d = tmp_path / "web-tools"
    d.mkdir()
    (d / "SKILL.md").write_text(
        "---\nname: web-tools\ndescription: Fetches pages. Use when the user asks to fetch a page.\n---\n"
        f"See [ok]({base}/ok), [gone]({base}/gone) and [walled]({base}/forbidden).\n"
        f"Also [again]({base}/gone), [template]({base}/users/{{id}}) and [local](references/x.md).\n"
        f"```\n[in code]({base}/code)\n```\n",
        encoding="utf-8",
    )
    return d


def test_probe_head_then_get(server):
    assert probe(f"{server}/ok") == LinkStatus(f"{server}/ok", 200)
    assert probe(f"{server}/nohead").status == 200
    assert probe(f"{server}/headmissing").status == 200
    assert probe(f"{server}/redirect").status == 200
    assert probe(f"{server}/gone").status == 404
    assert probe(f"{server}/forbidden").status == 403
    assert [m for m, p in _Handler.seen if p == "/nohead"] == ["HEAD", "GET"]
    assert [m for m, p in _Handler.seen if p == "/ok"] == [
        "HEAD",
        "GET",
    ]  # direct; after the redirect urllib GETs


def test_probe_timeout_and_refused(server):
    st = probe(f"{server}/slow", timeout=0.05)
    assert st.status is None and "0.05 s" in (st.error or "")
    closed = probe("http://127.0.0.1:9/none", timeout=2)
    assert closed.status is None and closed.error


def test_templates_and_other_schemes_are_skipped():
    assert is_checked("https://example.com/a") and is_checked("HTTP://example.com")
    assert not is_checked("https://api.example.com/users/{id}")
    assert not is_checked("mailto:a@example.com") and not is_checked("references/x.md")


def test_check_urls_is_concurrent_and_deduplicated(server):
    urls = [f"{server}/slow{i}" for i in range(6)] * 2
    got = check_urls(urls, workers=3)
    assert len(got) == 6 and all(s.status == 200 for s in got.values())
    assert len(_Handler.seen) == 6 and _Handler.peak == 3


def test_link_diagnostics_positions_and_severities(server, tmp_path):
    folder = _skill(tmp_path, server)
    (diags,) = link_diagnostics([folder / "SKILL.md"]).values()
    got = [(d.line, d.column, d.severity, d.code) for d in diags]
    assert got == [(5, 45, "error", "BODY012"), (5, 87, "info", "BODY012"), (6, 14, "error", "BODY012")]
    assert diags[0].message == f"{server}/gone is dead (HTTP 404); fix or remove the link"
    assert sorted(p for _m, p in _Handler.seen) == ["/forbidden", "/gone", "/gone", "/ok"]  # HEAD+GET for 404


def test_cli_check_links_is_opt_in(server, tmp_path, capsys):
    folder = _skill(tmp_path, server)
    assert cli.main(["lint", str(folder), "--format", "json", "--no-cache"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert not _Handler.seen and "BODY012" not in {d["code"] for d in plain["diagnostics"]}
    assert cli.main(["lint", str(folder), "--format", "json", "--no-cache", "--check-links"]) == 1
    doc = json.loads(capsys.readouterr().out)
    dead = [d for d in doc["diagnostics"] if d["code"] == "BODY012"]
    assert [(d["severity"], d["rule"]) for d in dead] == [("error", "dead-link"), ("info", "dead-link")] + [
        ("error", "dead-link")
    ]
    assert doc["summary"]["errors"] == plain["summary"]["errors"] + 2
    assert doc["summary"]["infos"] == plain["summary"]["infos"] + 1


def test_a_default_lint_never_imports_the_checker(monkeypatch, tmp_path, capsys):
    def boom(*_a, **_k):
        raise AssertionError("a default lint requested a link")

    monkeypatch.setattr(linkcheck, "probe", boom)
    folder = _skill(tmp_path, "http://127.0.0.1:9")
    assert cli.main(["lint", str(folder), "--no-cache"]) == 0
    capsys.readouterr()
