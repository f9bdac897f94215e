"""BODY012 dead-link: external links in SKILL.md bodies that do not answer (opt-in: ``workbench
lint --check-links``; never part of a default lint, never cached).

Source: skill-validator ``validate links`` (validators.md H4): a HEAD request, a GET when HEAD
answers 404 or 405 (servers that do not implement HEAD), 10 s timeout, 403 reported as info, RFC
6570 URI templates (``https://api.example.com/users/{id}``) skipped. Decisions: the links are the
body's inline Markdown links outside code (``LintContext.links``) with an ``http``/``https``
target; each distinct URL is requested once per run, ``MAX_WORKERS`` at a time (threads: the
work is waiting on the network); redirects are followed (by urllib, with a GET). Severities: an HTTP status of 400 or
more is an error (as skill-validator), 403 and 429 (a bot wall or rate limit: the page may well
exist) an info, and no answer at all (DNS failure, refused, timeout) a warning, since the
network of the machine running the lint may be at fault.

Not a registered rule (``lint.RULES``): it needs the network, so the linter never runs it on
its own, and its results are not stored in the result cache.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from workbench import __version__
from workbench.core.lint.context import LintContext
from workbench.core.lint.profiles import lint_profile
from workbench.core.lint.types import ERROR, INFO, WARNING, Diagnostic
from workbench.core.skillfile import Span, read_skill_file

log = logging.getLogger(__name__)

CODE = "BODY012"
RULE = "dead-link"
#: Seconds to wait for one request (skill-validator: 10 s).
TIMEOUT = 10.0
#: Requests in flight at once.
MAX_WORKERS = 8
_SOFT = frozenset({403, 429})


@dataclass(frozen=True)
class LinkStatus:
    """What one URL answered: ``status`` (the final HTTP status, None without an answer) and
    ``error`` (why there was no answer, else None)."""

    url: str
    status: int | None
    error: str | None = None


def is_checked(url: str) -> bool:
    """True for an ``http``/``https`` URL that is not an RFC 6570 template (no ``{``)."""
    low = url[:8].lower()
    return (low.startswith("http://") or low.startswith("https://")) and "{" not in url


def external_links(ctx: LintContext) -> list[tuple[str, Span]]:
    """``[(url, span of the link target)]`` of the body's inline links that ``is_checked``."""
    return [(t, ctx.span(s, e)) for t, s, e in ctx.links if is_checked(t)]


def _request(url: str, method: str, timeout: float) -> int:
    req = urllib.request.Request(url, method=method, headers={"User-Agent": f"skill-workbench/{__version__}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - http(s) only (is_checked)
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return int(exc.code)


def probe(url: str, timeout: float = TIMEOUT) -> LinkStatus:
    """HEAD ``url`` (GET when HEAD answers 404 or 405), following redirects. Never raises:
    a network failure is ``LinkStatus(url, None, reason)``."""
    try:
        status = _request(url, "HEAD", timeout)
        if status in (404, 405):
            status = _request(url, "GET", timeout)
        return LinkStatus(url, status)
    except TimeoutError:
        return LinkStatus(url, None, f"no answer within {timeout:g} s")
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            return LinkStatus(url, None, f"no answer within {timeout:g} s")
        return LinkStatus(url, None, str(reason))
    except (OSError, ValueError) as exc:  # a malformed URL, a reset connection
        log.debug("link check of %s failed", url, exc_info=True)
        return LinkStatus(url, None, str(exc) or type(exc).__name__)


def check_urls(
    urls: Iterable[str],
    timeout: float = TIMEOUT,
    workers: int = MAX_WORKERS,
    probe_fn: Callable[[str, float], LinkStatus] = probe,
) -> dict[str, LinkStatus]:
    """``{url: LinkStatus}`` for each distinct URL, ``workers`` requests at a time."""
    todo = list(dict.fromkeys(urls))
    if not todo:
        return {}
    with ThreadPoolExecutor(
        max_workers=max(1, min(workers, len(todo))), thread_name_prefix="linkcheck"
    ) as ex:
        return dict(zip(todo, ex.map(lambda u: probe_fn(u, timeout), todo)))


def finding(url: str, st: LinkStatus) -> tuple[str, str] | None:
    """``(severity, message)`` for a link's status, or None when it answered below 400."""
    if st.status is None:
        return WARNING, f"{url} could not be reached ({st.error}); check the link"
    if st.status < 400:
        return None
    if st.status in _SOFT:
        return INFO, f"{url} answers HTTP {st.status} to the link checker; check it in a browser"
    return ERROR, f"{url} is dead (HTTP {st.status}); fix or remove the link"


def link_diagnostics(
    paths: Iterable[Path],
    timeout: float = TIMEOUT,
    workers: int = MAX_WORKERS,
    probe_fn: Callable[[str, float], LinkStatus] = probe,
) -> dict[Path, list[Diagnostic]]:
    """BODY012 diagnostics per SKILL.md path (only paths with findings are keys): each file is
    read again, its checked links collected, every distinct URL requested once."""
    prof = lint_profile("agentskills")
    per_file: list[tuple[Path, list[tuple[str, Span]]]] = []
    for p in paths:
        sf = read_skill_file(p)
        if sf.state == "unreadable" or not sf.text:
            continue
        links = external_links(LintContext(sf, prof))
        if links:
            per_file.append((p, links))
    status = check_urls((u for _p, links in per_file for u, _s in links), timeout, workers, probe_fn)
    out: dict[Path, list[Diagnostic]] = {}
    for p, links in per_file:
        for url, sp in links:
            got = finding(url, status[url])
            if got is not None:
                d = Diagnostic(
                    sp.line, sp.column, sp.end_line, sp.end_column, got[0], CODE, got[1], rule=RULE
                )
                out.setdefault(p, []).append(d)
    return out


def with_link_diagnostics(
    results: Mapping[Path, Sequence[Diagnostic]], **kwargs: object
) -> dict[Path, Sequence[Diagnostic]]:
    """``results`` (``lint_paths``' answer) with the BODY012 diagnostics of its SKILL.md files
    merged into each file's list, in the linter's order (``Diagnostic.sort_key``); files without
    dead links keep their list object. ``kwargs`` go to ``link_diagnostics``."""
    files = [p for p in results if p.name.lower() == "skill.md"]
    extra = link_diagnostics(files, **kwargs)  # type: ignore[arg-type]
    return {
        p: sorted([*ds, *extra[p]], key=lambda d: d.sort_key) if p in extra else ds
        for p, ds in results.items()
    }
