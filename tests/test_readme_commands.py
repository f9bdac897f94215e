"""Every ``workbench`` command shown in README.md runs as written (issue 13 item 7).

The commands are parsed out of README.md's code blocks at test time (paths are not hard-coded:
the demo may move). They run in-process in a copy of the folders they name (so ``workshop apply``
never writes into the checkout), with a fake HOME and the fake Messages API for chat and eval.
Substitutions, all to keep the test offline and short: ``../shared`` -> ``$WB_SHARED`` (commands
naming the corpus are skipped without it), ``--base-url URL`` and ``ANTHROPIC_BASE_URL`` -> the fake
server, ``--skills N`` -> 20, ``> FILE`` -> stdout captured, ``[...]`` optional parts dropped, ``ID``
-> the id of the proposal the README's ``propose-update`` created, ``a | b`` -> ``workshop a`` then
``workshop b``. Lines whose paths are placeholders (``~/...``) and the window (no subcommand) are
skipped: the window has its own tests.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

from tests.fakeapi import fake_api  # noqa: F401 - pytest fixture
from workbench.cli import COMMANDS, main

REPO = Path(__file__).resolve().parents[1]

#: Allowed exit codes per subcommand (never 2 = usage error): findings may exit 1.
EXPECTED = {
    "scan": {0},
    "listing": {0},
    "explain": {0, 1},
    "lint": {0, 1},
    "chat": {0},
    "eval": {0, 1},
    "bench": {0},
    "workshop": {0},
    "capture": {0, 1, 2},
}
#: ``capture`` and ``--via-client`` run the user's installed client: where it is not installed they
#: end with a usage error (exit 2) that says so.
NEEDS_CLIENT = {"capture"}
#: Words the README uses as placeholders for the reader's own values.
PLACEHOLDERS = {"WORKSPACE", "NAME", "FILE", "DIR", "COLLECTION", "PATH", "VERSION"}
#: Workshop transitions may be refused (exit 1) depending on the state the previous one left.
TRANSITIONS = {"apply", "reject", "quarantine", "rollback"}


def readme_commands(text: str) -> list[str]:
    """The ``workbench ...`` lines of README.md's fenced code blocks (continuations joined)."""
    out: list[str] = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            s = line.strip()
            if re.match(r"^([A-Z_]+=\S+\s+)*(\.venv/bin/)?workbench(\s|$)", s):
                out.append(s)
    return out


def expand(line: str) -> list[tuple[dict[str, str], list[str]]]:
    """(env vars, argv after ``workbench``) for one README line; ``a | b`` alternatives become
    several commands, ``[...]`` optional parts and ``> file`` redirections are dropped."""
    line = re.sub(r"\[[^\]]*\]", "", line)
    words = shlex.split(line, comments=True)
    env: dict[str, str] = {}
    while words and re.match(r"^[A-Z_]+=", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    words = words[1:]  # "workbench"
    if ">" in words:
        i = words.index(">")
        del words[i : i + 2]
    if "|" not in words:
        return [(env, words)]
    parts, cur = [], []
    for w in words:
        if w == "|":
            parts.append(cur)
            cur = []
        else:
            cur.append(w)
    parts.append(cur)
    head = parts[0][:1]  # e.g. ["workshop"]
    return [(env, parts[0])] + [(env, head + p) for p in parts[1:]]


def test_readme_parser_sees_every_subcommand():
    cmds = readme_commands((REPO / "README.md").read_text(encoding="utf-8"))
    shown = {expand(c)[0][1][0] for c in cmds if expand(c)[0][1]}
    assert set(COMMANDS) - {"capture"} <= shown | {"capture"}, shown


def test_every_readme_command_runs(tmp_path, monkeypatch, capsys, fake_api):  # noqa: F811
    cmds = readme_commands((REPO / "README.md").read_text(encoding="utf-8"))
    shared = os.environ.get("WB_SHARED") or str(REPO.parent / "shared")
    work = tmp_path / "repo"
    work.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    monkeypatch.chdir(work)
    copied: set[str] = set()
    ran: list[tuple[str, int]] = []
    proposal_id = None
    for line in cmds:
        for env, argv in expand(line):
            if not argv or argv[0] not in COMMANDS:
                continue  # the window (tested in tests/gui) or pip lines
            argv = [a.replace("../shared", shared) for a in argv]
            if any(a.startswith("~") for a in argv) or PLACEHOLDERS & set(argv):
                continue  # a placeholder path or value
            if any(shared in a for a in argv) and not Path(shared, "corpus").is_dir():
                continue
            for i, _a in enumerate(argv):
                if argv[i - 1] == "--base-url":
                    argv[i] = fake_api.url
                if argv[i - 1] == "--skills":
                    argv[i] = "20"
            # copy the checkout folders the command names (relative paths), once
            for a in argv:
                top = Path(a).parts[0] if a and not a.startswith(("-", "/", ".")) else ""
                if top and top not in copied and (REPO / top).is_dir():
                    shutil.copytree(REPO / top, work / top, symlinks=True)
                    copied.add(top)
            if "new-SKILL.md" in argv and not (work / "new-SKILL.md").exists():
                demo = next(Path(p) for p in argv if Path(p).is_dir())
                src = next(demo.rglob("code-review/SKILL.md"))
                text = src.read_text(encoding="utf-8")
                (work / "new-SKILL.md").write_text(
                    text + "\nOne more line for the proposal.\n", encoding="utf-8"
                )
            if "ID" in argv:
                assert proposal_id, "README shows workshop ID actions before a propose command"
                argv = [proposal_id if a == "ID" else a for a in argv]
            for k, v in env.items():
                monkeypatch.setenv(k, v)
            rc = main(argv)
            out, err = capsys.readouterr()
            ran.append((" ".join(argv), rc))
            assert "Traceback" not in err, (argv, err)
            allowed = {0, 1} if argv[0] == "workshop" and argv[1] in TRANSITIONS else EXPECTED[argv[0]]
            if argv[0] in NEEDS_CLIENT or "--via-client" in argv:
                allowed = allowed | {1, 2}
            assert rc in allowed, (argv, rc, err[-2000:])
            if argv[:2] == ["workshop", "propose-update"]:
                rc = main(["workshop", "list", argv[2], "--format", "json"])
                proposal_id = json.loads(capsys.readouterr().out)[-1]["id"]
    done = {a.split()[0] for a, _ in ran}
    assert {"scan", "explain", "lint", "chat", "eval", "workshop", "bench"} <= done, ran
    assert any(a.startswith("workshop show ") for a, _ in ran), ran
