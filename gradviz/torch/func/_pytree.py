"""Python containers as trees of tensors, the way torch.utils._pytree sees them.

torch.func takes and returns nested tuples, lists and dicts; its messages print the
structure as PyTorch's TreeSpec does (``TreeSpec(tuple, None, [*,\\n  *])``), so the
spec here keeps the same type, context and children and prints the same way.
Everything that is not a container is a leaf, ``None`` included, as in PyTorch 2.13.
"""
from collections import OrderedDict

from .._common import _ReturnType
from .._tensor import Size


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


def _node_kind(obj):
    """'tuple', 'list', 'dict', 'namedtuple' or None for a leaf. Only exact container
    types are nodes (a subclass of tuple that is not a namedtuple is a leaf)."""
    cls = type(obj)
    if cls is tuple or cls is Size:
        return "tuple"
    if isinstance(obj, _ReturnType):  # torch.return_types.max and friends
        return "structseq"
    if cls is list:
        return "list"
    if cls is dict or cls is OrderedDict:
        return "dict"
    if _is_namedtuple(obj):
        return "namedtuple"
    return None


class TreeSpec:
    """The shape of a tree: its container type, context (dict keys, namedtuple class) and children."""
    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, type_, context, children):
        self.type = type_
        self.context = context
        self.children = children
        self.num_leaves = 1 if type_ is None else sum(c.num_leaves for c in children)

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self, indent=0):
        if self.type is None:
            return "*"
        inner = ""
        if self.children:
            indent += 2
            inner = self.children[0].__repr__(indent)
            inner += "".join(",\n" + " " * indent + child.__repr__(indent) for child in self.children[1:])
        kind = "namedtuple" if _is_namedtuple_type(self.type) else self.type.__name__
        return f"TreeSpec({kind}, {self.context}, [{inner}])"


def _is_namedtuple_type(cls):
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


LEAF = TreeSpec(None, None, [])


def _children_of(tree, kind):
    """(children, context) of a container node."""
    if kind == "dict":
        return list(tree.values()), list(tree.keys())
    if kind == "namedtuple":
        return list(tree), type(tree)
    return list(tree), None


def tree_flatten(tree):
    """(leaves in order, spec)."""
    leaves = []
    return leaves, _flatten_into(tree, leaves)


def _flatten_into(tree, leaves):
    kind = _node_kind(tree)
    if kind is None:
        leaves.append(tree)
        return LEAF
    children, context = _children_of(tree, kind)
    return TreeSpec(type(tree), context, [_flatten_into(child, leaves) for child in children])


def tree_unflatten(leaves, spec):
    leaves = iter(leaves)
    return _build(spec, leaves)


def _build(spec, leaves):
    if spec.type is None:
        return next(leaves)
    children = [_build(child, leaves) for child in spec.children]
    cls = spec.type
    if cls is dict or cls is OrderedDict:
        return cls(zip(spec.context, children))
    if _is_namedtuple_type(cls) or issubclass(cls, _ReturnType):
        return cls(*children)
    return cls(children)


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """One entry per leaf of ``spec``: the leaf of ``prefix`` above it. None when ``prefix``
    is not a prefix of the tree (another container type, length or keys)."""
    out = []
    return out if _broadcast_into(prefix, spec, out) else None


def _broadcast_into(prefix, spec, out):
    kind = _node_kind(prefix)
    if kind is None:
        out.extend([prefix] * spec.num_leaves)
        return True
    if spec.type is not type(prefix):
        return False
    children, context = _children_of(prefix, kind)
    if len(children) != len(spec.children):
        return False
    if kind == "dict" and set(context) != set(spec.context):
        return False
    if kind == "dict":
        by_key = dict(zip(context, children))
        children = [by_key[k] for k in spec.context]
    return all(_broadcast_into(c, s, out) for c, s in zip(children, spec.children))


class _Star(str):
    """A leaf placeholder that prints as a bare ``*``."""

    def __repr__(self):
        return "*"


def treespec_pprint(spec):
    """The tree drawn with ``*`` at its leaves: ``(*, [*])``."""
    return repr(tree_unflatten([_Star("*")] * spec.num_leaves, spec))
