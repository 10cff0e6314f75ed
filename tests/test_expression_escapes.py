"""Known sandbox escapes, resource bombs and malformed input: every one is refused with
an ExpressionError, quickly, without side effects (no module imported, no file created,
no process started, no code compiled, no large allocation)."""
import builtins
import os
import subprocess
import sys
import time
import tracemalloc

import pytest

from gradviz import expression
from gradviz.expression import ExpressionError, evaluate, format_error, parse

# (text, where it must be refused: "parse" = before anything runs, "eval" = at run time
# but before the offending call)
ESCAPES = [
    # imports and builtins
    ("__import__('os')", "parse"),
    ("__import__('os').system('touch pwned')", "parse"),
    ("import os", "parse"),
    ("from os import system", "parse"),
    ("import os; os.system('touch pwned')", "parse"),
    ("open('/etc/passwd')", "parse"),
    ("open('pwned.txt', 'w')", "parse"),
    ("exec('import os')", "parse"),
    ("eval('1+1')", "parse"),
    ("compile('1', 'f', 'eval')", "parse"),
    ("globals()", "parse"),
    ("locals()", "parse"),
    ("vars()", "parse"),
    ("dir()", "parse"),
    ("type(x)", "parse"),
    ("type(x).__init__.__globals__", "parse"),
    ("getattr(x, '__class__')", "parse"),
    ("getattr(x, 'grad_fn')", "parse"),
    ("setattr(x, 'grad', None)", "parse"),
    ("breakpoint()", "parse"),
    ("print(x)", "parse"),
    ("input()", "parse"),
    ("help(x)", "parse"),
    ("exit()", "parse"),
    ("object.__subclasses__()", "parse"),
    ("super()", "parse"),
    ("memoryview(x)", "parse"),
    ("int('9' * 5000)", "parse"),
    ("os.system('id')", "parse"),
    ("np.zeros(3)", "parse"),
    ("sys.modules", "parse"),
    ("\uff45\uff56\uff41\uff4c('1')", "parse"),  # fullwidth 'eval', NFKC-normalized by the parser
    # dunder and private attributes
    ("().__class__.__bases__[0].__subclasses__()", "parse"),
    ("x.__class__", "parse"),
    ("x.__class__.__mro__[-1].__subclasses__()", "parse"),
    ("x.grad_fn.__class__", "parse"),
    ("x.__dict__", "parse"),
    ("x._data", "parse"),
    ("x.data._data.ctypes", "parse"),
    ("x.__reduce_ex__(2)", "parse"),
    ("x.T.__class__", "parse"),
    ("[x][0].__class__", "parse"),
    ("x.shape.__class__", "parse"),
    ("torch.__dict__", "parse"),
    ("torch._C", "parse"),
    ("torch.nn.functional.np", "parse"),
    ("F.np.ctypes", "parse"),
    ("F.warnings.warn('x')", "parse"),
    ("torch.load('x.pt')", "parse"),
    ("torch.save(x, 'pwned.pt')", "parse"),
    ("torch.from_numpy(x)", "parse"),
    ("torch.manual_seed(1)", "parse"),
    ("torch.Tensor.__subclasses__()", "parse"),
    ("torch", "parse"),
    ("tanh", "parse"),
    ("x.sum", "parse"),
    # attribute and method chains on non-tensors
    ("x.numpy().ctypes", "parse"),
    ("x.numpy()", "parse"),
    ("x.tolist()", "parse"),
    ("x.register_hook(print)", "parse"),
    ("x.backward()", "parse"),
    ("x.grad_fn.next_functions", "parse"),
    ("x.grad_fn.register_hook(x)", "parse"),
    ("x.grad_fn.name()", "parse"),
    ("x.shape.numel()", "parse"),
    ("x.dtype.to_complex()", "parse"),
    ("x.size().count(1)", "parse"),
    ("x.size().index(3)", "parse"),
    ("(1).bit_length()", "parse"),
    ("x.sum().item().hex()", "parse"),
    # format strings
    ("'{0.__class__}'.format(x)", "parse"),
    ("'{}'.format(x)", "parse"),
    ("'%s' % x", "parse"),
    ("f'{x.__class__}'", "parse"),
    ("f'{x!r:>{10**9}}'", "parse"),
    ("F.mse_loss(x, x, reduction='{0.__class__}')", "parse"),
    ("x.to('__class__')", "parse"),
    ("ones(3, dtype='float64')", "parse"),
    # functions, classes, comprehensions, other syntax
    ("[c for c in ()]", "parse"),
    ("(c for c in ())", "parse"),
    ("{k: 1 for k in ()}", "parse"),
    ("{c for c in ()}", "parse"),
    ("lambda: 0", "parse"),
    ("(lambda: __import__('os'))()", "parse"),
    ("(y := x)", "parse"),
    ("def f(): pass", "parse"),
    ("@property\ndef f(): pass", "parse"),
    ("class A: pass", "parse"),
    ("async def f(): pass", "parse"),
    ("with open('f') as f: pass", "parse"),
    ("for i in x: pass", "parse"),
    ("while True: pass", "parse"),
    ("try:\n    pass\nexcept Exception:\n    pass", "parse"),
    ("raise SystemExit", "parse"),
    ("assert x", "parse"),
    ("del x", "parse"),
    ("global x", "parse"),
    ("x.grad = None", "parse"),
    ("x[0] = 1", "parse"),
    ("a, b = x, x", "parse"),
    ("a = b = x", "parse"),
    ("x += 1", "parse"),
    ("{'a': x}", "parse"),
    ("{x}", "parse"),
    ("x if x else x", "parse"),
    ("x and x", "parse"),
    ("not x", "parse"),
    ("x in x", "parse"),
    ("x << 1000000", "parse"),
    ("ones(3, **{'dtype': None})", "parse"),
    ("ones(*'abc')", "parse"),
    ("ones(3, out=x)", "parse"),
    ("ones(3, _stacklevel=1)", "parse"),
    ("softmax(x, 0, _stacklevel=1)", "parse"),
    ("x(1)", "parse"),
    ("x.grad_fn(x)", "parse"),
    ("tanh(x)(x)", "parse"),
    ("b'\\x00'", "parse"),
    ("1j * x", "parse"),
    ("x + '\\x00'", "parse"),
    ("__builtins__", "parse"),
    ("__name__", "parse"),
    ("_", "parse"),
    # huge numbers and repetition
    ("2**10**10", "parse"),
    ("10**10**10", "parse"),
    ("(2**64)**(2**64)", "parse"),
    ("99999999999999999999999999999999999999 * x", "parse"),
    ("1" + "0" * 5000, "parse"),
    ("tensor([0] * 10**9)", "parse"),
    ("cat([x] * 10**6)", "parse"),
    ("(x,) * 10**9", "parse"),
    ("x.shape * 10**9", "parse"),
    ("x.size() * 10**9", "eval"),
    ("x.shape[0] ** 10**6", "eval"),
    ("n = x.shape[0] * 1000; n ** n", "eval"),
    # allocations, checked before they happen
    ("ones(10**12)", "eval"),
    ("zeros(10**6, 10**6)", "eval"),
    ("randn(100000, 100000)", "eval"),
    ("rand((10**5, 10**5))", "eval"),
    ("ones(tensor(10**12))", "eval"),
    ("ones(1e12)", "eval"),
    ("full((10**6, 10**6), 1.0)", "eval"),
    ("randint(0, 10, (10**6, 10**6))", "eval"),
    ("normal(0.0, 1.0, (10**6, 10**6))", "eval"),
    ("arange(0, 1, 1e-12)", "eval"),
    ("arange(10**12)", "eval"),
    ("linspace(0, 1, 10**12)", "eval"),
    ("eye(10**6)", "eval"),
    ("randperm(10**12)", "eval"),
    ("x.expand(10**9)", "eval"),
    ("x[None].expand(10**5, 10**5)", "eval"),
    ("x.repeat(10**5, 10**5)", "eval"),
    ("x.new_zeros(10**6, 10**6)", "eval"),
    ("x.new_full((10**6, 10**6), 1.0)", "eval"),
    ("x.new_tensor(ones(10**12))", "eval"),
    ("outer(ones(10**6), ones(10**6))", "eval"),
    ("ones(10**4, 1) * ones(1, 10**4)", "eval"),
    ("ones(10**4, 10**3) @ ones(10**3, 10**4)", "eval"),
    ("ones(3000, 3000) @ ones(3000, 3000)", "eval"),
    ("where(ones(10**4, 1) > 0, ones(1, 10**4), 0.0)", "eval"),
    ("F.conv2d(ones(1, 1, 1, 1), ones(1, 1, 1, 1), padding=10**5)", "eval"),
    ("F.max_pool2d(ones(1, 1, 4, 4), 2, padding=10**5)", "eval"),
    ("tensor_split(x, 10**9)", "eval"),
    ("ones(10**6).split(1)", "eval"),
    ("ones(10**6).unbind()", "eval"),
    ("ones(10**3, 10**3)[zeros(10**5).long()]", "eval"),
    ("ones(10**3, 10**3)[[0] * 1000, :][[0] * 1000]", "parse"),
    ("ones(10**4, 10**3).index_select(0, zeros(10**5).long())", "eval"),
    ("ones(10**6, 1).expand(10**6, 100)", "eval"),
    ("ones(10**6, 1) + ones(1, 100)", "eval"),
]

