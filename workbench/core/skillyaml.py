"""Untrusted YAML: PyYAML's C safe loader with limits (``load_yaml``), used for the frontmatter
and every YAML file a skill ships (``agents/openai.yaml``, ...). Re-exported by
``workbench.core.skillfile``."""

from __future__ import annotations

from typing import Any

import yaml

try:  # the C loader is 10x faster; the pure one gives the same results
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader

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
    loader = BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if "*" in text:
            check_yaml_size(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()
