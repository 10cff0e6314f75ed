"""torch.utils.checkpoint's errors and warnings, in PyTorch's words (torch/utils/checkpoint.py)."""


CHECKPOINT_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
CHECKPOINT_SEQUENTIAL_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but "
    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
CHECKPOINT_NO_INPUT_GRAD_WARNING = "None of the inputs have requires_grad=True. Gradients will be None"
# PyTorch's tip, appended to its CheckpointError messages (its torch.compile advice included).
CHECKPOINT_DEBUG_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to\n"
    "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
    "with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
    "enable checkpoint\u2011debug mode globally.\n\n"
    "If this error occurs under torch.compile with automatic_dynamic_shapes enabled,\n"
    "it may be because the recomputation selected a different compiled graph than the\n"
    "forward pass (e.g., a dynamic graph instead of the original static graph).\n"
    "To fix this, either:\n"
    "  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as\n"
    "    dynamic upfront, avoiding the static-to-dynamic transition.\n"
    "  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache\n"
    "    reordering, which can change which graph is checked first between forward\n"
    "    and recompute.\n"
    "See https://github.com/pytorch/pytorch/issues/166926 for more details and\n"
    "workaround examples.\n")


def checkpoint_unexpected_kwargs(names):
    return ValueError("Unexpected keyword arguments: " + ",".join(names))


def checkpoint_reentrant_options():
    return ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")


def checkpoint_determinism_check(allowed, got):
    return ValueError(f"determinism_check should be one of {allowed}, but got {got}")


def checkpoint_debug_with_context_fn():
    return ValueError("debug=True is incompatible with non-default context_fn")


def checkpoint_reentrant_with_grad():
    return RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                        "`inputs` parameter to .backward(). To resolve this error, you can either set "
                        "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


def checkpoint_no_output_requires_grad():
    return RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")


def checkpoint_context_suppressed():
    return RuntimeError("torch.utils.checkpoint: the forward context provided by context_fn suppressed an exception "
                        "raised during the checkpointed forward. This is not supported because checkpoint cannot "
                        "return a value for a failed forward.")


def checkpoint_count_mismatch(error_cls, saved, recomputed):
    return error_cls("torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                     f"and recomputation.\nNumber of tensors saved during forward: {saved}\nNumber of tensors saved "
                     f"during recomputation: {recomputed}.\n{CHECKPOINT_DEBUG_TIP}")


def checkpoint_metadata_mismatch(error_cls, mismatched):
    return error_cls("torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                     f"than during the forward pass.\n{mismatched}.\n{CHECKPOINT_DEBUG_TIP}")


def checkpoint_too_many_saved(error_cls):
    return error_cls("torch.utils.checkpoint: trying to save more tensors during recomputation than during the "
                     f"original forward pass.\n{CHECKPOINT_DEBUG_TIP}")


def checkpoint_unpacked_twice(error_cls):
    return error_cls("torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked "
                     "once. If you are calling ctx.saved_tensors in backward, make sure to do so only once. "
                     "Otherwise please open an issue with details on your use case.")
