"""Rendered preview of a SKILL.md: a properties table of the frontmatter above the body.

The body is rendered with markdown-it-py (CommonMark + tables + strikethrough, raw HTML **off**:
a skill body is not trusted content) into a ``QTextBrowser``. Nothing is fetched from the
network: ``SkillPreview.loadResource`` refuses every URL that is not a local file inside the
skill's folder (so ``![x](https://…)`` and ``../../secret.png`` both stay blank). Links are not
followed inside the preview; clicking one emits ``link_activated(QUrl)``.

The frontmatter table shows the strict YAML values (``workbench.core.skillfile``); when the YAML
does not parse, the table shows the reader's message instead.
"""

from __future__ import annotations

import html
import logging
import os
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from workbench.core.skillfile import parse_skill_text

log = logging.getLogger(__name__)

_md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

_CSS = """
table.fm { border-collapse: collapse; margin-bottom: 8px; }
table.fm td { padding: 2px 8px; border: 1px solid #d0d7de; vertical-align: top; }
td.k { font-weight: bold; color: #0550ae; background: #f6f8fa; }
div.err { color: #cf222e; }
code, pre { font-family: monospace; background: #f6f8fa; }
pre { white-space: pre-wrap; }
"""


def _value_html(v: Any) -> str:
    if isinstance(v, str):
        return html.escape(v).replace("\n", "<br>")
    if isinstance(v, (dict, list)):
        dumped = yaml.safe_dump(v, default_flow_style=False, allow_unicode=True, sort_keys=False)
        return f"<pre>{html.escape(dumped.rstrip())}</pre>"
    if v is None:
        return "<i>null</i>"
    if isinstance(v, bool):
        return "true" if v else "false"
    return html.escape(str(v))


def render_html(text: str) -> str:
    """HTML for a whole SKILL.md text: frontmatter table (or the parse message) + the body."""
    sf = parse_skill_text(text)
    parts = [f"<style>{_CSS}</style>"]
    if sf.state == "ok" and sf.data is not None:
        rows = "".join(
            f"<tr><td class='k'>{html.escape(k)}</td><td>{_value_html(v)}</td></tr>"
            for k, v in sf.data.items()
        )
        parts.append(f"<table class='fm'>{rows}</table>")
    elif sf.state != "no-frontmatter" or sf.message:
        parts.append(f"<div class='err'>Frontmatter: {html.escape(sf.message or sf.state)}</div>")
    body = sf.body if sf.has_frontmatter_block else sf.text
    try:
        parts.append(_md.render(body))
    except Exception as exc:  # noqa: BLE001 - a preview must never take the editor down
        log.warning("markdown render failed", exc_info=exc)
        parts.append(f"<div class='err'>cannot render: {html.escape(str(exc))}</div>")
    return "\n".join(parts)


class SkillPreview(QTextBrowser):
    """Read-only rendered view of a SKILL.md; no remote loading.

    Signals:
        link_activated(QUrl): the user clicked a link (not followed in the preview).
    """

    link_activated = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self.link_activated)
        self.skill_dir: Path | None = None
        self.refused: list[str] = []  # URLs refused by loadResource (for tests and a status line)

    def set_skill_text(self, text: str, skill_dir: Path | None) -> None:
        """Render ``text`` here and now (synchronous: the pane renders in a worker and calls
        ``set_html``). Relative images resolve inside ``skill_dir``."""
        self.set_html(render_html(text), skill_dir)

    def set_html(self, html_text: str, skill_dir: Path | None) -> None:
        """Show HTML from ``render_html``, keeping the scroll position."""
        self.skill_dir = Path(skill_dir).resolve() if skill_dir else None
        if self.skill_dir is not None:
            self.document().setBaseUrl(QUrl.fromLocalFile(str(self.skill_dir) + os.sep))
        bar = self.verticalScrollBar()
        y = bar.value()
        self.setHtml(html_text)
        bar.setValue(y)

    def allowed_path(self, url: QUrl) -> Path | None:
        """The local file ``url`` names if it lies inside the skill folder, else None."""
        if self.skill_dir is None:
            return None
        if url.scheme() not in ("", "file"):
            return None
        if url.isRelative():
            target = self.skill_dir / url.path()
        else:
            target = Path(url.toLocalFile())
        try:
            target = target.resolve()
        except OSError as exc:  # a loop or an unreadable folder: the resource is not shown
            log.debug("preview resource %s not resolved: %s", target, exc)
            return None
        if target != self.skill_dir and self.skill_dir not in target.parents:
            return None
        return target if target.is_file() else None

    # Override QTextBrowser::loadResource
    def loadResource(self, rtype: int, url: QUrl | str) -> Any:  # noqa: N802
        if isinstance(url, str):  # Qt passes a QUrl; the signature also allows a str
            url = QUrl(url)
        path = self.allowed_path(url)
        if path is None:
            self.refused.append(url.toString())
            return None
        if (
            rtype == QTextDocument.ResourceType.ImageResource.value
            or rtype == QTextDocument.ResourceType.ImageResource
        ):
            img = QImage(str(path))
            return img if not img.isNull() else None
        try:
            return path.read_bytes()
        except OSError as exc:  # gone or unreadable meanwhile: shown as missing
            log.debug("preview resource %s not read: %s", path, exc)
            return None
