"""Confined file tools, the shell tool, argument substitution, result wrappers (core, no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import tool_call
from workbench.core.chat.tools import SHELL_REFUSED, AccessError, FileAccess
from workbench.core.clients.claude_code.loading import substitute
from workbench.core.clients.gemini_cli.loading import LOADER as GEMINI
from workbench.core.clients.opencode.loading import render_result

# -- Claude Code substitution ---------------------------------------------------------------


@pytest.mark.parametrize(
    "body,args,expected",
    [
        # expected values: the real Claude Code 2.1.328 (see tests/chat/test_cc_arguments.py)
        ("A $ARGUMENTS B", "x y", "A x y B"),
        ("$0|$1|$2", "a 'b c'", "a|b c|$2"),
        ("$ARGUMENTS[1] then $ARGUMENTS[0]", "one two", "two then one"),
        ("dir=${CLAUDE_SKILL_DIR}", None, "dir=/skills/pdf"),
        ("No placeholder.", "file.pdf", "No placeholder.\n\nARGUMENTS: file.pdf"),
        ("No placeholder.\n", "", "No placeholder.\n"),
        ("cost $5 is $ARGUMENTSX", "q", "cost $5 is qX"),
        ("unbalanced $0", "'a b", "unbalanced 'a b"),
    ],
)
def test_claude_code_substitution(body, args, expected):
    assert substitute(body, args, Path("/skills/pdf")) == expected


def test_claude_code_named_arguments_and_session_id():
    out = substitute(
        "from $src to $dst in ${CLAUDE_SESSION_ID}",
        "a.txt b.txt",
        Path("/s"),
        session_id="sess-1",
        declared=["src", "dst"],
    )
    assert out == "from a.txt to b.txt in sess-1"


def test_injections_reported_never_run(session_for, fake_api, skills_dir, tmp_path):
    marker = tmp_path / "ran"
    (skills_dir / "pdf" / "SKILL.md").write_text(
        f"---\nname: pdf\ndescription: Use for PDF files.\n---\nStatus: !`touch {marker}`\n"
    )
    fake_api.on("pdf", tool_call("Skill", {"skill": "pdf"}))
    res = session_for().send("pdf")
    ev = [e for e in res.events if e["type"] == "skill_loaded"][0]
    assert ev["injections"] == [f"touch {marker}"]
    assert not marker.exists()


# -- wrappers -----------------------------------------------------------------------------


def test_opencode_wrapper_exact(tmp_path):
    d = tmp_path / "s"
    d.mkdir()
    out = render_result("s", "\n  body\n", d, [d / "a.txt"])
    assert out == (
        '<skill_content name="s">\n# Skill: s\n\nbody\n\n'
        f"Base directory for this skill: {d.as_uri()}\n"
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n"
        "Note: file list is sampled.\n\n"
        f"<skill_files>\n<file>{d / 'a.txt'}</file>\n</skill_files>\n</skill_content>"
    )


def test_gemini_enum_and_empty():
    class S:
        def __init__(self, n):
            self.name = n

    t = GEMINI.tools([S("a"), S("b")])[0]
    assert t.name == "activate_skill"
    assert t.input_schema["properties"]["name"]["enum"] == ["a", "b"]
    assert "(Available: 'a', 'b')" in t.description
    empty = GEMINI.tools([])[0].input_schema["properties"]["name"]
    assert "enum" not in empty and empty["description"] == "No skills are currently available"


# -- confinement --------------------------------------------------------------------------


def test_file_access_confined(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("hello\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("no\n")
    (ws / "link").symlink_to(outside)
    fa = FileAccess([ws], ws)
    assert fa.read_text("a.txt")[0] == "hello\n"
    for bad in (str(outside), "../secret.txt", "link", "/etc/passwd", "", None):
        with pytest.raises(AccessError):
            fa.read_text(bad)
    assert "a.txt" in fa.list_dir(".")[0]
    with pytest.raises(AccessError):
        fa.list_dir("..")


def test_read_truncates_with_offset_hint(tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 3001)))
    fa = FileAccess([tmp_path], tmp_path)
    txt, _ = fa.read_text("big.txt")
    assert txt.endswith("[... truncated: use offset=2001 to continue]")
    txt2, _ = fa.read_text("big.txt", offset=2999, limit=5)
    assert txt2 == "line 2999\nline 3000\n"


def test_read_outside_is_error_result_and_symlinked_skill_counts(session_for, fake_api, skills_dir, tmp_path):
    link = tmp_path / "ws" / "pdf-link.md"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(skills_dir / "pdf" / "SKILL.md")
    fake_api.queue(
        tool_call("read_file", {"path": "/etc/hostname"}), tool_call("read_file", {"path": str(link)})
    )
    res = session_for("agentskills").send("go")
    r1 = fake_api.message_requests[1].tool_results[0]
    assert r1["is_error"] is True and "refused" in r1["content"]
    assert res.triggered == ["pdf"]  # a read through a symlink resolving to SKILL.md is a load


def test_file_url_path_accepted(session_for, fake_api, skills_dir):
    fake_api.queue(tool_call("read_file", {"path": (skills_dir / "csv" / "SKILL.md").as_uri()}))
    assert session_for("cursor").send("go").triggered == ["csv"]


# -- shell --------------------------------------------------------------------------------


def test_shell_runs_nothing_by_default(session_for, fake_api, tmp_path):
    marker = tmp_path / "ws" / "made"
    fake_api.queue(tool_call("shell", {"command": f"touch {marker}"}))
    session_for().send("go")
    r = fake_api.message_requests[1].tool_results[0]
    assert r["content"] == SHELL_REFUSED and r["is_error"] is True
    assert not marker.exists()


def test_shell_with_approval(session_for, fake_api):
    asked = []
    fake_api.queue(tool_call("shell", {"command": "echo hi"}), tool_call("shell", {"command": "echo no"}))
    answers = iter([True, False])
    s = session_for(session_kw={"shell_approver": lambda c: asked.append(c) or next(answers)})
    s.send("go")
    assert asked == ["echo hi", "echo no"]
    assert fake_api.message_requests[1].tool_results[0]["content"] == "exit code 0\nhi\n"
    assert "declined" in fake_api.message_requests[2].tool_results[0]["content"]


def test_every_loader_exists_and_describes_itself():
    from workbench.core.chat.engine import get_loader
    from workbench.core.model import CLIENT_IDS

    for cid in CLIENT_IDS:
        d = get_loader(cid).describe()
        assert d["client"] == cid and d["placement"] in ("system", "user-reminder", "user-context")
        assert d["source"]
