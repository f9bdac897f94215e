"""workbench.core.safefile: atomic writes, conflict detection, nothing partial left behind."""

from __future__ import annotations

import hashlib
import os
import stat

import pytest

from workbench.core import safefile
from workbench.core.safefile import ConflictError, atomic_write, sha256_of


def _h(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def test_new_file_written_and_hash_returned(tmp_path):
    p = tmp_path / "SKILL.md"
    sha = atomic_write(p, b"---\nname: x\n---\n")
    assert p.read_bytes() == b"---\nname: x\n---\n"
    assert sha == _h(p.read_bytes()) == sha256_of(p)


def test_bytes_are_written_verbatim_crlf_and_bom(tmp_path):
    p = tmp_path / "SKILL.md"
    data = b"\xef\xbb\xbf---\r\nname: x\r\n---\r\n"
    atomic_write(p, data)
    assert p.read_bytes() == data


def test_expected_hash_matches_overwrites(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"old")
    atomic_write(p, b"new", expected_sha256=_h(b"old"))
    assert p.read_bytes() == b"new"


def test_changed_on_disk_raises_and_keeps_file(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"theirs")
    with pytest.raises(ConflictError) as ei:
        atomic_write(p, b"mine", expected_sha256=_h(b"what I read"))
    assert p.read_bytes() == b"theirs"
    assert ei.value.actual == _h(b"theirs")
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_must_not_exist(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"x")
    with pytest.raises(ConflictError):
        atomic_write(p, b"y", expected_sha256="")
    q = tmp_path / "g"
    atomic_write(q, b"y", expected_sha256="")
    assert q.read_bytes() == b"y"


def test_deleted_since_read(tmp_path):
    p = tmp_path / "f"
    with pytest.raises(ConflictError) as ei:
        atomic_write(p, b"y", expected_sha256=_h(b"x"))
    assert ei.value.actual is None
    assert "deleted" in str(ei.value)
    assert not p.exists()


def test_mode_kept(tmp_path):
    p = tmp_path / "run.sh"
    p.write_bytes(b"#!/bin/sh\n")
    os.chmod(p, 0o755)
    atomic_write(p, b"#!/bin/sh\necho\n")
    assert stat.S_IMODE(p.stat().st_mode) == 0o755


def test_failed_replace_leaves_original_and_no_temp(tmp_path, monkeypatch):
    p = tmp_path / "f"
    p.write_bytes(b"original")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safefile.os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write(p, b"new content")
    assert p.read_bytes() == b"original"
    assert os.listdir(tmp_path) == ["f"]
