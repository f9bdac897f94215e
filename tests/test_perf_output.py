"""Fast output paths give exactly what the standard library would (issue 14: performance)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import write_skill
from workbench.commands.lint import json_text
from workbench.core.jsontext import dumps_indented
from workbench.core.lint import lint_paths
from workbench.core.lint.records import diagnostic_records

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=8),
    st.floats(allow_nan=True, allow_infinity=True),
)
_json = st.recursive(
    _scalars,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4),
        st.tuples(kids, kids),
        st.dictionaries(st.one_of(st.text(max_size=5), st.integers(), st.booleans()), kids, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json, st.integers(min_value=0, max_value=4), st.integers(min_value=0, max_value=3))
def test_dumps_indented_is_json_dumps(obj, indent, level):
    want = json.dumps(obj, indent=indent, ensure_ascii=False)
    if level:
        want = want.replace("\n", "\n" + " " * (indent * level))
    assert dumps_indented(obj, indent, level) == want


def _old_json(results, summary, profile_id):
    flat = [(p, d) for p, ds in results.items() for d in ds]
    return (
        json.dumps(
            {
                "diagnostics": [dict(path=str(p), **d.to_json()) for p, d in flat],
                "summary": summary,
                "profile": profile_id,
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


def test_lint_json_text_matches_standard_encoder(tmp_path, corpus):
    # fixes, "unverified", non-ASCII messages and an empty folder's plain-list STR002 entry
    write_skill(tmp_path / "a", raw="---\nname: Bad_Name\ndescription: \"é \\u202e x\"\n---\n\ufeff# b\n")
    (tmp_path / "empty").mkdir()
    dirs = sorted(p.parent for p in corpus.rglob("SKILL.md"))[:150]
    results = lint_paths([tmp_path / "a", tmp_path / "empty", *dirs], "claude-code")
    summary = {"files": len(results), "errors": 1, "warnings": 2, "infos": 0}
    assert sum(1 for ds in results.values() for d in ds if d.fix is not None) > 0
    fresh = lint_paths([tmp_path / "a", tmp_path / "empty", *dirs], "claude-code")  # records unbuilt
    assert json_text(fresh, summary, "claude-code") == _old_json(results, summary, "claude-code")
    assert json_text({}, summary, "x") == _old_json({}, summary, "x")


def test_records_equal_encoded_diagnostics(tmp_path):
    write_skill(tmp_path / "a", raw="---\nname: a\ndescription: short\n---\n")
    write_skill(tmp_path / "b", raw="---\nname: a\ndescription: short\n---\n")  # catalog rules fire
    res = lint_paths([tmp_path], "agentskills")
    built = {p: list(ds) for p, ds in lint_paths([tmp_path], "agentskills").items()}
    for p, ds in res.items():
        recs = diagnostic_records(ds)
        assert recs == diagnostic_records(built[p])
        assert [(t[0], t[1], t[5]) for t in recs] == [(d.line, d.column, d.code) for d in built[p]]


def test_lint_and_scan_import_no_heavy_modules(tmp_path):
    """``workbench lint`` / ``scan`` start fast: no Qt, anthropic, markdown-it or other commands'
    modules are imported (issue 14: lazy imports)."""
    import os
    import subprocess
    import sys

    write_skill(tmp_path / "a", raw="---\nname: a\ndescription: Use when testing.\n---\n# A\n")
    code = (
        "import sys\nfrom workbench.cli import main\n"
        f"for argv in (['lint', {str(tmp_path)!r}, '--no-cache'], ['scan', {str(tmp_path)!r}, "
        f"'--home', {str(tmp_path)!r}]):\n"
        "    main(argv)\n"
        "heavy = ('PySide6', 'anthropic', 'markdown_it', 'workbench.app', 'workbench.core.workshop',"
        " 'workbench.core.chat', 'workbench.core.evals', 'workbench.commands.')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "WORKBENCH_HOME": str(tmp_path / "home")},
    )
    assert r.returncode == 0, r.stderr
    # each command imports its own module only (``cli.command``)
    assert r.stdout.strip().splitlines()[-1] == "['workbench.commands.lint', 'workbench.commands.scan']"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0xA0) | st.sampled_from("\udcff\u2028é"), max_size=40))
def test_escape_unsafe_fast_path_is_the_regex(s):
    """The ASCII fast path of ``text.escape_unsafe`` (issue 14 round 3) escapes what the regex
    escapes: every C0 control but tab and newline, DEL, C1, lone surrogates."""
    from workbench.core.text import _UNSAFE, _u_escape, escape_unsafe

    assert escape_unsafe(s) == _UNSAFE.sub(lambda m: _u_escape(m.group()), s)


def test_lint_phase_timings_for_the_bench(tmp_path):
    """``WORKBENCH_PHASES=FILE`` (``core.phasetimer``) makes ``workbench lint`` write its phases
    (issue 14 round 3: the bench prints the CLI's phase split); the report itself is unchanged."""
    import os
    import subprocess
    import sys

    from workbench.core.benchissue import run_child

    for n in "ab":
        write_skill(tmp_path / "t" / n, raw=f"---\nname: {n}\ndescription: Same. Use when testing.\n---\n")
    args = ["-m", "workbench.cli", "lint", str(tmp_path / "t"), "--format", "json", "--jobs", "1"]
    home = tmp_path / "home"
    home.mkdir()
    got = run_child(args, home, phases=True)
    # the lint workers start during the walk (``batch.LintFeed``): "compute" (what is left of
    # their work when the walk ends) comes before lint_paths' cache look-ups
    assert list(got["phases"]) == [
        "start",
        "walk",
        "compute",
        "lookup",
        "collect",
        "catalog",
        "save",
        "output",
    ]
    assert all(w >= 0 and c >= 0 for w, c in got["phases"].values())
    plain = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "WORKBENCH_HOME": str(home)},
    )
    with_phases = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "WORKBENCH_HOME": str(home), "WORKBENCH_PHASES": str(tmp_path / "p.json")},
    )
    assert plain.stdout == with_phases.stdout and '"DESC009"' in plain.stdout
    assert "compute" in json.loads((tmp_path / "p.json").read_text())


def test_lint_with_every_rule_off_for_the_bench(tmp_path):
    """``benchissue.NO_RULES`` runs the lint CLI with the rule registry emptied (the bench's
    "design floor" figure): no finding at all, where the same tree linted normally has some,
    and the run still walks and reports every file."""
    import json
    import os
    import subprocess
    import sys

    from workbench.core.benchissue import NO_RULES

    write_skill(tmp_path / "t" / "a", raw="---\nname: Not_Valid\n---\n")
    write_skill(tmp_path / "t" / "b", raw="---\nname: b\ndescription: Fine. Use when testing.\n---\n")
    env = {**os.environ, "WORKBENCH_HOME": str(tmp_path / "home")}
    args = ["lint", str(tmp_path / "t"), "--format", "json"]
    normal = subprocess.run(
        [sys.executable, "-m", "workbench.cli", *args], capture_output=True, text=True, env=env
    )
    off = subprocess.run([sys.executable, "-c", NO_RULES, *args], capture_output=True, text=True, env=env)
    assert normal.returncode == 1 and json.loads(normal.stdout)["diagnostics"]
    assert off.returncode == 0
    rep = json.loads(off.stdout)
    assert rep["diagnostics"] == [] and rep["summary"]["files"] == 2
