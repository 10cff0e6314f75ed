"""The warning and error texts of torch.optim.lr_scheduler, in PyTorch 2.13's exact wording
(torch/optim/lr_scheduler.py). Warnings are plain strings; each error constructor returns
the exception to raise."""

SCHEDULER_BEFORE_OPTIMIZER = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
    "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result "
    "in PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")

OPTIMIZER_STEP_OVERRIDDEN = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. Please, make "
    "sure to call `optimizer.step()` before `lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")

EPOCH_DEPRECATION = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")

GET_LR_OUTSIDE_STEP = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def not_an_optimizer(value):
    return TypeError(f"{type(value).__name__} is not an Optimizer")


def missing_initial_lr(index):
    return KeyError(f"param 'initial_lr' is not specified in param_groups[{index}] when resuming scheduler with "
                    "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a "
                    "checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 for "
                    "a fresh training run (not recommended)")


def per_group_length(name, got, groups):
    return ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {got} values, "
                      f"param_groups has {groups}.")


def lr_lambdas_count(expected, got):
    return ValueError(f"Expected {expected} lr_lambdas, but got {got}")


def no_schedulers(kind, chained):
    what = "at least one scheduler to be chained" if chained else "at least one scheduler"
    return ValueError(f"{kind} expects {what}, but got no scheduler.")


def scheduler_without_optimizer(kind, index):
    return TypeError(f"{kind} at index {index} should have `optimizer` as its attribute.")


def plateau_in_sequence(kind, index):
    return ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
                      f"specified when calling `step`, but got one at index {index} in the given schedulers sequence.")


def other_optimizer(kind, scheduler, index, its_optimizer, optimizer):
    return ValueError(f"{kind} expects all schedulers to belong to the same optimizer, but got scheduler "
                      f"{type(scheduler).__name__} at index {index} has {its_optimizer}, which is different from "
                      f"{type(optimizer).__name__}.")


def milestones_count(schedulers, milestones):
    return ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                      f"milestone points, but got number of schedulers {schedulers} and the number of milestones to "
                      f"be equal to {milestones}")


def stepped_past_total(step, total):
    return ValueError(f"Tried to step {step} times. The specified number of total steps is {total}")


def no_momentum():
    return ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")


# -- the optimizers' argument checks (torch/optim/*.py) ----------------------------------

def invalid_value(what, value):
    """'Invalid learning rate: -1', 'Invalid beta parameter at index 0: 1.0'..."""
    return ValueError(f"Invalid {what}: {value}")


def check_betas(betas):
    for index in (0, 1):
        if not 0.0 <= betas[index] < 1.0:
            raise invalid_value(f"beta parameter at index {index}", betas[index])


def check_non_negative(**values):
    """Each keyword's value must be >= 0, named as PyTorch names it ('lr' is 'learning rate',
    'eps' 'epsilon value', the rest '<name> value')."""
    names = {"lr": "learning rate", "eps": "epsilon value"}
    for key, value in values.items():
        if not 0.0 <= value:
            raise invalid_value(names.get(key, f"{key} value"), value)


def invalid_eta_values(etas):
    return ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")


def unsupported_sparse(name):
    return RuntimeError(f"{name} does not support sparse gradients")


def adafactor_not_below(what, bound, value, above=True):
    """Adafactor's own wording: 'Learning rate should be >= 0 but is: -1'."""
    return ValueError(f"{what} should be {'>=' if above else '<='} {bound} but is: {value}")


LBFGS_PARAM_GROUPS = "LBFGS doesn't support per-parameter options (parameter groups)"
LBFGS_LINE_SEARCH = "only 'strong_wolfe' is supported"


def adafactor_complex():
    return RuntimeError("Adafactor does not support complex parameters")


SPARSE_ADAM_DENSE_GRAD = "SparseAdam does not support dense gradients, please consider Adam instead"


def sparse_adam_complex(indices):
    return ValueError(f"Complex params at indices {indices}: SparseAdam does not support complex parameters")


def invalid_decay(decay):
    return ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


AVERAGED_MODEL_TWO_FNS = "Only one of avg_fn and multi_avg_fn should be provided"


def swalr_strategy(strategy):
    return ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {strategy}")


def swalr_epochs(epochs):
    return ValueError(f"anneal_epochs must be equal or greater than 0, got {epochs}")
