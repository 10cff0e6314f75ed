"""The snapshot schema: frozen dataclasses of plain values (str, int, float, bool, tuples).

Nothing here refers to an engine object, so a snapshot can be kept after the graph is
gone, compared, pickled, and read by renderers that never import the engine.

Ids are strings made from traversal order: backward nodes ``n0, n1, ...`` (depth
first from the roots), forward values ``v0, ...`` and forward ops ``f0, ...`` (in
execution order). The same program gives the same ids on every run.
"""
import dataclasses
from operator import attrgetter
from typing import Optional, Tuple

Site = Optional[Tuple[str, int]]  # (filename, line) of the user's code


def _record(cls):
    """A frozen, slotted dataclass that pickles as its class and its fields' values: a
    snapshot of 100,000 nodes crosses from the script's process to gradviz's, and the
    dataclass default (a state dict per object, restored field by field) took seconds."""
    cls = dataclasses.dataclass(frozen=True, slots=True)(cls)
    values = attrgetter(*(f.name for f in dataclasses.fields(cls)))
    if len(dataclasses.fields(cls)) == 1:
        cls.__reduce__ = lambda self: (cls, (values(self),))
    else:
        cls.__reduce__ = lambda self: (cls, values(self))
    return cls

Shape = Tuple[int, ...]


@_record
class BackwardCallInfo:
    index: int  # PyTorch has no such number; gradviz counts backward calls from 1
    kind: str  # 'backward' or 'autograd.grad', as the engine names the call
    site: Site


@_record
class GradInfo:
    """That a tensor has a ``.grad``, and its shape (its values are the table's business)."""
    shape: Shape
    dtype: str


@_record
class LeafInfo:
    """The leaf tensor an AccumulateGrad node writes into."""
    name: Optional[str]  # the script's variable name, when the caller supplied one
    shape: Shape
    dtype: str
    requires_grad: bool
    version: int
    grad: Optional[GradInfo]
    value: Optional[str]  # id of the same tensor in the forward graph, when recorded


@_record
class SavedInfo:
    """One saved slot of a node (``_saved_self``, ``saved_tensors[0]``, ``_saved_dim`` ...).

    kind: 'tensor' (a saved tensor, live), 'freed' (released by a backward without
    retain_graph), 'scalar' (a Python number PyTorch saves as a 0-dim tensor), 'value'
    (a plain option such as dim or alpha) or 'none' (a None saved by a custom Function).
    Saved tensors are kept apart from leaves on purpose (torchviz issue #69): ``tensor_name``
    only says which named tensor the slot holds.
    """
    slot: str  # 'self', 'other', 'result', 'saved_tensors[0]', 'dim', ...
    attr: str  # how to read it in Python: '_saved_self', 'saved_tensors[0]'
    kind: str
    shape: Optional[Shape] = None
    dtype: Optional[str] = None
    saved_version: Optional[int] = None
    current_version: Optional[int] = None  # None once freed (the slot no longer knows)
    is_output: Optional[bool] = None  # None when it cannot be known any more
    tensor_name: Optional[str] = None
    value: Optional[str] = None  # id of the saved tensor in the forward graph
    text: Optional[str] = None  # short repr of a scalar or plain value
    # Saved through torch.utils.checkpoint's hooks: not kept, recomputed by backward.
    recomputed: bool = False

    @property
    def freed(self) -> bool:
        return self.kind == "freed"

    @property
    def is_tensor(self) -> bool:
        return self.kind in ("tensor", "freed", "scalar")

    @property
    def stale(self) -> bool:
        """Modified in place since it was saved: backward through it would raise."""
        return (self.kind == "tensor" and self.current_version is not None
                and self.current_version != self.saved_version)


@_record
class Edge:
    """``next_functions[input]`` of a node: gradient for its ``input``-th input goes to
    output ``output_nr`` of node ``target`` (None: that input needs no gradient)."""
    input: int
    target: Optional[str]
    output_nr: int


