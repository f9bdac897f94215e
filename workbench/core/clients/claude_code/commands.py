"""Claude Code's built-in slash commands (names only: interface facts), by client version.

Checked on Claude Code 2.1.328 by probing the real binary against the recorder
(``tests/conformance/test_cc_invocation.py::test_builtin_commands``): ``claude -p "/<name>"`` in an
empty git repository; a name is built in when the client does not pass ``/<name>`` to the model as
plain text (it runs a local command, says it "isn't available in this environment", or expands it
into a prompt of its own). Names that are bundled skills (``debug``, ``code-review``, ``simplify``,
``batch``, ``loop``) behave the same way at ``/name`` and are included.

Collision (checked on 2.1.328 for status, help, review, cost, init, clear): when a project or
personal skill has the same name, ``/<name>`` runs the **skill** — its body is sent to the model —
and the built-in command is no longer reachable by that name. Plugin skills are namespaced
(``plugin:name``); whether ``/name`` alone reaches them was not checked.
"""

from __future__ import annotations

CHECKED_ON = "Claude Code 2.1.328"

#: Built-in command names on Claude Code 2.1.328 (see the module docstring for how they were found).
BUILTIN_COMMANDS: frozenset[str] = frozenset(
    {
        "add-dir",
        "agents",
        "bashes",
        "batch",
        "btw",
        "bug",
        "chrome",
        "clear",
        "code-review",
        "compact",
        "config",
        "context",
        "copy",
        "cost",
        "debug",
        "desktop",
        "doctor",
        "effort",
        "exit",
        "export",
        "extra-usage",
        "fast",
        "feedback",
        "help",
        "hooks",
        "ide",
        "init",
        "insights",
        "install-github-app",
        "keybindings",
        "login",
        "logout",
        "loop",
        "mcp",
        "memory",
        "mobile",
        "model",
        "output-style",
        "passes",
        "permissions",
        "plan",
        "plugin",
        "privacy-settings",
        "release-notes",
        "remote-control",
        "rename",
        "resume",
        "review",
        "rewind",
        "sandbox",
        "security-review",
        "simplify",
        "skills",
        "stats",
        "status",
        "statusline",
        "tasks",
        "teleport",
        "terminal-setup",
        "theme",
        "upgrade",
        "usage",
        "vim",
    }
)

#: Names probed on 2.1.328 that are *not* built in (passed to the model as text): the probe's controls.
NOT_BUILTIN_PROBED: frozenset[str] = frozenset(
    {
        "pr-comments",
        "todos",
        "migrate-installer",
        "files",
        "agents-md",
        "frobnicate",
    }
)


def collides(name: str) -> bool:
    """Whether a skill named ``name`` takes over a built-in ``/name`` command (2.1.328)."""
    return name.lower() in BUILTIN_COMMANDS
