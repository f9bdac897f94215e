"""Untrusted YAML: PyYAML's C safe loader with limits (``load_yaml``), used for the frontmatter
and every YAML file a skill ships (``agents/openai.yaml``, ...). Re-exported by
``workbench.core.skillfile``."""

from __future__ import annotations

import logging
import operator
from typing import Any

import yaml

try:  # the C loader is 10x faster; the pure one gives the same results
    from yaml import CSafeLoader as _Loader
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader

    _CParser = None

log = logging.getLogger(__name__)

#: YAML limits for untrusted text (``load_yaml``, the frontmatter): an alias bomb (``&a [*b, *b]``
#: nested) is a few hundred bytes that expand to billions of nodes in any consumer that walks the
#: data, and Python refuses ``str()`` of an int over 4,300 digits. Counted on the composed node
#: graph, before any object is built.
MAX_YAML_NODES = 100_000
MAX_YAML_INT_DIGITS = 4_000


class YamlLimitError(yaml.MarkedYAMLError):  # type: ignore[misc]
    """The YAML is valid but over ``MAX_YAML_NODES`` (alias expansion, or an alias to the node
    that contains it) or holds an int over ``MAX_YAML_INT_DIGITS`` digits. Positioned like any
    ``MarkedYAMLError`` (``problem_mark``: the offending alias or scalar)."""


class BoundedLoader(_Loader):  # type: ignore[misc]
    """The fast (C) safe loader with ``MAX_YAML_INT_DIGITS`` enforced on int scalars."""

    def construct_yaml_int(self, node: Any) -> int:
        v = node.value.lstrip("+-").lower()
        digits = sum(1 for c in v if c.isalnum()) - (2 if v[:2] in ("0x", "0o", "0b") else 0)
        if digits > MAX_YAML_INT_DIGITS:
            raise YamlLimitError(
                None,
                None,
                f"an integer of {digits:,} digits is too long (limit "
                f"{MAX_YAML_INT_DIGITS:,}); quote it to make it text",
                node.start_mark,
            )
        value: int = super().construct_yaml_int(node)
        return value


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_yaml_int)

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_Scalar, _Seq, _Map = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
#: first character of a plain scalar -> the implicit resolvers to try, in PyYAML's order (the
#: resolvers of that character, then the wildcard ones); a character absent = a str at once.
_IMPLICIT: dict[str, tuple[tuple[str, Any], ...]] = {}
_wild = tuple(BoundedLoader.yaml_implicit_resolvers.get(None, ()))
for _ch, _rs in BoundedLoader.yaml_implicit_resolvers.items():
    if _ch is not None:
        _IMPLICIT[_ch] = tuple(_rs) + _wild


def resolve_tag(kind: Any, value: str | None, implicit: Any) -> str:
    """PyYAML's ``BaseResolver.resolve`` for a loader without path resolvers, minus its Python
    overhead (the C composer calls it once per node): a plain scalar tries only the implicit
    resolvers of its first character; every other node gets its kind's default tag."""
    if kind is _Scalar:
        if implicit[0]:
            for tag, regexp in _IMPLICIT.get(value[:1], _wild):  # type: ignore[index]
                if regexp.match(value):
                    return tag  # type: ignore[no-any-return]
        return _STR
    return _SEQ if kind is _Seq else _MAP


def _resolve(self: Any, kind: Any, value: str, implicit: tuple[bool, bool]) -> str:
    return resolve_tag(kind, value, implicit)


def _no_op(*_args: Any) -> None:
    return None


_FAST_RESOLVE = not _wild and not BoundedLoader.yaml_path_resolvers  # what PyYAML's safe loader has
if _FAST_RESOLVE:
    BoundedLoader.resolve = _resolve
    BoundedLoader.descend_resolver = _no_op
    BoundedLoader.ascend_resolver = _no_op

_Composer: Any = BoundedLoader
if _FAST_RESOLVE and _CParser is not None:  # the C parser is there

    class _CComposer(_CParser):  # type: ignore[misc]
        """The C parser alone (no constructor or resolver state to set up per document), with
        ``resolve_tag`` and no-op path resolution as C callables where possible: the composer
        calls ``descend_resolver(parent, index)`` and ``ascend_resolver()`` once per node
        (``operator.is_`` and ``tuple`` ignore what they are given, in C)."""

        __slots__ = ()  # no instance dict to make per document
        resolve = staticmethod(resolve_tag)
        descend_resolver = operator.is_
        ascend_resolver = tuple

    _Composer = _CComposer


def compose(text: str) -> Any:
    """The composed node of one YAML document (None when empty), tags resolved as PyYAML's safe
    loader resolves them; no value is constructed (``construct_plain``). Raises ``yaml.YAMLError``."""
    c = _Composer(text)
    try:
        return c.get_single_node()
    finally:
        c.dispose()


