"""Claude Code argument substitution: every expected value below is what the real Claude Code 2.1.328
delivered (run against the recorder with a scripted ``Skill`` call; ``tests/conformance/
test_cc_invocation.py`` re-checks them against the installed client when the lab is enabled)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.clients.claude_code.arguments import split_args, substitute, substitute_spans

SKILL_DIR = Path("/w/.claude/skills/tally")

#: (body as written after the frontmatter, args (None = no args key), frontmatter extra, delivered body)
REAL_CASES = [
    (
        "\nTotal the file $0 with label $1.\n```sh\nawk -F, '{ total += $1 } END { print total }' data.csv\n```\n"
        "Escaped: \\$1 and $$1 and $9 and $ARGUMENTS[5] and $ARGUMENTS and ${CLAUDE_SKILL_DIR}/x and $label\n",
        "data.csv 'my label'",
        "",
        "Total the file data.csv with label my label.\n```sh\nawk -F, '{ total += my label } END { print total }' "
        "data.csv\n```\nEscaped: $1 and $my label and $9 and $ARGUMENTS[5] and data.csv 'my label' and "
        "/w/.claude/skills/tally/x and $label\n",
    ),
    (
        "\nJust do it.\nCost is $5 today.\n",
        "foo bar",
        "",
        "Just do it.\nCost is $5 today.\n\n\nARGUMENTS: foo bar",
    ),
    ("\nJust do it with $ARGUMENTS.\n", "", "", "Just do it with .\n"),
    ("\nUse $0 here.\n", "foo bar", "", "Use foo here.\n"),
    ("\nUse $label and $file and $ARGUMENTS[0].\n", "foo bar", "file label", "Use bar and foo and foo.\n"),
    ("\nRun ${CLAUDE_SKILL_DIR}/x.sh\n", "foo", "", "Run /w/.claude/skills/tally/x.sh\n\n\nARGUMENTS: foo"),
    ("\nRun \\$0 and $ARGUMENTS[4].\n", "foo", "", "Run $0 and $ARGUMENTS[4].\n\n\nARGUMENTS: foo"),
    ("\nA \\$ARGUMENTS B $ARGUMENTS[0] C \\\\$0 D\n", "foo", "", "A $ARGUMENTS B foo C \\\\foo D\n"),
    ("\n$0|$1|$2", "a 'b c'", "", "a|b c|$2"),
    ("\ncost $5 is $ARGUMENTSX", "q", "", "cost $5 is qX"),
    ("\nunbalanced $0", "'a b", "", "unbalanced 'a b"),
    ("\n  indented start\n\n", None, "", "indented start\n\n"),
    ("\nNo placeholder.", "", "", "No placeholder."),
    ("\nx $ARGUMENTS[1] y", "a", "", "x $ARGUMENTS[1] y\n\nARGUMENTS: a"),
    ("\nQuote: $0 and $1", "\"a b\" c\\ d", "", "Quote: a b and c d"),
    ("\nInline `$1` and $10", "a b c d e f g h i j k", "", "Inline `b` and k"),
    ("\r\nCRLF $0\r\n", "z", "", "CRLF z\r\n"),
    ("\n[$0][$1][$2]", "'a b c", "", "['a b c][$1][$2]"),
    ("\n[$0][$1][$2]", "a \"b c", "", "[a][\"b c][$2]"),
    ("\n[$0][$1]", "a $HOME b", "", "[a][b]"),
    ("\n[$0][$1]", "a;b c", "", "[a][$1]"),
    ("\n[$file][$label][\\$file][$fileX]", "f1 l1", "file label", "[f1][l1][$file][$fileX]"),
    ("\n[$ARGUMENTS][$ARGUMENTS[0]]", "  spaced   out  ", "", "[  spaced   out  ][spaced]"),
]


@pytest.mark.parametrize("body,args,declared,expected", REAL_CASES)
def test_substitution_matches_the_real_client(
    body: str, args: str | None, declared: str, expected: str
) -> None:
    assert substitute(body, args, SKILL_DIR, declared=declared.split()) == expected


def test_session_id_and_escape_of_variables() -> None:
    out = substitute(
        "[${CLAUDE_SKILL_DIR}][\\${CLAUDE_SKILL_DIR}][${CLAUDE_SESSION_ID}]",
        None,
        SKILL_DIR,
        session_id="s-1",
    )
    assert out == "[/w/.claude/skills/tally][\\/w/.claude/skills/tally][s-1]"


def test_spans_point_at_the_replacements() -> None:
    text, spans = substitute_spans("\nUse $0 and \\$1 here.", "a.csv b", SKILL_DIR)
    assert text == "Use a.csv and $1 here."
    assert [(text[s.start : s.end], s.placeholder, s.kind) for s in spans] == [
        ("a.csv", "$0", "argument"),
        ("$1", "\\$1", "escape"),
    ]
    text, spans = substitute_spans("Nothing.", "x", SKILL_DIR)
    assert spans[-1].kind == "appended" and text[spans[-1].start : spans[-1].end] == "ARGUMENTS: x"


@pytest.mark.parametrize(
    "args,expected",
    [
        ("a 'b c' d\\ e", ["a", "b c", "d e"]),
        ("a;b c", ["a"]),
        ("a \"b c", ["a", "\"b c"]),
        ("'a b c", ["'a b c"]),
        ("a $HOME b", ["a", "b"]),
        ("", []),
        ("x | y", ["x"]),
    ],
)
def test_split_args(args: str, expected: list[str]) -> None:
    assert split_args(args) == expected
