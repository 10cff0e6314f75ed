"""The terminal table fits the terminal: at every width from 60 columns up, and in a pipe,
no line is wider than the terminal and no name, grad_fn or number is cut in two; columns
give way in order (flags, dtype, data values, grad values, then records). Values read by
one rule (module ``gradviz.render.values``); --precision, --full-values and
--cells --changed-only change what the table shows.

Every CLI check invokes the real command and reads its output, as a user would.
"""
import io
import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from rich.console import Console

import gradviz.torch as torch
from gradviz import cli, scripting
from gradviz.render import tables, values

from _cli_helpers import ROOT, SAMPLES, write

WIDTHS = (60, 70, 80, 100, 120, 200)
SAMPLE_NAMES = ("seed_graph", "tiny_mlp", "transformer_block")
ANSI = re.compile(r"\x1b\[")


def invoke(*args, columns=120):
    env = {"COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    try:
        r = CliRunner(env=env, mix_stderr=False)
    except TypeError:
        r = CliRunner(env=env)
    return r.invoke(cli.cli, [str(a) for a in args], catch_exceptions=False)


def info_from_json(d) -> scripting.TensorInfo:
    """A TensorInfo back from ``run --json``'s tensor record (finite values only)."""
    def stats(s):
        return scripting.Stats(s["min"], s["max"], s["mean"], s["norm"])

    shape = tuple(d["shape"])
    numel = 1
    for s in shape:
        numel *= s
    grad = None if d["grad"] is None else scripting.Values(d["grad"]["data"], stats(d["grad"]["stats"]))
    return scripting.TensorInfo(d["name"], shape, d["dtype"], d["requires_grad"], d["is_leaf"],
                                d["retains_grad"], d["grad_fn"], d["data"], stats(d["stats"]), grad, numel)


_JSON = {}


def sample_tensors(name):
    if name not in _JSON:
        r = invoke("run", SAMPLES / f"{name}.py", "--json")
        assert r.exit_code == 0, r.stderr
        _JSON[name] = [info_from_json(t) for t in json.loads(r.stdout)["cells"][-1]["tensors"]]
    return _JSON[name]


def table_section(out: str, title: str = "Tensors after") -> list:
    """The lines from the table's title to the next blank line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def check_fits(section, tensors, width):
    """Every line within ``width``; each tensor's name, grad_fn and value texts whole."""
    assert all(len(line) <= width for line in section), "\n".join(section)
    assert not any(line != line.rstrip() for line in section)
    by_name = {t.name: t for t in tensors}
    # the title may take two lines (a long path in a narrow terminal)
    first = next(i for i, line in enumerate(section) if line.startswith(("name  ", tensors[0].name + "  ")))
    section = section[first - 1:]
    if section[1].startswith("name"):  # a table: one line per tensor, nothing wraps
        assert set(section[2]) == {"─"}
        rows = section[3:3 + len(tensors)]
        assert [r.split("  ")[0] for r in rows] == [t.name for t in tensors], "\n".join(section)
        rest = section[3 + len(tensors):]
        assert all(note in tables._FLAG_NOTES.values() for note in rest), rest
        for row, t in zip(rows, tensors):
            cells = re.split(r"\s{2,}", row)
            assert cells[0] == t.name
            assert values.format_shape(t.shape) in cells
            assert (t.grad_fn or "-") in cells or "leaf" in cells
            assert cells[-1] in values.data_forms(t), (row, values.data_forms(t))
            assert cells[-2] in values.grad_forms(t), (row, values.grad_forms(t))
        return "table"
    # records: a head line per tensor, then its grad and data lines
    i = 1
    for t in tensors:
        head = section[i]
        assert head.split("  ")[0] == t.name, (head, t.name)
        i += 1
        while section[i].startswith("    "):  # the head went on (a long name, a narrow terminal)
            i += 1
        if t.grad_fn:
            assert f"grad_fn={t.grad_fn}" in " ".join(section[i - 1:i + 1]) or t.grad_fn in head
        for label, forms in (("grad", values.grad_forms(t)), ("data", values.data_forms(t))):
            if label == "grad" and not t.requires_grad:
                continue
            assert section[i].startswith(f"  {label}  "), section[i]
            assert section[i][8:] in forms, (section[i], forms)
            i += 1
    assert by_name and i == len(section)
    return "records"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("sample", SAMPLE_NAMES)
def test_table_fits_every_width(sample, width):
    r = invoke("run", SAMPLES / f"{sample}.py", columns=width)
    assert r.exit_code == 0, r.stderr
    assert not ANSI.search(r.stdout)
    tensors = sample_tensors(sample)
    check_fits(table_section(r.stdout), tensors, width)


def test_columns_give_way_in_order(monkeypatch):
    """seed_graph: full flags at 120, ✓ columns at 100, dtype to the title and merged flags at 80,
    data shortened before grad at 60; the longest names go to records at 60 and 80. The
    scripts are named as a user names them, relative to the checkout, whose own path may be
    long (the title names the script and wraps)."""
    from pathlib import Path

    monkeypatch.chdir(ROOT)
    SAMPLES = Path("samples")
    heads = {}
    for width in (200, 120, 100, 80, 60):
        sec = table_section(invoke("run", SAMPLES / "seed_graph.py", columns=width).stdout)
        heads[width] = (sec[0], sec[1].split())
    assert heads[120][1] == ["name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad", "data"]
    assert heads[200] == heads[120]
    assert heads[100][1] == ["name", "shape", "dtype", "rg", "leaf", "grad_fn", "grad", "data"]
    assert heads[80] == ("Tensors after " + str(SAMPLES / "seed_graph.py") + " (all float32)",
                         ["name", "shape", "grad_fn", "grad", "data"])
    out60 = invoke("run", SAMPLES / "seed_graph.py", columns=60).stdout
    rows = {line.split()[0]: line for line in table_section(out60)[3:]}
    assert rows["a"].split()[-2:] == ["-1.5..1.78", "-2.18..1.54"]  # no means, numbers whole
    assert rows["b"].split()[1:] == ["(3,", "3)", "MulBackward0", "None", "-1.19..1.5"]
    assert "in grad_fn, leaf: a leaf that requires grad, -: no grad" in out60
    # at 80 the grad column keeps its means while data's are already gone? no: both fit
    out80 = invoke("run", SAMPLES / "seed_graph.py", columns=80).stdout
    assert "-1.5..1.78, mean -0.0441   -2.18..1.54, mean -0.258" in out80
    # long names cannot share 60 columns with a table: records
    t60 = table_section(invoke("run", SAMPLES / "transformer_block.py", columns=60).stdout)
    first = 1
    assert t60[first] == "block.norm1.weight  (8,)  float32  leaf, requires_grad=True"
    assert t60[first + 1].startswith("  grad  [") and t60[first + 2] == "  data  all 1"
    assert "block.attn.in_proj_weight  (24, 8)  float32" in t60
    assert "    leaf, requires_grad=True" in t60


def test_data_gives_way_before_grad():
    x = torch.tensor([0.123456, -1.23456, 2.34567], requires_grad=True)
    (x * torch.tensor([1.5, 2.5, 3.5])).sum().backward()
    t = scripting.tensor_info("w", x)
    g_forms, d_forms = values.grad_forms(t), values.data_forms(t)
    seen = []
    for width in range(80, 20, -1):
        plan = tables.plan_table([t], width)
        if plan.kind != "table":
            break
        grad, data = plan.rows()[0][-2:]
        seen.append((g_forms.index(grad), d_forms.index(data)))
    assert seen[0] == (0, 0)
    first_cut = next(s for s in seen if s != (0, 0))
    assert first_cut == (0, 1)  # data shortens first
    assert all(g <= d for g, d in seen)  # grad never shorter-form than data
    assert tables.plan_table([t], 20).kind == "records"


def test_pipe_width_is_160_columns():
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    p = subprocess.run([sys.executable, "-m", "gradviz", "run", "samples/transformer_block.py"], cwd=ROOT,
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert tables.PIPE_WIDTH == 160
    section = table_section(p.stdout)
    assert max(len(line) for line in section) <= 160
    assert check_fits(section, sample_tensors("transformer_block"), 160) == "table"
    # 160 columns: the widest table of the samples keeps a row per tensor and full grad lists
    assert "[0.04134, 0.003092, 0.01926, …, 0.02244, 0.02298, 0.02533]" in p.stdout


def test_console_widths_directly():
    """Many random-ish tables, every width from 60 to 130: nothing exceeds, nothing is cut."""
    gen = torch.Generator().manual_seed(3)
    made = [
        ("a_rather_long_parameter_name.weight", torch.randn(4, 5, generator=gen, requires_grad=True)),
        ("b", torch.randn(3, generator=gen, requires_grad=True) * 1e-7),
        ("c", torch.full((2, 3), 2.0)),
        ("d", torch.arange(6).reshape(2, 3)),
        ("flag", torch.tensor([True, False])),
        ("big", torch.randn(40, 30, generator=gen) * 1e12),
    ]
    made.append(("e", (made[0][1].sum() * made[1][1].sum()).exp()))
    infos = [scripting.tensor_info(n, t) for n, t in made]
    for width in range(60, 131):
        buf = io.StringIO()
        con = Console(file=buf, width=width, color_system=None, legacy_windows=False)
        tables.print_tensors(con, infos, "Tensors")
        section = table_section(buf.getvalue(), "Tensors")
        check_fits(section, infos, width)


# --------------------------------------------------------------------------- the value rule


def test_a_constant_reads_all():
    infos = [scripting.tensor_info(n, t) for n, t in
             [("twos", torch.full((2, 3), 2.0)), ("zeros", torch.zeros(50)), ("t", torch.ones(3, dtype=torch.bool)),
              ("one", torch.tensor(2.0)), ("n", torch.full((1500,), -0.5))]]
    assert [values.data_forms(t)[0] for t in infos] == ["all 2", "all 0", "all True", "2", "all -0.5"]
    assert "2..2" not in " ".join(r[-1] for r in values.tensor_rows(infos))


def test_same_shape_rows_read_alike():
    """Listing or summarising depends on the number of elements only, not on how long the
    values' text is: before, [[1, 2, 3], ...] was listed and its float neighbour summarised."""
    ints = torch.arange(9.0).reshape(3, 3)
    floats = torch.randn(3, 3, generator=torch.Generator().manual_seed(0))
    small = torch.tensor([1.0, 2.0, 3.0])
    long = torch.tensor([0.123456, -12.3456, 123.456])
    rows = values.tensor_rows([scripting.tensor_info(n, t) for n, t in
                               [("i", ints), ("f", floats), ("s", small), ("l", long)]])
    assert rows[0][-1] == "0..8, mean 4" and ", mean " in rows[1][-1]
    assert rows[2][-1] == "[1, 2, 3]" and rows[3][-1] == "[0.1235, -12.35, 123.5]"
    assert values.LIST_LIMIT == 8
    eight = values.data_forms(scripting.tensor_info("x", torch.linspace(0, 1, 8)))
    nine = values.data_forms(scripting.tensor_info("x", torch.linspace(0, 1, 9)))
    assert eight[0].startswith("[0, 0.1429") and eight[-1] == "[0, …]"
    assert nine == ["0..1, mean 0.5", "0..1"]


def test_nan_in_a_summary_is_counted():
    x = torch.zeros(20)
    x[3] = float("nan")
    y = torch.linspace(-1, 1, 20)
    y[0] = float("nan")
    assert values.data_forms(scripting.tensor_info("x", x))[0] == "nan ×1, others all 0"
    assert values.data_forms(scripting.tensor_info("y", y))[0] == "nan ×1, others -0.895..1, mean 0.0526"
    assert values.data_forms(scripting.tensor_info("z", torch.full((12,), float("nan"))))[0] == "all nan"


def test_precision_option():
    out = invoke("run", SAMPLES / "seed_graph.py", "--precision", "2").stdout
    assert "-1.5..1.8, mean -0.044" in out and "89" in table_section(out)[-1]
    out6 = invoke("run", SAMPLES / "tiny_mlp.py", "--precision", "6", columns=200).stdout
    assert "[-0.0163032, 0.138669, -0.264075]" in out6
    assert "-0.235126..0.219822, mean 0.0651802" in out6
    r = invoke("run", SAMPLES / "seed_graph.py", "--precision", "0")
    assert r.exit_code == 2 and "--precision" in r.stderr
    g = invoke("graph", "(x*y).sum()", "--precision", "2").stdout
    assert "[1.5, -0.29, -2.2]" in g


@pytest.mark.parametrize("width", (60, 100, 200))
def test_full_values_lists_every_value(width):
    r = invoke("run", SAMPLES / "tiny_mlp.py", "--full-values", "--precision", "6", columns=width)
    assert r.exit_code == 0
    out = r.stdout
    section = table_section(out)
    assert max(len(line) for line in section) <= width
    x = next(t for t in sample_tensors("tiny_mlp") if t.name == "x")
    start = section.index("x  (8, 4)  float32  requires_grad=False")
    shown = " ".join(section[start + 1:start + 1 + 8])
    numbers = [float(n) for n in re.findall(r"-?\d+\.\d+(?:e[-+]\d+)?", shown)]
    expect = [float(format(v, ".6g")) for row in x.data for v in row]
    assert numbers == expect
    assert section[start + 1] == "  data  [[0.793508, 0.598839, -1.5551, -0.34136],"
    assert section[start + 2] == "         [1.85301, 0.468096, -0.157712, 1.44366],"


def test_full_values_wraps_between_values_only():
    long = torch.linspace(-1, 1, 40)
    buf = io.StringIO()
    con = Console(file=buf, width=60, color_system=None)
    with values.printoptions(full=True):
        tables.print_tensors(con, [scripting.tensor_info("v", long)], "T")
    lines = buf.getvalue().splitlines()[2:]
    assert lines[0] == "v  (40,)  float32  requires_grad=False"
    body = " ".join(line.strip() for line in lines[1:])
    assert body.startswith("data  [-1, -0.9487,") and body.endswith("0.9487, 1]")
    numbers = re.findall(r"-?[\d.]+(?:e-?\d+)?", body.replace("data  ", ""))
    assert len(numbers) == 40 and all(len(line) <= 60 for line in lines)
    assert all(line.rstrip().endswith((",", "]")) for line in lines[1:])


def test_html_table_uses_the_same_rule_and_options():
    from gradviz.render import html

    infos = [scripting.tensor_info("c", torch.full((2, 3), 2.0)),
             scripting.tensor_info("v", torch.tensor([0.123456, 2.0]))]
    page = html.tensor_table(infos)
    assert "<td class=\"data\">all 2</td>" in page and "[0.1235, 2]" in page
    with values.printoptions(precision=6, full=True):
        page = html.tensor_table(infos)
    assert "[[2, 2, 2],\n [2, 2, 2]]" in page and "[0.123456, 2]" in page


# --------------------------------------------------------------------------- --cells --changed-only


CELLS = """\
import torch
x = torch.ones(3, requires_grad=True)
w = torch.tensor([1.0, 2.0, 3.0])
# %%
y = (x * w).sum()
# %%
print("nothing new")
# %%
y.backward()
del w
"""


def test_changed_only_lists_what_each_cell_made_or_changed(tmp_path):
    path = write(tmp_path, CELLS)
    r = invoke("run", path, "--cells", "--changed-only")
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    titles = [line for line in out.splitlines() if line.startswith("After cell")]
    assert titles == ["After cell 1 of 4 (line 1): 2 new",
                      "After cell 2 of 4 (line 5): 1 new",
                      "After cell 3 of 4 (line 7): no tensor made or changed",
                      "After cell 4 of 4 (line 9): 1 changed"]

    def names(title):
        sec = table_section(out, title)
        return [line.split()[0] for line in sec[3:] if line.split()[1].startswith("(")]

    assert names("After cell 1") == ["x", "w"]
    assert names("After cell 2") == ["y"]
    assert names("After cell 4") == ["x"]  # x got its grad; y did not change
    assert "No longer named: w" in out
    assert "Tensors after" not in out
    # --changed-only implies --cells
    assert invoke("run", path, "--changed-only").stdout == out


def test_changed_only_is_nan_safe(tmp_path):
    path = write(tmp_path, "import torch\nz = torch.tensor([float('nan'), 1.0])\n# %%\nprint(1)\n")
    out = invoke("run", path, "--changed-only").stdout
    assert "After cell 2 of 2 (line 4): no tensor made or changed" in out


# --------------------------------------------------------------------------- empty tables


def test_tensors_local_to_main_get_a_hint(tmp_path):
    path = write(tmp_path, """\
        import torch

        def main():
            x = torch.ones(3, requires_grad=True)
            (x * 2).sum().backward()

        if __name__ == "__main__":
            main()
        """)
    r = invoke("run", path, columns=80)
    assert r.exit_code == 0
    out = r.stdout
    assert f"Tensors after {path}: no named tensors" in " ".join(out.split())
    assert "tensors local to a function" in out and "(main())" in out
    assert "--tree or --graph OUT" in out
    assert all(len(line) <= 80 and line == line.rstrip() for line in out.splitlines())
    tree = invoke("run", path, "--tree").stdout
    assert "AccumulateGrad → x" in tree  # the graph does find them, as the hint says
    plain = invoke("run", write(tmp_path, "print('hi')\n", "plain.py")).stdout
    assert "no named tensors" in plain and "local to a function" not in plain


# --------------------------------------------------------------------------- the README


def test_readme_table_examples_are_the_real_output():
    """Each `$ [COLUMNS=N] gradviz run ...` example of the README's table section: its lines
    (but '...') are the real output's, in order."""
    readme = (ROOT / "docs" / "run.md").read_text(encoding="utf-8")
    section = readme.split("## The table: any width", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n\$ (?:COLUMNS=(\d+) )?gradviz (run [^\n]+)\n(.*?)```", section, re.S)
    assert len(blocks) == 6
    for columns, command, shown in blocks:
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env.update({"NO_COLOR": "1", "TERM": "dumb", "PYTHONPATH": str(ROOT)})
        if columns:
            env["COLUMNS"] = columns
        p = subprocess.run([sys.executable, "-m", "gradviz", *command.split()], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        real = p.stdout.splitlines()
        pos = 0
        for line in shown.splitlines():
            if line == "...":
                continue
            assert line in real[pos:], (command, line)
            pos = real.index(line, pos) + 1
