"""``workbench scan --client all --format json`` with half of the clients in a forked helper
(``commands.scan._split``): the same bytes as every client in one process, and a helper that
fails is redone in the parent."""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers import backdate
from workbench.cli import main
from workbench.commands import scan as scancmd
from workbench.core.bench import make_tree
from workbench.core.forkrun import WorkQueue
from workbench.core.model import CLIENT_IDS
from workbench.core.text import escape_unsafe_json_utf8


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    make_tree(root, 40)
    return root


def _scan_all(capsys, root, *extra) -> str:
    rc = main(["scan", str(root), "--root", str(root), "--client", "all", "--format", "json", *extra])
    out, _ = capsys.readouterr()
    assert rc == 0
    return out


def test_split_output_equals_one_process(capsys, tree, monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h1"))
    monkeypatch.setattr(scancmd, "fork_ok", lambda: False)
    one = _scan_all(capsys, tree)
    forks = []
    real_queue = scancmd._queue

    def queue(one, cache):
        forks.append(1)
        return real_queue(one, cache)

    monkeypatch.setattr(scancmd, "fork_ok", lambda: True)
    monkeypatch.setattr(scancmd, "SPLIT_MIN", 0)
    monkeypatch.setattr(scancmd, "_queue", queue)
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h2"))
    two = _scan_all(capsys, tree)
    assert forks == [1]
    assert two == one
    assert list(json.loads(two)["clients"]) == list(CLIENT_IDS)


def test_failed_helper_is_redone(capsys, tree, monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h1"))
    monkeypatch.setattr(scancmd, "fork_ok", lambda: False)
    one = _scan_all(capsys, tree)
    monkeypatch.setattr(scancmd, "fork_ok", lambda: True)
    monkeypatch.setattr(scancmd, "SPLIT_MIN", 0)
    parent = os.getpid()

    def failing(one, cache):  # a helper that fails at its first client: every client here
        def fn(cid):
            if os.getpid() != parent:
                raise RuntimeError("helper breaks")
            return one(cid)

        return WorkQueue(fn, 1, in_child=cache.detach)

    monkeypatch.setattr(scancmd, "_queue", failing)
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h2"))
    assert _scan_all(capsys, tree) == one
    monkeypatch.setattr(scancmd, "_queue", lambda one, cache: WorkQueue(one, 1, in_child=_boom))
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h3"))
    assert _scan_all(capsys, tree) == one  # a helper that never starts its work


def _boom() -> None:
    raise RuntimeError("helper fails at its start")


def test_serial_path_when_a_catalog_is_empty(capsys, tmp_path, monkeypatch):
    """An empty catalog gets a hint built from the other clients' catalogs: one process."""
    from tests.helpers import write_skill

    ws, home = tmp_path / "ws", tmp_path / "home"
    write_skill(ws / ".claude/skills/a", "a")
    home.mkdir()
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h"))
    monkeypatch.setattr(scancmd, "SPLIT_MIN", 0)
    called = []
    monkeypatch.setattr(scancmd, "_split", lambda *a: called.append(1))
    rc = main(["scan", str(ws), "--home", str(home), "--client", "all", "--format", "json"])
    out, _ = capsys.readouterr()
    assert rc == 0 and not called
    d = json.loads(out)["clients"]
    assert any(c["skills"] == [] and c["notes"] for c in d.values())


def test_catalog_json_text_equals_json_dumps(tmp_path):
    """Every client's catalog of the demo workspace and of odd files (quotes, control
    characters, non-ASCII, a shadowed copy, a skipped file, an unverified root): the text
    writer gives ``json.dumps(catalog_json(...))``'s bytes."""
    import shutil

    from tests.helpers import write_skill
    from workbench.core.demo import demo_dir, demo_environment
    from workbench.core.discovery import scan_all
    from workbench.core.listing import render_listing
    from workbench.core.model import SkillStatus

    shutil.copytree(demo_dir(), tmp_path / "demo", symlinks=True)
    env = demo_environment(workspace=tmp_path / "demo/workspace", home=tmp_path / "demo/home")
    for i, desc in enumerate(['say "hi" \\ back', "tab\there\u2028é 😀", "x" * 2000, "\x01ctl"]):
        write_skill(env.workspace / f".claude/skills/odd{i}", f"odd{i}", desc)
        write_skill(env.workspace / f".agents/skills/odd{i}", f"odd{i}", desc)
    write_skill(env.workspace / ".claude/skills/broken", raw="---\nname: [\n---\n")
    seen = set()
    for cid, cat in scan_all(env).items():
        cat.notes.append('a "note" \\')
        if cat.skills:
            cat.skills[0].unverified.append("unverified\nrule")
        rep = render_listing(cat, env.context_tokens)
        want = json.dumps(scancmd.catalog_json(cat, rep), ensure_ascii=False)
        assert scancmd.catalog_json_text(cat, rep) == want, cid
        assert scancmd.catalog_json_text(cat) == json.dumps(scancmd.catalog_json(cat), ensure_ascii=False)
        # the bytes writer: the escaped UTF-8 of the same text
        assert scancmd.catalog_json_bytes(cat, rep) == escape_unsafe_json_utf8(want), cid
        seen.update(s.status for s in cat.skills)
    assert {SkillStatus.LISTED, SkillStatus.SHADOWED, SkillStatus.SKIPPED} <= seen


def test_catalog_json_text_unverified_and_odd_values(tmp_path):
    """Unverified lists of several strings, a tuple, a list holding a non-string and a root
    scope of another type: ``json.dumps``'s bytes (the template or the general encoder)."""
    from tests.helpers import write_skill
    from workbench.core.discovery import scan
    from workbench.core.listing import render_listing
    from workbench.core.model import Environment

    for i in range(4):
        write_skill(tmp_path / "coll" / f"s{i}", f"s{i}", f"Skill {i}. Use when testing.")
    env = Environment(workspace=tmp_path / "coll", home=tmp_path / "h", extra_roots=[tmp_path / "coll"])
    cat = scan(env, "cursor")
    assert len(cat.skills) == 4
    cat.skills[0].unverified = ['a "b"', "é\n", "c"]
    cat.skills[1].unverified = ("x", "y")  # type: ignore[assignment]
    cat.skills[2].unverified = ["x", 3]  # type: ignore[list-item]
    rep = render_listing(cat, env.context_tokens)
    want = json.dumps(scancmd.catalog_json(cat, rep), ensure_ascii=False)
    assert scancmd.catalog_json_text(cat, rep) == want
    memo: dict[str, str] = {}  # shared by catalogs, as in the CLI: the same bytes
    for _ in range(2):
        assert scancmd.catalog_json_text(cat, rep, memo) == want
    cat.skills[0].description = 5  # type: ignore[assignment]
    cat.skills[1].description = ["a"]  # type: ignore[assignment]
    want = json.dumps(scancmd.catalog_json(cat, rep), ensure_ascii=False)
    assert scancmd.catalog_json_text(cat, rep, memo) == want
    assert scancmd.catalog_json_text(cat, rep) == want
    assert scancmd.catalog_json_bytes(cat, rep) == escape_unsafe_json_utf8(want)
    memo_b: dict[str, bytes] = {}  # the bytes writer's own memo (escaped UTF-8 pieces)
    for _ in range(2):
        assert scancmd.catalog_json_bytes(cat, rep, memo_b) == escape_unsafe_json_utf8(want)
    cat.roots[-1].scope = 7  # type: ignore[assignment]
    assert scancmd.catalog_json_text(cat, rep) == json.dumps(
        scancmd.catalog_json(cat, rep), ensure_ascii=False
    )


@pytest.mark.parametrize("n", [0, 1, 3])
def test_catalog_json_bytes_escapes_each_skill(tmp_path, n):
    """No skill, one, several; a lone surrogate (undecodable path byte), C0/C1 controls, DEL
    and non-ASCII text in names, descriptions and the workspace path."""
    from tests.helpers import write_skill
    from workbench.core.discovery import scan
    from workbench.core.listing import render_listing
    from workbench.core.model import Environment

    coll = tmp_path / "c\x7fo\u0085ll"
    coll.mkdir()
    for i in range(n):
        write_skill(coll / f"s{i}", f"s{i}", f"Skill {i} caf\u00e9 \u0085 \x7f \x1b[31m 😀.")
    env = Environment(workspace=coll, home=tmp_path / "h", extra_roots=[coll])
    cat = scan(env, "cursor")
    assert len(cat.skills) == n
    if n:
        cat.skills[0].name = "bad\udcffname"
        cat.skills[-1].description = "\u009b DEL\x7f"
    cat.notes.append("note \x01 \u0085")
    rep = render_listing(cat, env.context_tokens)
    want = escape_unsafe_json_utf8(scancmd.catalog_json_text(cat, rep))
    assert scancmd.catalog_json_bytes(cat, rep) == want
    assert scancmd.catalog_json_bytes(cat, rep, {}) == want


def test_split_bytes_escaped_and_caches_saved(capsys, tree, monkeypatch, tmp_path):
    """The split path writes each client's text as escaped UTF-8 bytes (``text.write_utf8``):
    the same as the text path; its caches are saved on a thread and a warm run agrees."""

    d = tree / "odd"
    d.mkdir()
    (d / "SKILL.md").write_text(
        "---\nname: odd\ndescription: caf\u00e9 \x1b[31m red \u0085 \u00a9\n---\nBody\n"
    )
    backdate(tree)
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h1"))
    monkeypatch.setattr(scancmd, "fork_ok", lambda: False)
    monkeypatch.setattr(scancmd, "utf8_buffer", lambda _s: None)  # the text path
    one = _scan_all(capsys, tree)
    assert "\\u001b[31m" in one and "\\u0085" in one and "\u00e9" in one
    monkeypatch.undo()
    monkeypatch.setattr(scancmd, "fork_ok", lambda: True)
    monkeypatch.setattr(scancmd, "SPLIT_MIN", 0)
    home = tmp_path / "h2"
    monkeypatch.setenv("WORKBENCH_HOME", str(home))
    assert _scan_all(capsys, tree) == one
    saved = sorted(p.name for p in home.rglob("*.marshal"))
    assert "dirs.marshal" in saved and "facts.marshal" in saved
    assert _scan_all(capsys, tree) == one  # warm


def test_scan_exit_skips_the_last_gc_pass(tmp_path, monkeypatch):
    """``workbench scan`` registers ``gc.freeze`` at exit once, as ``workbench lint`` does."""
    import atexit
    import gc

    from tests.helpers import write_skill
    from workbench.core import model

    hooks: list = []
    monkeypatch.setattr(atexit, "register", hooks.append)
    monkeypatch.setattr(model, "_exit_hook", False)
    write_skill(tmp_path / "a", "a")
    for _ in range(2):
        assert main(["scan", str(tmp_path), "--no-cache", "--format", "json"]) == 0
    assert hooks == [gc.freeze]


@pytest.mark.parametrize("fork", [True, False])
def test_split_gives_every_client_in_order(monkeypatch, fork):
    """``_split``: one result per client in ``ids`` order whoever made it (the queue takes the
    costliest first); ``then`` runs once; a cost for every client."""
    from workbench.core.parsecache import ParseCache

    monkeypatch.setattr(scancmd, "fork_ok", lambda: fork)
    monkeypatch.setattr(scancmd, "SPLIT_MIN", 0)
    ids = list(CLIENT_IDS)
    ran: list[int] = []
    got = scancmd._split(ids, lambda c: f"<{c}>".encode(), ParseCache(), then=lambda: ran.append(1))
    assert got == [f"<{c}>".encode() for c in ids] and ran == [1]
    assert set(scancmd._COST) == set(CLIENT_IDS)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_entry_point_ends_the_scan_with_a_fast_exit(capsys, tree, monkeypatch, tmp_path, fmt):
    """``python -m workbench scan`` (``cli.console_main``): the scan hands its objects to
    ``model.keep_until_exit`` and the process ends with ``os._exit`` after the output is flushed:
    the same bytes and status as in process; in process nothing is kept."""
    import subprocess
    import sys

    from workbench.core import model

    args = ["scan", str(tree), "--root", str(tree), "--client", "all", "--format", fmt]
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "h1"))
    assert main(args) == 0
    inproc = capsys.readouterr().out
    assert model.keep_until_exit(object()) is False and not model.fast_exit_wanted()
    env = {**os.environ, "WORKBENCH_HOME": str(tmp_path / "h2"), "PYTHONIOENCODING": "utf-8"}
    got = subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, env=env)
    assert got.returncode == 0 and got.stderr == b""
    assert got.stdout.decode("utf-8") == inproc
    # an atexit handler shows which way the process ended
    code = "import atexit, sys; atexit.register(lambda: print('atexit ran', file=sys.stderr)); "
    code += "from workbench import cli; sys.argv[1:] = %r; %scli.console_main()"
    fast = subprocess.run([sys.executable, "-c", code % (args, "")], capture_output=True, env=env)
    assert fast.returncode == 0 and fast.stderr == b"" and fast.stdout.decode("utf-8") == inproc
    usual = subprocess.run(
        [sys.executable, "-c", code % (args, "cli.main = lambda: 3; ")], capture_output=True, env=env
    )
    assert usual.returncode == 3 and usual.stderr == b"atexit ran\n"  # nothing kept: sys.exit
