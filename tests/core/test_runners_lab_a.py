"""Claude Code, OpenCode and OpenClaw runners: reading the listing out of a recorded request, and
rendering it back byte for byte from the captured client texts (synthetic texts: the clients' own
are never stored in the repo)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conformance.lab import build, simulate
from tests.conformance.scenarios import by_id
from workbench.core.capture import get_runner
from workbench.core.capture.recorder import RecordedRequest
from workbench.core.listing import placeholder


def req(body: dict) -> RecordedRequest:
    return RecordedRequest(
        0, "POST", "/v1/messages", {}, {}, json.dumps(body).encode(), "anthropic-messages", 0.0
    )


def system_request(tool: str, text: str) -> RecordedRequest:
    return req(
        {
            "tools": [{"name": tool}],
            "system": [{"type": "text", "text": text}],
            "messages": [{"role": "user", "content": "hello"}],
        }
    )


def entry(name: str, description: str, location: object) -> str:
    """One ``<skill>`` element as OpenCode and OpenClaw list it."""
    return (
        f"  <skill>\n    <name>{name}</name>\n    <description>{description}</description>\n"
        f"    <location>{location}</location>\n  </skill>\n"
    )


def test_placeholder_is_exact_length_and_marked() -> None:
    assert len(placeholder("x", 50)) == 50 and placeholder("x", 50).startswith("⟦x⟧")
    assert placeholder("long label", 3) == "⟦lo" and placeholder("x", 0) == ""


def _claude_listing(user: str) -> str:
    return (
        "The following skills are available for use with the Skill tool:\n\n"
        + user
        + "\n- dataviz: Synthetic built-in text.\nwith a second line\n- init\n"
        "- security-review: Another synthetic text."
    )


def test_claude_code_extract_and_round_trip(tmp_path: Path) -> None:
    s = by_id("basic-one")
    ws, home = build(s, "claude-code", tmp_path)
    listing = _claude_listing("- alpha: Alpha does things with files.")
    body = {
        "tools": [{"name": "Skill"}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<system-reminder>\nother\n</system-reminder>"},
                    {"type": "text", "text": f"<system-reminder>\n{listing}\n</system-reminder>"},
                    {"type": "text", "text": "hello"},
                ],
            }
        ],
    }
    runner = get_runner("claude-code")
    assert runner.is_listing_request(req(body))
    ex = runner.extract(req(body))
    assert ex.listing == listing and ex.placement.message_index == 0
    assert ex.placement.block_index == 1 and ex.skills == ["alpha", "dataviz", "init", "security-review"]
    assert ex.builtins == ["dataviz", "init", "security-review"]
    assert ex.client_texts["builtins"][0]["description"] == "Synthetic built-in text.\nwith a second line"
    _, rep = simulate(s, "claude-code", ws, home, ex.client_texts)
    assert rep.text == listing
    _, bare = simulate(s, "claude-code", ws, home)  # no capture: placeholders of stored lengths
    assert bare.text.startswith(listing.split("\n- dataviz")[0] + "\n- dataviz: ⟦Claude Code")
    assert len(bare.builtins) == 13


def test_opencode_extract_and_round_trip(tmp_path: Path) -> None:
    s = by_id("basic-one")
    ws, home = build(s, "opencode", tmp_path)
    listing = (
        "Skills provide specialized instructions and workflows for specific tasks.\n"
        "Use the skill tool to load a skill when a task matches its description.\n"
        "<available_skills>\n"
        + entry("alpha", "Alpha does things with files.", ws / ".opencode/skills/alpha/SKILL.md")
        + entry("customize-opencode", "Synthetic.", "&lt;built-in&gt;")
        + "</available_skills>"
    )
    ex = get_runner("opencode").extract(system_request("skill", "Intro\n" + listing))
    assert ex.listing == listing and ex.builtins == ["customize-opencode"]
    _, rep = simulate(s, "opencode", ws, home, ex.client_texts)
    assert rep.text == listing and rep.client_version == "1.18.33"


def test_openclaw_extract_and_round_trip(tmp_path: Path) -> None:
    s = by_id("basic-one")
    ws, home = build(s, "openclaw", tmp_path)
    listing = (
        "## Skills\nSynthetic prose line.\n"
        "The following skills provide specialized instructions for specific tasks.\n"
        "Read a skill's file at its listed location when the task matches its description.\n"
        "When a skill file references a relative path, resolve it against the skill directory "
        "(parent of SKILL.md / dirname of the path) and use that absolute path in tool commands."
        "\n\n<available_skills>\n"
        + entry("alpha", "Alpha does things with files.", ws / "skills/alpha/SKILL.md")
        + entry("canvas", "Synthetic &amp; short.", "~/.openclaw/plugin-skills/canvas/SKILL.md")
        + "</available_skills>"
    )
    ex = get_runner("openclaw").extract(system_request("read", "x\n" + listing + "\n## Next"))
    assert ex.listing == listing and ex.builtins == ["canvas"]
    assert ex.client_texts["prose"]["preamble"] == "Synthetic prose line.\n"
    _, rep = simulate(s, "openclaw", ws, home, ex.client_texts)
    # the 21 built-ins this capture lacks (as if OpenClaw had cut them) stand in as placeholders
    entries = rep.text.split("<available_skills>\n")[1].split("  </skill>\n")
    assert rep.text.split("<available_skills>")[0] == listing.split("<available_skills>")[0]
    alpha = listing.split("<available_skills>\n")[1].split("  <skill>\n    <name>canvas")[0]
    assert alpha in [e + "  </skill>\n" for e in entries]
    assert sum("⟦OpenClaw 2026.9.6" in e for e in entries) == 21
    assert "<description>Synthetic &amp; short.</description>" in rep.text
