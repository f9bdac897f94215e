"""A seeded generator of hostile SKILL.md files and odd folder trees (issue 12 fuzz suite).

``skill_text(rng)`` builds one file from fragments known to have crashed, hung or blown up a
command (multi-character case folds, non-UTF-8 bytes, control/bidi characters, YAML alias bombs,
huge ints, unclosed comments, backtracking globs, ...) mixed with ordinary content.
``odd_trees(base)`` makes the 20 file-system shapes (symlink loops, a link to ``/``, FIFOs,
non-UTF-8 folder names, ...). Deterministic for a given seed.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

NAMES = [
    "pdf-tools",
    "straße-helper",
    "İstanbul",
    "ǆemo",
    "ﬁle-tool",
    "a" * 200,
    "",
    "UPPER_case",
    "emoji-😀",
    "name\x1b[31m",
    "name\u202eevil",
    "-lead",
    "trail-",
    "dou--ble",
    "claude-helper",
    "日本語",
    "x" * 64,
    "with space",
    "dot.name",
    "0x" + "f" * 5000,
    "1" * 5000,
    "null",
    "yes",
]
DESCS = [
    "Extracts text from PDF files. Use when the user asks to read a PDF.",
    '"Evil \\e]0;pwned\\a\\e[2J. Use when x"',
    "\x1b[31mred\x1b[0m use when",
    "0x" + "f" * 5000,
    "-" + "9" * 4500,
    "&a [x]",
    "*undefined",
    "|\n  block\n  text",
    ">-\n  folded\n  text",
    "[a, b, {c: d}]",
    "{x: 1}",
    "'unterminated",
    '"unterminated',
    "2024-01-01",
    "!!binary aGVsbG8=",
    "!!python/object:os.system x",
    "\u202e" * 50 + "txt.exe",
    ("\u200bx" * 300),
    "<!--" * 2000,
    "a: b: c",
    "\t tab",
    "~",
    "Use when " + "word " * 400,
    "Ω" * 300,
    "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
]
BOMB = 'x0: &a0 ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"x{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 9)
)
EXTRAS = [
    "paths:\n  - \"" + "*a" * 12 + "b\"",
    "paths: \"" + "**/" * 40 + "x\"",
    "metadata: " + "[" * 200,
    "allowed-tools: Bash(*)",
    "a: &r [*r]",
    BOMB,
    "license: " + "L" * 5000,
    "metadata:\n  openclaw: {}",
    "version: 1e999999",
    "k: !!set {a, b}",
    "k: !!timestamp 2001-12-14t21:59:43.10-05:00",
    "duplicate: 1\nduplicate: 2",
    "\u00a0key: nbsp",
    "context: fork",
    "disable-model-invocation: true",
    "user-invocable: maybe",
    "model: " + "m" * 300,
    "metadata: {openclaw: {requires: {bins: [" + "x," * 500 + "x]}}}",
]
BODIES = [
    "# Title\n\nRun the script.\n",
    "```\nunclosed fence\n",
    "<!--" * 5000,
    "<!-- ignore " * 3000,
    "curl x " * 3000,
    "[link](" + "(" * 3000 + ")",
    "\u202ex" * 5000,
    "\x1b[2J" * 1000,
    "a\rb\r\n" * 100,
    "line\n" * 6000,
    "[x](./missing.md) [y](../../../../etc/passwd) [z](/abs/path)",
    "`" * 10000,
    "#" * 10000,
    "$ARGUMENTS $0 ${CLAUDE_SKILL_DIR} {baseDir}",
    "!`rm -rf /`",
    "| a | b |\n" * 2000,
    "*" * 20000,
    "_" * 20000,
    "<" * 10000,
    "\\" * 10000,
]
RAW_FILES = [
    b"",
    b"\xef\xbb\xbf",
    b"---\n",
    b"---\n---\n",
    b"\x00\x01binary",
    b"---\nname: x\n",
    b"---\r\nname: crlf\r\ndescription: CRLF file. Use when x.\r\n---\r\nbody\r\n",
    b"\xef\xbb\xbf---\nname: bom\ndescription: BOM. Use when x.\n---\n",
    b"---\nname: bad\xffutf8\ndescription: Not UTF-8. Use when x.\n---\n\xfe\xfe",
    b"--- \nname: x\n ---\n",
    b"---\n- a list\n---\n",
    b"---\njust a scalar\n---\n",
    b"---\n" + b"k: v\n" * 2000 + b"---\n",
    b"x" * 1_000_001,
]


def skill_text(rng: random.Random) -> bytes:
    """One generated SKILL.md (bytes): usually frontmatter + body from the fragments, sometimes a
    raw byte-level oddity."""
    if rng.random() < 0.08:
        return rng.choice(RAW_FILES)
    lines = ["---"]
    if rng.random() < 0.9:
        lines.append("name: " + rng.choice(NAMES))
    if rng.random() < 0.9:
        lines.append("description: " + rng.choice(DESCS))
    for _ in range(rng.randrange(3)):
        lines.append(rng.choice(EXTRAS))
    if rng.random() < 0.97:
        lines.append("---")
    body = "".join(rng.choice(BODIES) for _ in range(rng.randrange(1, 3)))
    text = "\n".join(lines) + "\n" + body
    if rng.random() < 0.1:  # mangle: cut, duplicate or flip a byte somewhere
        raw = bytearray(text.encode("utf-8", "surrogatepass"))
        if raw:
            i = rng.randrange(len(raw))
            raw[i] = rng.randrange(256)
        return bytes(raw)
    return text.encode("utf-8", "surrogatepass")


def write_batch(folder: Path, rng: random.Random, n: int) -> list[Path]:
    """``n`` generated skills under ``folder`` (one folder each, some names odd); returns the files."""
    out = []
    for i in range(n):
        name = f"s{i:04d}-" + rng.choice(["x", "straße", "ǆ", "日本", "sp ace", "dot.", "-"])
        d = folder / name
        d.mkdir(parents=True, exist_ok=True)
        p = d / "SKILL.md"
        p.write_bytes(skill_text(rng))
        out.append(p)
    return out


GOOD = b"---\nname: {n}\ndescription: A fine skill. Use when asked.\n---\nbody\n"


def _skill(d: Path, name: str | None = None) -> None:
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_bytes(GOOD.replace(b"{n}", (name or d.name).encode("utf-8", "surrogateescape")))


def odd_trees(base: Path) -> list[Path]:
    """The 20 odd trees (each a folder used as a skill root); POSIX shapes are skipped elsewhere."""
    trees = []

    def tree(name: str) -> Path:
        t = base / name
        t.mkdir(parents=True)
        trees.append(t)
        return t

    t = tree("loop")
    _skill(t / "a")
    (t / "a" / "back").symlink_to("..")
    (t / "self").symlink_to(".")
    t = tree("rootlink")
    _skill(t / "ok")
    (t / "root").symlink_to("/")
    (t / "proc").symlink_to("/proc")
    t = tree("fifo")
    (t / "f").mkdir()
    os.mkfifo(t / "f" / "SKILL.md")
    t = tree("dir-named-skill")
    (t / "d" / "SKILL.md").mkdir(parents=True)
    t = tree("non-utf8")
    _skill(t / os.fsdecode(b"bad\xffname"), "bad-name")
    _skill(t / os.fsdecode(b"\xc3\x28mixed"))
    t = tree("deep")
    d = t
    for i in range(60):
        d = d / f"l{i}"
    _skill(d, "deep")
    t = tree("wide")
    for i in range(1500):
        (t / f"empty{i}").mkdir()
    _skill(t / "one")
    t = tree("dangling")
    (t / "gone").mkdir()
    (t / "gone" / "SKILL.md").symlink_to(t / "nowhere")
    (t / "dirlink").symlink_to(t / "nowhere-dir")
    t = tree("devzero")
    (t / "z").mkdir()
    (t / "z" / "SKILL.md").symlink_to("/dev/zero")
    t = tree("link-loop-file")
    (t / "l").mkdir()
    (t / "l" / "SKILL.md").symlink_to(t / "l" / "SKILL.md")
    t = tree("case")
    (t / "c").mkdir()
    (t / "c" / "skill.md").write_bytes(GOOD.replace(b"{n}", b"c"))
    t = tree("hardlinks")
    _skill(t / "h1", "h")
    (t / "h2").mkdir()
    os.link(t / "h1" / "SKILL.md", t / "h2" / "SKILL.md")
    t = tree("unreadable")
    _skill(t / "ro")
    (t / "ro").chmod(0o000)
    t = tree("huge")
    (t / "big").mkdir()
    with open(t / "big" / "SKILL.md", "wb") as fh:
        fh.seek(3 * 1024**3)
        fh.write(b"\n")
    t = tree("same-names")
    for i in range(200):
        _skill(t / f"dup{i}", "same")
    t = tree("control-names")
    _skill(t / "esc\x1b[31m", "esc")
    _skill(t / "nl\nname", "nl")
    t = tree("git-and-node")
    _skill(t / ".git" / "hidden")
    _skill(t / "node_modules" / "pkg")
    _skill(t / ".curated" / "dot")
    t = tree("socket-ish")
    (t / "s").mkdir()
    os.symlink("/dev/null", t / "s" / "SKILL.md")
    t = tree("nested-skills")
    _skill(t / "outer")
    _skill(t / "outer" / "inner")
    _skill(t / "outer" / "inner" / "innermost")
    t = tree("empty")
    return trees
