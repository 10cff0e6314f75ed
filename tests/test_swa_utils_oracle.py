"""torch.optim.swa_utils against PyTorch 2.13: AveragedModel's SWA and EMA averages (per
tensor and multi-tensor functions, with and without buffers) bit for bit over seeded
training runs, update_bn's running statistics, SWALR's learning rates and its errors."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _model(lib, seed):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.BatchNorm1d(8), lib.nn.ReLU(), lib.nn.Linear(8, 2))


AVERAGERS = {
    "swa": lambda lib: {},
    "swa_buffers": lambda lib: {"use_buffers": True},
    "ema": lambda lib: {"avg_fn": lib.optim.swa_utils.get_ema_avg_fn(0.9)},
    "ema_multi_buffers": lambda lib: {"multi_avg_fn": lib.optim.swa_utils.get_ema_multi_avg_fn(0.8),
                                      "use_buffers": True},
    "swa_multi": lambda lib: {"multi_avg_fn": lib.optim.swa_utils.get_swa_multi_avg_fn()},
    "swa_fn": lambda lib: {"avg_fn": lib.optim.swa_utils.get_swa_avg_fn()},
}


def _train_and_average(lib, seed, averager):
    """Twelve 'training steps' that write seeded values into the model's parameters and
    floating buffers (the same bits on both sides), each followed by an average: only the
    averaging's arithmetic is compared."""
    model = _model(lib, seed)
    averaged = lib.optim.swa_utils.AveragedModel(model, **AVERAGERS[averager](lib))
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for _ in range(12):
            for t in list(model.parameters()) + list(model.buffers()):
                if t.is_floating_point():
                    t.copy_(lib.from_numpy(rng.standard_normal(tuple(t.shape)).astype(np.float32)))
                else:
                    t.add_(1)
            averaged.update_parameters(model)
    state = averaged.state_dict()
    return {k: v.detach().numpy().copy() for k, v in state.items()}


@pytest.mark.parametrize("averager", list(AVERAGERS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_averaged_model_bit_exact(torch, averager, seed):
    ours, theirs = _train_and_average(gt, seed, averager), _train_and_average(torch, seed, averager)
    assert list(ours) == list(theirs)
    for key in ours:
        assert ours[key].dtype == theirs[key].dtype, key
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


def _bn_stats(lib, seed):
    model = _model(lib, seed)
    rng = np.random.default_rng(seed)
    loader = [(lib.from_numpy(rng.standard_normal((8, 4)).astype(np.float32)), 0) for _ in range(5)]
    model.eval()
    lib.optim.swa_utils.update_bn(loader, model)
    bn = model[1]
    return (bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(), int(bn.num_batches_tracked),
            bn.momentum, model.training)


@pytest.mark.parametrize("seed", [0, 3])
def test_update_bn(torch, seed):
    ours, theirs = _bn_stats(gt, seed), _bn_stats(torch, seed)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2:] == theirs[2:]


@pytest.mark.parametrize("strategy,epochs", [("cos", 10), ("linear", 4), ("cos", 0), ("linear", 1)])
def test_swalr_learning_rates(torch, strategy, epochs):
    def lrs(lib):
        params = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))]
        opt = lib.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.3}], lr=0.1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.01], anneal_epochs=epochs,
                                                  anneal_strategy=strategy)
            seen = []
            for _ in range(14):
                opt.step()
                scheduler.step()
                seen.append(scheduler.get_last_lr())
        state = {k: v for k, v in scheduler.state_dict().items() if k != "_last_lr"}
        return seen, state, [str(w.message) for w in caught], [g["swa_lr"] for g in opt.param_groups]
    assert lrs(gt) == lrs(torch)


@pytest.mark.parametrize("call", [
    lambda lib, opt: lib.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="exp"),
    lambda lib, opt: lib.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1),
    lambda lib, opt: lib.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2.5),
    lambda lib, opt: lib.optim.swa_utils.SWALR(opt, swa_lr=[0.1, 0.2]),
    lambda lib, opt: lib.optim.swa_utils.get_ema_avg_fn(1.5),
    lambda lib, opt: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1),
])
def test_errors_verbatim(torch, call):
    messages = []
    for lib in (gt, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)
        with pytest.raises(ValueError) as raised:
            call(lib, opt)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_two_averaging_functions_refused(torch):
    messages = []
    for lib in (gt, torch):
        fns = lib.optim.swa_utils
        with pytest.raises(AssertionError) as raised:
            fns.AveragedModel(lib.nn.Linear(2, 2), avg_fn=fns.get_swa_avg_fn(), multi_avg_fn=fns.get_swa_multi_avg_fn())
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_averaged_model_repr_and_forward(torch):
    reprs = []
    for lib in (gt, torch):
        averaged = lib.optim.swa_utils.AveragedModel(_model(lib, 0))
        averaged.eval()
        out = averaged(lib.ones(3, 4))
        reprs.append((repr(averaged), out.detach().numpy(), int(averaged.n_averaged)))
    assert reprs[0][0] == reprs[1][0]
    np.testing.assert_array_equal(reprs[0][1], reprs[1][1])
    assert reprs[0][2] == reprs[1][2] == 0
