"""Issue 14 round 6 (warm): ``workbench lint DIR --format json`` over an unchanged tree prints the
report kept by the previous run (``core.cache.reportcache``) after a ``stat`` of every folder,
SKILL.md and dependency; any change on disk makes it lint again, and the output is always the
one a run without any cache gives."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import backdate, write_skill
from workbench.cli import main
from workbench.core.cache import reportcache
from workbench.core.cache.reportcache import MAX_REPORTS, Checks, ReportCache, make_checks, send, unchanged

_EVALS = '{"skill_name": "a", "evals": []}'


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    monkeypatch.setenv("WORKBENCH_HOME", str(h))
    return h


def _tree(root: Path) -> Path:
    t = root / "t"
    write_skill(t / "g1" / "alpha", name="alpha", description="Use when testing alpha.")
    write_skill(
        t / "g1" / "beta",
        name="beta",
        description="Use when testing beta.",
        body="# B\n\nSee [x](refs/x.md).\n",
    )
    (t / "g1" / "beta" / "refs").mkdir()
    (t / "g1" / "beta" / "refs" / "x.md").write_text("x\n")
    write_skill(t / "g2" / "Bad_Name", name="Bad_Name", description="x")
    (t / "g2" / "Bad_Name" / "evals").mkdir()
    (t / "g2" / "Bad_Name" / "evals" / "evals.json").write_text(_EVALS)
    backdate(t)
    return t


def _lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    rc = main(["lint", *args])
    return rc, capsys.readouterr().out


def _truth(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    return _lint(capsys, *args, "--no-cache")


def _reports(home: Path) -> list[Path]:
    return sorted((home / "cache" / "reports").glob("lint-*.marshal"))


def _no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    import workbench.core.lint.batch as batch

    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("linted although the stored report was valid")

    monkeypatch.setattr(batch, "lint_paths", boom)


def _age(p: Path, seconds: float = 30.0) -> None:
    past = time.time() - seconds
    os.utime(p, (past, past))


def test_a_warm_run_prints_the_stored_report(tmp_path, home, capsys, monkeypatch):
    t = _tree(tmp_path)
    want = _truth(capsys, str(t), "--format", "json")
    assert want[0] == 1 and json.loads(want[1])["summary"]["files"] == 3
    assert _lint(capsys, str(t), "--format", "json") == want  # cold: stores the report
    assert len(_reports(home)) == 1
    with monkeypatch.context() as m:
        _no_engine(m)
        assert _lint(capsys, str(t), "--format", "json") == want
        assert _lint(capsys, str(t), "--format", "json") == want


@pytest.mark.parametrize(
    "change",
    [
        "edit_same_size",
        "new_skill",
        "removed_skill",
        "renamed_folder",
        "dependency_file",
        "link_target_folder",
        "new_subfolder",
    ],
)
def test_every_change_on_disk_lints_again(tmp_path, home, capsys, monkeypatch, change):
    t = _tree(tmp_path)
    args = (str(t), "--format", "json")
    _lint(capsys, *args)
    with monkeypatch.context() as m:
        _no_engine(m)
        _lint(capsys, *args)  # the report is valid here
    alpha = t / "g1" / "alpha" / "SKILL.md"
    if change == "edit_same_size":  # same size, same inode: only the mtime tells
        raw = alpha.read_bytes()
        alpha.write_bytes(raw.replace(b"name: alpha", b"name: Alpha"))
        assert alpha.stat().st_size == len(raw)
        _age(alpha)
    elif change == "new_skill":
        write_skill(t / "g2" / "gamma", name="gamma", description="Use when testing gamma.")
        backdate(t / "g2", 20)
    elif change == "removed_skill":
        alpha.unlink()
        os.rmdir(alpha.parent)
        _age(t / "g1")
    elif change == "renamed_folder":
        os.rename(t / "g1" / "beta", t / "g1" / "beta2")
        _age(t / "g1")
    elif change == "dependency_file":  # STR007's ctx.depend: evals.json edited in place
        ev = t / "g2" / "Bad_Name" / "evals" / "evals.json"
        ev.write_text("[" + _EVALS[1:])
        _age(ev)
    elif change == "link_target_folder":  # BODY005's link target removed
        (t / "g1" / "beta" / "refs" / "x.md").unlink()
        _age(t / "g1" / "beta" / "refs")
    else:  # a folder below a skill (STR005/STR008 list it)
        (t / "g1" / "alpha" / "assets").mkdir()
        backdate(t / "g1" / "alpha", 20)
    want = _truth(capsys, *args)
    assert _lint(capsys, *args) == want
    assert _lint(capsys, *args) == want  # and the new report is kept


def test_racily_new_files_keep_no_report(tmp_path, home, capsys):
    t = _tree(tmp_path)
    write_skill(t / "g1" / "alpha", name="alpha", description="Changed just now.")
    want = _truth(capsys, str(t), "--format", "json")
    assert _lint(capsys, str(t), "--format", "json") == want
    assert _reports(home) == []
    assert _lint(capsys, str(t), "--format", "json") == want


def test_symlinked_folders_keep_no_report(tmp_path, home, capsys):
    t = _tree(tmp_path)
    other = tmp_path / "elsewhere"
    write_skill(other / "delta", name="delta", description="Use when testing delta.")
    (t / "g3").symlink_to(other, target_is_directory=True)
    backdate(tmp_path)
    want = _truth(capsys, str(t), "--format", "json")
    assert _lint(capsys, str(t), "--format", "json") == want
    assert _reports(home) == []
    write_skill(other / "delta", name="delta", description="Changed behind the link.")
    backdate(other)
    assert _lint(capsys, str(t), "--format", "json") == _truth(capsys, str(t), "--format", "json")


@pytest.mark.parametrize(
    "args",
    [("--format", "text"), ("--format", "sarif"), ("--format", "json", "--jobs", "1", "--no-cache")],
)
def test_only_cached_json_runs_keep_a_report(tmp_path, home, capsys, args):
    t = _tree(tmp_path)
    _lint(capsys, str(t), *args)
    _lint(capsys, str(t), *args)
    assert _reports(home) == []


def test_a_skill_file_or_skill_folder_keeps_no_report(tmp_path, home, capsys):
    t = _tree(tmp_path)
    for p in (t / "g1" / "alpha" / "SKILL.md", t / "g1" / "alpha"):
        _lint(capsys, str(p), "--format", "json")
    assert _reports(home) == []


def test_options_and_paths_key_the_report(tmp_path, home, capsys, monkeypatch):
    t = _tree(tmp_path)
    for args in [(str(t),), (str(t), "--profile", "claude-code"), (str(t / "g1"), str(t / "g2"))]:
        want = _truth(capsys, *args, "--format", "json")
        assert _lint(capsys, *args, "--format", "json") == want
    assert len(_reports(home)) == 3
    monkeypatch.chdir(t)
    want = _truth(capsys, "g1", "--format", "json")
    assert _lint(capsys, "g1", "--format", "json") == want  # relative PATH: its own report
    assert _lint(capsys, "g1", "--format", "json") == want
    assert len(_reports(home)) == MAX_REPORTS  # the oldest beyond MAX_REPORTS removed


def test_a_damaged_or_foreign_report_is_ignored(tmp_path, home, capsys):
    t = _tree(tmp_path)
    want = _lint(capsys, str(t), "--format", "json")
    (f,) = _reports(home)
    f.write_bytes(f.read_bytes()[:-5])  # cut short
    assert _lint(capsys, str(t), "--format", "json") == want
    assert ReportCache(f.parent).get("no such key") is None


def test_checks_compare_every_path(tmp_path):
    d, e = tmp_path / "d", tmp_path / "e"
    d.mkdir()
    e.mkdir()
    f = d / "SKILL.md"
    f.write_text("x")
    st, dst, est = f.stat(), d.stat(), e.stat()
    gone = str(tmp_path / "gone")
    ent = (st.st_size, st.st_mtime_ns, st.st_ino, (gone, -1, str(e), est.st_mtime_ns), "n", "d", (0, 0, 0))
    c = make_checks([([str(d)], [dst.st_mtime_ns])], [str(f)], [ent])
    assert c == Checks(
        (str(d), str(e), gone),
        (dst.st_mtime_ns, est.st_mtime_ns, -1),
        (str(f),),
        ((1, st.st_mtime_ns, st.st_ino),),
    )  # the absent path last
    assert unchanged(c)
    (tmp_path / "gone").mkdir()  # appeared
    assert not unchanged(c)
    os.rmdir(tmp_path / "gone")
    assert unchanged(c)
    os.utime(e, ns=(est.st_atime_ns, est.st_mtime_ns + 1))  # a dependency
    assert not unchanged(c)
    os.utime(e, ns=(est.st_atime_ns, est.st_mtime_ns))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # the SKILL.md
    assert not unchanged(c)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert unchanged(c)
    os.rmdir(e)  # a present path gone
    assert not unchanged(c)
    # a folder seen with two mtimes (walk vs dependency) can never be valid: nothing kept
    bad = (*ent[:3], (str(d), dst.st_mtime_ns + 1))
    assert make_checks([([str(d)], [dst.st_mtime_ns])], [str(f)], [bad]) is None
    assert reportcache.report_key(["a"]) != reportcache.report_key(["b"])


def test_a_stored_report_imports_neither_the_engine_nor_yaml(tmp_path):
    t = _tree(tmp_path)
    env = {**os.environ, "WORKBENCH_HOME": str(tmp_path / "home")}
    code = (
        "import sys\n"
        "from workbench.cli import main\n"
        f"rc = main(['lint', {str(t)!r}, '--format', 'json'])\n"
        "mods = [m for m in ('yaml', 'workbench.core.lint.batch', 'workbench.core.skillfile') if m in sys.modules]\n"
        "sys.stderr.write(repr(mods))\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        for _ in range(2)
    ]
    assert runs[0].stdout == runs[1].stdout and json.loads(runs[1].stdout)["summary"]["files"] == 3
    assert runs[0].stderr.endswith("'workbench.core.skillfile']")  # linted
    assert runs[1].stderr.endswith("[]"), runs[1].stderr


def test_send_copies_the_rest_of_the_file(tmp_path):
    src = tmp_path / "r"
    src.write_bytes(b"ab" + bytes(range(256)) * 1000)
    for out_path, mode in ((tmp_path / "o1", "wb"), (tmp_path / "o2", "ab"), (None, "")):
        with open(src, "rb") as fh:
            fh.seek(2)
            if out_path is None:
                out = io.BytesIO()  # no file descriptor: read + write
                send(fh, out)
                got = out.getvalue()
            else:  # "ab": O_APPEND, which sendfile refuses (EINVAL): read + write
                with open(out_path, mode) as o:
                    o.write(b"x")  # buffered before: flushed first
                    send(fh, o)
                got = out_path.read_bytes()[1:]
        assert got == bytes(range(256)) * 1000


def test_a_report_file_replaced_by_another_run_is_not_used(tmp_path, home, capsys):
    t = _tree(tmp_path)
    want = _lint(capsys, str(t), "--format", "json")
    (f,) = _reports(home)
    rep = f.with_suffix(".report")
    data = rep.read_bytes()
    rep.unlink()
    rep.write_bytes(data.replace(b"alpha", b"ALPHA"))  # same size, another inode
    assert _lint(capsys, str(t), "--format", "json") == want


def test_after_a_change_the_checks_stats_serve_the_lint(tmp_path, home, capsys, monkeypatch):
    """A report that no longer holds costs its stats only once: the walk and the result-cache
    look-ups take them from the snapshot memo the checks filled."""
    from workbench.core.cache import fscache

    t = _tree(tmp_path)
    _lint(capsys, str(t), "--format", "json")
    alpha = t / "g1" / "alpha" / "SKILL.md"
    alpha.write_text(alpha.read_text().replace("testing alpha", "testing ALPHA"))
    _age(alpha)
    seen: list[str] = []
    real = os.stat

    def counting(p, *a, **k):
        seen.append(os.fspath(p))
        return real(p, *a, **k)

    monkeypatch.setattr(os, "stat", counting)
    monkeypatch.setattr(fscache, "_os_stat", counting)
    got = _lint(capsys, str(t), "--format", "json")
    monkeypatch.undo()
    assert got == _truth(capsys, str(t), "--format", "json")
    beta = t / "g1" / "beta"
    for p in (beta / "SKILL.md", beta, t / "g1", beta / "refs"):
        assert seen.count(str(p)) == 1, (p, seen.count(str(p)))


def test_stat_all_stats_each_path_once(tmp_path, monkeypatch):
    from workbench.core.cache.reportcache import _stat_all

    real = os.stat
    seen: list[str] = []

    def counting(p, *a, **k):
        seen.append(p)
        return real(p, *a, **k)

    monkeypatch.setattr(os, "stat", counting)
    paths = [str(tmp_path), str(tmp_path / "no"), str(tmp_path), "a\0b", str(tmp_path / "no2")]
    got = _stat_all(paths)
    assert [g is not None for g in got] == [True, False, True, False, False]
    assert seen == paths
    assert _stat_all([]) == []
