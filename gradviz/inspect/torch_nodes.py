"""What the real-PyTorch adapter reads of a grad_fn node that not every PyTorch release has.

``--engine torch`` supports PyTorch 2.0 and newer; the node API grew in between:

- ``node._sequence_nr()`` (2.2 on): the number that ties a node to the call that made it.
  Before it, ``sequence_nr`` gives numbers of gradviz's own (``NodeNumbers``).
- ``SavedTensor.data`` and ``.unpack_hook`` (``node._raw_saved_*``), which read a saved
  tensor without unpacking it (unpacking checks versions, and re-runs a checkpointed
  forward). Without them a slot can only be unpacked (``unpacked_state``), and
  ``SavedHooks`` tells which saved-tensor hooks were in force when a node saved, so that a
  packed or checkpointed slot is never unpacked.
- ``node._input_metadata``: the shapes and dtypes of the node's outputs. Without it the
  snapshot shows no output shapes.

Everything is found by feature, never by version string. Nothing here imports PyTorch.
"""

import threading

NO_SEQUENCE = (1 << 64) - 1  # what PyTorch's nodes without a number report (AccumulateGrad)


class NodeNumbers:
    """Sequence numbers for nodes that do not tell theirs (PyTorch 2.0 and 2.1).

    A node's Python wrapper comes and goes, and a node cannot be weakly referenced. Its
    ``metadata`` dict, though, lives in the C++ node, the same dict whatever wrapper reads
    it. Holding that dict (not the node, so no graph is kept alive) keeps its id unique,
    and the id keys the number. Numbers are given in the order nodes are first seen; the
    recorder sees each call's nodes as the call returns, so for the nodes it records this
    is their creation order, as PyTorch's own numbers are. (A node it first meets later,
    one made by a backward or before recording began, gets a later number than PyTorch's.)
    ``forget`` lets go of a number the recorder no longer keeps.
    """

    def __init__(self):
        self._by_id = {}  # id(metadata dict) -> number
        self._dicts = {}  # number -> the metadata dict, held so that its id stays its own
        self._last = -1

    def of(self, node) -> int:
        if type(node).__name__ == "AccumulateGrad":
            return NO_SEQUENCE
        meta = node.metadata
        number = self._by_id.get(id(meta))
        if number is None:
            self._last += 1
            number = self._by_id[id(meta)] = self._last
            self._dicts[number] = meta
        return number

    def forget(self, number) -> None:
        meta = self._dicts.pop(number, None)
        if meta is not None:
            del self._by_id[id(meta)]


NUMBERS = NodeNumbers()


def sequence_nr(node) -> int:
    """PyTorch's ``node._sequence_nr()`` where the release has it, else ``NUMBERS``' number."""
    try:
        return node._sequence_nr()
    except AttributeError:
        return NUMBERS.of(node)


def forget_number(number) -> None:
    """The recorder dropped the node numbered ``number`` (only ``NUMBERS`` holds anything)."""
    if NUMBERS._dicts:
        NUMBERS.forget(number)


def readable_saved_tensors(torch) -> bool:
    """Whether this PyTorch's saved tensors can be read without unpacking them."""
    cls = torch._C._autograd.SavedTensor
    return hasattr(cls, "data") and hasattr(cls, "unpack_hook")


def unpacked_state(node, attr, index=None):
    """(state, value) of a saved slot read by unpacking it: 'tensor', 'undefined', 'freed',
    or 'modified' (changed in place since it was saved: unpacking refuses). ``index``: which
    of a custom Function's ``saved_tensors``."""
    try:
        value = getattr(node, attr)
    except RuntimeError as e:
        return ("modified" if "inplace operation" in str(e) else "freed"), None
    if index is not None:
        value = value[index] if value is not None and index < len(value) else None
    return ("undefined", None) if value is None else ("tensor", value)


class SavedHooks:
    """The unpack hooks of the saved-tensor hooks in force, per thread, seen by wrapping
    ``torch.autograd.graph.saved_tensors_hooks``' enter and exit (the way ``checkpoint``,
    ``save_on_cpu`` and users push them). Only for releases whose saved tensors do not tell
    their hook themselves."""

    def __init__(self):
        self._local = threading.local()

    def _stack(self):
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def top_unpack(self):
        """The unpack hook of the innermost hooks in force in this thread, or None."""
        stack = self._stack()
        return stack[-1] if stack else None

    def start(self, torch):
        """Watch the hooks; returns the undo."""
        cls = torch.autograd.graph.saved_tensors_hooks
        enter, leave = cls.__dict__["__enter__"], cls.__dict__["__exit__"]
        stack = self._stack

        def __enter__(hooks):
            out = enter(hooks)
            stack().append(hooks.unpack_hook)
            return out

        def __exit__(hooks, *exc):
            if stack():
                stack().pop()
            return leave(hooks, *exc)

        cls.__enter__, cls.__exit__ = __enter__, __exit__

        def undo():
            if cls.__dict__.get("__enter__") is __enter__:
                cls.__enter__, cls.__exit__ = enter, leave
        return undo


HOOKS = SavedHooks()
