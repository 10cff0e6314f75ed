"""``graph --engine torch`` holds real PyTorch to the limits gradviz's engine holds itself to:
no tensor over 10,000,000 elements, no call returning over 10,000 tensors, whatever
argument form PyTorch accepts sized it. The guard runs each op on the meta device first,
with PyTorch's own shape rules, so nothing over the limit is ever allocated."""
import functools
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from _cli_helpers import ROOT

torch = pytest.importorskip("torch")

from gradviz.expression import ExpressionError, evaluate  # noqa: E402
from gradviz.inspect.torch_guard import allocation_guard  # noqa: E402

LIMIT = 10_000_000


def outcome(text):
    """"refused" (a limit), the element count of the result, or the error's type."""
    try:
        ev = evaluate(text, engine=torch, guard=allocation_guard)
    except ExpressionError as e:
        return "refused" if e.kind == "limit" else f"error: {e}"
    except Exception as e:  # noqa: BLE001 - PyTorch's own error for a malformed call
        return f"torch: {type(e).__name__}"
    value = ev.value
    if isinstance(value, (list, tuple)):
        return sum(int(v.numel()) for v in value)
    return int(value.numel()) if hasattr(value, "numel") else "ok"


def size_forms(dims):
    """PyTorch's spellings of one size."""
    joined = ", ".join(map(str, dims))
    one = f"({joined},)" if len(dims) == 1 else f"({joined})"
    return [joined, one, f"[{joined}]", f"ones(1).expand({joined}).shape"]


# (call, whether it takes the bare "a, b" form, how many elements it makes of a size of n elements)
CALLS = [
    ("ones({s})", True, 1), ("zeros(size={s})", False, 1), ("ones(size={s})", False, 1),
    ("rand(size={s})", False, 1), ("randn({s})", True, 1),
    ("full(size={s}, fill_value=2.0)", False, 1), ("full({s}, 1.5)", False, 1),
    ("randint(10, {s})", False, 1), ("randint(0, 10, size={s})", False, 1), ("randint(high=5, size={s})", False, 1),
    ("ones(1).new_ones(size={s})", False, 1), ("ones(1).new_zeros({s})", True, 1),
    ("ones(1).new_full(size={s}, fill_value=3.0)", False, 1),
    ("ones(1).repeat(repeats={s})", False, 1), ("ones(1).repeat({s})", True, 1),
    ("ones(1).expand(size={s}).contiguous()", False, 1), ("ones(1).expand({s}).clone()", True, 1),
    ("cat([ones(1).expand({s}), ones(1).expand({s})], axis=0)", False, 2),
    ("cat(tensors=[ones(1).expand({s}), ones(1).expand({s}), ones(1).expand({s})], dim=0)", False, 3),
    ("stack([ones(1).expand({s}), ones(1).expand({s})])", False, 2),
]


@settings(max_examples=80, deadline=None)
@given(dims=st.lists(st.integers(1, 40_000), min_size=1, max_size=3), call=st.sampled_from(CALLS),
       form=st.integers(0, 3))
def test_no_tensor_over_the_limit_is_ever_made(dims, call, form):
    text, bare_ok, copies = call
    if form == 0 and not bare_ok:
        form = 1
    numel = 1
    for d in dims:
        numel *= d
    result = outcome(text.format(s=size_forms(dims)[form]))
    if numel * copies > LIMIT or numel > LIMIT:
        assert not isinstance(result, int), (text, dims, result)  # never made
        assert result == "refused" or result.startswith("torch: "), result
    elif isinstance(result, int):
        assert result == numel * copies


@pytest.mark.parametrize("text, numel", [
    ("arange(end=20000000.0)", 20_000_000), ("arange(start=0, end=3e7, step=1)", 30_000_000),
    ("linspace(0, 1, steps=20000000)", 20_000_000), ("eye(5000, m=5000)", 25_000_000),
    ("ones(4000).outer(ones(4000))", 16_000_000), ("ones(3000, 1).expand(3000, 4000) @ ones(4000, 4000)", 16_000_000),
    ("ones(3).expand(5000, 3).repeat(2000, 1)", 30_000_000), ("ones(5000, 4000).sum()", 20_000_000),
])
def test_other_forms_are_refused(text, numel):
    assert outcome(text) == "refused", text


def test_too_many_pieces_are_refused():
    assert outcome("ones(100000).unbind()") == "refused"
    assert outcome("ones(20000).split(split_size=1)") == "refused"
    assert outcome("ones(20000).chunk(chunks=20000)") == "refused"


def test_calls_within_the_limits_are_untouched():
    assert outcome("ones(size=(1000, 1000)).sum()") == 1
    assert outcome("randint(10, (100, 100))") == 10_000
    ev = evaluate("(x * w).sum()", engine=torch, guard=allocation_guard, shape=(3,))
    assert float(ev.value) == pytest.approx(float((ev.leaves["x"] * ev.leaves["w"]).sum()))
    assert torch.utils._python_dispatch._get_current_dispatch_mode() is None  # the guard is gone


@pytest.mark.slow
@pytest.mark.parametrize("text", ["ones(size=(5000, 4000))", "randint(10, (5000, 4000))", "arange(end=2e7)",
                                  "x.new_ones(size=(5000, 4000))", "x.repeat(repeats=(5000, 5000))",
                                  "cat([ones(5000, 2000), ones(5000, 2000), ones(5000, 2000)], axis=0)"])
def test_the_cli_refuses_them_in_bounded_memory(text):
    """The forms of issue 23, through the command: exit 2, one line and a caret, and the
    process grows past what `x.sum()` takes by at most what the whole evaluation may
    allocate within its limits (50,000,000 elements in all: 200 MB of float32), where
    these refused tensors reached 3.6 to 7 GB before the guard."""
    code, peak_kb, stderr = _peak(text)
    assert code == 2, stderr
    first = stderr.splitlines()[0]  # the estimator's words or the guard's: refused either way
    assert first.startswith("gradviz graph: error: ") and "would create a tensor of" in first and "limit" in first
    base_kb = _peak("x.sum()")[1]
    assert peak_kb < base_kb + 210_000, (peak_kb, base_kb)


@functools.lru_cache(maxsize=None)
def _peak(text):
    """(exit status, peak RSS in KB, stderr) of `gradviz graph TEXT --engine torch`, measured
    by a fresh process whose only child it is."""
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run([sys.executable, '-m', 'gradviz', 'graph', sys.argv[1], '--engine', 'torch'],"
             " capture_output=True, text=True)\n"
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(p.stderr)\n")
    p = subprocess.run([sys.executable, "-c", probe, text], capture_output=True, text=True, cwd=ROOT, timeout=120)
    code, peak_kb = map(int, p.stdout.split())
    return code, peak_kb, p.stderr