@_record
class BackwardNode:
    id: str
    name: str  # node.name(): 'MulBackward0', 'torch::autograd::AccumulateGrad'
    type: str  # type(node).__name__: 'MulBackward0', 'AccumulateGrad', 'CopySlices'
    site: Site
    sequence_nr: int
    edges: Tuple[Edge, ...]
    saved: Tuple[SavedInfo, ...]
    outputs: Tuple[Tuple[Shape, str], ...]  # (shape, dtype) of each forward output
    freed_by: Optional[BackwardCallInfo]  # the backward that freed its buffers
    leaf: Optional[LeafInfo] = None  # AccumulateGrad only
    inner: Optional[str] = None  # CopySlices: the in-place op's node name
    output_names: Tuple[str, ...] = ()  # names of the tensors it produced, when known
    # The module whose call made the node (the innermost one running when its forward op
    # ran; for AccumulateGrad, the module that owns the parameter), and which call of it
    # (1, 2, ...: a block reused per time step). None / 0: made outside any module.
    module: Optional[str] = None
    module_call: int = 0
    # The gradient formula of each differentiable input, as gradviz's op table writes it:
    # (('self', 'grad * F.conj(other)'), ('other', 'grad * F.conj(self)')). Empty where the
    # table does not know the node (AccumulateGrad, a custom Function). Last, as a new field
    # must be: a snapshot pickles its fields in order.
    formulas: Tuple[Tuple[str, str], ...] = ()

    @property
    def recomputes_forward(self) -> bool:
        """A reentrant checkpoint (use_reentrant=True): its backward runs its forward again."""
        return self.type == "CheckpointFunctionBackward"

    @property
    def is_accumulate(self) -> bool:
        return self.type == "AccumulateGrad"

    @property
    def label_name(self) -> str:
        """The name PyTorch users know, without the C++ namespace ('CopySlices')."""
        if self.is_accumulate:
            return "AccumulateGrad"
        return self.name[len("torch::autograd::"):] if self.name.startswith("torch::autograd::") else self.name


@_record
class Root:
    """A tensor (or edge) the snapshot was taken from."""
    name: Optional[str]
    node: Optional[str]  # backward node id (None: a leaf, or no grad at all)
    output_nr: int
    shape: Optional[Shape]
    dtype: Optional[str]
    requires_grad: bool
    value: Optional[str] = None  # forward value id, when recorded


@_record
class Value:
    """A tensor value in the forward graph. An in-place op gives the same tensor a new
    value (``version`` counts them); constants (Python numbers) are values too."""
    id: str
    name: str  # variable name, else an expression such as 'w1*a'
    named: bool  # True when ``name`` is the caller's variable name
    kind: str  # 'tensor' or 'constant'
    shape: Optional[Shape] = None
    dtype: Optional[str] = None
    requires_grad: bool = False
    is_leaf: bool = True
    version: int = 0
    grad: Optional[GradInfo] = None
    node: Optional[str] = None  # backward node id of its grad_fn, when in the snapshot
    alive: bool = True  # False: the tensor was garbage collected before the snapshot


@_record
class ForwardOp:
    id: str
    name: str  # 'mul', 'mul_' (in place), 'tanh', 'MyExp.apply'
    node_name: str  # the grad_fn it created: 'MulBackward0'
    inputs: Tuple[str, ...]  # value ids, in argument order
    outputs: Tuple[str, ...]
    site: Site
    node: Optional[str] = None  # backward node id, when in the snapshot
    during_backward: bool = False  # recorded by a create_graph backward
    module: Optional[str] = None  # path of the innermost module call that ran it (ModuleInfo.path)
    module_call: int = 0  # which call of that module (1, 2, ...)


@_record
class ModuleInfo:
    """An nn.Module called while recording, on either engine."""
    path: str  # 'model.transformer.h.3.attn': the root's name, then its named_modules() name
    type: str  # its class name: 'GPT2Attention'
    calls: int  # how many times it was called (a block reused per time step: several)
    parent: Optional[str] = None  # the path of the module whose call ran its first call; None: a root


@_record
class TensorStats:
    """A gradient as the replay shows it: its shape and summary, its values when small."""
    shape: Shape
    dtype: str
    norm: float
    min: float
    max: float
    mean: float
    values: Optional[Tuple[float, ...]] = None  # flattened, row-major; None when large


