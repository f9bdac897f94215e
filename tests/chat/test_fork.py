"""Claude Code ``context: fork``: the skill runs as a subagent that does not see the conversation
(checked on Claude Code 2.1.328 with the recorder; see clients/claude_code/loading.py)."""

from __future__ import annotations

from tests.fakeapi import text, tool_call


def _fork_skill(skills_dir):
    p = skills_dir / "pdf" / "SKILL.md"
    p.write_text(
        "---\nname: pdf\ndescription: Use for PDF files - extract, merge, fill forms.\n"
        "context: fork\nagent: general-purpose\n---\n\nTake the tasks the user mentioned earlier. "
        "Files: $ARGUMENTS\n"
    )


def test_fork_runs_as_subagent_without_the_conversation(session_for, fake_api, skills_dir):
    _fork_skill(skills_dir)
    fake_api.on("secret-earlier-detail", text("noted"))
    fake_api.on("merge the pdfs", tool_call("Skill", {"skill": "pdf", "args": "a.pdf b.pdf"}))
    fake_api.on("Take the tasks the user mentioned", text("Merged a.pdf and b.pdf."))
    s = session_for("claude-code")
    s.send("remember secret-earlier-detail")
    res = s.send("merge the pdfs")
    assert res.triggered == ["pdf"]
    forks = [e for e in res.events if e["type"] == "fork"]
    assert len(forks) == 1
    fork = forks[0]
    assert fork["agent"] == "general-purpose" and fork["text"] == "Merged a.pdf and b.pdf."
    assert fork["prompt"].startswith(f"Base directory for this skill: {skills_dir / 'pdf'}\n\n")
    assert fork["prompt"].endswith("Files: a.pdf b.pdf\n")
    assert any(e["type"] == "text" for e in fork["events"])  # its own sub-transcript
    # the subagent's request: one user message, no trace of the conversation, its own system prompt
    sub = [
        r
        for r in fake_api.message_requests
        if any("Take the tasks" in str(m.get("content")) for m in r.messages[:1])
    ]
    assert sub and len(sub[0].messages) == 1
    assert "secret-earlier-detail" not in str(sub[0].body["messages"])
    assert "subagent" in sub[0].system_text
    # the parent gets the forked-execution result, not the body
    last = fake_api.message_requests[-1].messages[-1]["content"]
    result = [b for b in last if b.get("type") == "tool_result"][0]
    assert (
        result["content"] == 'Skill "pdf" completed (forked execution).\n\nResult:\nMerged a.pdf and b.pdf.'
    )
    assert not any(b.get("type") == "text" and "Base directory" in b.get("text", "") for b in last)
    # the fork's usage counts for the turn
    assert res.usage["input_tokens"] >= sum(f["usage"]["input_tokens"] for f in forks)


def test_substitution_event_marks_spans(session_for, fake_api, skills_dir):
    fake_api.on("fill it", tool_call("Skill", {"skill": "pdf", "args": "form.pdf"}))
    res = session_for("claude-code").send("fill it")
    sub = [e for e in res.events if e["type"] == "substitution"][0]
    assert sub["checked_on"].startswith("Claude Code")
    (span,) = [sp for sp in sub["spans"] if sp["placeholder"] == "$ARGUMENTS"]
    assert sub["text"][span["start"] : span["end"]] == "form.pdf"
