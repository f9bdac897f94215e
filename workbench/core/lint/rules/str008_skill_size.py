r"""STR008 skill-size: the skill folder is too big to upload, holds a file over 100 KB, or ships an
opaque binary.

Sources (validators.md A7): the Claude API and claude.ai refuse a skill upload over 8 MiB (agnix
AS-015 errors); skillscheck warns on any file over 100 KB and on binary files. Decisions: the
8 MiB total is an error under the ``claude-api`` profile (the upload fails) and a warning
elsewhere (local clients load big folders); SKILL.md itself is not counted as a big file (BODY001
and BODY002 measure it); "binary" means an opaque executable, library or archive by its name
(``.exe``, ``.dll``, ``.so``, ``.zip``, ``.jar``, ``.pyc`` ...): a reviewer cannot read it and an
agent cannot use it without running it. Images, fonts and PDFs are normal ``assets/`` and are not
flagged. The walk skips ``.git`` and ``node_modules``, follows no symlinked folder below the
listings ``ctx.folder()`` made (reused: their files cost one ``os.stat`` each), and stops after
``MAX_ENTRIES`` (1,000) entries: a bigger folder is only partly measured. A skill folder holding
only SKILL.md costs no system call.

Caching: the result depends on the folders walked (their mtimes); a file that grows in place
without its folder changing is seen at the next change of that folder or of SKILL.md (editors that
save by renaming change the folder), or with ``--no-cache``.

PASS (dir=pdf-tools, files=scripts/extract.py):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run scripts/extract.py.
FAIL (dir=pdf-tools, files=scripts/extract.exe):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
    Run scripts/extract.exe.
"""

import os
from collections.abc import Iterator

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.lint.types import ERROR, WARNING

#: The upload limit of the Claude API and claude.ai for one skill folder (bytes).
MAX_TOTAL_BYTES = 8 * 1024 * 1024
#: Files above this size are flagged (skillscheck: 100 KB).
MAX_FILE_BYTES = 100 * 1000
#: The walk stops after this many entries (a skill folder at a repository root): at ~4 µs per
#: ``os.stat`` that bounds the rule to a few ms, also when the editor lints on each keystroke.
MAX_ENTRIES = 1000
#: Opaque binaries by extension (lower case): executables, libraries, archives, bytecode.
# fmt: off
BINARY_EXTENSIONS = frozenset(
    {
        ".exe", ".dll", ".so", ".dylib", ".bin", ".o", ".a", ".lib", ".obj", ".class", ".jar",
        ".war", ".pyc", ".pyo", ".whl", ".egg", ".zip", ".7z", ".rar", ".tar", ".gz", ".tgz",
        ".bz2", ".xz", ".zst", ".msi", ".dmg", ".pkg", ".deb", ".rpm", ".apk", ".wasm",
    }
)
# fmt: on
_SKIPPED = frozenset({".git", "node_modules"})


def _kb(n: int) -> str:
    return f"{n / 1000:,.0f} KB"


def _walk(ctx: LintContext, rel: str, path: str, out: list[tuple[str, int]], budget: list[int]) -> None:
    """Append ``(relative path, size)`` of the regular files under ``path`` (listed with
    ``os.scandir``, recorded as a dependency) to ``out``; ``budget[0]`` counts entries down."""
    ctx.depend(path)
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except OSError:
        return
    for e in entries:
        budget[0] -= 1
        if budget[0] < 0:
            return
        try:
            if e.is_dir(follow_symlinks=False):
                if e.name not in _SKIPPED:
                    _walk(ctx, rel + e.name + "/", e.path, out, budget)
            elif e.is_file():
                out.append((rel + e.name, e.stat().st_size))
        except OSError:
            continue


def _listed(
    ctx: LintContext,
    folder: dict[str, list[str]],
    rel: str,
    base: str,
    names: list[str],
    out: list[tuple[str, int]],
    budget: list[int],
) -> None:
    """``_walk`` over names ``ctx.folder()`` listed already (``rel`` "" for the top: SKILL.md
    itself is left out, and its scripts/, references/, assets/ listings are used too)."""
    me = ctx.path.name if ctx.path is not None else ""
    for name in names:
        budget[0] -= 1
        if budget[0] < 0:
            return
        if name.endswith("/"):
            sub = name[:-1]
            if rel == "" and sub in folder:
                _listed(ctx, folder, name, os.path.join(base, sub), folder[sub], out, budget)
            elif sub not in _SKIPPED:
                _walk(ctx, rel + name, os.path.join(base, sub), out, budget)
        elif rel or name != me:
            try:
                out.append((rel + name, os.stat(os.path.join(base, name)).st_size))
            except OSError:
                continue


def file_sizes(ctx: LintContext, folder: dict[str, list[str]], top: str) -> list[tuple[str, int]]:
    """``[(relative path, size)]`` of every regular file under the skill folder ``top`` but
    SKILL.md itself, walking at most ``MAX_ENTRIES`` entries. The listings ``ctx.folder()`` made
    (the top and scripts/, references/, assets/) are reused: those files cost one ``os.stat``
    each; other folders are listed here (and recorded as dependencies). Vanished files and
    unreadable folders are skipped. Leaves no reference cycle (no recursive closure): the lint
    runs with the cyclic GC off."""
    out: list[tuple[str, int]] = []
    _listed(ctx, folder, "", top, folder[""], out, [MAX_ENTRIES])
    return out


def _binary(rel: str) -> bool:
    dot = rel.rfind(".")
    return dot > rel.rfind("/") + 1 and rel[dot:].lower() in BINARY_EXTENSIONS


@rule("STR008", "skill-size", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    folder = ctx.folder()  # None without a path
    if not folder or len(folder[""]) == 1 or ctx.path is None:  # SKILL.md alone: nothing to measure
        return
    files = file_sizes(ctx, folder, os.path.dirname(os.fspath(ctx.path)) or ".")
    total = ctx.sf.size + sum(size for _rel, size in files)  # size: as read (never loads the file)
    if total > MAX_TOTAL_BYTES:
        yield Finding(
            ctx.top_span(),
            f"the skill folder holds {total / 1048576:,.1f} MiB (over 8 MiB): "
            "the Claude API and claude.ai refuse the upload",
            severity=ERROR if ctx.profile.id == "claude-api" else WARNING,
        )
    for rel, size in sorted(f for f in files if f[1] > MAX_FILE_BYTES or _binary(f[0])):
        if size > MAX_FILE_BYTES:
            yield Finding(
                ctx.top_span(), f"{rel} is {_kb(size)} (over 100 KB): an agent that opens it reads it all"
            )
        if _binary(rel):
            yield Finding(
                ctx.top_span(), f"{rel} is an opaque binary: it cannot be reviewed, and agents cannot read it"
            )
