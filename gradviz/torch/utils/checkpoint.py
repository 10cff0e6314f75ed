"""torch.utils.checkpoint: activation checkpointing, both of PyTorch 2.13's variants.

``checkpoint(fn, *args)`` without ``use_reentrant`` warns (PyTorch's UserWarning) and
runs the reentrant variant, PyTorch 2.13's default.

Reentrant (``use_reentrant=True``): ``CheckpointFunction``, a custom autograd Function, so
the output's grad_fn is ``CheckpointFunctionBackward``. Its forward runs ``fn`` under
no_grad; its backward runs ``fn`` again with grad enabled and the forward's RNG state,
then a nested backward through that fresh graph. It refuses to run inside
``autograd.grad`` / ``backward(inputs=...)``, as PyTorch does.

Non-reentrant (``use_reentrant=False``): ``fn`` runs with grad, so the graph has the
ordinary nodes (SinBackward0, MulBackward0, ...), but every tensor those nodes save goes
through ``saved_tensors_hooks``: the pack hook keeps only a ``_Holder``; the first unpack
in a backward call recomputes ``fn`` (once per call, for all the region's saved tensors,
stopping as soon as all are recomputed) and each unpack hands out its recomputed tensor.

For the inspection layer: the hooks on a checkpointed saved slot are the methods
``_checkpoint_hook.pack_hook`` and ``_checkpoint_hook.unpack_hook`` of this module (their
``__module__`` is ``gradviz.torch.utils.checkpoint``). Calling such an unpack hook outside
a backward call recomputes the region (as PyTorch does), so an inspector that only wants
to show the slot should recognise the hook and not call it.
"""
import contextlib
import weakref
from collections import defaultdict

from .. import _errors, _errors_checkpoint
from .._namespace import F
from .._tensor import Tensor
from ..autograd import engine
from ..autograd.entry import backward as _autograd_backward
from ..autograd.function import Function
from ..autograd.grad_mode import STATE, enable_grad, no_grad
from ..autograd.graph import _SAVED_HOOKS, saved_tensors_hooks
from ..autograd.node import SavedTensor
from ..nn.modules.container import Sequential
from ..random import fork_rng

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn", "set_checkpoint_early_stop",
           "set_checkpoint_debug_enabled"]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled = None
_enable_checkpoint_early_stop = None


class CheckpointError(RuntimeError):
    pass


CheckpointError.__module__ = "torch.utils.checkpoint"


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = prev


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        _errors.warn_at_user(_errors_checkpoint.CHECKPOINT_NO_INPUT_GRAD_WARNING)


# ---------------------------------------------------------------------------------------
# the reentrant variant


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = F.get_rng_state()
        # Non-tensor arguments are kept as they are; the tensors go through save_for_backward
        # (so a second backward without retain_graph meets PyTorch's "freed" error).
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        if not engine.is_checkpoint_valid():
            raise _errors_checkpoint.checkpoint_reentrant_with_grad()
        inputs = list(ctx.inputs)
        tensors = ctx.saved_tensors
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = tensors[i]
        # The recomputation draws the forward's random numbers (dropout masks); the
        # surrounding state is restored afterwards.
        with fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                F.set_rng_state(ctx.fwd_cpu_state)
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad = []
        args_with_grad = []
        for i in range(len(outputs)):
            if isinstance(outputs[i], Tensor) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if not outputs_with_grad:
            raise _errors_checkpoint.checkpoint_no_output_requires_grad()
        _autograd_backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


# ---------------------------------------------------------------------------------------
# the non-reentrant variant


class _Handle:
    pass


class _Holder:
    """What the pack hook saves in place of a tensor. The graph holds it strongly and frees
    it with the node's saved tensors; the frame holds it weakly, so a freed slot is skipped
    when recomputing."""

    def __init__(self):
        self.handles = {}  # backward call id -> _Handle of its recomputed tensor (None once unpacked)


class _StopRecomputationError(Exception):
    pass


def _default_meta_extractor(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_allowed_determinism_checks_to_fns = {
    _DEFAULT_DETERMINISM_MODE: _default_meta_extractor,
    "none": lambda _: None,
}


class _CheckpointFrame:
    """One call of the non-reentrant checkpoint: its inputs, a weak reference to each
    saved tensor's holder, and per backward call the tensors recomputed for them."""

    def __init__(self, recompute_fn, early_stop, metadata_fn):
        self.recompute_fn = recompute_fn
        self.saved_args = []
        self.weak_holders = []
        self.recomputed = defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter = defaultdict(int)
        self.is_recomputed = defaultdict(bool)
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.x_metadatas = []
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, *args):
        # Saved as backward saves them (version-checked when unpacked); inside an outer
        # checkpoint the outer one's hooks pack them, which is how nesting recomputes.
        self.saved_args = [_saved_input(arg) if isinstance(arg, Tensor) else arg for arg in args]

    def get_inputs(self):
        return [arg.unpack(None) if isinstance(arg, SavedTensor) else arg for arg in self.saved_args]

    def check_recomputed_tensors_match(self, gid):
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise _errors_checkpoint.checkpoint_count_mismatch(CheckpointError, len(self.weak_holders), self.recomp_counter[gid])
        mismatched = ""
        for idx, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None:
                continue
            recomputed = self.recomputed[gid][holder.handles[gid]]
            x_meta, recomputed_meta = self.x_metadatas[idx], self.metadata_fn(recomputed)
            if x_meta != recomputed_meta:
                mismatched += (f"tensor at position {idx}:\nsaved metadata: {x_meta}\n"
                               f"recomputed metadata: {recomputed_meta}\n")
        if mismatched:
            raise _errors_checkpoint.checkpoint_metadata_mismatch(CheckpointError, mismatched)


