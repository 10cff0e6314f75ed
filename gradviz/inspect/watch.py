"""How a run of the user's code is watched: the names of its tensors and the backward
calls it makes.

``Names`` names the tensors of a script's namespace (and of its own frames on the stack);
``Watch`` is a Recorder that keeps the graph of the last backward / autograd.grad call.
``gradviz run``, ``gradviz explain --engine torch``, ``gradviz graph`` and ``%%gradviz``
all watch their runs with these.
"""
import sys
import weakref
from typing import Callable, Optional

from gradviz import tensor_records

from .torch_nodes import sequence_nr


class Names:
    """``{id(tensor): name}`` of the script's namespace, then of the locals of the
    script's own frames on the stack (a backward inside ``def train():``)."""

    def __init__(self, code_path, torch=None):
        """torch: the module ``import torch`` gives the script (gradviz's engine when None)."""
        if torch is None:
            import gradviz.torch as torch
        self.code_path = code_path
        self.torch = torch
        self.ns = None
        self.tensor_type, self.module_type = torch.Tensor, torch.nn.Module

    def bind(self, ns):
        self.ns = ns

    def tensors(self):
        """The table's tensors: every named tensor of the namespace, as plain data."""
        return tensor_records.snapshot(self.ns, self.tensor_type, self.module_type) if self.ns is not None else None

    def named(self):
        return tensor_records.named_tensors(self.ns, self.tensor_type, self.module_type) if self.ns is not None else []

    def __call__(self):
        out = {}
        for name, t in self.named():
            out.setdefault(id(t), name)
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.code_path and frame.f_locals is not frame.f_globals:
                for name, v in list(frame.f_locals.items()):
                    if isinstance(v, self.tensor_type) and not name.startswith("_"):
                        out.setdefault(id(v), name)
            frame = frame.f_back
        return out


class Watch:
    """A Recorder plus what the commands need to know about backward calls.

    names: ``fn() -> {id(tensor): name}``, called when a graph is captured.
    sites: how snapshots name places in the user's code (a notebook's, by cell).
    After the run, ``captured`` is the snapshot taken when the last backward /
    autograd.grad call returned (buffers already freed), ``last_edges`` that call's
    root edges (kept alive here, for a second pass) and ``backwarded(node)`` tells
    whether a node was the root of some backward call.
    """

    def __init__(self, names: Callable[[], dict], sites: Optional[Callable] = None, real: bool = False,
                 replay: bool = False, nonfinite: Optional[str] = None, memory: bool = False):
        if real:  # the user's code runs on the installed PyTorch
            from gradviz.inspect.real_torch import TorchRecorder as Recorder
        else:
            from gradviz.inspect import Recorder

        self.names = names
        # replay: record each backward call node by node, for the explorer (inspect.replay)
        self.recorder = Recorder(on_backward=self._on_backward, capture=names, keep=1, sites=sites, replay=replay)
        if nonfinite is not None:  # 'nan' or 'inf': where the first non-finite value starts (run --nan)
            from .nonfinite import NonFiniteWatch, numpy_check
            check = self.recorder.torch_check if real else (lambda t, inf: numpy_check(t._data, inf))
            self.recorder.nonfinite = NonFiniteWatch(check, names, inf=nonfinite == "inf")
        if memory:  # the saved-for-backward ledger of each backward call (run --memory)
            from .memory import MemoryWatch
            self.recorder.memory = MemoryWatch(self.recorder.memory_storages, self.recorder.memory_place,
                                               self.recorder.memory_key)
        self.last_edges: list = []
        self._roots = weakref.WeakSet()
        self._seqs = set()

    def _on_backward(self, phase, roots, call):
        if phase != "end":
            return
        self.last_edges = [(n, nr) for n, nr in roots if n is not None]
        for n, _ in self.last_edges:
            try:
                self._roots.add(n)
            except TypeError:  # PyTorch's nodes cannot be weakly referenced: their sequence number
                self._seqs.add(sequence_nr(n))

    @property
    def captured(self):
        """(BackwardCallInfo, GraphSnapshot) of the last backward call, or None."""
        return self.recorder.captures[-1] if self.recorder.captures else None

    def backwarded(self, node) -> bool:
        if node is None:
            return False
        try:
            weakref.ref(node)
        except TypeError:  # a PyTorch node (WeakSet would just answer False)
            return sequence_nr(node) in self._seqs
        return node in self._roots

    def __enter__(self):
        self.recorder.__enter__()
        return self

    def __exit__(self, *exc):
        self.recorder.__exit__(*exc)
        return False
