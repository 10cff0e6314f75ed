"""frame_lines.line_of: frame.f_lineno without CPython 3.11's scan of the whole line table,
so a long straight-line script records its creation sites in linear time."""
import sys

from gradviz.frame_lines import line_of


def _frames_of(source):
    """(f_lineno, line_of) at every call of ``probe`` in ``source``."""
    seen = []

    def probe(*_):
        frame = sys._getframe(1)
        seen.append((frame.f_lineno, line_of(frame)))

    exec(compile(source, "<long>", "exec"), {"probe": probe})
    return seen


def test_the_same_line_as_f_lineno_in_every_construct():
    block = ("x = [probe() for _ in range(2)] if True else 0\n"
             "for i in range(2):\n    probe()\n    y = (probe(),\n         probe())\n"
             "try:\n    1 / 0\nexcept ZeroDivisionError:\n    probe()\n"
             "with open(__file__ if False else '/dev/null') as f:\n    probe(\n        1,\n    )\n")
    seen = _frames_of("__file__ = None\n" + block * 800)
    assert len(seen) == 800 * 10
    assert all(a == b for a, b in seen)


class _NoLineno:
    """A frame whose f_lineno must not be read (it would scan the line table)."""

    def __init__(self, frame):
        self.f_code, self.f_lasti = frame.f_code, frame.f_lasti

    @property
    def f_lineno(self):
        raise AssertionError("f_lineno read for a large code object")


def test_a_large_code_object_is_not_rescanned():
    lines = []

    def probe():
        frame = sys._getframe(1)
        lines.append((frame.f_lineno, line_of(_NoLineno(frame))))

    source = "".join(f"v{i} = {i}\n" if i % 1000 else "probe()\n" for i in range(20000))
    exec(compile(source, "<long>", "exec"), {"probe": probe})
    assert [a for a, _ in lines] == [b for _, b in lines] == [i + 1 for i in range(0, 20000, 1000)]


def test_engine_sites_in_a_long_script(tmp_path):
    """The creation site of each node of a 6,000-line straight script is its own line."""
    import gradviz.torch as torch
    source = "y = x\n" + "y = y * 1.5\n" * 6000
    path = tmp_path / "long.py"
    path.write_text(source)
    namespace = {"x": torch.ones(2, requires_grad=True)}
    exec(compile(source, str(path), "exec"), namespace)
    node, lines = namespace["y"].grad_fn, []
    while node is not None and type(node).__name__ == "MulBackward0":
        lines.append(node._sig[5][1])
        node = node.next_functions[0][0]
    assert lines == list(range(6001, 1, -1))
