"""Rewrite only the ``description`` value of a SKILL.md, keeping every other byte.

Used by ``WorkshopStore.propose_description_update`` (the description-improvement loop proposes
through it). The value span comes from ``workbench.core.skillfile`` (strict YAML positions); only
that span is replaced, so comments, key order, other values, the BOM and CRLF line endings stay
byte-for-byte.

Rendering of the new value (decision, where the spec is silent):

* the original scalar style is kept when it can carry the new text: plain stays plain, single-
  and double-quoted stay quoted, a block scalar (``>``/``|`` with its chomping indicator) stays a
  block scalar at the same indentation;
* otherwise (e.g. a plain value that would now contain ``: `` or start with ``[``) the value is
  written double-quoted (JSON string escaping, which is valid YAML);
* every result is re-parsed: the description must read back exactly as given (for clip-chomped
  block scalars, ``>``/``|`` without ``-``, plus the final newline YAML adds: the original value
  had it too, and clients strip it) and every other key must be unchanged; if
  not, the double-quoted form is used; if that fails too, ``ValueError``.
* no description key: ``description:`` is inserted after the ``name:`` line (else at the end of
  the frontmatter).
* frontmatter that strict YAML cannot parse (e.g. ``description: Use when: x``): the lenient line
  parser's span is used and the value written double-quoted, which often repairs the file; the
  other lines are untouched.
"""

from __future__ import annotations

import json

import yaml

from workbench.core.skillfile import Span, parse_skill_bytes, parse_skill_text


def _dq(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _plain_ok(s: str) -> bool:
    if not s or s != s.strip() or "\n" in s or "\r" in s:
        return False
    try:
        return bool(yaml.safe_load(f"k: {s}\n") == {"k": s})
    except yaml.YAMLError:
        return False


def _sq(s: str) -> str | None:
    if "\n" in s or "\r" in s:
        return None
    return "'" + s.replace("'", "''") + "'"


def _render(style: str | None, new: str, header: str, indent: str) -> str:
    if style == "":
        return new if _plain_ok(new) else _dq(new)
    if style == "'":
        return _sq(new) or _dq(new)
    if style in ("|", ">"):
        body = new.rstrip("\n")
        if not body.strip() or any(ln[:1] in (" ", "\t") for ln in body.split("\n")):
            return _dq(new)
        lines = body.split("\n")
        return header + "".join("\n" + (indent + ln if ln else "") for ln in lines)
    return _dq(new)


def _replace_span(lines: list[str], sp: Span, new_text: str) -> list[str]:
    """Replace a (line, column)-(end_line, end_column) span in lines (each without its newline
    but keeping a trailing '\\r' when the file is CRLF)."""
    first = lines[sp.line - 1]
    last = lines[sp.end_line - 1]
    cr = "\r" if last.endswith("\r") else ""
    last_body = last[:-1] if cr else last
    head = first[: sp.column - 1]
    tail = last_body[sp.end_column - 1 :]
    nl_cr = "\r" if first.endswith("\r") else ""
    new_lines = (head + new_text + tail).split("\n")
    new_lines = [ln + nl_cr for ln in new_lines[:-1]] + [new_lines[-1] + cr]
    return lines[: sp.line - 1] + new_lines + lines[sp.end_line :]


def replace_description(raw: bytes, new_description: str) -> bytes:
    """Return ``raw`` (SKILL.md bytes) with only the description value replaced.

    Args:
        raw: the current file bytes (BOM and CRLF are kept).
        new_description: the new description text (a str; multi-line allowed).

    Raises:
        ValueError: the file has no frontmatter block, or the edit cannot be verified (message says
            why; the caller turns it into a ``ProposalError``).
    """
    sf = parse_skill_bytes(raw)
    if sf.state in ("unreadable", "too-large", "binary"):
        raise ValueError(f"cannot edit the description: {sf.message}")
    if not sf.has_frontmatter_block:
        raise ValueError(f"cannot edit the description: {sf.message or 'no frontmatter block'}")
    bom = "\ufeff" if sf.has_bom else ""
    lines = sf.text.split("\n")
    nl = sf.newline
    candidates: list[str] = []
    if sf.state == "ok" and "description" in sf.fields:
        fi = sf.fields["description"]
        sp = fi.value_span
        header, indent = "", "  "
        if fi.style in ("|", ">"):
            first = lines[sp.line - 1].rstrip("\r")
            header = first[sp.column - 1 :].split("#")[0].strip() or fi.style
            if sp.end_line > sp.line:
                nxt = lines[sp.line].rstrip("\r")
                indent = nxt[: len(nxt) - len(nxt.lstrip(" "))] or "  "
            # a block scalar's span starts at the indicator: replace through its last content line
        for rendered in dict.fromkeys(
            [_render(fi.style, new_description, header, indent), _dq(new_description)]
        ):
            candidates.append("\n".join(_replace_span(list(lines), sp, rendered)))
        expected_other = {k: v for k, v in (sf.data or {}).items() if k != "description"}
    elif sf.state == "ok":
        key_line = sf.fields["name"].value_span.end_line if "name" in sf.fields else (sf.close_line or 2) - 1
        ins = "description: " + (new_description if _plain_ok(new_description) else _dq(new_description))
        cr = "\r" if nl == "\r\n" else ""
        text = "\n".join(lines[:key_line] + [ins + cr] + lines[key_line:])
        candidates.append(text)
        expected_other = dict(sf.data or {})
    else:
        lf = sf.line_fields().get("description")
        if lf is None:
            raise ValueError(f"cannot edit the description: {sf.message}")
        text = "\n".join(_replace_span(list(lines), lf.value_span, _dq(new_description)))
        candidates.append(text)
        expected_other = None
    for text in candidates:
        out = parse_skill_text(bom + text)
        if out.state == "ok":
            data = out.data or {}
            got = data.get("description")
            if isinstance(got, str) and (
                got == new_description
                or got == new_description.rstrip("\n") + "\n"
                and not new_description.endswith("\n")
            ):
                others = {k: v for k, v in data.items() if k != "description"}
                if expected_other is None or others == expected_other:
                    return (bom + text).encode("utf-8")
        elif expected_other is None:
            lf2 = out.line_fields().get("description")
            if lf2 is not None and lf2.value == _dq(new_description)[1:-1]:
                return (bom + text).encode("utf-8")
    raise ValueError(
        "cannot rewrite the description without changing other frontmatter; edit the file by hand"
    )
