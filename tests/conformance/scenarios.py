"""The lab's scenario matrix, as data.

A ``Scenario`` builds a skill tree in a fresh workspace (a git repository, the client's cwd) and a
fresh HOME; the lab runs it through each real client and through the workbench and compares.

``build`` takes ``(workspace, home)`` or ``(workspace, home, client_id)``: the three-argument form
lets one scenario put its skills in each client's own roots (``project(ws, client)``,
``personal(home, client)``). ``clients`` limits a scenario to some clients (None = every runnable
client). ``runs`` > 1 repeats the real run (racy clients). ``options``:

* ``context_tokens``: the model's context window for the workbench side (default per client:
  ``lab.CONTEXT_TOKENS``; the runners configure the same window).
* ``trusted``: the workspace trust for the workbench side (and Gemini's trust files).
* ``run``: ``{client_id: {...}}`` options for that client's runner (``RunContext.options``).
* ``render``: ``{client_id: {...}}`` extra ``render_listing`` options.
* ``env``: extra environment variables for both the real run and the workbench.

Lab B's clients (Codex, Gemini CLI, Copilot CLI) add theirs in ``scenarios_b.py`` (imported at the
end when present).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

#: Each client's main project and personal skill folders (relative to workspace / HOME).
PROJECT = {
    "claude-code": ".claude/skills",
    "codex": ".agents/skills",
    "gemini-cli": ".gemini/skills",
    "opencode": ".opencode/skills",
    "openclaw": "skills",
    "copilot-cli": ".github/skills",
}
PERSONAL = {
    "claude-code": ".claude/skills",
    "codex": ".agents/skills",
    "gemini-cli": ".gemini/skills",
    "opencode": ".config/opencode/skills",
    "openclaw": ".openclaw/skills",
    "copilot-cli": ".copilot/skills",
}

#: Every scope each client has that a scenario can write to: (label, "ws" | "home", relative folder).
SCOPES: dict[str, list[tuple[str, str, str]]] = {
    "claude-code": [("project", "ws", ".claude/skills"), ("personal", "home", ".claude/skills")],
    "opencode": [
        ("home-claude", "home", ".claude/skills"),
        ("home-agents", "home", ".agents/skills"),
        ("project-claude", "ws", ".claude/skills"),
        ("project-agents", "ws", ".agents/skills"),
        ("config", "home", ".config/opencode/skills"),
        ("project-opencode", "ws", ".opencode/skills"),
    ],
    "openclaw": [
        ("workspace", "ws", "skills"),
        ("project-agents", "ws", ".agents/skills"),
        ("personal-agents", "home", ".agents/skills"),
        ("managed", "home", ".openclaw/skills"),
    ],
}


#: Clients whose clash winner can change between runs, and how often a clash scenario runs there.
RACY_RUNS = {"opencode": 3}


def project(ws: Path, client: str) -> Path:
    """The client's main project skill folder in ``ws``."""
    return ws / PROJECT.get(client, ".agents/skills")


def personal(home: Path, client: str) -> Path:
    """The client's main personal skill folder in ``home``."""
    return home / PERSONAL.get(client, ".agents/skills")


def write_skill(
    root: Path,
    folder: str,
    name: str | None = None,
    description: str | None = None,
    extra: str = "",
    body: str = "Body.\n",
    raw: str | bytes | None = None,
    filename: str = "SKILL.md",
) -> Path:
    """Write ``root/folder/SKILL.md`` (frontmatter from the arguments, or ``raw`` verbatim)."""
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    p = d / filename
    if raw is not None:
        p.write_bytes(raw.encode("utf-8") if isinstance(raw, str) else raw)
        return p
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    text = "\n".join(lines) + "\n" + extra + "---\n" + body
    p.write_text(text, "utf-8", newline="")
    return p