def constructor() -> Any:
    """A fresh constructor (a ``BoundedLoader`` over no text) for ``construct_document`` /
    ``construct_object`` of composed nodes: PyYAML's way, with our limits."""
    return BoundedLoader("")


#: Constructors of scalar tags that keep no state on the constructor (so one shared instance
#: serves every thread): what ``construct_object`` calls for a scalar of that tag.
_SCALAR_TAGS = (
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
)
_SCALAR_CTORS: dict[str, Any] = {t: BoundedLoader.yaml_constructors[t] for t in _SCALAR_TAGS}
_SHARED = BoundedLoader("")


class _NotPlain(Exception):
    """A node ``construct_plain`` leaves to PyYAML's ``construct_document``."""


def construct_plain(node: Any, may_alias: bool = True, ctor: Any = None) -> Any:
    """``constructor().construct_document(node)``, equal value for value, faster for the usual
    frontmatter: str scalars are their text, maps of str keys (default tag) become dicts and
    lists (default tag) lists without PyYAML's generator dispatch per node; null, bool, int,
    float and timestamp scalars go through PyYAML's own constructor of their tag (same values,
    same errors). Any other shape (merge keys, tags, complex keys), a failure (re-done PyYAML's
    way for its error: it constructs breadth first, another value may fail first, and
    iteratively, no recursion limit) or ``may_alias`` (the text has a ``*``: an alias shares one
    object between places, which only PyYAML's memo reproduces) uses ``construct_document`` of
    ``ctor`` (a fresh ``constructor()`` when None). Raises what ``construct_document`` raises."""
    if not may_alias:
        try:
            return _build(node)
        except _NotPlain:
            pass
        except Exception:  # noqa: BLE001 - PyYAML's way gives the error: it constructs breadth
            # first (another value may fail first) and iteratively (no recursion limit)
            log.debug("fast YAML construction failed; constructing PyYAML's way", exc_info=True)
    return (ctor or constructor()).construct_document(node)


def _build(node: Any) -> Any:
    t = type(node)
    if t is _Scalar:
        tag = node.tag
        if tag == _STR:
            return node.value
        make = _SCALAR_CTORS.get(tag)
        if make is None:
            raise _NotPlain
        return make(_SHARED, node)
    if t is _Seq:
        if node.tag != _SEQ:
            raise _NotPlain
        return [_build(x) for x in node.value]
    if t is not _Map or node.tag != _MAP:
        raise _NotPlain
    out: dict[str, Any] = {}
    for k, v in node.value:
        if type(k) is not _Scalar or k.tag != _STR:
            raise _NotPlain  # a merge key ("<<"), "=", a non-str or complex key: PyYAML's way
        out[k.value] = v.value if type(v) is _Scalar and v.tag == _STR else _build(v)
    return out


def check_yaml_size(node: Any, limit: int = MAX_YAML_NODES) -> None:
    """Raise ``YamlLimitError`` when the composed YAML ``node`` expands (aliases followed) to more
    than ``limit`` nodes, or an alias refers to a node that contains it (the data would be
    infinite for any consumer that walks it). Linear in the size of the node graph (each node's
    expanded size is computed once); iterative (no recursion limit).
    """
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        key = id(n)
        if done:
            on_path.discard(key)
            kids = _children(n)
            size[key] = min(limit + 1, 1 + sum(size[id(k)] for k in kids))
            if size[key] > limit:
                raise YamlLimitError(
                    None,
                    None,
                    f"the YAML expands to more than {limit:,} values through "
                    "aliases (*name); write the values out",
                    n.start_mark,
                )
            continue
        if key in size:
            continue
        if key in on_path:
            raise YamlLimitError(
                None,
                None,
                "a YAML alias refers to the value that contains it (an infinitely nested value)",
                n.start_mark,
            )
        on_path.add(key)
        stack.append((n, True))
        stack.extend((k, False) for k in _children(n) if id(k) not in size)


def _children(n: Any) -> list[Any]:
    if isinstance(n, yaml.MappingNode):
        return [x for kv in n.value for x in kv]
    return n.value if isinstance(n, yaml.SequenceNode) else []


def load_yaml(text: str) -> Any:
    """Parse one YAML document of untrusted text with the fast safe loader and the limits above.

    Returns the data (None for an empty document). Raises ``yaml.YAMLError`` (``YamlLimitError``
    for the limits), ``ValueError``/``TypeError`` for values PyYAML cannot construct.
    """
    node = compose(text)
    if node is None:
        return None
    alias = "*" in text
    if alias:
        check_yaml_size(node)
    return construct_plain(node, alias)
