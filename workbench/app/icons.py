"""Icons and colours: the app icon (``workbench/resources/icons``), status and level icons drawn
with QPainter, and the colour table ``workbench/resources/theme.json``.

Status icons differ in colour *and* shape (so they stay distinct for colour-blind users and in
greyscale screenshots): listed = filled circle, shadowed = square, hidden = ring, gated =
triangle, conditional = diamond, skipped = cross. ``STATUS_LEGEND`` gives the tooltip text.

Resources are package data (``workbench.core.demo.resources_dir``, importlib.resources): the same
folder in a checkout, an installed wheel and the PyInstaller bundle.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

from workbench.core.demo import resources_dir

#: PNG sizes rendered from the SVG app icon (pixels).
APP_ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)

_FALLBACK_THEME: dict[str, Any] = {
    "status": {
        "listed": {"color": "#2e9d4a", "shape": "circle", "label": "listed"},
        "shadowed": {"color": "#8a63d2", "shape": "square", "label": "shadowed"},
        "hidden": {"color": "#7d8590", "shape": "ring", "label": "hidden"},
        "gated": {"color": "#d97a00", "shape": "triangle", "label": "gated"},
        "conditional": {"color": "#2f81f7", "shape": "diamond", "label": "conditional"},
        "skipped": {"color": "#cf222e", "shape": "cross", "label": "skipped"},
    },
    "level": {"ok": "#2e9d4a", "info": "#2f81f7", "warning": "#d97a00", "error": "#cf222e"},
    "listing": {
        "highlight_bg": "#fff3b0",
        "loaded_bg": "#d8f5d0",
        "budget_ok": "#2e9d4a",
        "budget_over": "#cf222e",
        "truncated": "#d97a00",
        "omitted": "#cf222e",
        "name_only": "#8a63d2",
    },
    "unverified": "#b08800",
    "banner_bg": "#fff8c5",
}


@lru_cache(maxsize=1)
def theme() -> dict[str, Any]:
    """``<resources>/theme.json`` merged over built-in defaults (a broken file never crashes)."""
    out = json.loads(json.dumps(_FALLBACK_THEME))
    try:
        data = json.loads((resources_dir() / "theme.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return out
    if isinstance(data, dict):
        for k, v in data.items():
            if isinstance(v, dict) and isinstance(out.get(k), dict):
                out[k].update(v)
            else:
                out[k] = v
    return out


def status_color(status: str) -> QColor:
    return QColor(theme()["status"].get(status, {}).get("color", "#7d8590"))


def level_color(level: str) -> QColor:
    return QColor(theme()["level"].get(level, "#7d8590"))


def color(*keys: str) -> QColor:
    """A colour from the theme by path, e.g. ``color("listing", "highlight_bg")``."""
    node: Any = theme()
    for k in keys:
        node = node.get(k, {}) if isinstance(node, dict) else {}
    return QColor(node if isinstance(node, str) else "#000000")


def status_legend() -> list[tuple[str, str]]:
    """(status, explanation) rows for the legend/tooltip, in ``STATUSES`` order."""
    from workbench.core.model import STATUSES

    return [(s, theme()["status"].get(s, {}).get("label", s)) for s in STATUSES]


def status_legend_html() -> str:
    """The skills tree's legend line: each status's glyph in its colour, then "(?) unverified"."""
    glyphs = {"circle": "●", "square": "■", "ring": "○", "triangle": "▲", "diamond": "◆", "cross": "✖"}
    parts = []
    for s, _t in status_legend():
        shape = theme()["status"].get(s, {}).get("shape", "")
        parts.append(f"<span style='color:{status_color(s).name()}'>{glyphs.get(shape, '●')}</span>&nbsp;{s}")
    return "<small>" + " &nbsp;".join(parts) + " &nbsp;(?)&nbsp;unverified</small>"


def _draw_shape(p: QPainter, shape: str, c: QColor, r: QRectF) -> None:
    pen = QPen(c.darker(130), max(1.0, r.width() / 10))
    p.setPen(pen)
    p.setBrush(c)
    cx, cy = r.center().x(), r.center().y()
    w, h = r.width(), r.height()
    if shape == "circle":
        p.drawEllipse(r)
    elif shape == "square":
        p.drawRect(r.adjusted(w * 0.05, h * 0.05, -w * 0.05, -h * 0.05))
    elif shape == "ring":
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(QPen(c, max(1.5, w / 5)))
        p.drawEllipse(r.adjusted(w * 0.1, h * 0.1, -w * 0.1, -h * 0.1))
    elif shape == "triangle":
        p.drawPolygon(
            QPolygonF([QPointF(cx, r.top()), QPointF(r.right(), r.bottom()), QPointF(r.left(), r.bottom())])
        )
    elif shape == "diamond":
        p.drawPolygon(
            QPolygonF(
                [QPointF(cx, r.top()), QPointF(r.right(), cy), QPointF(cx, r.bottom()), QPointF(r.left(), cy)]
            )
        )
    elif shape == "cross":
        p.setPen(QPen(c, max(2.0, w / 4), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        p.drawLine(r.topLeft(), r.bottomRight())
        p.drawLine(r.topRight(), r.bottomLeft())
    else:
        p.drawEllipse(r)


def _pixmap(size: int, draw) -> QPixmap:
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    draw(p, QRectF(size * 0.15, size * 0.15, size * 0.7, size * 0.7))
    p.end()
    return pm


_icon_cache: dict[tuple, QIcon] = {}


def status_icon(status: str, unverified: bool = False) -> QIcon:
    """The icon of a discovery status; ``unverified`` adds a small amber dot (top right)."""
    key = ("status", status, unverified)
    if key not in _icon_cache:
        spec = theme()["status"].get(status, {})
        icon = QIcon()
        for size in (16, 24, 32):

            def draw(p: QPainter, r: QRectF, spec=spec, size=size) -> None:
                _draw_shape(p, spec.get("shape", "circle"), QColor(spec.get("color", "#7d8590")), r)
                if unverified:
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(color("unverified"))
                    d = size * 0.36
                    p.drawEllipse(QRectF(size - d, 0, d, d))

            icon.addPixmap(_pixmap(size, draw))
        _icon_cache[key] = icon
    return _icon_cache[key]


_LEVEL_SHAPES = {"ok": "circle", "info": "diamond", "warning": "triangle", "error": "cross"}


def level_icon(level: str) -> QIcon:
    """Icon of an explain finding level: ok (circle), info (diamond), warning (triangle),
    error (cross). Unknown levels get a grey circle."""
    key = ("level", level)
    if key not in _icon_cache:
        icon = QIcon()
        for size in (16, 24, 32):
            icon.addPixmap(
                _pixmap(
                    size,
                    lambda p, r: _draw_shape(p, _LEVEL_SHAPES.get(level, "circle"), level_color(level), r),
                )
            )
        _icon_cache[key] = icon
    return _icon_cache[key]


def root_icon(exists: bool) -> QIcon:
    """A folder-ish icon for a root row: solid when the folder exists, outlined when not."""
    key = ("root", exists)
    if key not in _icon_cache:

        def draw(p: QPainter, r: QRectF) -> None:
            c = QColor("#54aeff") if exists else QColor("#afb8c1")
            path = QPainterPath()
            path.addRoundedRect(r.adjusted(0, r.height() * 0.2, 0, 0), 2, 2)
            p.setPen(QPen(c.darker(140), 1))
            p.setBrush(c if exists else Qt.BrushStyle.NoBrush)
            p.drawPath(path)
            p.drawRect(QRectF(r.left(), r.top() + r.height() * 0.08, r.width() * 0.4, r.height() * 0.15))

        icon = QIcon()
        for size in (16, 24, 32):
            icon.addPixmap(_pixmap(size, draw))
        _icon_cache[key] = icon
    return _icon_cache[key]


def app_icon() -> QIcon:
    """The application icon from ``<resources>/icons/workbench-<size>.png`` (or the SVG)."""
    key = ("app",)
    if key not in _icon_cache:
        icon = QIcon()
        d = resources_dir() / "icons"
        for size in APP_ICON_SIZES:
            png = d / f"workbench-{size}.png"
            if png.is_file():
                icon.addFile(str(png))
        if icon.isNull() and (d / "workbench.svg").is_file():
            icon = QIcon(str(d / "workbench.svg"))
        _icon_cache[key] = icon
    return _icon_cache[key]


def png_bytes(image: Any) -> bytes:
    """A ``QImage``/``QPixmap`` encoded as PNG bytes (for ``safefile.atomic_write``)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    buf.close()
    return bytes(ba.data())


