"""A copy-on-write stand-in for the user's HOME, so a real client sees the user's skills but never
the user's config files' secrets, and nothing it writes lands in the user's own config.

``make_overlay(real_home, client_id, dest)`` builds ``dest`` as:

* every top-level entry of the real HOME linked (folders) or copied (small files), except the
  client's config paths, caches and state folders (``.cache``, ``.local``, ``.tmp``: fresh, empty);
* the client's **config paths** (``OVERLAYS[client].config``) as real folders in ``dest``: inside
  them only the **skill folders** (``link``) are linked to the user's, and only the files in
  ``copy`` are copied — after ``sanitize`` removes what could send traffic elsewhere or carries a
  secret (API keys, base URLs, credential helpers). Credentials files are never copied.

The runner's ``prepare`` then writes its recorder settings into ``dest`` (real files there), so the
user's own files are not touched. What each client keeps of the user's settings during a capture is
documented per client in ``OVERLAYS`` (``note``) and in README's capture section.

Paths that a client writes at run time outside its config paths (for example Codex unpacking its
system skills into ``~/.codex/skills/.system``) follow the links: that is what the client would do
in a normal run too.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Top-level HOME entries that are never linked (fresh, empty folders in the overlay instead).
FRESH = (".cache", ".local", ".tmp")
#: Files larger than this are not copied into the overlay (linked folders are not affected).
MAX_COPY_BYTES = 1_000_000
#: Top-level HOME files never copied (credentials and clients' account state).
NEVER_COPY = (
    ".claude.json",
    ".claude.json.backup",
    ".netrc",
    ".npmrc",
    ".git-credentials",
    ".pypirc",
    ".docker",
    ".aws",
    ".ssh",
    ".gnupg",
    ".kube",
)

_SECRET_ENV = (
    "ANTHROPIC_",
    "CLAUDE_CODE_USE_",
    "AWS_",
    "GOOGLE_",
    "OPENAI_",
    "GEMINI_",
    "VERTEX",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
)
_SECRET_KEYS = ("apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper")


def _strip_claude_settings(data: Any) -> Any:
    """Claude Code settings.json without keys that pick a backend or run credential helpers."""
    if not isinstance(data, dict):
        return {}
    out = {k: v for k, v in data.items() if k not in _SECRET_KEYS}
    env = out.get("env")
    if isinstance(env, dict):
        out["env"] = {k: v for k, v in env.items() if not k.upper().startswith(_SECRET_ENV)}
    return out


@dataclass(frozen=True)
class Overlay:
    """Per client: config paths made real, skill folders linked inside them, files copied.

    Attributes:
        config: HOME-relative paths that become real folders in the overlay.
        link: HOME-relative skill folders linked to the user's (read where the client looks).
        copy: HOME-relative files copied (after ``sanitize`` for JSON files named in it).
        sanitize: HOME-relative JSON file -> a function returning the sanitised content.
        note: what of the user's own settings the capture keeps (for docs and the UI).
    """

    config: tuple[str, ...]
    link: tuple[str, ...] = ()
    copy: tuple[str, ...] = ()
    sanitize: dict[str, Callable[[Any], Any]] = field(default_factory=dict)
    note: str = ""


OVERLAYS: dict[str, Overlay] = {
    "claude-code": Overlay(
        config=(".claude",),
        link=(".claude/skills", ".claude/plugins"),
        copy=(".claude/settings.json",),
        sanitize={".claude/settings.json": _strip_claude_settings},
        note="~/.claude/skills and plugins are read; settings.json is kept without env API settings "
        "and credential helpers; ~/.claude.json (account, MCP servers) is not used",
    ),
    "codex": Overlay(
        config=(".codex",),
        link=(".codex/skills",),
        note="~/.codex/skills is read; config.toml is replaced by the recorder's (your [[skills.config]] "
        "entries are not applied); auth.json is never read",
    ),
    "gemini-cli": Overlay(
        config=(".gemini",),
        link=(".gemini/skills", ".gemini/extensions"),
        note="~/.gemini/skills and extensions are read; settings.json is replaced by the recorder's "
        "(skills.disabled is not applied); OAuth files are never read",
    ),
    "opencode": Overlay(
        config=(".config/opencode",),
        link=(".config/opencode/skill", ".config/opencode/skills"),
        note="~/.config/opencode/skill(s) are read; opencode.json is replaced by the recorder's "
        "(permission.skill is not applied)",
    ),
    "openclaw": Overlay(
        config=(".openclaw",),
        link=(".openclaw/skills",),
        note="~/.openclaw/skills is read; openclaw.json is replaced by the recorder's (skills.entries "
        "settings are not applied)",
    ),
    "copilot-cli": Overlay(
        config=(".copilot",),
        link=(".copilot/skills",),
        note="~/.copilot/skills is read; Copilot's own config and tokens are not used (offline mode)",
    ),
}


def _top(rel: str) -> str:
    return rel.split("/", 1)[0]


def _copy_file(src: Path, dst: Path, sanitize: Callable[[Any], Any] | None) -> None:
    try:
        if not src.is_file() or src.stat().st_size > MAX_COPY_BYTES:
            return
        dst.parent.mkdir(parents=True, exist_ok=True)
        if sanitize is None:
            shutil.copyfile(src, dst)
            return
        data = json.loads(src.read_text("utf-8"))
        dst.write_text(json.dumps(sanitize(data), indent=2), "utf-8")
    except (OSError, ValueError, UnicodeDecodeError):
        return


def _materialise(real_home: Path, dest: Path, rel: str) -> None:
    """Make ``dest/rel`` a real folder; siblings along the way are linked to the real ones."""
    parts = rel.split("/")
    for i in range(1, len(parts)):
        parent_rel = "/".join(parts[:i])
        d = dest / parent_rel
        if d.is_symlink():
            d.unlink()
        if not d.exists():
            d.mkdir(parents=True)
            src = real_home / parent_rel
            keep = parts[i]
            if src.is_dir():
                for child in src.iterdir():
                    if child.name != keep and not (d / child.name).exists():
                        (d / child.name).symlink_to(child)
    (dest / rel).mkdir(parents=True, exist_ok=True)


def make_overlay(real_home: Path, client_id: str, dest: Path) -> Overlay:
    """Build the overlay HOME for ``client_id`` in ``dest`` (an empty folder). Returns its spec.

    Raises KeyError for a client without an overlay spec.
    """
    spec = OVERLAYS[client_id]
    dest.mkdir(parents=True, exist_ok=True)
    skip = set(FRESH) | set(NEVER_COPY) | {_top(c) for c in spec.config}
    for name in FRESH:
        (dest / name).mkdir(exist_ok=True)
    try:
        entries = list(real_home.iterdir())
    except OSError:
        entries = []
    for entry in entries:
        if entry.name in skip:
            continue
        target = dest / entry.name
        if entry.is_dir():
            target.symlink_to(entry)
        else:
            _copy_file(entry, target, None)
    for rel in spec.config:
        _materialise(real_home, dest, rel)
    for rel in spec.link:
        src = real_home / rel
        if src.exists() and not (dest / rel).exists():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).symlink_to(src)
    for rel in spec.copy:
        _copy_file(real_home / rel, dest / rel, spec.sanitize.get(rel))
    return spec


def writes_stay_inside(dest: Path, written: list[Path]) -> bool:
    """Whether every path in ``written`` resolves inside ``dest`` (no write went through a link)."""
    root = os.path.realpath(dest)
    return all(os.path.realpath(p).startswith(root + os.sep) for p in written)
