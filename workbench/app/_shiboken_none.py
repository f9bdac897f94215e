"""Work around a None reference-count bug of PySide6/shiboken6 6.12 on Python < 3.12.

Found while benchmarking the editor (PySide6-Essentials 6.12.0, abi3 wheel, CPython 3.11.7):
every call of a *void* Qt method from Python (``QWidget.hide()``, ``QTreeWidgetItem.setData``,
``QTextCharFormat.setToolTip``, ...) drops one reference to ``None`` without having taken it.
Python 3.12+ does not care (``None`` is immortal there, PEP 683), but on 3.11 the count reaches
zero after some thousands of calls and the process aborts with "Fatal Python error:
none_dealloc: deallocating None". PySide6 6.11.3 on the same Python does not do this
(reproducer: call ``QWidget().setWindowTitle("x")`` 100 times and watch
``sys.getrefcount(None)`` fall by 100).

``apply()`` gives ``None`` a huge extra reference count (2**40), i.e. makes it effectively
immortal the way 3.12 does, only when running on Python < 3.12 with shiboken6 >= 6.12. It is
idempotent and touches nothing else. The real fix is a dependency pin
(``PySide6-Essentials!=6.12.*`` on Python < 3.12) or Python >= 3.12; see the editor report.
"""

from __future__ import annotations

import ctypes
import sys
from importlib import metadata

_BOOST = 1 << 40


def affected() -> bool:
    """True on Python < 3.12 with shiboken6 6.12 or later (fixed release unknown: unverified)."""
    if sys.version_info >= (3, 12):
        return False
    try:
        version = metadata.version("shiboken6")
    except metadata.PackageNotFoundError:
        return False
    try:
        major, minor = (int(x) for x in version.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (6, 12)


def apply() -> bool:
    """Make ``None`` effectively immortal when ``affected()``; True if the boost is in place."""
    if not affected():
        return False
    ref = ctypes.c_ssize_t.from_address(id(None))
    if ref.value < _BOOST:
        ref.value += _BOOST
    return True
