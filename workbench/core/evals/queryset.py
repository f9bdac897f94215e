"""Query sets for trigger evaluation: load, validate (positioned errors), save.

Accepted formats (decided here; validators.md section 3.1, 3.2 and 3.4 for the sources):

1. **skill-creator JSON** (Anthropic ``skills/skill-creator``; agentskills.io "Optimizing skill
   descriptions")::

       [{"query": "turn this PDF into text", "should_trigger": true},
        {"query": "what's the weather", "should_trigger": false}]

   Other keys are kept as ``extra`` and ignored (as skill-creator does); ``"prompt"`` is accepted
   as a synonym of ``"query"`` and ``"note"``/``"reason"`` as a free-text note.

2. **YAML (or JSON object) with two lists** — the workbench's own keys ``should_trigger`` and
   ``should_not_trigger``, or waza's ``should_trigger_prompts`` / ``should_not_trigger_prompts``
   (microsoft/waza ``trigger_tests.yaml``)::

       skill: pdf                     # optional, informative
       should_trigger:
         - turn this PDF into text
         - query: merge a.pdf and b.pdf   # or prompt: ...
           note: explicit
       should_not_trigger:
         - prompt: what's the weather     # waza item shape {prompt, reason, confidence}
           reason: unrelated
           confidence: high

   waza weights "medium" confidence by 0.5; the workbench does **not** weight (decision: every
   query counts once; the confidence is kept in ``extra`` for display).

Rules: a set needs at least one query; a query must be a non-empty string; ``should_trigger`` must
be a boolean; the same text with both labels is an error; the same text twice with one label is a
warning (skill-creator merges duplicates because it keys results by text; the workbench keeps
every entry, results are by position).

Errors are ``QuerySetError`` with a 1-based line and column (from ``json`` for JSON syntax
errors, from PyYAML's node marks for everything else), printed as ``path:line:col: message``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from workbench.core.safefile import atomic_write

try:  # the C loader where available (same results as the pure one)
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

#: Keys of the two-list form: (positive key, negative key) pairs, in the order they are tried.
LIST_KEYS = (
    ("should_trigger", "should_not_trigger"),
    ("should_trigger_prompts", "should_not_trigger_prompts"),
)

#: Largest query-set file read (characters); larger files are refused with a message.
MAX_FILE_CHARS = 5_000_000


class QuerySetError(Exception):
    """A query set that cannot be used.

    Attributes: path (str or None), line and column (1-based, or None when unknown), message.
    ``str(err)`` is ``path:line:col: message`` (the parts that are known).
    """

    def __init__(
        self, message: str, path: str | Path | None = None, line: int | None = None, column: int | None = None
    ):
        self.message, self.path, self.line, self.column = message, str(path) if path else None, line, column
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.path or "<queries>"
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return f"{where}: {self.message}"


@dataclass
class Query:
    """One eval query.

    Attributes:
        query: the user message sent to the model.
        should_trigger: True when the skill under test should load for it.
        note: free text (``note`` / ``reason`` keys), "" when none.
        line: 1-based line of the entry in the file it came from (None when built in code).
        extra: any other keys of the entry (kept, unused by the runner).
    """

    query: str
    should_trigger: bool
    note: str = ""
    line: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """skill-creator's item shape, plus ``note`` when there is one."""
        d: dict[str, Any] = {"query": self.query, "should_trigger": self.should_trigger}
        if self.note:
            d["note"] = self.note
        return d


@dataclass
class QuerySet:
    """A loaded query set: ``queries`` in file order, ``warnings`` (positioned strings),
    ``skill`` (the optional ``skill:`` key of the two-list form), ``path``."""

    queries: list[Query]
    warnings: list[str] = field(default_factory=list)
    skill: str | None = None
    path: str | None = None

    @property
    def positives(self) -> int:
        return sum(1 for q in self.queries if q.should_trigger)

    @property
    def negatives(self) -> int:
        return sum(1 for q in self.queries if not q.should_trigger)


def _mark(node: Any) -> tuple[int | None, int | None]:
    m = getattr(node, "start_mark", None)
    return (m.line + 1, m.column + 1) if m is not None else (None, None)


def _map_items(node: Any) -> dict[str, tuple[Any, Any]]:
    """{key string: (key node, value node)} of a MappingNode (non-string keys skipped)."""
    out: dict[str, tuple[Any, Any]] = {}
    for k, v in getattr(node, "value", []):
        if isinstance(k, yaml.ScalarNode):
            out.setdefault(str(k.value), (k, v))
    return out


