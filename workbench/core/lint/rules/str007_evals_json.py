r"""STR007 evals-json: ``evals/evals.json`` is not the shape skill evaluations expect.

The Agent Skills guide "Evaluating skills" (and skill-creator) keep test cases in
``evals/evals.json``: ``{"skill_name": ..., "evals": [{"id": 1, "prompt": "...",
"expected_output": "...", "files": []}, ...]}`` (validators.md K4; skillsaw agentskill-evals
warns). Checked only when that file exists: it must be JSON (a syntax error names its line and
column in the file), its top level an object with an ``evals`` list, each entry an object with a
numeric ``id`` and a string ``prompt``. Other keys are not checked. Reported on SKILL.md line 1
because the problem is in the other file; at most five entry problems are listed.

PASS (dir=pdf-tools, files=evals/notes.md):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
FAIL (dir=pdf-tools, files=evals/evals.json):
    ---
    name: pdf-tools
    description: Extracts text from PDF files. Use when the user asks to read a PDF.
    ---
"""

import json
import os
from collections.abc import Iterator
from typing import Any

from workbench.core.lint.context import LintContext
from workbench.core.lint.registry import Finding, rule
from workbench.core.skillfile import MAX_FILE_BYTES, read_regular_file

WHERE = "evals/evals.json"
#: Entry problems listed per file; the rest are counted.
MAX_ENTRY_PROBLEMS = 5


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def shape_problems(data: Any) -> list[str]:
    """The shape problems of a parsed ``evals.json`` (``[]`` when it is fine): top level an object
    with an ``evals`` list whose entries are objects with a numeric ``id`` and a string ``prompt``.
    Entry problems beyond ``MAX_ENTRY_PROBLEMS`` are summed up in one last message."""
    if not isinstance(data, dict):
        return [f"the top level is {type(data).__name__ if data is not None else 'null'}, not an object"]
    evals = data.get("evals")
    if evals is None:
        return ['there is no top-level "evals" list']
    if not isinstance(evals, list):
        return ['"evals" is not a list']
    out: list[str] = []
    for i, item in enumerate(evals):
        if not isinstance(item, dict):
            out.append(f"evals[{i}] is not an object")
            continue
        if not _is_number(item.get("id")):
            out.append(f'evals[{i}] has no numeric "id"')
        if not isinstance(item.get("prompt"), str):
            out.append(f'evals[{i}] has no string "prompt"')
    if len(out) > MAX_ENTRY_PROBLEMS:
        more = len(out) - MAX_ENTRY_PROBLEMS
        out = [*out[:MAX_ENTRY_PROBLEMS], f"{more} more entry problem{'s' if more != 1 else ''}"]
    return out


@rule("STR007", "evals-json", "warning")
def check(ctx: LintContext) -> Iterator[Finding]:
    folder = ctx.folder()
    if not folder or "evals/" not in folder[""]:
        return
    skill_dir = ctx.skill_dir
    if skill_dir is None:
        return
    path = os.path.join(skill_dir, "evals", "evals.json")
    if not ctx.exists(path):  # lists evals/ once (a dependency of the cached result)
        return
    ctx.depend(path)  # the result cache revalidates on this file's identity
    try:
        data = json.loads(read_regular_file(path, MAX_FILE_BYTES).decode("utf-8"))
    except json.JSONDecodeError as exc:
        yield Finding(
            ctx.top_span(), f"{WHERE}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); evals cannot run"
        )
        return
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        yield Finding(ctx.top_span(), f"{WHERE} cannot be read ({str(exc).splitlines()[0]})")
        return
    for problem in shape_problems(data):
        yield Finding(ctx.top_span(), f"{WHERE}: {problem}")