def render_app_icon_pngs(out_dir: Path | None = None) -> list[Path]:
    """Render ``workbench.svg`` to ``workbench-<size>.png`` for every ``APP_ICON_SIZES`` entry
    (QtSvg's QSvgRenderer; needs a QGuiApplication). Returns the written paths."""
    from PySide6.QtGui import QImage
    from PySide6.QtSvg import QSvgRenderer

    from workbench.core.safefile import atomic_write

    d = out_dir or (resources_dir() / "icons")
    renderer = QSvgRenderer(str(resources_dir() / "icons" / "workbench.svg"))
    out = []
    for size in APP_ICON_SIZES:
        img = QImage(size, size, QImage.Format.Format_ARGB32)
        img.fill(Qt.GlobalColor.transparent)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(p)
        p.end()
        path = d / f"workbench-{size}.png"
        atomic_write(path, png_bytes(img))
        out.append(path)
    return out


_brushes: dict[tuple[str, ...], QBrush] = {}


def brush(kind: str, *keys: str) -> QBrush:
    """One shared ``QBrush`` per colour: ``("status", STATUS)`` (``status_color``), ``("color",
    *theme keys)`` (``color``) or ``("hex", "#rrggbb")``. Views ask a model for brushes on every
    paint: one object each instead of a new one per cell."""
    key = (kind, *keys)
    b = _brushes.get(key)
    if b is None:
        c = (
            status_color(keys[0])
            if kind == "status"
            else color(*keys)
            if kind == "color"
            else QColor(keys[0])
        )
        b = _brushes[key] = QBrush(c)
    return b


#: Listing state -> theme key of its colour (``theme.json`` "listing"); a state not here
#: ("full") takes the status colour.
_STATE_COLOR = {"truncated": "truncated", "omitted": "omitted", "name-only": "name_only"}


def state_brush(state: str | None) -> QBrush | None:
    """The shared brush of a listing state (``listingkit.ListingState``: truncated amber,
    omitted red, name-only purple), or None for "full", None and any other value: the one
    colouring of the listing table's State column and the skills tree's Status column."""
    key = _STATE_COLOR.get(state) if state else None
    return None if key is None else brush("color", "listing", key)


def warm_tree_icons() -> None:
    """Make now what the skills tree draws with: every status icon (with and without the
    unverified dot), both root icons and the status brushes (issue 14: made at first use, ~10 ms
    of QPainter work landed in the first scan result's turn, the window's longest block; the
    window calls this on an idle turn before the result comes)."""
    from workbench.core.model import STATUSES

    for s in STATUSES:
        status_icon(s, False)
        status_icon(s, True)
        brush("status", s)
    root_icon(True)
    root_icon(False)