def parse_queries(text: str, path: str | Path | None = None) -> QuerySet:
    """Parse a query set from text (JSON or YAML; module docstring).

    Returns a ``QuerySet``. Raises ``QuerySetError`` (positioned) for syntax errors, a wrong
    shape, a missing/empty query, a non-boolean label, conflicting labels or an empty set.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if len(text) > MAX_FILE_CHARS:
        raise QuerySetError(f"file too large ({len(text):,} characters; limit {MAX_FILE_CHARS:,})", path)
    stripped = text.lstrip()
    if not stripped:
        raise QuerySetError(
            "empty file: expected a JSON list of {\"query\", \"should_trigger\"} "
            "or a YAML file with should_trigger / should_not_trigger lists",
            path,
            1,
            1,
        )
    json_data: Any = None
    is_json = stripped[0] in "[{" or str(path or "").lower().endswith(".json")
    if is_json:
        try:
            json_data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise QuerySetError(f"invalid JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    node = data = None
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        if json_data is None:
            m = getattr(exc, "problem_mark", None)
            prob = getattr(exc, "problem", None) or str(exc)
            raise QuerySetError(
                f"invalid YAML: {prob}", path, m.line + 1 if m else None, m.column + 1 if m else None
            ) from None
        node = None  # valid JSON that PyYAML cannot read (rare): no positions, same checks
    if json_data is not None:
        data = json_data
    return _validate(data, node, path)


def _validate(data: Any, node: Any, path: str | Path | None) -> QuerySet:
    def err(msg: str, n: Any = None) -> QuerySetError:
        line, col = _mark(n) if n is not None else (None, None)
        return QuerySetError(msg, path, line, col)

    entries: list[tuple[Any, Any, bool | None]] = []  # (item data, item node, forced label)
    skill = None
    if isinstance(data, list):
        nodes = node.value if isinstance(node, yaml.SequenceNode) else [None] * len(data)
        entries = [(d, n, None) for d, n in zip(data, nodes)]
    elif isinstance(data, dict):
        items = _map_items(node) if isinstance(node, yaml.MappingNode) else {}
        pair = next((p for p in LIST_KEYS if p[0] in data or p[1] in data), None)
        if pair is None:
            if "queries" in data and isinstance(data["queries"], list):
                qn = items.get("queries", (None, None))[1]
                return _validate(data["queries"], qn, path)
            keys = ", ".join(f"{a} / {b}" for a, b in LIST_KEYS)
            raise err(f"expected a list of queries, or a mapping with {keys}", node)
        if isinstance(data.get("skill"), str):
            skill = data["skill"]
        for key, label in ((pair[0], True), (pair[1], False)):
            if key not in data or data[key] is None:
                continue
            vn = items.get(key, (None, None))[1]
            if not isinstance(data[key], list):
                raise err(f"{key}: expected a list of queries", vn)
            nodes = vn.value if isinstance(vn, yaml.SequenceNode) else [None] * len(data[key])
            entries += [(d, n, label) for d, n in zip(data[key], nodes)]
    else:
        raise err(
            "expected a JSON list of {\"query\", \"should_trigger\"} objects, or a mapping "
            "with should_trigger / should_not_trigger lists",
            node,
        )

    queries: list[Query] = []
    for i, (d, n, forced) in enumerate(entries):
        line = _mark(n)[0] if n is not None else None
        if isinstance(d, str) and forced is not None:
            text, note, extra = d, "", {}
        elif isinstance(d, dict):
            sub = _map_items(n) if isinstance(n, yaml.MappingNode) else {}
            qkey = "query" if "query" in d else "prompt" if "prompt" in d else None
            if qkey is None:
                raise err(f"entry {i + 1}: missing \"query\"", n)
            text = d[qkey]
            if not isinstance(text, str):
                raise err(f"entry {i + 1}: \"{qkey}\" must be a string", sub.get(qkey, (None, n))[1])
            raw_note = d.get("note", d.get("reason", ""))
            note = raw_note if isinstance(raw_note, str) else ""
            extra = {k: v for k, v in d.items() if k not in (qkey, "should_trigger", "note", "reason")}
            if forced is None:
                if "should_trigger" not in d:
                    raise err(f"entry {i + 1}: missing \"should_trigger\" (true or false)", n)
                label = d["should_trigger"]
                if not isinstance(label, bool):
                    raise err(
                        f"entry {i + 1}: \"should_trigger\" must be true or false, not "
                        f"{json.dumps(label, default=str)}",
                        sub.get("should_trigger", (None, n))[1],
                    )
                forced_label = label
            else:
                forced_label = forced
            forced = forced_label
        else:
            what = (
                "a string or a mapping with \"query\""
                if forced is not None
                else "an object {\"query\": ..., \"should_trigger\": ...}"
            )
            raise err(f"entry {i + 1}: expected {what}", n)
        if not text.strip():
            raise err(f"entry {i + 1}: empty query", n)
        queries.append(Query(text, bool(forced), note, line, extra))
    if not queries:
        raise err("no queries in the set", node)
    warnings: list[str] = []
    seen: dict[str, Query] = {}
    for q in queries:
        key = q.query.strip()
        prev = seen.get(key)
        if prev is None:
            seen[key] = q
            continue
        if prev.should_trigger != q.should_trigger:
            raise QuerySetError(
                f"the same query has both labels (also at line {prev.line}): {q.query[:60]!r}", path, q.line
            )
        where = f"{path or '<queries>'}:{q.line}" if q.line else str(path or "<queries>")
        warnings.append(
            f"{where}: duplicate query (also at line {prev.line}); each entry is run and reported separately"
        )
    return QuerySet(queries, warnings, skill, str(path) if path else None)


def load_queries(path: str | Path) -> QuerySet:
    """Read and parse a query-set file. Raises ``QuerySetError`` (also for an unreadable or
    non-UTF-8 file)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise QuerySetError("no such file", p) from None
    except IsADirectoryError:
        raise QuerySetError("is a folder, expected a query-set file", p) from None
    except OSError as exc:
        raise QuerySetError(f"cannot read: {exc.strerror or exc}", p) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise QuerySetError(f"not UTF-8 text (byte {exc.start})", p, line) from None
    return parse_queries(text, p)


def dump_queries(queries: list[Query]) -> str:
    """The skill-creator JSON text of ``queries`` (indented, trailing newline)."""
    return json.dumps([q.to_json() for q in queries], indent=2, ensure_ascii=False) + "\n"


def save_queries(path: str | Path, queries: list[Query]) -> str:
    """Write ``queries`` as skill-creator JSON with ``atomic_write``; returns the new sha256."""
    return atomic_write(Path(path), dump_queries(queries).encode("utf-8"))