def _saved_input(arg):
    slot = SavedTensor.of_input(arg)
    if _SAVED_HOOKS and STATE.enabled:
        pack_hook, unpack_hook = _SAVED_HOOKS[-1]
        slot.register_hooks(pack_hook, unpack_hook, None)
    return slot


class _recomputation_hook(saved_tensors_hooks):
    """Active while a frame recomputes: each tensor saved is stored for the holder at the
    same position of the original forward."""

    def __init__(self, target_frame_ref, gid):
        self.target_frame_ref, self.gid = target_frame_ref, gid
        super().__init__(self.pack_hook, self.unpack_hook)

    def pack_hook(self, x):
        x = x.detach() if x.requires_grad else x
        frame, gid = self.target_frame_ref(), self.gid
        recomp_idx = frame.recomp_counter[gid]
        frame.recomp_counter[gid] += 1
        if recomp_idx >= len(frame.weak_holders):
            if not frame.forward_completed:
                # A backward inside the checkpointed function itself, without early stop.
                frame.ignore_saved_mismatch = True
                return x
            raise _errors_checkpoint.checkpoint_too_many_saved(CheckpointError)
        holder = frame.weak_holders[recomp_idx]()
        if holder is not None:  # None: its node's saved tensors were freed already
            holder.handles[gid] = _Handle()
            frame.recomputed[gid][holder.handles[gid]] = x
        if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
            raise _StopRecomputationError
        return x

    def unpack_hook(self, x):
        return x


class _checkpoint_hook(saved_tensors_hooks):
    """Active during a checkpointed forward: saved tensors are replaced by holders, filled
    in by recomputation at the first unpack of each backward call."""

    def __init__(self, frame):
        self.frame = frame
        super().__init__(self.pack_hook, self.unpack_hook)

    def pack_hook(self, x):
        frame = self.frame
        holder = _Holder()
        frame.weak_holders.append(weakref.ref(holder))
        if frame.metadata_fn is not None:
            with no_grad():
                frame.x_metadatas.append(frame.metadata_fn(x))
        return holder

    def unpack_hook(self, holder):
        frame = self.frame
        gid = engine.current_graph_task_id()
        if gid == -1:
            gid = object()  # an unpack outside backward: a recomputation of its own
        if not frame.is_recomputed[gid]:
            args = frame.get_inputs()
            try:
                with _recomputation_hook(weakref.ref(frame), gid), enable_grad():
                    frame.recompute_fn(*args)
            except _StopRecomputationError:
                pass
            frame.is_recomputed[gid] = True
            frame.check_recomputed_tensors_match(gid)
        if holder.handles[gid] is None:
            raise _errors_checkpoint.checkpoint_unpacked_twice(CheckpointError)
        ret = frame.recomputed[gid][holder.handles[gid]]
        holder.handles[gid] = None
        return ret


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check, debug, early_stop,
                                  args, kwargs):
    debug = _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise _errors_checkpoint.checkpoint_debug_with_context_fn()
    if determinism_check not in _allowed_determinism_checks_to_fns:
        raise _errors_checkpoint.checkpoint_determinism_check(list(_allowed_determinism_checks_to_fns), determinism_check)
    metadata_fn = _allowed_determinism_checks_to_fns[determinism_check]
    forward_context, recompute_context = context_fn()
    fwd_cpu_state = F.get_rng_state() if preserve_rng_state else None

    def recompute_fn(*inputs):
        with fork_rng(enabled=preserve_rng_state):
            if preserve_rng_state:
                F.set_rng_state(fwd_cpu_state)
            with recompute_context:
                function(*inputs, **kwargs)

    early_stop = _enable_checkpoint_early_stop if _enable_checkpoint_early_stop is not None else early_stop
    frame = _CheckpointFrame(recompute_fn, early_stop, metadata_fn)
    if not STATE.enabled:
        return function(*args, **kwargs)
    frame.save_inputs(*args)
    completed = False
    with _checkpoint_hook(frame), forward_context:
        ret = function(*args, **kwargs)
        completed = True
    if not completed:  # forward_context swallowed the function's exception
        raise _errors_checkpoint.checkpoint_context_suppressed()
    frame.forward_completed = True
    return ret


# ---------------------------------------------------------------------------------------
# the entry points


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True, **kwargs):
    if use_reentrant is None:
        _errors.warn_at_user(_errors_checkpoint.CHECKPOINT_USE_REENTRANT_WARNING)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise _errors_checkpoint.checkpoint_unexpected_kwargs(kwargs)
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise _errors_checkpoint.checkpoint_reentrant_options()
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop,
                                         args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    if use_reentrant is None:
        _errors.warn_at_user(_errors_checkpoint.CHECKPOINT_SEQUENTIAL_USE_REENTRANT_WARNING)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise _errors_checkpoint.checkpoint_unexpected_kwargs(kwargs)

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # the last segment runs without a checkpoint, as in PyTorch
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
