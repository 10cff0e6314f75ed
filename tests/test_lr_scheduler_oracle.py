"""torch.optim.lr_scheduler against PyTorch 2.13: every scheduler's lr (and cycled momentum)
over 50 steps, compared as Python floats with ==; get_last_lr(), state_dict() keys and
values, step(epoch)'s closed forms, and the warnings PyTorch gives, verbatim."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _optimizer(T, kind="sgd", groups=2):
    params = [T.nn.Parameter(T.ones(2)) for _ in range(groups)]
    spec = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)]
    if kind == "adam":
        return T.optim.Adam(spec, lr=0.01)
    return T.optim.SGD(spec, lr=0.05, momentum=0.9)


def _lambda(epoch):
    return 0.97 ** epoch + 0.01 * (epoch % 3)


SCHEDULERS = {
    "lambda": lambda T, o: T.optim.lr_scheduler.LambdaLR(o, _lambda),
    "lambda_list": lambda T, o: T.optim.lr_scheduler.LambdaLR(o, [_lambda, lambda e: 1 / (e + 1)]),
    "multiplicative": lambda T, o: T.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95),
    "step": lambda T, o: T.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.3),
    "multistep": lambda T, o: T.optim.lr_scheduler.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.7),
    "exponential": lambda T, o: T.optim.lr_scheduler.ExponentialLR(o, gamma=0.93),
    "linear": lambda T, o: T.optim.lr_scheduler.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=17),
    "constant": lambda T, o: T.optim.lr_scheduler.ConstantLR(o, factor=0.3, total_iters=9),
    "polynomial": lambda T, o: T.optim.lr_scheduler.PolynomialLR(o, total_iters=33, power=1.7),
    "cosine": lambda T, o: T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=11, eta_min=0.001),
    "warm_restarts": lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2,
                                                                                     eta_min=1e-4),
    "warm_restarts_flat": lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=6),
    "one_cycle": lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.3, 0.6], total_steps=51),
    "one_cycle_linear_three": lambda T, o: T.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.2, epochs=5, steps_per_epoch=11, anneal_strategy="linear", three_phase=True, pct_start=0.25),
    "cyclic": lambda T, o: T.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=6),
    "cyclic_triangular2": lambda T, o: T.optim.lr_scheduler.CyclicLR(o, 0.001, [0.1, 0.2], step_size_up=4,
                                                                     step_size_down=7, mode="triangular2"),
    "cyclic_exp_range": lambda T, o: T.optim.lr_scheduler.CyclicLR(o, 0.01, 0.05, step_size_up=5,
                                                                   mode="exp_range", gamma=0.97),
    "sequential": lambda T, o: T.optim.lr_scheduler.SequentialLR(
        o, [T.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=6),
            T.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
            T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=9)], milestones=[6, 20]),
    "chained": lambda T, o: T.optim.lr_scheduler.ChainedScheduler(
        [T.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
         T.optim.lr_scheduler.ExponentialLR(o, gamma=0.95)]),
}


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def _sequence(T, name, kind, steps=50):
    opt = _optimizer(T, kind)
    sched = SCHEDULERS[name](T, opt)
    seen = [(sched.get_last_lr(), _momenta(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        seen.append((list(sched.get_last_lr()), _momenta(opt)))
    return seen, sched


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_fifty_steps_exact(torch, name, kind):
    ours, our_sched = _sequence(gt, name, kind)
    theirs, their_sched = _sequence(torch, name, kind)
    assert ours == theirs
    assert all(type(a) is type(b) for (xs, _), (ys, _) in zip(ours, theirs) for a, b in zip(xs, ys))
    our_state, their_state = our_sched.state_dict(), their_sched.state_dict()
    assert sorted(our_state) == sorted(their_state)
    plain = (int, float, str, bool, type(None))
    for key, value in their_state.items():
        if isinstance(value, plain) or (isinstance(value, list) and all(isinstance(v, plain) for v in value)):
            assert our_state[key] == value, key


@pytest.mark.parametrize("name", ["step", "multistep", "exponential", "linear", "constant", "polynomial", "cosine",
                                  "warm_restarts", "lambda"])
def test_step_with_epoch_uses_closed_form_and_warns(torch, name):
    def run(T):
        opt = _optimizer(T)
        sched = SCHEDULERS[name](T, opt)
        opt.step()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in (3, 10, 25, 7):
                sched.step(epoch)
        return sched.get_last_lr(), [str(w.message) for w in caught]
    assert run(gt) == run(torch)


def test_plateau_matches(torch):
    def run(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=[0.01, 0.05])
        rng = np.random.default_rng(0)
        lrs = []
        for step in range(50):
            sched.step(1.0 / (1 + step) + float(rng.uniform(0, 0.3)))
            lrs.append(sched.get_last_lr())
        return lrs, sched.num_bad_epochs, sched.best
    assert run(gt) == run(torch)


def _warnings_of(T, call_optimizer_first):
    opt = _optimizer(T)
    sched = T.optim.lr_scheduler.StepLR(opt, step_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            if call_optimizer_first:
                opt.step()
            sched.step()
        sched.get_lr()
    return [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("optimizer_first", [False, True])
def test_warnings_verbatim(torch, optimizer_first):
    ours = _warnings_of(gt, optimizer_first)
    assert ours == _warnings_of(torch, optimizer_first)
    assert any("get_last_lr()" in text for _, text in ours)


def test_errors_verbatim(torch):
    cases = [
        lambda T, o: T.optim.lr_scheduler.StepLR(object(), 3),
        lambda T, o: T.optim.lr_scheduler.LambdaLR(o, [_lambda]),
        lambda T, o: T.optim.lr_scheduler.SequentialLR(o, [T.optim.lr_scheduler.StepLR(o, 2)], milestones=[3]),
        lambda T, o: T.optim.lr_scheduler.ChainedScheduler([]),
        lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, 0.1),
        lambda T, o: T.optim.lr_scheduler.CyclicLR(o, [0.1], 0.2),
        lambda T, o: T.optim.lr_scheduler.StepLR(o, 3, last_epoch=4),
        lambda T, o: T.optim.lr_scheduler.ConstantLR(o, factor=2),
        lambda T, o: T.optim.lr_scheduler.ReduceLROnPlateau(o, mode="up"),
    ]

    def run(T, case):
        try:
            case(T, _optimizer(T))
        except Exception as error:  # noqa: BLE001 - the point is which one
            return type(error).__name__, str(error)
        return None

    for case in cases:
        assert run(gt, case) == run(torch, case)


def test_one_cycle_past_the_end(torch):
    def run(T):
        opt = _optimizer(T)
        sched = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
        for _ in range(3):
            opt.step()
            sched.step()
        with pytest.raises(ValueError) as error:
            opt.step()
            sched.step()
        return str(error.value)
    assert run(gt) == run(torch)