@dataclass
class Scenario:
    """One lab case. ``make(ws, home, client)`` builds it (see the module docstring)."""

    id: str
    title: str
    build: Callable[..., None]
    clients: tuple[str, ...] | None = None
    runs: int = 1
    options: dict[str, Any] = field(default_factory=dict)

    def applies_to(self, client: str) -> bool:
        return self.clients is None or client in self.clients

    def runs_for(self, client: str) -> int:
        """Real runs for ``client``: a clash scenario on a racy client runs ``RACY_RUNS`` times."""
        if self.id.startswith("clash") and client in RACY_RUNS:
            return max(self.runs, RACY_RUNS[client])
        return max(1, self.runs)

    def make(self, ws: Path, home: Path, client: str) -> None:
        if len(inspect.signature(self.build).parameters) >= 3:
            self.build(ws, home, client)
        else:
            self.build(ws, home)


SCENARIOS: list[Scenario] = []


def scenario(id: str, title: str, **kw: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorator: register ``fn`` as the build of a new scenario."""

    def deco(fn: Callable[..., None]) -> Callable[..., None]:
        SCENARIOS.append(Scenario(id, title, fn, **kw))
        return fn

    return deco


def _one(ws: Path, home: Path, c: str, folder: str, **kw: Any) -> Path:
    return write_skill(project(ws, c), folder, **kw)


# -- basics -------------------------------------------------------------------------------------


@scenario("basic-one", "one project skill")
def _basic_one(ws: Path, home: Path, c: str) -> None:
    _one(ws, home, c, "alpha", name="alpha", description="Alpha does things with files.")


@scenario("name-like-builtin", "a personal skill named like a built-in skill", clients=("claude-code",))
def _name_like_builtin(ws: Path, home: Path, c: str) -> None:
    write_skill(personal(home, c), "code-review", name="code-review", description="My own review steps.")
    _one(ws, home, c, "alpha", name="alpha", description="Alpha does things with files.")


@scenario("order-three", "three project skills whose folder order is not alphabetical")
def _order(ws: Path, home: Path, c: str) -> None:
    for n in ("zeta-tool", "alpha-tool", "Mid-tool", "beta_tool"):
        _one(ws, home, c, n, name=n, description=f"The {n} skill.")


@scenario("personal-and-project", "distinct skills at the personal and project levels")
def _both(ws: Path, home: Path, c: str) -> None:
    _one(ws, home, c, "proj-skill", name="proj-skill", description="From the project.")
    write_skill(personal(home, c), "home-skill", name="home-skill", description="From home.")


@scenario("clash-project-personal", "the same name at the personal and project levels")
def _clash_pp(ws: Path, home: Path, c: str) -> None:
    _one(ws, home, c, "dup", name="dup", description="Project copy of dup.")
    write_skill(personal(home, c), "dup", name="dup", description="Personal copy of dup.")


# -- layout: (id, title, [(folder under the project root, name, description), ...]) ---------------

_LAYOUTS = [
    (
        "clash-same-root",
        "two folders of one root declare the same name",
        [("dup-a", "dup", "First folder copy."), ("dup-b", "dup", "Second folder copy.")],
    ),
    (
        "depth-2",
        "a skill two levels down (grouping folder)",
        [("group/inner", "inner", "Two levels down."), ("top", "top", "One level down.")],
    ),
    (
        "depth-3-and-7",
        "skills three and seven levels down",
        [("a/b/three", "three", "Three levels down."), ("a/b/c/d/e/f/seven", "seven", "Seven levels down.")],
    ),
    (
        "skill-in-skill",
        "a SKILL.md inside another skill's folder",
        [("outer", "outer", "The outer skill."), ("outer/inner", "inner", "Inside the outer skill.")],
    ),
    (
        "dot-folder",
        "a skill inside a dot-folder of the root",
        [(".hidden/secret", "secret", "Under a dot-folder."), ("visible", "visible", "Visible skill.")],
    ),
    (
        "node-modules",
        "a skill under node_modules inside the root",
        [("node_modules/pkg", "pkg", "Under node_modules."), ("visible", "visible", "Visible skill.")],
    ),
]


def _layout(entries: list[tuple[str, str, str]]) -> Callable[[Path, Path, str], None]:
    def build(ws: Path, home: Path, c: str) -> None:
        for folder, name, desc in entries:
            _one(ws, home, c, folder, name=name, description=desc)

    return build


for _id, _title, _entries in _LAYOUTS:
    SCENARIOS.append(Scenario(_id, _title, _layout(_entries)))


@scenario("grouping-folders", "two grouping folders with two skills each")
def _grouping(ws: Path, home: Path, c: str) -> None:
    for g in ("docs", "tools"):
        for n in ("one", "two"):
            _one(ws, home, c, f"{g}/{g}-{n}", name=f"{g}-{n}", description=f"{g} {n}.")


@scenario("root-skill-md", "a SKILL.md directly in the root folder")
def _root_md(ws: Path, home: Path, c: str) -> None:
    write_skill(
        project(ws, c).parent, project(ws, c).name, name="rooty", description="SKILL.md at the root itself."
    )
    _one(ws, home, c, "normal", name="normal", description="A normal skill.")


@scenario("symlink-folder", "a skill folder that is a symlink to a folder outside the root")
def _sym_folder(ws: Path, home: Path, c: str) -> None:
    target = write_skill(
        ws / "elsewhere", "linked", name="linked", description="Reached through a symlinked folder."
    ).parent
    root = project(ws, c)
    root.mkdir(parents=True, exist_ok=True)
    os.symlink(target, root / "linked")
    _one(ws, home, c, "plain", name="plain", description="A plain skill.")


@scenario("symlink-skill-md", "a SKILL.md that is a symlink to a file outside the root")
def _sym_file(ws: Path, home: Path, c: str) -> None:
    src = write_skill(
        ws / "elsewhere", "real", name="filelink", description="Reached through a symlinked SKILL.md."
    )
    d = project(ws, c) / "filelink"
    d.mkdir(parents=True, exist_ok=True)
    os.symlink(src, d / "SKILL.md")
    _one(ws, home, c, "plain", name="plain", description="A plain skill.")


@scenario("skill-md-case", "skill.md and Skill.md instead of SKILL.md")
def _case(ws: Path, home: Path, c: str) -> None:
    _one(ws, home, c, "lower", name="lower", description="Lower-case file name.", filename="skill.md")
    _one(ws, home, c, "mixed", name="mixed", description="Mixed-case file name.", filename="Skill.md")
    _one(ws, home, c, "upper", name="upper", description="Proper SKILL.md.")


# -- YAML and frontmatter -------------------------------------------------------------------------


def _raw(folder: str, text: str) -> Callable[[Path, Path, str], None]:
    def build(ws: Path, home: Path, c: str) -> None:
        _one(ws, home, c, folder, raw=text)
        _one(ws, home, c, "control", name="control", description="A well-formed control skill.")

    return build


_RAW_CASES = [
    (
        "yaml-unquoted-colon",
        "an unquoted ': ' inside the description",
        "---\nname: colon\ndescription: Use when: the user asks for a colon\n---\nBody.\n",
    ),
    (
        "yaml-unclosed-quote",
        "a double quote that never closes",
        "---\nname: unclosed\ndescription: \"Starts a quote and never ends\n---\nBody.\n",
    ),
    (
        "yaml-bad-indent",
        "a mapping with broken indentation",
        "---\nname: badindent\ndescription: Fine text.\n  metadata: x\n bad: y\n---\nBody.\n",
    ),
    ("yaml-tab", "a tab before a key", "---\nname: tabbed\n\tdescription: Tab before the key.\n---\nBody.\n"),
    (
        "yaml-unclosed-fence",
        "frontmatter that is never closed",
        "---\nname: noclose\ndescription: The fence never closes.\nBody.\n",
    ),
    ("yaml-not-mapping", "frontmatter that is a list", "---\n- name\n- description\n---\nBody.\n"),
    (
        "yaml-duplicate-key",
        "the description key twice",
        "---\nname: twice\ndescription: First value.\ndescription: Second value.\n---\nBody.\n",
    ),
    (
        "block-folded",
        "a folded block scalar (>)",
        "---\nname: folded\ndescription: >\n  Folded line one\n  and line two.\n\n  New paragraph.\n"
        "---\nBody.\n",
    ),
    (
        "block-literal",
        "a literal block scalar (|)",
        "---\nname: literal\ndescription: |\n  Literal line one\n  line two\n---\nBody.\n",
    ),
    (
        "block-folded-strip",
        "a folded strip block scalar (>-)",
        "---\nname: stripped\ndescription: >-\n  Stripped folded\n  text here.\n---\nBody.\n",
    ),
    (
        "wrapped-plain",
        "a plain scalar wrapped over three lines",
        "---\nname: wrapped\ndescription: This description is\n  wrapped over\n  three lines.\n---\nBody.\n",
    ),
    (
        "quoted-escapes",
        "double-quoted with escapes and single-quoted",
        "---\nname: 'quoted'\ndescription: \"Tab\\there, quote \\\" and unicode \\u00e9.\"\n---\nBody.\n",
    ),
    (
        "crlf",
        "CRLF line endings",
        "---\r\nname: crlf\r\ndescription: Windows line endings.\r\n---\r\nBody.\r\n",
    ),
    (
        "bom",
        "a UTF-8 byte order mark",
        "\ufeff---\nname: bommed\ndescription: Starts with a BOM.\n---\nBody.\n",
    ),
    (
        "fence-trailing-space",
        "spaces after the fences",
        "--- \nname: fencespace\ndescription: Fence lines with trailing spaces.\n---  \nBody.\n",
    ),
    (
        "fence-leading-blank",
        "a blank line before the opening fence",
        "\n---\nname: leadblank\ndescription: Blank line first.\n---\nBody.\n",
    ),
    ("name-number", "a number as the name", "---\nname: 12345\ndescription: Numeric name.\n---\nBody.\n"),
    (
        "description-list",
        "a list as the description",
        "---\nname: listdesc\ndescription:\n  - one\n  - two\n---\nBody.\n",
    ),
    (
        "description-bool",
        "a boolean as the description",
        "---\nname: booldesc\ndescription: true\n---\nBody.\n",
    ),
    (
        "description-number",
        "a number as the description",
        "---\nname: numdesc\ndescription: 3.14\n---\nBody.\n",
    ),
    ("name-missing", "no name key (folder name only)", "---\ndescription: Has no name key.\n---\nBody.\n"),
    ("name-empty", "an empty name", "---\nname: \"\"\ndescription: Empty name.\n---\nBody.\n"),
    (
        "description-missing",
        "no description key",
        "---\nname: nodesc\n---\nFirst body line here.\n\nSecond paragraph.\n",
    ),
    (
        "description-empty",
        "an empty description",
        "---\nname: emptydesc\ndescription: \"\"\n---\nBody line.\n",
    ),
    (
        "name-differs",
        "the name differs from the folder name",
        "---\nname: other-name\ndescription: Declared name differs from folder.\n---\nBody.\n",
    ),
    (
        "name-invalid",
        "a name with upper case and spaces",
        "---\nname: My Fancy Skill\ndescription: Name breaks the spec.\n---\nBody.\n",
    ),
    (
        "xml-chars",
        "XML special characters in the description",
        "---\nname: xmlish\ndescription: \"Handles <tags> & 'quotes' \\\"here\\\" > all.\"\n---\nBody.\n",
    ),
    (
        "unicode",
        "non-ASCII and astral characters",
        "---\nname: unicode\ndescription: Überprüft 日本語 texts and emoji 🚀 rockets.\n---\nBody.\n",
    ),
    ("no-frontmatter", "a SKILL.md without frontmatter", "# Just a heading\n\nSome text.\n"),
    (
        "disable-model-invocation",
        "disable-model-invocation: true",
        "---\nname: manual\ndescription: Only by hand.\ndisable-model-invocation: true\n---\nBody.\n",
    ),
    (
        "user-invocable-false",
        "user-invocable: false",
        "---\nname: hiddenuser\ndescription: Not for users.\nuser-invocable: false\n---\nBody.\n",
    ),
    (
        "when-to-use",
        "Claude Code's when_to_use field",
        "---\nname: whenuse\ndescription: Does a thing.\nwhen_to_use: When the user asks.\n---\nBody.\n",
    ),
    (
        "long-description",
        "a 2,000-character description",
        "---\nname: longdesc\ndescription: " + ("Long words here. " * 118).strip() + "\n---\nBody.\n",
    ),
]
for _id, _title, _text in _RAW_CASES:
    SCENARIOS.append(Scenario(_id, _title, _raw(_id, _text)))


# -- budgets --------------------------------------------------------------------------------------


def _many(count: int, desc_chars: int) -> Callable[[Path, Path, str], None]:
    def build(ws: Path, home: Path, c: str) -> None:
        for i in range(count):
            n = f"skill-{i:03d}"
            base = f"Skill {i} handles task {i}. "
            desc = (base * (desc_chars // len(base) + 1))[:desc_chars].strip()
            _one(ws, home, c, n, name=n, description=desc)

    return build


for _n in (10, 80, 300):
    for _label, _chars in (("short", 40), ("long", 300)):
        SCENARIOS.append(
            Scenario(
                f"budget-{_n}-{_label}", f"{_n} skills with {_chars}-char descriptions", _many(_n, _chars)
            )
        )


# -- per-client scopes: a name clash at every pair of scopes ----------------------------------------


def _clash(a: tuple[str, str, str], b: tuple[str, str, str]) -> Callable[[Path, Path], None]:
    def build(ws: Path, home: Path) -> None:
        for label, base, rel in (a, b):
            root = (ws if base == "ws" else home) / rel
            write_skill(root, "clash", name="clash", description=f"Copy from {label}.")

    return build


for _client, _scopes in SCOPES.items():
    for _a, _b in combinations(_scopes, 2):
        SCENARIOS.append(
            Scenario(
                f"clash-{_client}-{_a[0]}-{_b[0]}",
                f"{_client}: the same name in {_a[0]} and {_b[0]}",
                _clash(_a, _b),
                clients=(_client,),
                runs=3 if _client == "opencode" else 1,
            )
        )


# -- client-specific ---------------------------------------------------------------------------------


@scenario("openclaw-gates", "OpenClaw requires.bins / os gates", clients=("openclaw",))
def _oc_gates(ws: Path, home: Path) -> None:
    root = ws / "skills"
    write_skill(
        root,
        "needs-git",
        name="needs-git",
        description="Needs git.",
        extra='metadata: {"openclaw": {"requires": {"bins": ["git"]}}}\n',
    )
    write_skill(
        root,
        "needs-nothere",
        name="needs-nothere",
        description="Needs a missing binary.",
        extra='metadata: {"openclaw": {"requires": {"bins": ["no-such-bin-xyz"]}}}\n',
    )
    write_skill(
        root,
        "darwin-only",
        name="darwin-only",
        description="macOS only.",
        extra='metadata: {"openclaw": {"os": ["darwin"]}}\n',
    )
    write_skill(
        root,
        "linux-only",
        name="linux-only",
        description="Linux only.",
        extra='metadata: {"openclaw": {"os": ["linux"]}}\n',
    )
    write_skill(
        root,
        "needs-env",
        name="needs-env",
        description="Needs an env var.",
        extra='metadata: {"openclaw": {"requires": {"env": ["NO_SUCH_ENV_XYZ"]}}}\n',
    )


@scenario(
    "openclaw-prompt-limit",
    "OpenClaw with a small maxSkillsPromptChars (compact form)",
    clients=("openclaw",),
    options={
        "run": {"openclaw": {"openclaw_config": {"skills": {"limits": {"maxSkillsPromptChars": 6000}}}}},
        "render": {"openclaw": {"max_skills_prompt_chars": 6000}},
    },
)
def _oc_limit(ws: Path, home: Path) -> None:
    _many(30, 120)(ws, home, "openclaw")


try:  # lab B's scenarios (Codex, Gemini CLI, Copilot CLI)
    from tests.conformance.scenarios_b import SCENARIOS_B

    SCENARIOS += SCENARIOS_B
except ImportError:
    pass


def by_id(scenario_id: str) -> Scenario:
    """The scenario with this id. Raises KeyError."""
    for s in SCENARIOS:
        if s.id == scenario_id:
            return s
    raise KeyError(scenario_id)
