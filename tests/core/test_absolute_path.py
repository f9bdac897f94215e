"""``model.absolute_path``: a WORKSPACE given as ``../x`` is shown without the ``..`` (what the
user expects), but never where the lexical reading names another folder than the kernel's."""

from __future__ import annotations

import os
from pathlib import Path

from workbench.core.model import Environment, absolute_path


def test_dotdot_is_removed_when_it_names_the_same_folder(tmp_path, monkeypatch):
    (tmp_path / "main").mkdir()
    (tmp_path / "shared" / "corpus").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "main")
    assert absolute_path("../shared/corpus") == tmp_path / "shared" / "corpus"
    env = Environment(workspace=Path("../shared/corpus"), home=tmp_path, extra_roots=["../shared"])
    assert env.workspace == tmp_path / "shared" / "corpus"
    assert env.extra_roots == [tmp_path / "shared"]
    assert ".." not in env.cwd.parts


def test_dotdot_after_a_symlink_keeps_the_kernels_reading(tmp_path):
    (tmp_path / "real" / "inner").mkdir(parents=True)
    (tmp_path / "real" / "target").mkdir()
    (tmp_path / "target").mkdir()  # what a lexical normpath would name instead
    os.symlink(tmp_path / "real" / "inner", tmp_path / "link")
    p = tmp_path / "link" / ".." / "target"  # the kernel: real/target
    got = absolute_path(p)
    assert got == p  # left as given: normpath would say tmp_path/target, another folder
    assert os.path.samefile(got, tmp_path / "real" / "target")


def test_missing_paths_and_plain_paths(tmp_path):
    assert absolute_path(tmp_path / "nope" / ".." / "x") == tmp_path / "nope" / ".." / "x"
    assert absolute_path(tmp_path / "a") == tmp_path / "a"
    assert absolute_path("~") == Path.home()
