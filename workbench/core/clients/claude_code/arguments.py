"""Claude Code's argument substitution in a skill body, as the real client does it.

Checked on Claude Code 2.1.328 by running the real binary against the recorder with a scripted
``Skill`` tool call (``tests/conformance/test_cc_invocation.py`` re-runs every case below when the lab
clients are installed; the expected values in ``tests/chat/test_cc_arguments.py`` are the real
client's outputs):

* The body is delivered with its leading white space removed and its end kept as written (CRLF too),
  after ``Base directory for this skill: <dir>`` and a blank line, as a user-turn text block.
* ``$ARGUMENTS`` → the raw argument string, unchanged (spaces included). It has no word boundary:
  ``$ARGUMENTSX`` → ``<args>X``.
* ``$ARGUMENTS[N]`` and ``$N`` (any number of digits, 0-based) → the N-th argument; an index with no
  argument is **left as written** (``$9`` stays ``$9``).
* ``$name`` for a name declared in ``arguments`` (space-separated string or list) → that position's
  argument; needs a word boundary (``$fileX`` stays).
* A single backslash before ``$`` escapes a placeholder: ``\\$1`` → ``$1`` (the backslash is
  removed). Two backslashes do not escape: ``\\\\$0`` → ``\\\\<arg0>``. ``$$1`` → ``$<arg1>``.
* ``${CLAUDE_SKILL_DIR}`` → the skill folder, ``${CLAUDE_SESSION_ID}`` → the session id; a backslash
  does not escape them. They do not count as argument placeholders.
* When arguments are given (non-empty) and no argument placeholder was replaced (none in the body,
  or all out of range, or escaped), ``\\n\\nARGUMENTS: <args>`` is appended to the body as it is
  (a body ending in a newline gets ``\\n\\n\\nARGUMENTS: ...``).
* Splitting into positional arguments is shell-like (the npm ``shell-quote`` rules as observed):
  quotes and backslashes group words; ``$VAR`` expands to nothing and an empty word is dropped; the
  arguments end at the first shell operator (``;``, ``&``, ``|``, ``<``, ``>``, ``(``, ``)``); an
  unterminated quote makes the rest of the string, quote included, one last argument.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

CHECKED_ON = "Claude Code 2.1.328"

_OPERATOR_CHARS = set(";&|<>()")
_VAR = re.compile(r"\$(?:\{[^}]*\}|[A-Za-z_]\w*)")


@dataclass(frozen=True)
class Substitution:
    """One replaced placeholder in the delivered body.

    ``start``/``end`` are character offsets in the *output* body (end exclusive); ``placeholder``
    is the text as written (``$1``, ``$ARGUMENTS``, ``${CLAUDE_SKILL_DIR}``, or ``\\$1`` for an
    escape, whose ``value`` is the literal kept); ``kind`` ∈ argument | all | variable | escape.
    """

    start: int
    end: int
    placeholder: str
    value: str
    kind: str


def _unterminated_quote(text: str) -> int | None:
    """Index of a quote that is never closed (shell rules), or None."""
    quote = None
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote is None:
            if ch == "\\":
                i += 2
                continue
            if ch in "'\"":
                quote, start = ch, i
        elif quote == '"' and ch == "\\":
            i += 2
            continue
        elif ch == quote:
            quote = None
        i += 1
    return start if quote is not None else None


def _words(text: str) -> list[str]:
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
    lex.whitespace_split = True
    lex.commenters = ""
    out: list[str] = []
    for tok in lex:
        if tok and set(tok) <= _OPERATOR_CHARS:
            out.append("\0op")
            break
        out.append(tok)
    return out


def split_args(args: str) -> list[str]:
    """Positional arguments as Claude Code splits them (module docstring).

    >>> split_args("a 'b c' d\\\\ e")
    ['a', 'b c', 'd e']
    >>> split_args("a;b c")
    ['a']
    >>> split_args("a \\"b c")
    ['a', '"b c']
    """
    cut = _unterminated_quote(args)
    head, tail = (args, None) if cut is None else (args[:cut], args[cut:])
    words = _words(_VAR.sub("", head))
    if words and words[-1] == "\0op":
        return [w for w in words[:-1] if w]
    out = [w for w in words if w]
    if tail:
        out.append(tail)
    return out


def declared_arguments(value: object) -> list[str]:
    """Names declared by the ``arguments`` frontmatter field (string split on white space, or list)."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(x) for x in value if isinstance(x, (str, int))]
    return []


def _pattern(declared: list[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(n) for n in sorted(declared, key=len, reverse=True))
    named = rf"|(?P<name>(?:{names})(?!\w))" if names else ""
    return re.compile(
        r"(?P<var>\$\{CLAUDE_(?:SKILL_DIR|SESSION_ID)\})"
        r"|(?P<esc>(?<!\\)\\)?\$(?:ARGUMENTS\[(?P<idx>\d+)\]|(?P<all>ARGUMENTS)|(?P<pos>\d+)" + named + ")"
    )


def substitute_spans(
    body: str,
    args: str | None,
    skill_dir: Path | str,
    session_id: str = "",
    declared: list[str] | None = None,
) -> tuple[str, list[Substitution]]:
    """Apply Claude Code's substitutions to ``body`` (module docstring).

    Args:
        body: the body as written (after the frontmatter); leading white space is removed.
        args: the ``args`` of the ``Skill`` call (None or "" = no arguments).
        skill_dir: the skill folder (``${CLAUDE_SKILL_DIR}``).
        declared: names from the ``arguments`` field.

    Returns:
        ``(text, spans)``: the delivered body and the substitutions, with offsets into ``text``
        (the appended ``ARGUMENTS:`` line is a span of kind ``appended``).
    """
    a = args or ""
    pos = split_args(a) if a else []
    declared = declared or []
    src = body.lstrip()
    out: list[str] = []
    spans: list[Substitution] = []
    length = 0
    replaced_argument = False
    last = 0

    def value_for(m: re.Match[str]) -> str | None:
        if m.group("var"):
            return str(skill_dir) if "SKILL_DIR" in m.group("var") else (session_id or None)
        if m.group("all") is not None:
            return a
        idx = m.group("idx") or m.group("pos")
        if idx is not None:
            i = int(idx)
            return pos[i] if i < len(pos) else None
        name = m.group("name")
        i = declared.index(name)
        return pos[i] if i < len(pos) else None

    for m in _pattern(declared).finditer(src):
        val = value_for(m)
        escaped = bool(m.group("esc"))
        if escaped:
            val = m.group(0)[1:]
            kind = "escape"
        elif val is None:
            continue
        else:
            kind = "variable" if m.group("var") else ("all" if m.group("all") is not None else "argument")
            if kind != "variable" and a:
                replaced_argument = True
        chunk = src[last : m.start()]
        out.append(chunk)
        length += len(chunk)
        spans.append(Substitution(length, length + len(val), m.group(0), val, kind))
        out.append(val)
        length += len(val)
        last = m.end()
    out.append(src[last:])
    text = "".join(out)
    if a and not replaced_argument:
        tail = f"\n\nARGUMENTS: {a}"
        spans.append(Substitution(len(text) + 2, len(text) + len(tail), "", tail[2:], "appended"))
        text += tail
    return text, spans


def substitute(
    body: str,
    args: str | None,
    skill_dir: Path | str,
    session_id: str = "",
    declared: list[str] | None = None,
) -> str:
    """The delivered body only (see ``substitute_spans``).

    >>> substitute("\\nRun $0 then $ARGUMENTS[1].", "a 'b c'", "/s")
    'Run a then b c.'
    >>> substitute("Do it.\\n", "x y", "/s")
    'Do it.\\n\\n\\nARGUMENTS: x y'
    """
    return substitute_spans(body, args, skill_dir, session_id, declared)[0]


#: Placeholders a code block may hold that Claude Code would replace (for lint).
PLACEHOLDER_IN_TEXT = re.compile(r"(?<!\\)\$(?:ARGUMENTS(?:\[\d+\])?|\d+)")
