"""torch.save / torch.load against real PyTorch 2.13: files the engine writes load in PyTorch
and PyTorch's load in the engine, with the same values, dtypes, shapes, strides, storage
offsets, requires_grad and Parameter-ness, over many seeds and shapes; a module's state_dict
round trip continues training identically; errors in PyTorch's words."""
import io
import pickle
import zipfile

import numpy as np
import pytest

import gradviz.torch as gt

torch = pytest.importorskip("torch")

SEEDS = range(6)
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64")


def _payload(T, seed):
    """A nested object of tensors (views sharing storage, transposes, every dtype), a
    state_dict, a Parameter and plain Python values, the same in both libraries."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(1, 4)))
    base = T.tensor(rng.standard_normal(shape), dtype=T.float64, requires_grad=bool(seed % 2))
    plain = base.detach()
    typed = {name: T.tensor(rng.standard_normal(shape) * 5).to(getattr(T, name)) for name in DTYPES}
    T.manual_seed(seed)
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.Linear(4, 2))
    return {"base": base, "view": plain.flatten()[plain.numel() // 2:], "t": plain.reshape(-1, 1).t(), "typed": typed,
            "state": model.state_dict(), "param": model[0].weight, "scalar": T.tensor(seed + 0.5),
            "empty": T.zeros(0, 3), "expanded": T.ones(1, 3).expand(2, 3),
            "meta": [seed, 2.5, "text", (None, True), {1, 2}], "size": T.Size(shape), "dtype": T.float16}


def _describe(T, value):
    if isinstance(value, T.Tensor):
        array = value.detach().float().numpy() if value.dtype is T.bfloat16 else value.detach().numpy()
        return ("tensor", type(value).__name__, str(value.dtype), tuple(value.shape), value.stride(),
                value.storage_offset(), value.requires_grad, array.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, [(k, _describe(T, v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)) and not isinstance(value, T.Size):
        return (type(value).__name__, [_describe(T, v) for v in value])
    return repr(value)


def _saved(T, obj):
    buffer = io.BytesIO()
    T.save(obj, buffer)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize("seed", SEEDS)
def test_engine_files_load_in_pytorch_and_back(seed):
    expected = _describe(torch, _payload(torch, seed))
    ours = _saved(gt, _payload(gt, seed))
    assert _describe(torch, torch.load(ours)) == expected
    ours.seek(0)
    assert _describe(gt, gt.load(ours)) == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_pytorch_files_load_in_the_engine(seed):
    theirs = _saved(torch, _payload(torch, seed))
    assert _describe(gt, gt.load(theirs)) == _describe(torch, _payload(torch, seed))


def test_storages_are_shared_as_pytorch_shares_them():
    def records(T):
        x = T.arange(12.0).reshape(3, 4)
        names = zipfile.ZipFile(_saved(T, [x, x[1:], x.t(), x[:, 1].clone()])).namelist()
        return sorted(n for n in names if "/data/" in n)
    assert records(gt) == records(torch)


def test_records_are_aligned_and_named_as_pytorch_names_them(tmp_path):
    for T in (gt, torch):
        (tmp_path / T.__name__).mkdir()
        T.save({"w": T.ones(3)}, tmp_path / T.__name__ / "net.model.pt")
    ours, theirs = (zipfile.ZipFile(tmp_path / T.__name__ / "net.model.pt") for T in (gt, torch))
    assert [i.filename for i in ours.infolist()] == [i.filename for i in theirs.infolist()]
    assert ours.namelist()[0] == "net.model/data.pkl"
    for info in ours.infolist():
        assert (info.header_offset + 30 + len(info.filename) + len(info.extra)) % 64 == 0
    assert torch.load(tmp_path / gt.__name__ / "net.model.pt", mmap=True)["w"].tolist() == [1.0, 1.0, 1.0]


def _train(T, seed, checkpoint_dir=None):
    """Six Adam steps; with a checkpoint_dir, the model and optimizer are saved after three,
    rebuilt from the file and trained on."""
    T.manual_seed(seed)
    model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Tanh(), T.nn.Linear(8, 1))
    opt = T.optim.Adam(model.parameters(), lr=0.01)
    x = T.randn(16, 4)
    for step in range(6):
        if step == 3 and checkpoint_dir is not None:
            path = checkpoint_dir / f"{T.__name__}.pt"
            T.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
            checkpoint = T.load(path)
            model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Tanh(), T.nn.Linear(8, 1))
            model.load_state_dict(checkpoint["model"])
            opt = T.optim.Adam(model.parameters(), lr=0.01)
            opt.load_state_dict(checkpoint["opt"])
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    return [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("seed", SEEDS)
def test_training_continues_identically_after_a_state_dict_round_trip(seed, tmp_path):
    """Resuming from the file is bit for bit training on, in each library; the two libraries
    agree to float32's rounding (the engine's matmul rounds as numpy's BLAS does)."""
    ours, theirs = _train(gt, seed, tmp_path), _train(torch, seed, tmp_path)
    for resumed, straight in zip(ours, _train(gt, seed)):
        np.testing.assert_array_equal(resumed, straight)
    for resumed, straight in zip(theirs, _train(torch, seed)):
        np.testing.assert_array_equal(resumed, straight)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_whole_modules_need_weights_only_false():
    def attempt(T):
        T.manual_seed(0)
        buffer = _saved(T, T.nn.Sequential(T.nn.Linear(3, 2), T.nn.ReLU()))
        with pytest.raises(pickle.UnpicklingError) as refused:
            T.load(buffer)
        buffer.seek(0)
        model = T.load(buffer, weights_only=False)
        return str(refused.value), repr(model), model[0].weight.tolist()
    assert attempt(gt) == attempt(torch)


def _error(T, call):
    try:
        call(T)
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("call", [
    lambda T: T.save(T.ones(2), 3),
    lambda T: T.load(3),
    lambda T: T.load(io.BytesIO(b"")),
    lambda T: T.load(_saved(T, T.ones(2)), pickle_module=pickle, weights_only=True),
    lambda T: T.load(_saved(T, {"f": np.float64}), weights_only=True),
], ids=["save_target", "load_unseekable", "load_empty", "pickle_module", "numpy_global"])
def test_errors_match_pytorch(call):
    assert _error(gt, call) == _error(torch, call)


def test_cuda_storages_need_a_map_location():
    theirs = _saved(torch, torch.ones(2))
    raw = bytearray(theirs.getvalue())
    archive = zipfile.ZipFile(io.BytesIO(bytes(raw)))
    pickled = archive.read("archive/data.pkl").replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    rewritten = io.BytesIO()
    with zipfile.ZipFile(rewritten, "w") as out:
        for name in archive.namelist():
            out.writestr(name, pickled if name.endswith("data.pkl") else archive.read(name))
    for T in (gt, torch):
        rewritten.seek(0)
        assert T.load(rewritten, map_location="cpu").tolist() == [1.0, 1.0]
        rewritten.seek(0)
        assert T.load(rewritten, map_location={"cuda:0": "cpu"}).tolist() == [1.0, 1.0]
    rewritten.seek(0)
    with pytest.raises(RuntimeError) as ours:
        gt.load(rewritten)
    assert "torch.cuda.is_available() is False" in str(ours.value)