@_record
class ReplayStep:
    """One node run by a backward call (``inspect.replay``), in the order the engine ran them."""
    node: str  # 'n3'
    grads_in: Tuple[Optional[TensorStats], ...]  # arriving: one per output of the node (None: none)
    grads_out: Tuple[Optional[TensorStats], ...]  # leaving: one per next edge, in its order (None: none)
    grad_before: Optional[TensorStats] = None  # AccumulateGrad: its leaf's .grad as the call began
    grad_after: Optional[TensorStats] = None  # and as the node left it


@_record
class NonFiniteInfo:
    """The first non-finite value of a run (``inspect.nonfinite``, ``run --nan``)."""
    phase: str  # 'forward' (an op's result) or 'backward' (a node's outgoing gradient)
    kind: str  # 'nan' or 'inf'
    op: str  # the forward op ('sqrt') or the node ('SqrtBackward0')
    site: Site  # the user's line: the op's, or for a node the line of the op that made it
    code: str  # that line
    tensor: str  # the value's name or source text ('torch.sqrt(x)', 'the gradient of torch.sqrt(x)')
    shape: Shape
    count: int  # elements that are NaN (or infinite)
    total: int
    first: Tuple[int, ...]  # the index of the first
    inputs: Tuple[Tuple[str, bool], ...]  # (name, all finite) of what a forward op read
    step: int  # backward calls begun before it: the step of a training loop
    fix: str  # the standard fix for the pattern
    node_seq: int = -1  # the sequence number of its node (a forward op's grad_fn), to find it in a graph


@_record
class MemoryLedger:
    """What a backward call's graph held for backward as the call began (``run --memory``)."""
    call: int  # the backward call, counted from 1
    site: Site
    saved_bytes: int  # by distinct storage
    parameter_bytes: int
    activation_bytes: int
    storages: int
    by_node: Tuple[Tuple[str, str, int], ...]  # (node id, node name, bytes), the largest first
    by_module: Tuple[Tuple[str, int], ...]  # (module path, activation bytes): what checkpointing it frees, at most
    by_line: Tuple[Tuple[Tuple[str, int], int], ...]  # ((file, line), bytes), the largest first
    checkpoint_frees: Tuple[Tuple[str, int], ...] = ()  # (module path, bytes) checkpointing it would free
    peak_bytes: int = 0  # held for backward as the call began: its graph and what earlier graphs kept
    earlier_bytes: int = 0  # of which earlier graphs' (kept by retain_graph=True)
    freed_bytes: int = 0  # freed as the call ended
    kept_bytes: int = 0  # still held after it (retain_graph=True)
    freed_later: Tuple[Tuple[int, int], ...] = ()  # (later call, bytes of this graph it freed)


@_record
class ReplayLane:
    """An earlier backward call, replayed on the nodes it shares with this graph."""
    call: BackwardCallInfo
    steps: Tuple[ReplayStep, ...]
    ran: int  # how many nodes it ran in all (its steps here are those in this graph)


@_record
class GraphSnapshot:
    roots: Tuple[Root, ...]
    nodes: Tuple[BackwardNode, ...]  # n0, n1, ... in traversal order
    values: Tuple[Value, ...] = ()
    ops: Tuple[ForwardOp, ...] = ()
    has_forward: bool = False  # False: taken without a recorder
    backward_calls: Tuple[BackwardCallInfo, ...] = ()
    notes: Tuple[str, ...] = ()
    modules: Tuple[ModuleInfo, ...] = ()  # in the order of their first call; parents first
    replay: Tuple[ReplayStep, ...] = ()  # the backward call that left this graph, node by node, when recorded
    replay_ran: int = 0  # how many nodes that call ran (more than len(replay) when cut at MAX_STEPS)
    lanes: Tuple[ReplayLane, ...] = ()  # the earlier calls through this same graph, oldest first

    def node(self, node_id: str) -> BackwardNode:
        return self.nodes[int(node_id[1:])]

    def value(self, value_id: str) -> Value:
        return self.values[int(value_id[1:])]

    def by_name(self, name: str) -> Tuple[BackwardNode, ...]:
        """Nodes called ``name`` ('MulBackward0', 'AccumulateGrad'), in id order."""
        return tuple(n for n in self.nodes if n.name == name or n.label_name == name)
