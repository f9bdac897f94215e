"""A stand-in coding agent for tests: speaks the Messages API to $ANTHROPIC_BASE_URL and RUNS the
tools the model calls (``Bash`` really runs its command). The proxy must keep such calls from it.

Usage: python fake_client.py PROMPT   (exit 3 when told to fail via FAKE_CLIENT_EXIT)
"""

import json
import os
import subprocess
import sys
import time
import urllib.request

if os.environ.get("FAKE_CLIENT_EXIT"):
    print("fake client: failing on purpose", file=sys.stderr)
    sys.exit(int(os.environ["FAKE_CLIENT_EXIT"]))
if os.environ.get("FAKE_CLIENT_SLEEP"):
    time.sleep(float(os.environ["FAKE_CLIENT_SLEEP"]))
    sys.exit(0)

BASE = os.environ["ANTHROPIC_BASE_URL"].rstrip("/")
TOOLS = [
    {
        "name": "Skill",
        "description": "Load a skill.",
        "input_schema": {
            "type": "object",
            "properties": {"skill": {"type": "string"}},
            "required": ["skill"],
        },
    },
    {
        "name": "Bash",
        "description": "Run a shell command.",
        "input_schema": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
]
messages = [{"role": "user", "content": [{"type": "text", "text": sys.argv[1]}]}]
for _ in range(6):
    body = json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 256,
            "tools": TOOLS,
            "messages": messages,
            "stream": False,
        }
    ).encode()
    req = urllib.request.Request(
        BASE + "/v1/messages",
        data=body,
        method="POST",
        headers={"content-type": "application/json", "x-api-key": "fake"},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        msg = json.loads(resp.read())
    messages.append({"role": "assistant", "content": msg["content"]})
    if msg.get("stop_reason") != "tool_use":
        print("".join(b.get("text", "") for b in msg["content"] if b.get("type") == "text"))
        break
    results = []
    for b in msg["content"]:
        if b.get("type") != "tool_use":
            continue
        if b["name"] == "Bash":
            out = subprocess.run(b["input"]["command"], shell=True, capture_output=True, text=True).stdout
        else:
            out = f"Launching skill: {b['input'].get('skill')}"
        results.append({"type": "tool_result", "tool_use_id": b["id"], "content": out})
    messages.append({"role": "user", "content": results})
