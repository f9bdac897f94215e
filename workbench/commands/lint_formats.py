"""``workbench lint``'s SARIF 2.1.0 and GitHub Actions output formats (``--format sarif`` /
``--format github``), apart from the command so that each module stays small."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from workbench import __version__
from workbench.core.lint import Diagnostic, load_rules

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_GH_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _uri(path: Path) -> str:
    # percent-encode the path's bytes: a non-UTF-8 name (surrogateescape) round-trips as %FF
    s = os.fsencode(path.as_posix())
    return quote(s, safe="/:._-~") if not path.is_absolute() else "file://" + quote(s, safe="/:._-~")


def to_sarif(flat: list[tuple[Path, Diagnostic]], profile_id: str) -> dict:
    """A SARIF 2.1.0 log with one run (rules = every registered rule, so ``ruleIndex`` is stable)."""
    registry = load_rules()
    codes = list(registry)
    index = {c: i for i, c in enumerate(codes)}
    rules = []
    for c in codes:
        r = registry[c]
        sev = r.severity_for(profile_id)
        rules.append(
            {
                "id": c,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": " ".join((r.doc or r.summary).split("PASS")[0].split())},
                "defaultConfiguration": {"level": _SARIF_LEVEL.get(sev, "none"), "enabled": sev != "off"},
            }
        )
    results = []
    for path, d in flat:
        res: dict[str, Any] = {
            "ruleId": d.code,
            "level": _SARIF_LEVEL.get(d.severity, "note"),
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(path)},
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.column,
                            "endLine": d.end_line,
                            "endColumn": max(d.end_column, 1),
                        },
                    }
                }
            ],
        }
        if d.code in index:
            res["ruleIndex"] = index[d.code]
        results.append(res)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "workbench",
                        "version": __version__,
                        "informationUri": "https://agentskills.io/specification",
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "properties": {"profile": profile_id},
                "results": results,
            }
        ],
    }


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def github_line(path: Path, d: Diagnostic) -> str:
    """One GitHub Actions workflow command for a diagnostic."""
    props = (
        f"file={_gh_escape(path.as_posix(), True)},line={d.line},col={d.column},"
        f"endLine={d.end_line},endColumn={d.end_column},title={_gh_escape(d.code, True)}"
    )
    return f"::{_GH_LEVEL.get(d.severity, 'notice')} {props}::{_gh_escape(d.message)}"
