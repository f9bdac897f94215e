"""The SKILL.md editor pane (Qt). Public entry point: ``EditorPane``.

Modules: ``pane`` (EditorPane), ``codeeditor`` (text widget, quick fixes, hover), ``highlighter``
(syntax only), ``diagnostics`` (decoration layers, cursor-pinned diagnostics), ``gutter``,
``problems``, ``preview`` (markdown-it-py, no remote loading), ``findbar``, ``conflict`` (changed
on disk prompt + diff), ``recoverydialog``, ``lintbridge`` (the lint engine), ``theme``.
"""

from workbench.app import _shiboken_none

_shiboken_none.apply()  # PySide6 6.12 on Python 3.11 drops None references: see that module

from workbench.app.editor.pane import EditorPane  # noqa: E402

__all__ = ["EditorPane"]
