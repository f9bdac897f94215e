"""Each client's shape end to end through the fake server: where the listing goes, which tool
loads a skill, and the exact result wrapper."""

from __future__ import annotations

import pytest

from tests.fakeapi import tool_call

READ_CLIENTS = {
    "openclaw": ("read", "path"),
    "codex": ("read_file", "path"),
    "vscode-copilot": ("read_file", "filePath"),
    "cursor": ("read_file", "path"),
    "agentskills": ("read_file", "path"),
}


def _load_call(client: str, skill_md: str):
    if client == "claude-code":
        return tool_call("Skill", {"skill": "pdf"})
    if client == "opencode":
        return tool_call("skill", {"name": "pdf"})
    if client == "gemini-cli":
        return tool_call("activate_skill", {"name": "pdf"})
    name, key = READ_CLIENTS[client]
    return tool_call(name, {key: skill_md})


@pytest.mark.parametrize(
    "client",
    ["claude-code", "codex", "openclaw", "gemini-cli", "opencode", "vscode-copilot", "cursor", "agentskills"],
)
def test_client_loads_skill_in_its_own_shape(client, session_for, fake_api, skills_dir):
    skill_md = str(skills_dir / "pdf" / "SKILL.md")
    fake_api.on("fill this PDF", _load_call(client, skill_md))
    session = session_for(client)
    res = session.send("please fill this PDF form")

    assert fake_api.invalid == []
    assert res.error is None, res.error
    assert res.triggered == ["pdf"]
    assert res.stop_reason == "end_turn"
    first, second = fake_api.message_requests[:2]

    # the listing is where the client puts it
    user0 = first.first_user_blocks
    if client in ("claude-code", "vscode-copilot"):
        assert "pdf" not in first.system_text
        assert user0[0]["text"] != "please fill this PDF form"
        assert "pdf" in user0[0]["text"] and user0[-1]["text"] == "please fill this PDF form"
        if client == "claude-code":
            assert user0[0]["text"].startswith("<system-reminder>\n")
            assert user0[0]["text"].endswith("\n</system-reminder>")
        else:
            assert user0[0]["text"].startswith("<skills>")
            assert "'read_file'" in user0[0]["text"]
    else:
        assert "pdf" in first.system_text
        assert [b["text"] for b in user0] == ["please fill this PDF form"]
        if client == "codex":
            assert "<skills_instructions>" in first.system_text

    # the load tool is offered with its exact name and schema
    if client == "claude-code":
        t = first.tool("Skill")
        assert t["input_schema"]["required"] == ["skill"]
        assert set(t["input_schema"]["properties"]) == {"skill", "args"}
    elif client == "opencode":
        assert first.tool("skill")["input_schema"]["required"] == ["name"]
    elif client == "gemini-cli":
        prop = first.tool("activate_skill")["input_schema"]["properties"]["name"]
        assert sorted(prop["enum"]) == ["csv", "pdf"]
    else:
        name, key = READ_CLIENTS[client]
        assert key in first.tool(name)["input_schema"]["properties"]
    for t in ("list_directory", "shell"):
        assert t in first.tool_names

    # the result wrapper
    tr = second.tool_results[0]
    content = tr["content"]
    blocks = second.last_user["content"]
    pdf_dir = skills_dir / "pdf"
    if client == "claude-code":
        assert content == "Launching skill: pdf"
        assert blocks[1]["type"] == "text"
        assert blocks[1]["text"].startswith(f"Base directory for this skill: {pdf_dir}\n\n# PDF")
    elif client == "opencode":
        assert content.startswith('<skill_content name="pdf">\n# Skill: pdf\n\n# PDF\n')
        assert f"Base directory for this skill: {pdf_dir.as_uri()}\n" in content
        assert (
            f"<skill_files>\n<file>{pdf_dir / 'scripts' / 'fill.py'}</file>\n</skill_files>\n</skill_content>"
            in content
        )
    elif client == "gemini-cli":
        assert content.startswith('<activated_skill name="pdf">\n  <instructions>\n    # PDF')
        assert "\n  </instructions>\n\n  <available_resources>\n    " in content
        assert content.endswith("\n  </available_resources>\n</activated_skill>")
        assert "fill.py" in content
    else:
        assert content.startswith("---\nname: pdf\n")
        if client == "openclaw":
            assert f"Assets in {pdf_dir}/assets." in content
        else:
            assert "{baseDir}" in content
    ev = [e for e in res.events if e["type"] == "skill_loaded"]
    assert ev and ev[0]["name"] == "pdf" and ev[0]["path"] == skill_md and ev[0]["body_chars"] > 0
