"""Issue 14, scan of every client: one read and one parse per file serve all clients (no client
re-reads a file rebuilt from parse facts), what does not depend on the client is derived once per
pass, and the shortcuts give exactly the results of the plain code paths."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import backdate
from workbench.core import skillfile
from workbench.core.bench import make_tree
from workbench.core.clients.copilot_cli.listing import xml_escape
from workbench.core.clients.gemini_cli.profile import _FRONTMATTER, regex_matches_from_split
from workbench.core.clients.walk import EXTRA_RULES, WalkRules, installed_view, walk
from workbench.core.discovery import ParseCache, scan, scan_all
from workbench.core.listing import collapse_ws, render_listing
from workbench.core.listingkit import _WS_RE
from workbench.core.model import CLIENT_IDS, Environment
from workbench.core.skillfile import parse_skill_text


def _env(tmp_path: Path, tree: Path) -> Environment:
    for d in ("ws", "home"):
        (tmp_path / d).mkdir(exist_ok=True)
    return Environment(
        workspace=tmp_path / "ws", home=tmp_path / "home", extra_roots=[tree], env={}, bins=set()
    )


def _tree(tmp_path: Path, n: int = 60) -> Path:
    tree = tmp_path / "tree"
    make_tree(tree, n)  # the bench's generator (built-in skills without a corpus)
    # a few of the awkward ones: YAML error, BOM, no frontmatter, nested skill, spaces after ---
    odd = {
        "yaml-err/SKILL.md": "---\nname: yaml-err\ndescription: Use when: colons\n---\nBody\n",
        "bom/SKILL.md": "\ufeff---\nname: bom\ndescription: Has a BOM.\n---\nBody\n",
        "nofm/SKILL.md": "# Title\n\nFirst paragraph.\n",
        "spaces/SKILL.md": "--- \nname: spaces\ndescription: Trailing spaces.\n---\nBody\n",
        "outer/SKILL.md": "---\nname: outer\ndescription: Outer.\n---\n",
        "outer/inner/SKILL.md": "---\nname: inner\ndescription: Inner.\n---\n",
    }
    for rel, text in odd.items():
        p = tree / "odd" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    backdate(tree)
    return tree


def _json(cats: dict) -> dict:
    return {cid: c.to_json() for cid, c in cats.items()}


def test_scan_all_equals_each_client_scanned_alone(tmp_path):
    env = _env(tmp_path, _tree(tmp_path))
    shared = scan_all(env, ParseCache())
    alone = {cid: scan(env, cid, ParseCache()) for cid in CLIENT_IDS}
    assert _json(shared) == _json(alone)
    assert [s.flags for c in shared.values() for s in c.skills] == [
        s.flags for c in alone.values() for s in c.skills
    ]


def test_no_client_reparses_a_file_rebuilt_from_facts(tmp_path, monkeypatch):
    """A warm scan (parse facts on disk) reads no SKILL.md text for well-formed files: Gemini CLI's
    frontmatter regex is decided from the split facts (it re-read and re-parsed every file: 4.4 s
    of a 10,000-skill scan of every client)."""
    tree = _tree(tmp_path)
    env = _env(tmp_path, tree)
    ref = _json(scan_all(env, ParseCache()))
    scan_all(env, ParseCache(persist=tmp_path / "c"))  # fills the parse store
    filled: list[str] = []
    real = skillfile.SkillFile.load_full

    def load_full(sf: skillfile.SkillFile) -> skillfile.SkillFile:
        filled.append(str(sf.path))
        return real(sf)

    monkeypatch.setattr(skillfile.SkillFile, "load_full", load_full)
    assert _json(scan_all(env, ParseCache(persist=tmp_path / "c"))) == ref
    assert all("/odd/" in p for p in filled), filled  # only the awkward files need their text


def test_one_parse_per_file_per_pass(tmp_path):
    tree = _tree(tmp_path, 20)
    env = _env(tmp_path, tree)
    cache = ParseCache()
    scan_all(env, cache)
    assert cache.misses == len(list(tree.rglob("SKILL.md")))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["---", "--- ", "---x", "----", "", " ", "name: a", "description: b", "# c", "x: |", "  y"]
        ),
        max_size=8,
    ),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_gemini_regex_shortcut_never_disagrees(lines, nl, bom):
    text = ("\ufeff" if bom else "") + nl.join(lines)
    sf = parse_skill_text(text)
    if regex_matches_from_split(sf):
        assert _FRONTMATTER.match(sf.text) is not None


def test_installed_view_shared_between_clients_is_the_same(tmp_path):
    tree = _tree(tmp_path, 12)
    found = walk(tree, EXTRA_RULES)
    memo: dict = {}
    for rules in (
        WalkRules(max_depth=1, client="A"),
        WalkRules(max_depth=6, stop_at_skill=True, skip_dot=True, client="B"),
        WalkRules(max_depth=None, client="C"),
    ):
        plain = installed_view(found, tree, rules)
        shared = installed_view(found, tree, rules, memo=memo)
        assert [(str(f.path), f.depth, f.skip_reason) for f in shared] == [
            (str(f.path), f.depth, f.skip_reason) for f in plain
        ]
    assert len(memo) == 1


def test_installed_units_made_once_per_pass(tmp_path, monkeypatch):
    """An extra root's rule-independent installed units are made once for all nine clients:
    OpenClaw's ``after_walk`` hands back the walk's own list when it changes nothing (a new
    list would miss discovery's memo, keyed by the list); a SKILL.md symlinked out of the
    root still gets its own list, with the file refused."""
    from workbench.core.clients import walk as walkmod
    from workbench.core.clients.openclaw.profile import PROFILE as OPENCLAW
    from workbench.core.discovery import prepare

    tree = _tree(tmp_path, 12)
    env = _env(tmp_path, tree)
    calls = []
    real = walkmod._installed_units
    monkeypatch.setattr(walkmod, "_installed_units", lambda *a: calls.append(1) or real(*a))
    prepare(env, CLIENT_IDS, ParseCache(), {})
    assert len(calls) == 1
    root = OPENCLAW.roots(env)[-1]
    found = walk(tree, EXTRA_RULES)
    assert OPENCLAW.after_walk(root, found, env) is found
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "SKILL.md").write_text("---\nname: x\ndescription: y\n---\n")
    (tree / "zz-link").mkdir()
    (tree / "zz-link" / "SKILL.md").symlink_to(tmp_path / "out" / "SKILL.md")
    found = walk(tree, EXTRA_RULES)
    got = OPENCLAW.after_walk(root, found, env)
    assert got is not found and [f.path for f in got] == sorted((f.path for f in found), key=str)
    assert [f.skip_reason for f in got if f.path.parent.name == "zz-link"][0].startswith(
        "SKILL.md is a symlink"
    )


def test_states_only_listing_gives_the_same_states(tmp_path):
    """``listingkit.STATES_ONLY`` (the scan reads only the states): every client's skills,
    states, counts, budget and warnings as in the full render; the Agent Skills reference and
    Cursor leave out the text (their ``to_prompt``) and the info."""
    from workbench.core.listingkit import STATES_ONLY

    env = _env(tmp_path, _tree(tmp_path, 40))
    for cid, cat in scan_all(env, ParseCache()).items():
        for ctx in (None, 2_000):
            full = render_listing(cat, ctx)
            lean = render_listing(cat, ctx, {STATES_ONLY: True})
            assert lean.skills == full.skills and lean.builtins == full.builtins, cid
            assert (lean.budget_used, lean.budget_limit, lean.warnings) == (
                full.budget_used,
                full.budget_limit,
                full.warnings,
            ), cid
            if cid in ("agentskills", "cursor"):
                assert full.text and not lean.text and not lean.info


@given(st.text(alphabet="ab&<>\"'; ", max_size=30))
def test_copilot_xml_escape_matches_per_character(text):
    table = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
    assert xml_escape(text) == "".join(table.get(c, c) for c in text)


@given(st.text(alphabet="ab&<>\"'; é😀", max_size=30))
def test_listingkit_escapes_match_the_plain_ways(text):
    """``listingkit.xml_escape`` (Copilot CLI, OpenClaw, OpenCode) and ``html_escape`` (the
    Agent Skills reference) = the per-character table and ``html.escape``."""
    import html

    from workbench.core.listingkit import html_escape
    from workbench.core.listingkit import xml_escape as kit_xml_escape

    table = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
    assert kit_xml_escape(text) == "".join(table.get(c, c) for c in text)
    assert html_escape(text) == html.escape(text)


def test_listing_of_many_skills_is_linear(tmp_path):
    """VS Code's listing looked each skill up in a list of the listable ones (quadratic: 0.9 s of
    CPU for 10,000 skills); the rendered states are unchanged."""
    env = _env(tmp_path, _tree(tmp_path, 40))
    cat = scan_all(env, ParseCache())["vscode-copilot"]
    rep = render_listing(cat)
    listed = cat.listed()
    assert len(rep.skills) == len(listed)
    assert {s.state for s in rep.skills} <= {"full", "name-only", "omitted"}


@given(
    st.text(
        alphabet=st.sampled_from(list("ab \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2003\u2028\u3000\ufeff")),
        max_size=20,
    )
)
def test_collapse_ws_is_the_regex(text):
    assert collapse_ws(text) == _WS_RE.sub(" ", text).strip()
