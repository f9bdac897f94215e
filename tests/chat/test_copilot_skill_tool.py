"""GitHub Copilot CLI's ``skill`` tool result, as measured on the real client 1.0.102 (lab:
``tests/conformance/test_copilot_skill_tool.py``): the one-line tool_result, the ``<skill-context>``
block with the skill's files, and the not-found reply; end to end through the fake Messages API."""

from __future__ import annotations

import os
from pathlib import Path

from tests.fakeapi import tool_call
from workbench.core.clients.copilot_cli.skillcontext import related_files, skill_context


def _files(root: Path, names: list[str]) -> None:
    for n in names:
        p = root / n
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x\n")


def test_block_shape_with_summary_and_files(tmp_path):
    """Lab case 1: a folder of 55 entries is summarized; node_modules and any-case SKILL.md left
    out; hidden files kept; leading blank lines of the body removed, the rest kept."""
    d = tmp_path / "tally"
    _files(d, ["scripts/run.sh", "README.md", "node_modules/x/i.js", "sub/deeper/skill.md"])
    _files(d, ["sub/deeper/z.txt", ".hidden/h.txt", "Skill.MD"] + [f"big/f{i}.txt" for i in range(1, 56)])
    got = skill_context("tally", d, "\n\n# Tally\nAdd them up.\n")
    assert got == (
        f'<skill-context name="tally">\nBase directory for this skill: {d}\n\n'
        "Summarized directories:\n  - big/ (55 items)\n"
        "Related files (use view tool to read):\n"
        f"  - {d}/.hidden/h.txt\n  - {d}/README.md\n  - {d}/scripts/run.sh\n  - {d}/sub/deeper/z.txt\n\n"
        "# Tally\nAdd them up.\n\n</skill-context>"
    )


def test_block_without_files_and_body_edges(tmp_path):
    d = tmp_path / "t"
    d.mkdir()
    assert skill_context("t", d, "Body.\n") == (
        f'<skill-context name="t">\nBase directory for this skill: {d}\n\nBody.\n\n</skill-context>'
    )
    # whitespace-only leading lines go, the first line's indentation and trailing spaces stay
    assert skill_context("t", d, "\n  \n   Indented first.\nNo newline  ").endswith(
        "\n\n   Indented first.\nNo newline  \n</skill-context>"
    )


def test_skipped_folders_links_and_thresholds(tmp_path):
    """Lab case: every SKIPPED_DIRS name is skipped at any depth, exact case only; symbolic links
    (files and folders) are ignored; 50 entries are walked, 51 summarized."""
    d = tmp_path / "s"
    skipped = (
        ".git node_modules .venv venv __pycache__ dist build out target vendor coverage .cache bin obj .next"
    )
    _files(d, [f"{n}/x.txt" for n in skipped.split()] + ["Build/x.txt", "keep/node_modules/x.txt"])
    _files(d, ["keep/SKILL.md", "keep/deep/Skill.md", "keep/SKILL.md.bak"])
    _files(d, [f"fifty/f{i}.txt" for i in range(50)] + [f"fiftyone/g{i}.txt" for i in range(50)])
    (d / "fiftyone" / "sub").mkdir()
    os.symlink(tmp_path / "elsewhere", d / "linkdir")
    (tmp_path / "elsewhere").mkdir()
    _files(tmp_path / "elsewhere", ["e.txt"])
    os.symlink(tmp_path / "elsewhere" / "e.txt", d / "link.txt")
    files, summarized, truncated = related_files(d)
    rel = [str(Path(f).relative_to(d)) for f in files]
    assert summarized == [("fiftyone/", 51)] and not truncated
    assert [r for r in rel if not r.startswith("fifty/")] == ["Build/x.txt", "keep/SKILL.md.bak"]
    assert len([r for r in rel if r.startswith("fifty/")]) == 50


def test_first_hundred_files_in_directory_order(tmp_path):
    """Lab case: 3 folders of 40 files; the client collected files depth first in the directory
    order (os.scandir's), stopped at 100, then sorted them."""
    d = tmp_path / "many"
    _files(d, [f"{c}/x{i}.txt" for c in "abc" for i in range(10, 50)])
    order: list[str] = []
    for e in os.scandir(d):
        order += [f"{e.name}/{f.name}" for f in os.scandir(e.path)]
    files, _, truncated = related_files(d)
    assert truncated and len(files) == 100
    assert [str(Path(f).relative_to(d)) for f in files] == sorted(order[:100])
    assert skill_context("many", d, "B").count("\n  ...and more files (listing truncated)\n\nB\n") == 1


def test_loop_delivers_the_skill_context(tmp_path, fake_api, fake_home):
    from tests.helpers import write_skill
    from workbench.core.chat.engine import ChatSession
    from workbench.core.chat.settings import ChatSettings
    from workbench.core.discovery import scan
    from workbench.core.model import Environment

    ws = tmp_path / "ws"
    root = ws / ".github" / "skills"
    write_skill(root / "pdf", "pdf", "Use for PDF files.", body="# PDF\n\nFill forms.\n")
    _files(root / "pdf", ["scripts/fill.py"])
    write_skill(root / "csv", "csv", "Use for CSV files.", body="# CSV\n")
    cat = scan(Environment(workspace=ws, home=fake_home, env={}, bins=set()), "copilot-cli")
    fake_api.on("fill this PDF", tool_call("skill", {"skill": "pdf"}))
    fake_api.on("use nosuch", tool_call("skill", {"skill": "nosuch"}))
    settings = ChatSettings(base_url=fake_api.url, client="copilot-cli", max_retries=0)
    session = ChatSession(cat, settings=settings, api_key="sk-test")
    res = session.send("please fill this PDF form")
    assert fake_api.invalid == [] and res.error is None and res.triggered == ["pdf"]
    second = fake_api.message_requests[1]
    assert second.tool_results[0]["content"] == (
        'Skill "pdf" loaded successfully. Follow the instructions in the skill context.'
    )
    block = second.last_user["content"][-1]
    pdf = root / "pdf"
    assert block["text"] == (
        f'<skill-context name="pdf">\nBase directory for this skill: {pdf}\n\n'
        f"Related files (use view tool to read):\n  - {pdf}/scripts/fill.py\n\n"
        "# PDF\n\nFill forms.\n\n</skill-context>"
    )
    n = len(fake_api.message_requests)
    session.send("now use nosuch please")
    tr = fake_api.message_requests[n + 1].tool_results[0]
    assert tr["content"] == (
        'Skill "nosuch" not found. Available skills: csv, pdf, customize-cloud-agent, github-pr-media'
    )
    assert not tr.get("is_error")
    assert session.close()
