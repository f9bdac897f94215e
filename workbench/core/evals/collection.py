"""Collection evals: every skill's query set against the listing of the whole collection, and the
confusion matrix of which skill each query actually loaded.

Typical use::

    sets = load_query_dir(Path("evals"), catalog)          # {skill: QuerySet} + notes
    runners = collection_runners(catalog, sets.sets, settings=s, client=sdk, options=opts)
    reports = [r.run() for r in runners]                    # direct; or BatchEval(runners, sdk)
    m = ConfusionMatrix.from_reports(reports)
    print(m.to_text()); m.to_json(); m.to_html()

Definitions (the issue's; where it is silent, decided here):

* **Rows** are the skill a query was written for (its query file, ``<DIR>/<skill>.json|yaml|yml``)
  for should-trigger queries, and ``none`` for should-not-trigger queries (of any file).
  **Columns** are the skill the model loaded in a run: the skill under test when it loaded (the
  direct eval's trigger rule, on the resolved SKILL.md path), else the first other skill loaded,
  else ``none``. Cells count **successful runs** (errored runs are kept apart, per row, as in the
  per-skill reports; cancelled runs are not counted).
* Per skill: ``recall = cell(S, S) / row(S)`` and ``precision = cell(S, S) / column(S)`` (over
  runs; None when the denominator is 0). A should-not-trigger query that loads S counts against
  S's precision even when it was written for another skill's file.
* A **steal** is a run of a query written for skill A (row A) that loaded another skill B (column
  B != A, B != none); ``steals`` lists the pairs by count, with the share of row A's runs.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.evals.queryset import QuerySet, QuerySetError, load_queries
from workbench.core.evals.runner import EvalOptions, EvalReport, EvalRunner
from workbench.core.text import plural

NONE = "none"
QUERY_EXTS = (".json", ".yaml", ".yml")


@dataclass
class QueryDir:
    """Query sets found in a folder: ``sets`` {skill name: QuerySet} in the catalog's listing order,
    ``missing`` (listed skills without a file), ``unknown`` (files naming no listed skill),
    ``errors`` (``QuerySetError`` strings: ``path:line:col: message``)."""

    sets: dict[str, QuerySet] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        out = [f"no query file for {n}" for n in self.missing]
        out += [f"{p}: no listed skill of that name; ignored" for p in self.unknown]
        return out + list(self.errors)


def load_query_dir(folder: Path | str, catalog: Any) -> QueryDir:
    """Read ``<folder>/<skill>.json|.yaml|.yml`` for every listed skill of ``catalog`` (the first
    extension found wins). A set's optional ``skill:`` key overrides the file name. Bad files are
    reported in ``errors``, never raised. Raises ``NotADirectoryError`` when ``folder`` is not one."""
    d = Path(folder)
    if not d.is_dir():
        raise NotADirectoryError(f"{d}: not a folder")
    listed = [s.name for s in catalog.listed()]
    names = set(listed)
    out = QueryDir()
    found: dict[str, QuerySet] = {}
    for p in sorted(d.iterdir()):
        if p.suffix.lower() not in QUERY_EXTS or not p.is_file():
            continue
        try:
            qs = load_queries(p)
        except QuerySetError as exc:
            out.errors.append(str(exc))
            continue
        name = qs.skill if qs.skill is not None and qs.skill in names else p.stem
        if name not in names:
            out.unknown.append(str(p))
        elif name not in found:
            found[name] = qs
    out.sets = {n: found[n] for n in listed if n in found}
    out.missing = [n for n in listed if n not in found]
    return out


def collection_runners(
    catalog: Any,
    sets: dict[str, QuerySet],
    *,
    settings: Any = None,
    api_key: str | None = None,
    client: Any = None,
    options: EvalOptions | None = None,
) -> list[EvalRunner]:
    """One ``EvalRunner`` per skill with a query set, each against the whole collection's listing
    (``competitors`` forced on). Raises ``EvalSetupError``."""
    import dataclasses

    opts = dataclasses.replace(options or EvalOptions(), competitors=True)
    return [
        EvalRunner(catalog, name, qs.queries, settings=settings, api_key=api_key, client=client, options=opts)
        for name, qs in sets.items()
    ]


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


@dataclass
class ConfusionMatrix:
    """Counts ``cells[row][col]`` over successful runs (module docstring). ``labels``: the skills
    (rows and columns, in order) followed by ``none``; ``errors[row]``: errored runs per row."""

    labels: list[str]
    cells: dict[str, dict[str, int]]
    errors: dict[str, int]
    model: str = ""
    client: str = ""
    mode: str = "direct"

    @classmethod
    def from_reports(cls, reports: list[EvalReport]) -> ConfusionMatrix:
        """Build the matrix from one report per skill (``collection_runners``' order). Skills that
        appear only as loaded ones (listed, no query file) get a column and an empty row."""
        labels = [r.skill for r in reports]
        extra: list[str] = []
        for rep in reports:
            for q in rep.results:
                for d in q.details:
                    for n in d.also_loaded:
                        if n not in labels and n not in extra:
                            extra.append(n)
        labels = labels + extra + [NONE]
        cells = {r: {c: 0 for c in labels} for r in labels}
        errors = {r: 0 for r in labels}
        for rep in reports:
            for q in rep.results:
                row = rep.skill if q.should_trigger else NONE
                for d in q.details:
                    if d.outcome == "errored":
                        errors[row] += 1
                    elif d.outcome == "triggered":
                        cells[row][rep.skill] += 1
                    elif d.outcome == "not-triggered":
                        cells[row][d.also_loaded[0] if d.also_loaded else NONE] += 1
        first = reports[0] if reports else None
        return cls(
            labels,
            cells,
            errors,
            first.model if first else "",
            first.client if first else "",
            first.mode if first else "direct",
        )

    @property
    def skills(self) -> list[str]:
        return [x for x in self.labels if x != NONE]

    def row_total(self, row: str) -> int:
        return sum(self.cells[row].values())

    def col_total(self, col: str) -> int:
        return sum(self.cells[r][col] for r in self.labels)

    def per_skill(self) -> dict[str, dict[str, Any]]:
        """{skill: {"runs" (row total), "hits", "loaded" (column total), "precision", "recall",
        "errors"}} (ratios 0..1 or None)."""
        out = {}
        for s in self.skills:
            hit, row, col = self.cells[s][s], self.row_total(s), self.col_total(s)
            out[s] = {
                "runs": row,
                "hits": hit,
                "loaded": col,
                "precision": _ratio(hit, col),
                "recall": _ratio(hit, row),
                "errors": self.errors[s],
            }
        return out

    def steals(self, top: int | None = 10) -> list[dict[str, Any]]:
        """The stealing pairs, most runs first: ``[{"victim", "thief", "runs", "share"}]`` (share of
        the victim row's runs)."""
        out: list[dict[str, Any]] = []
        for a in self.skills:
            tot = self.row_total(a)
            for b in self.skills:
                n = self.cells[a][b]
                if b != a and n:
                    out.append({"victim": a, "thief": b, "runs": n, "share": round(n / tot, 4)})
        out.sort(key=lambda x: (-x["runs"], -x["share"], x["victim"], x["thief"]))
        return out[:top] if top is not None else out

    def to_json(self) -> dict[str, Any]:
        """``{"labels", "matrix" (rows in label order, each a list in label order), "errors",
        "per_skill", "steals", "model", "client", "mode", "unit": "runs"}``."""
        ps = {
            k: {
                **v,
                "precision": None if v["precision"] is None else round(v["precision"], 4),
                "recall": None if v["recall"] is None else round(v["recall"], 4),
            }
            for k, v in self.per_skill().items()
        }
        return {
            "labels": list(self.labels),
            "matrix": [[self.cells[r][c] for c in self.labels] for r in self.labels],
            "errors": dict(self.errors),
            "per_skill": ps,
            "steals": self.steals(None),
            "model": self.model,
            "client": self.client,
            "mode": self.mode,
            "unit": "runs",
        }

    def to_text(self, top: int = 10) -> str:
        """A plain-text table (rows = written for, columns = loaded; "." for 0), per-skill
        precision/recall and the top stealing pairs."""
        from workbench.core.evals.metrics import pct

        short = {lab: lab if len(lab) <= 12 else lab[:11] + "…" for lab in self.labels}
        w = max(6, *(len(v) for v in short.values()))
        cw = max(4, *(len(v) for v in short.values()))
        lines = [
            f"confusion matrix ({self.client}, {self.model}, {self.mode}; cells = runs; rows = "
            "written for, columns = loaded)"
        ]
        head = " " * (w + 1) + " ".join(short[c].rjust(cw) for c in self.labels) + "  errors"
        lines.append(head)
        for r in self.labels:
            vals = " ".join(
                (str(self.cells[r][c]) if self.cells[r][c] else ".").rjust(cw) for c in self.labels
            )
            lines.append(f"{short[r].ljust(w)} {vals}  {self.errors[r] or ''}")
        lines.append("")
        lines.append("per skill: precision / recall (runs)")
        for s, v in self.per_skill().items():
            lines.append(
                f"  {s}: precision {pct(v['precision'])}, recall {pct(v['recall'])} "
                f"({v['hits']}/{v['runs']} runs; loaded {v['loaded']}x; errors {v['errors']})"
            )
        st = self.steals(top)
        lines.append("top stealing pairs:" if st else "no skill stole another's queries")
        for x in st:
            lines.append(
                f"  {x['thief']} took {plural(x['runs'], 'run')} of {x['victim']}'s queries "
                f"({x['share'] * 100:.0f} % of them)"
            )
        return "\n".join(lines)

    def to_html(self, title: str = "Skill confusion matrix") -> str:
        """A self-contained HTML page (inline CSS, no script): the heat-map table (diagonal green,
        steals red, shade = share of the row's runs), per-skill precision/recall, top steals."""
        from workbench.core.evals.metrics import pct

        e = html.escape
        out = [
            "<!DOCTYPE html>",
            "<html><head><meta charset='utf-8'>",
            f"<title>{e(title)}</title>",
            "<style>body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
            "td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:right}"
            "th{background:#f6f8fa}th.r{text-align:left}</style></head><body>",
            f"<h2>{e(title)}</h2>",
            f"<p>{e(self.client)} · {e(self.model)} · {e(self.mode)} · cells = runs; rows = the skill "
            "a query was written for (none = should-not-trigger), columns = the skill loaded</p>",
            "<table><tr><th class='r'>written for \\ loaded</th>"
            + "".join(f"<th>{e(c)}</th>" for c in self.labels)
            + "<th>errors</th></tr>",
        ]
        for r in self.labels:
            tot = self.row_total(r)
            tds = []
            for c in self.labels:
                n = self.cells[r][c]
                tds.append(f"<td style='background:{cell_color(r, c, n, tot)}'>{n or ''}</td>")
            out.append(f"<tr><th class='r'>{e(r)}</th>{''.join(tds)}<td>{self.errors[r] or ''}</td></tr>")
        out.append(
            "</table><h3>Per skill</h3><table><tr><th class='r'>skill</th><th>precision</th>"
            "<th>recall</th><th>hits / runs</th><th>loaded</th><th>errors</th></tr>"
        )
        for s, v in self.per_skill().items():
            out.append(
                f"<tr><th class='r'>{e(s)}</th><td>{pct(v['precision'])}</td>"
                f"<td>{pct(v['recall'])}</td>"
                f"<td>{v['hits']}/{v['runs']}</td><td>{v['loaded']}</td><td>{v['errors']}</td></tr>"
            )
        out.append("</table><h3>Top stealing pairs</h3><ol>")
        for x in self.steals(10):
            out.append(
                f"<li><b>{e(x['thief'])}</b> took {plural(x['runs'], 'run')} of <b>{e(x['victim'])}</b>'s "
                f"queries ({x['share'] * 100:.0f} %)</li>"
            )
        out.append("</ol></body></html>")
        return "\n".join(out) + "\n"


def cell_color(row: str, col: str, n: int, row_total: int) -> str:
    """Background colour (``#rrggbb``) of a heat-map cell: white for 0; green shades on the
    diagonal (and none/none), red shades off it; the shade grows with ``n / row_total``."""
    if not n or not row_total:
        return "#ffffff"
    share = min(1.0, n / row_total)
    good = (46, 157, 74) if row == col else (207, 34, 46)
    mix = 0.15 + 0.75 * share
    r, g, b = (round(255 + (c - 255) * mix) for c in good)
    return f"#{r:02x}{g:02x}{b:02x}"
