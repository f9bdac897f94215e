"""The lint walker never follows a symlink into a special file system or a system folder (issue 12:
a fuzz tree's ``proc -> /proc`` link made lint walk other processes' folders, which vanish mid-walk)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.core import skillwalk
from workbench.core.skillwalk import find_skill_files


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_links_to_special_and_system_folders_are_not_followed(tmp_path: Path, monkeypatch) -> None:
    listed: list[str] = []
    real_listing = skillwalk.scan_listing

    def listing(d: str):  # noqa: ANN202 - same shape as fscache.scan_listing
        listed.append(d)
        return real_listing(d)

    monkeypatch.setattr(skillwalk, "scan_listing", listing)
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "SKILL.md").write_text("---\nname: ok\ndescription: d\n---\n", encoding="utf-8")
    for name, target in (("proc", "/proc"), ("sys", "/sys"), ("usr", "/usr"), ("root", "/")):
        (tmp_path / name).symlink_to(target)
    assert [p.relative_to(tmp_path).as_posix() for p in find_skill_files(tmp_path)] == ["ok/SKILL.md"]
    assert sorted(Path(d).name for d in listed) == sorted([tmp_path.name, "ok"])
