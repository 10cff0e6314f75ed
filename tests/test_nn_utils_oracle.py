"""torch.nn.utils against PyTorch 2.13: total norms and clipping (bit for bit), the
deprecated clip_grad_norm's warning, the hook-based weight_norm and spectral_norm (names,
random u/v draws, forwards and gradients, removal, errors), BatchNorm fusion, skip_init
and the vector conversions."""
import warnings

import numpy as np
import pytest

import gradviz.torch as gt


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _grads(lib, seed, dtypes=("float32",)):
    rng = np.random.default_rng(seed)
    params = []
    for i, shape in enumerate([(4, 3), (7,), (), (2, 2, 2)]):
        dtype = dtypes[i % len(dtypes)]
        p = lib.nn.Parameter(lib.from_numpy(np.asarray(rng.standard_normal(shape), dtype=dtype)))
        p.grad = lib.from_numpy(np.asarray(rng.standard_normal(shape) * 3, dtype=dtype))
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
@pytest.mark.parametrize("seed", range(4))
def test_clip_grad_norm_bit_exact(torch, seed, max_norm, norm_type):
    results = []
    for lib in (gt, torch):
        params = _grads(lib, seed, dtypes=("float32", "float64"))
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
        results.append((total.numpy(), [p.grad.numpy() for p in params]))
    assert results[0][0].dtype == results[1][0].dtype
    if norm_type == 3.5:
        # a fractional p goes through pow, whose float64 kernel may differ from PyTorch's in the last bit
        np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-14)
        for a, b in zip(results[0][1], results[1][1]):
            np.testing.assert_allclose(a, b, rtol=1e-6 if a.dtype == np.float32 else 1e-14)
        return
    np.testing.assert_array_equal(results[0][0], results[1][0])
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(3))
def test_get_total_norm_then_clip_grads_with_norm(torch, seed):
    results = []
    for lib in (gt, torch):
        params = _grads(lib, seed)
        total = lib.nn.utils.get_total_norm([p.grad for p in params], 2.0)
        lib.nn.utils.clip_grads_with_norm_(params, 1.0, total)
        results.append([total.numpy()] + [p.grad.numpy() for p in params])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_clip_grad_norm_warnings_and_errors(torch):
    seen = []
    for lib in (gt, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            params = _grads(lib, 0)
            total = lib.nn.utils.clip_grad_norm(params, 1.0)
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        params[0].grad[0, 0] = float("nan")
        with pytest.raises(RuntimeError) as raised:
            lib.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
        seen.append(([(w.category.__name__, str(w.message)) for w in caught], str(raised.value), float(total),
                     float(lib.nn.utils.get_total_norm([])), float(lib.nn.utils.clip_grad_norm_([], 1.0))))
    assert seen[0] == seen[1]


def test_weight_norm_hooks(torch):
    seen = []
    for lib in (gt, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            conv = lib.nn.utils.weight_norm(lib.nn.Conv2d(2, 3, 3), dim=1)
            linear = lib.nn.utils.weight_norm(lib.nn.Linear(3, 4))
            whole = lib.nn.utils.weight_norm(lib.nn.Linear(3, 2), dim=None)
        y = conv(lib.ones(1, 2, 4, 4)).sum() + linear(lib.ones(2, 3)).sum() + whole(lib.ones(1, 3)).sum()
        y.backward()
        names = [[n for n, _ in m.named_parameters()] for m in (conv, linear, whole)]
        shapes = [tuple(m.weight_g.shape) for m in (conv, linear, whole)]
        grads = [m.weight_g.grad.numpy() for m in (conv, linear, whole)] + [conv.weight_v.grad.numpy()]
        with pytest.raises(RuntimeError) as twice:
            lib.nn.utils.weight_norm(linear)
        lib.nn.utils.remove_weight_norm(conv)
        with pytest.raises(ValueError) as missing:
            lib.nn.utils.remove_weight_norm(conv)
        seen.append(dict(warnings=[(w.category.__name__, str(w.message)) for w in caught], names=names,
                         shapes=shapes, y=y.item(), grads=grads, twice=str(twice.value), missing=str(missing.value),
                         removed=[n for n, _ in conv.named_parameters()], weight=conv.weight.detach().numpy(),
                         hooks=len(conv._forward_pre_hooks)))
    ours, theirs = seen
    for key in ("warnings", "names", "shapes", "twice", "missing", "removed", "hooks"):
        assert ours[key] == theirs[key], key
    assert ours["y"] == pytest.approx(theirs["y"], rel=1e-6)
    for a, b in zip(ours["grads"] + [ours["weight"]], theirs["grads"] + [theirs["weight"]]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_spectral_norm(torch, seed):
    seen = []
    for lib in (gt, torch):
        lib.manual_seed(seed)
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 4), n_power_iterations=2)
        conv = lib.nn.utils.spectral_norm(lib.nn.Conv2d(3, 2, 2), dim=1)
        u0, v0 = m.weight_u.numpy().copy(), m.weight_v.numpy().copy()
        x = lib.ones(2, 5)
        for _ in range(3):
            y = m(x)
        y.sum().backward()
        conv_out = conv(lib.ones(1, 3, 3, 3)).sum().item()
        m.eval()
        evaluated = m(x).sum().item()
        with pytest.raises(RuntimeError) as twice:
            lib.nn.utils.spectral_norm(m)
        lib.nn.utils.remove_spectral_norm(m)
        with pytest.raises(ValueError) as missing:
            lib.nn.utils.remove_spectral_norm(m)
        with pytest.raises(ValueError) as iterations:
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        seen.append(dict(u0=u0, v0=v0, y=y.sum().item(), evaluated=evaluated, conv=conv_out,
                         conv_shapes=(tuple(conv.weight_u.shape), tuple(conv.weight_v.shape)),
                         errors=(str(twice.value), str(missing.value), str(iterations.value)),
                         names=[n for n, _ in m.named_parameters()], buffers=[n for n, _ in m.named_buffers()],
                         weight=m.weight.detach().numpy()))
    ours, theirs = seen
    np.testing.assert_array_equal(ours["u0"], theirs["u0"])  # the same normal draws, normalised alike
    np.testing.assert_array_equal(ours["v0"], theirs["v0"])
    for key in ("conv_shapes", "errors", "names", "buffers"):
        assert ours[key] == theirs[key], key
    for key in ("y", "evaluated", "conv"):
        assert ours[key] == pytest.approx(theirs[key], rel=1e-5), key
    np.testing.assert_allclose(ours["weight"], theirs["weight"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_fuse_conv_and_linear_bn(torch, seed, transpose):
    seen = []
    for lib in (gt, torch):
        lib.manual_seed(seed)
        # a transposed convolution's output channels are dim 1 of its weight: square here, the
        # engine has no ConvTranspose modules to take the weight from
        conv, bn = lib.nn.Conv2d(3 if transpose else 2, 3, 3, bias=bool(seed % 2)), lib.nn.BatchNorm2d(3, affine=seed != 2)
        with lib.no_grad():
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
        conv.eval()
        bn.eval()
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        linear, bn1 = lib.nn.Linear(3, 3), lib.nn.BatchNorm1d(3)
        with lib.no_grad():
            bn1.running_var.uniform_(0.5, 2)
        linear.eval()
        bn1.eval()
        fused_linear = lib.nn.utils.fuse_linear_bn_eval(linear, bn1)
        tensors = [fused.weight, fused.bias, fused_linear.weight, fused_linear.bias]
        seen.append(([t.detach().numpy() for t in tensors], [(type(t).__name__, t.requires_grad) for t in tensors]))
    for a, b in zip(seen[0][0], seen[1][0]):
        np.testing.assert_array_equal(a, b)
    assert seen[0][1] == seen[1][1]


def test_fusion_errors(torch):
    seen = []
    for lib in (gt, torch):
        messages = []
        for call in (lambda: lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 1, 1), lib.nn.BatchNorm2d(1)),
                     lambda: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3).eval(),
                                                              lib.nn.BatchNorm1d(5).eval())):
            with pytest.raises(AssertionError) as raised:
                call()
            messages.append(str(raised.value))
        seen.append(messages)
    assert seen[0] == seen[1]


