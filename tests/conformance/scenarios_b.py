"""Lab B's scenarios: Codex CLI, Gemini CLI and GitHub Copilot CLI (imported by ``scenarios.py``).

Same conventions as ``scenarios.py``: ``Scenario(id, title, build, clients, runs, options)``.
Covered here: a name clash at every pair of scopes of each of the three clients, Codex
``agents/openai.yaml`` and its context-window budget, Gemini CLI's load order across tiers and
folder trust, Copilot CLI's ignored folders, trust, and its 15,000-char budget at the exact edge
and with non-ASCII text.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from pathlib import Path

from tests.conformance.scenarios import Scenario, write_skill

#: Every scope each client has that a scenario can write to: (label, "ws" | "home", folder).
SCOPES_B: dict[str, list[tuple[str, str, str]]] = {
    "codex": [
        ("project-codex", "ws", ".codex/skills"),
        ("codex-home", "home", ".codex/skills"),
        ("home-agents", "home", ".agents/skills"),
        ("repo-agents", "ws", ".agents/skills"),
    ],
    "gemini-cli": [
        ("home-gemini", "home", ".gemini/skills"),
        ("home-agents", "home", ".agents/skills"),
        ("ws-gemini", "ws", ".gemini/skills"),
        ("ws-agents", "ws", ".agents/skills"),
    ],
    "copilot-cli": [
        ("ws-github", "ws", ".github/skills"),
        ("ws-agents", "ws", ".agents/skills"),
        ("ws-claude", "ws", ".claude/skills"),
        ("home-copilot", "home", ".copilot/skills"),
        ("home-agents", "home", ".agents/skills"),
    ],
}

SCENARIOS_B: list[Scenario] = []


def _add(id: str, title: str, build: Callable[..., None], clients: tuple[str, ...], **kw) -> None:
    SCENARIOS_B.append(Scenario(id, title, build, clients=clients, **kw))


def _at(ws: Path, home: Path, scope: tuple[str, str, str]) -> Path:
    return (ws if scope[1] == "ws" else home) / scope[2]


def _clash(a: tuple[str, str, str], b: tuple[str, str, str]) -> Callable[[Path, Path], None]:
    def build(ws: Path, home: Path) -> None:
        for scope in (a, b):
            write_skill(_at(ws, home, scope), "clash", name="clash", description=f"Copy from {scope[0]}.")
            write_skill(
                _at(ws, home, scope),
                f"only-{scope[0]}",
                name=f"only-{scope[0]}",
                description=f"Only in {scope[0]}.",
            )

    return build


for _client, _scopes in SCOPES_B.items():
    for _a, _b in combinations(_scopes, 2):
        _add(
            f"clash-{_client}-{_a[0]}-{_b[0]}",
            f"{_client}: the same name in {_a[0]} and {_b[0]}",
            _clash(_a, _b),
            (_client,),
        )


def _many(root_of: Callable[[Path, Path], Path], count: int, desc: Callable[[int], str]):
    def build(ws: Path, home: Path) -> None:
        for i in range(count):
            write_skill(root_of(ws, home), f"s-{i:03d}", name=f"s-{i:03d}", description=desc(i))

    return build


# -- Codex ---------------------------------------------------------------------------------------


def _codex_openai_yaml(ws: Path, home: Path) -> None:
    root = ws / ".agents/skills"
    write_skill(root, "explicit-only", name="explicit-only", description="Only by $explicit-only.")
    (root / "explicit-only/agents").mkdir(parents=True)
    (root / "explicit-only/agents/openai.yaml").write_text(
        "policy:\n  allow_implicit_invocation: false\n", "utf-8"
    )
    write_skill(root, "implicit-ok", name="implicit-ok", description="Listed as usual.")
    (root / "implicit-ok/agents").mkdir(parents=True)
    (root / "implicit-ok/agents/openai.yaml").write_text(
        "interface:\n  display_name: Implicit OK\npolicy:\n  allow_implicit_invocation: true\n", "utf-8"
    )
    write_skill(root, "bad-sidecar", name="bad-sidecar", description="Broken openai.yaml: fails open.")
    (root / "bad-sidecar/agents").mkdir(parents=True)
    (root / "bad-sidecar/agents/openai.yaml").write_text("policy: [unclosed\n", "utf-8")


_add(
    "codex-openai-yaml",
    "Codex agents/openai.yaml policy.allow_implicit_invocation",
    _codex_openai_yaml,
    ("codex",),
)


def _long(i: int) -> str:
    return (f"Skill {i} handles its own task well. " * 12)[:300].strip()


_add(
    "codex-window-32k",
    "Codex with a 32k context window: 2% = 640 tokens for 40 skills",
    _many(lambda ws, home: ws / ".agents/skills", 40, _long),
    ("codex",),
    options={"context_tokens": 32_000, "run": {"codex": {"codex_config": "model_context_window = 32000"}}},
)
_add(
    "codex-window-8k-omitted",
    "Codex with an 8k window: some skills left out entirely",
    _many(lambda ws, home: ws / ".agents/skills", 60, _long),
    ("codex",),
    options={"context_tokens": 8_000, "run": {"codex": {"codex_config": "model_context_window = 8000"}}},
)


def _codex_unicode(ws: Path, home: Path) -> None:
    for i in range(40):
        write_skill(
            ws / ".agents/skills",
            f"u-{i:02d}",
            name=f"u-{i:02d}",
            description=("Überprüft 日本語 Texte und Emoji 🚀 sorgfältig. " * 8)[:250],
        )


_add(
    "codex-unicode-budget",
    "Codex token budget counts UTF-8 bytes (non-ASCII descriptions)",
    _codex_unicode,
    ("codex",),
    options={"context_tokens": 32_000, "run": {"codex": {"codex_config": "model_context_window = 32000"}}},
)


# -- Gemini CLI ----------------------------------------------------------------------------------


def _gemini_tiers(ws: Path, home: Path) -> None:
    tiers = {
        "hg": home / ".gemini/skills",
        "ha": home / ".agents/skills",
        "wg": ws / ".gemini/skills",
        "wa": ws / ".agents/skills",
    }
    for tag, root in tiers.items():
        for n in ("zulu", "alpha", "Mike", "echo"):
            write_skill(root, f"{n}-{tag}", name=f"{n}-{tag}", description=f"{n} in {tag}.")
    write_skill(tiers["hg"], "shared", name="shared", description="First seen in ~/.gemini.")
    write_skill(tiers["wa"], "shared", name="shared", description="Overridden by the workspace.")


_add(
    "gemini-tier-order",
    "Gemini CLI load order across its four tiers (and an override)",
    _gemini_tiers,
    ("gemini-cli",),
)


def _gemini_trust(ws: Path, home: Path) -> None:
    write_skill(ws / ".gemini/skills", "ws-skill", name="ws-skill", description="Workspace skill.")
    write_skill(home / ".gemini/skills", "home-skill", name="home-skill", description="User skill.")


# An untrusted folder cannot be captured: Gemini CLI 0.61.0 refuses a headless run there (exit 55).
_add(
    "gemini-trusted-file",
    "Gemini CLI trusted by trustedFolders.json: workspace and user skills",
    _gemini_trust,
    ("gemini-cli",),
)
_add(
    "gemini-trusted-env",
    "Gemini CLI trusted by GEMINI_CLI_TRUST_WORKSPACE=true",
    _gemini_trust,
    ("gemini-cli",),
    options={"run": {"gemini-cli": {"trust_via": "env"}}},
)


# -- GitHub Copilot CLI --------------------------------------------------------------------------


def _copilot_ignored(ws: Path, home: Path) -> None:
    write_skill(home / ".claude/skills", "home-claude", name="home-claude", description="~/.claude.")
    write_skill(ws / ".codex/skills", "ws-codex", name="ws-codex", description="ws .codex.")
    write_skill(ws / ".gemini/skills", "ws-gemini", name="ws-gemini", description="ws .gemini.")
    write_skill(ws / ".github/skills", "seen", name="seen", description="ws .github.")


_add(
    "copilot-ignored-folders",
    "Copilot CLI does not read ~/.claude/skills, .codex or .gemini",
    _copilot_ignored,
    ("copilot-cli",),
)


def _copilot_untrusted(ws: Path, home: Path) -> None:
    write_skill(ws / ".github/skills", "ws-skill", name="ws-skill", description="Workspace skill.")
    write_skill(home / ".copilot/skills", "home-skill", name="home-skill", description="User skill.")


_add(
    "copilot-untrusted",
    "Copilot CLI without folder trust",
    _copilot_untrusted,
    ("copilot-cli",),
    options={"trusted": False},
)


def _desc_len(total_entry: int) -> str:
    """A description making ``<skill>`` entry + 1 for a 5-char name exactly ``total_entry``."""
    return ("Edge " + "abcdefghij" * 100)[: total_entry - 99]


def _copilot_edge(last: int) -> Callable[[Path, Path], None]:
    def build(ws: Path, home: Path) -> None:
        root = ws / ".github/skills"
        for i in range(36):
            write_skill(root, f"s-{i:03d}", name=f"s-{i:03d}", description=_desc_len(399))
        write_skill(root, "s-036", name="s-036", description=_desc_len(last))
        write_skill(root, "s-037", name="s-037", description="Small one after the edge.")

    return build


_add(
    "copilot-budget-exact",
    "Copilot CLI: entries total exactly 15,000 chars (fits)",
    _copilot_edge(636),
    ("copilot-cli",),
)
_add(
    "copilot-budget-one-over",
    "Copilot CLI: entries total 15,001 chars (the last goes by name)",
    _copilot_edge(637),
    ("copilot-cli",),
)


def _copilot_names(extra: int) -> Callable[[Path, Path], None]:
    """Entries fill the 15,000-char budget exactly (``_copilot_edge``), then 76 skills go to the
    "invoke by name" line: its prefix (46 chars) + their names + ", " separators total
    ``5,000 + extra`` chars, so the cap's edge falls on the last of them (built-ins follow it)."""

    def build(ws: Path, home: Path) -> None:
        root = ws / ".github/skills"
        for i in range(36):
            write_skill(root, f"s-{i:03d}", name=f"s-{i:03d}", description=_desc_len(399))
        write_skill(root, "s-036", name="s-036", description=_desc_len(636))
        lengths = [64] * 75 + [4 + extra]  # 46 + 75*64 + 4 + 75*2 = 5,000
        for i, n in enumerate(lengths):
            name = (f"t-{i:02d}-" + "n" * 64)[:n]
            write_skill(root, name, name=name, description="Past the entry budget.")

    return build


_add(
    "copilot-names-cap-exact",
    "Copilot CLI: the 'invoke by name' line, prefix included, is exactly 5,000 chars (kept whole)",
    _copilot_names(0),
    ("copilot-cli",),
)
_add(
    "copilot-names-cap-one-over",
    "Copilot CLI: the 'invoke by name' line would be 5,001 chars (its last name is dropped)",
    _copilot_names(1),
    ("copilot-cli",),
)


def _copilot_unicode(ws: Path, home: Path) -> None:
    for i in range(45):
        write_skill(
            ws / ".github/skills",
            f"u-{i:02d}",
            name=f"u-{i:02d}",
            description=("Überprüft 日本語 Texte 🚀 & <Tags> sorgfältig. " * 10)[:300],
        )


_add(
    "copilot-budget-unicode",
    "Copilot CLI budget with non-ASCII and escaped characters",
    _copilot_unicode,
    ("copilot-cli",),
)