# Input that is not a program at all.
MALFORMED = [
    ("(" * 10000 + "x" + ")" * 10000, "parse"),     # too long and too deep
    ("(" * 190 + "x" + ")" * 190, "ok"),
    ("-" * 5000 + "x", "parse"),
    ("x" + ".T" * 3000, "parse"),
    ("x" + "+x" * 3000, "parse"),
    ("x" + "[0]" * 2000, "parse"),
    ("tanh(" * 1000 + "x" + ")" * 1000, "parse"),
    ("[" * 3000, "parse"),
    ("x" * 20000, "parse"),
    ("x\x00", "parse"),
    ("x + 1\x00", "parse"),
    ("\x00", "parse"),
    ("x +", "parse"),
    (")", "parse"),
    ("x\n  y", "parse"),
    ("\ufeffx", "parse"),
    ("x; ", "ok"),
    ("", "parse"),
    ("a+b+" * 1999 + "a", "parse"),
    (" + ".join(["x"] * 1500), "parse"),
]


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """Run in an empty directory with open/system/Popen/compile-to-code recorded."""
    monkeypatch.chdir(tmp_path)
    calls = []
    real_open, real_compile = builtins.open, builtins.compile

    def spy_open(*a, **k):
        calls.append(("open", a))
        return real_open(*a, **k)

    def spy_compile(source, filename, mode, flags=0, *a, **k):
        import ast
        if not flags & ast.PyCF_ONLY_AST:
            calls.append(("compile", source))
        return real_compile(source, filename, mode, flags, *a, **k)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(builtins, "compile", spy_compile)
    monkeypatch.setattr(os, "system", lambda *a, **k: calls.append(("system", a)))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: calls.append(("Popen", a)))
    # warm-up so lazily imported modules are loaded before the comparison
    evaluate("(x * 2).sum()").value.backward()
    modules = set(sys.modules)
    yield calls
    assert not calls, calls
    assert set(sys.modules) == modules, sorted(set(sys.modules) ^ modules)
    assert list(tmp_path.iterdir()) == []