def test_skip_init_leaves_the_stream_alone(torch):
    seen = []
    for lib in (gt, torch):
        lib.manual_seed(3)
        module = lib.nn.utils.skip_init(lib.nn.Linear, 3, 4, bias=False)
        after = lib.rand(3).numpy()
        errors = []
        for bad in (int, lib.nn.Identity):
            with pytest.raises(RuntimeError) as raised:
                lib.nn.utils.skip_init(bad)
            errors.append(str(raised.value))
        seen.append((repr(module), tuple(module.weight.shape), module.bias, after, errors,
                     type(module.weight).__name__))
    np.testing.assert_array_equal(seen[0][3], seen[1][3])
    assert seen[0][:3] + seen[0][4:] == seen[1][:3] + seen[1][4:]


def test_parameters_and_vectors(torch):
    seen = []
    for lib in (gt, torch):
        params = _grads(lib, 1)
        vec = lib.nn.utils.parameters_to_vector(params)
        lib.nn.utils.vector_to_parameters(vec * 2, params)
        seen.append((vec.detach().numpy(), [p.detach().numpy() for p in params], vec.grad_fn.name()))
    np.testing.assert_array_equal(seen[0][0], seen[1][0])
    for a, b in zip(seen[0][1], seen[1][1]):
        np.testing.assert_array_equal(a, b)
    assert seen[0][2] == seen[1][2]
