"""``CommonProfile``: the ``ClientProfile`` most clients subclass, with a default ``find``
(the walk of ``clients.walk``, driven by ``WalkRules``) and a default ``resolve_collisions``
(driven by ``ClientProfile.collision``).

Nothing here is client *policy*; every profile states its own rules (roots, depth, skipped
folders, symlinks, reading) and names the source of each. The walk lives in
``workbench.core.clients.walk`` (what it reports, broken entries, extra roots "as if
installed") and the reading helpers in ``workbench.core.clients.reading``; both are re-exported
here, so ``from workbench.core.clients.common import X`` keeps working.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.clients.base import ClientProfile, Found, ReadResult
from workbench.core.clients.reading import (
    best_name,
    folder_name,
    js_string,
    line_value_first_line,
    load_json_file,
    memo_file,
    parse_loose_mapping,
    quote_retry,
    retry_quoted,
    state_reason,
    strip_tags,
    truthy_path,
    unreadable,
    walk_up,
)
from workbench.core.clients.walk import (
    EXTRA_NOTE,
    EXTRA_RULES,
    HARD_DEPTH,
    NEVER_WALKED,
    REPORT_DEPTH,
    WalkRules,
    entry_problem,
    installed_view,
    is_installed_extra,
    real_dir_memo,
    walk,
)
from workbench.core.model import Root, SkillStatus

if TYPE_CHECKING:
    from workbench.core.model import Environment, Skill

__all__ = [
    "CommonProfile",
    "WalkRules",
    "EXTRA_RULES",
    "EXTRA_NOTE",
    "REPORT_DEPTH",
    "HARD_DEPTH",
    "NEVER_WALKED",
    "walk",
    "installed_view",
    "is_installed_extra",
    "real_dir_memo",
    "entry_problem",
    "folder_name",
    "best_name",
    "strip_tags",
    "state_reason",
    "unreadable",
    "line_value_first_line",
    "quote_retry",
    "memo_file",
    "load_json_file",
    "walk_up",
    "truthy_path",
    "parse_loose_mapping",
    "ReadResult",
    "js_string",
    "retry_quoted",
]

#: Statuses that take no part in name collisions (a module constant: read once per skill).
_NOT_COMPETING = (SkillStatus.SKIPPED, SkillStatus.SHADOWED)


class CommonProfile(ClientProfile):
    """``ClientProfile`` with a walk-based ``find`` and policy-driven ``resolve_collisions``.

    Subclasses set ``rules`` (default walk), override ``rules_for(root)`` where roots differ,
    and implement ``roots`` and ``read``.

    Class attributes (besides ``ClientProfile``'s):
        rules: the client's default ``WalkRules``.
        within_root: on a name collision inside one root, "first" or "last" path (sorted) wins.
        dedupe_roots: roots pointing at the same real folder are scanned once (first kept).
        dedupe_files: a SKILL.md reached twice (same real path) counts once.
    """

    rules: WalkRules = WalkRules()
    within_root: str = "first"
    dedupe_roots: bool = True
    dedupe_files: bool = True

    # -- roots -------------------------------------------------------------------------
    def make_root(
        self,
        path: Path,
        scope: str,
        label: str,
        note: str = "",
        *,
        max_depth: int | None = None,
        verified: bool = True,
        condition: str | None = None,
        active: bool = True,
        namespace: str | None = None,
    ) -> Root:
        """A ``Root`` with ``exists`` filled; precedence is set by ``number``."""
        md = self.rules.max_depth if max_depth is None else max_depth
        return Root(
            path=Path(path),
            scope=scope,
            precedence=0,
            exists=os.path.isdir(path),
            label=label,
            max_depth=md if md is not None else HARD_DEPTH,
            condition=condition,
            active=active,
            namespace=namespace,
            verified=verified,
            note=note,
        )

    @staticmethod
    def number(roots: list[Root]) -> list[Root]:
        """Set precedence 0..n-1 in list order (highest first) and return the list."""
        for i, r in enumerate(roots):
            r.precedence = i
        return roots

    def extra_roots(self, env: Environment, start: int) -> list[Root]:
        """Roots of scope ``extra`` for ``env.extra_roots`` (lowest precedence), HACKING.md."""
        out = []
        for i, p in enumerate(env.extra_roots):
            r = Root(
                path=p,
                scope="extra",
                precedence=start + i,
                exists=p.is_dir(),
                label=f"extra ({p})",
                max_depth=EXTRA_RULES.max_depth or REPORT_DEPTH,
                note=EXTRA_NOTE,
            )
            out.append(r)
        return out

    def installed_rules(self) -> WalkRules:
        """The rules a skill folder installed in this client's root is read by (an extra root's
        skills, ``installed_view``): the client's default walk."""
        return self.rules

    def rules_for(self, root: Root) -> WalkRules:
        """The walk rules for one root (``EXTRA_RULES`` for extra roots: the collection is walked
        whole, then ``installed_view`` applies ``installed_rules``)."""
        if root.scope == "extra":
            return EXTRA_RULES
        return self.rules

    def find(self, root: Root, env: Environment) -> Iterable[Found]:
        """``after_walk`` of the walk of ``root`` by ``rules_for(root)`` ([] for a missing root).
        Discovery memoises the walk per (root, rules) within a pass and calls ``after_walk``
        itself: override ``after_walk``, not this."""
        if not root.exists:
            return []
        return self.after_walk(root, walk(root.path, self.rules_for(root)), env)

    def after_walk(self, root: Root, found: list[Found], env: Environment) -> list[Found]:
        """The client's own changes to a walk's result (``found``, sorted by path; shared with
        other clients: build a new list, never change it or its ``Found``s): one ``Found`` per
        file of ``found`` (its depth or skip reason may change; discovery counts a catalog's
        entries from the walk, ``discovery.prepare``). Default: as is."""
        return found

    # -- collisions --------------------------------------------------------------------
    def competes(self, skill: Skill) -> bool:
        """Whether a skill takes part in name collisions (found and read; its root active)."""
        return skill.status not in _NOT_COMPETING and skill.root.active

    def resolve_collisions(self, skills: list[Skill], env: Environment) -> None:
        """Mark losers ``shadowed`` per ``self.collision``:

        * "higher-wins": the root with the lowest precedence number wins; inside one root the
          first (``within_root == "first"``) or last path in sorted order wins.
        * "keep-both": nothing is shadowed (Codex).

        ``skills`` must be in root precedence order, then path order (as discovery builds it).
        """
        if self.collision == "keep-both":
            return
        # a group only for a name met twice (the usual name is met once: no list per skill)
        first: dict[str, Skill] = {}
        groups: dict[str, list[Skill]] = {}
        competes = self.competes
        for s in skills:
            if competes(s):
                other = first.setdefault(s.name, s)
                if other is not s:
                    group = groups.get(s.name)
                    if group is None:
                        groups[s.name] = [other, s]
                    else:
                        group.append(s)
        for group in groups.values():
            best = group[0]
            for s in group[1:]:
                if s.root.precedence < best.root.precedence:
                    best = s
                elif s.root.precedence == best.root.precedence and self.within_root == "last":
                    best = s
            for s in group:
                if s is best:
                    continue
                s.status = SkillStatus.SHADOWED
                s.shadowed_by = best.path
                s.reason = self.shadow_reason(s, best)

    def shadow_reason(self, loser: Skill, winner: Skill) -> str:
        """One line explaining why ``loser`` is shadowed by ``winner``."""
        if loser.root is winner.root or loser.root.path == winner.root.path:
            rule = "last found wins" if self.within_root == "last" else "first found wins"
            return f"same name '{loser.name}' twice in one root; {rule} ({winner.path})"
        return (
            f"name '{loser.name}' is also defined in {winner.root.label or winner.root.path}, "
            f"which takes precedence"
        )