def _check_refused(text, stage, calls):
    start = time.perf_counter()
    tracemalloc.start()
    try:
        if stage == "parse":
            with pytest.raises(ExpressionError) as e:
                parse(text)
        elif stage == "eval":
            program = parse(text)
            with pytest.raises(ExpressionError) as e:
                evaluate(program, shape=(3,))
        else:
            evaluate(text)
            return
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - start
    err = e.value
    assert err.message and isinstance(err.message, str)
    assert err.kind in ("syntax", "refused", "limit", "option")
    rendered = format_error(err)
    assert rendered.startswith("error: ")
    assert "\x00" not in rendered
    if err.col is not None:
        assert "^" in rendered
    assert elapsed < 5, f"{text[:60]!r} took {elapsed:.1f}s"
    assert peak < 300 * 2 ** 20, f"{text[:60]!r} allocated {peak / 2 ** 20:.0f} MB"
    return err


@pytest.mark.parametrize("text, stage", ESCAPES, ids=[t[:60] for t, _ in ESCAPES])
def test_escape_is_refused(text, stage, sandbox):
    _check_refused(text, stage, sandbox)


@pytest.mark.parametrize("text, stage", MALFORMED, ids=[repr(t[:30]) + f"-{len(t)}" for t, _ in MALFORMED])
def test_malformed_input_is_refused_cleanly(text, stage, sandbox):
    _check_refused(text, stage, sandbox)


def test_at_least_forty_escapes():
    assert len(ESCAPES) >= 40


def test_allocation_refusals_name_the_limit():
    with pytest.raises(ExpressionError) as e:
        evaluate("ones(10**12)")
    assert e.value.kind == "limit"
    assert "1,000,000,000,000 elements" in e.value.message and "limit" in e.value.message
    assert e.value.col == 1 and e.value.end_col == 13


def test_power_refusal_points_at_the_power():
    with pytest.raises(ExpressionError) as e:
        parse("x * 2**10**10")
    assert e.value.kind == "limit" and e.value.col == 5


def test_refusals_are_static_for_the_whole_tree():
    # the second statement is refused although the first would run fine
    with pytest.raises(ExpressionError) as e:
        parse("b = ones(3); c = b.__class__")
    assert e.value.col == 20


def test_no_eval_or_exec_in_the_library():
    import pathlib
    import re
    root = pathlib.Path(expression.__file__).parent
    for path in root.glob("*.py"):
        code = path.read_text()
        assert not re.search(r"(?<![\w.])(eval|exec|compile|__import__)\(", code), path
        assert not re.search(r"import importlib|importlib\.|\bos\.system|subprocess\.", code), path


def test_sandbox_fixture_detects_side_effects(tmp_path, monkeypatch):
    # the spies work: a real open() in the sandbox is recorded
    calls = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda *a, **k: calls.append(a) or real_open(*a, **k))
    with open(tmp_path / "probe", "w"):
        pass
    assert calls
