"""Silent pitfalls: no exception, but gradviz warns (lint_script, and diagnose_script's warnings)."""
import json
import textwrap

import pytest

from gradviz.explain import diagnose_script, lint_script


def lint(tmp_path, text):
    p = tmp_path / "script.py"
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return lint_script(str(p))


def ids(ws):
    return [w.id for w in ws]


def test_data_modified_after_it_was_saved(tmp_path):
    ws = lint(tmp_path, """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.sigmoid()
        y.data.mul_(10)
        y.sum().backward()
    """)
    assert ids(ws) == ["data_silent_wrong"]
    w = ws[0]
    assert w.line == 3 and w.context["tensor"] == "y"
    assert w.context["data_lines"] == [4] and w.context["backward_line"] == 5
    assert "silently wrong" in w.message
    json.dumps(w.as_dict())


def test_data_assignment_of_a_saved_input(tmp_path):
    ws = lint(tmp_path, """
        import torch
        w = torch.randn(3, requires_grad=True)
        x = torch.randn(3)
        y = (w * x).sum()
        x.data = torch.zeros(3)
        y.backward()
    """)
    # x.data = ... replaces x's storage: w's gradient is computed from the new values
    assert "data_silent_wrong" in ids(ws)


def test_no_data_warning_without_data(tmp_path):
    ws = lint(tmp_path, """
        import torch
        x = torch.randn(3, requires_grad=True)
        y = x.exp()
        y.sum().backward()
    """)
    assert ws == []


def test_grad_of_a_non_leaf(tmp_path):
    ws = lint(tmp_path, """
        import torch
        x = torch.randn(3, requires_grad=True)
        hidden = x.tanh()
        hidden.sum().backward()
        print(hidden.grad)
    """)
    assert ids(ws) == ["nonleaf_grad_access"]
    assert ws[0].line == 5 and ws[0].context["tensor"] == "hidden"
    assert "hidden.retain_grad()" in ws[0].fix["after"]


def test_grad_of_a_non_leaf_that_retains_grad_is_fine(tmp_path):
    ws = lint(tmp_path, """
        import torch
        x = torch.randn(3, requires_grad=True)
        hidden = x.tanh()
        hidden.retain_grad()
        hidden.sum().backward()
        print(hidden.grad)
    """)
    assert ws == []


def test_missing_zero_grad_with_an_optimizer(tmp_path):
    ws = lint(tmp_path, """
        import torch
        model = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(3):
            loss = model(torch.randn(4, 2)).pow(2).mean()
            loss.backward()
            opt.step()
    """)
    assert ids(ws) == ["grad_accumulation_no_zero_grad"]
    w = ws[0]
    assert w.line == 6
    assert w.context["optimizers"] == ["opt"]
    assert set(w.context["parameters"]) <= {"model.weight", "model.bias"} and w.context["parameters"]
    assert w.fix["after"].startswith("opt.zero_grad()")


def test_missing_zero_grad_with_a_manual_update(tmp_path):
    ws = lint(tmp_path, """
        import torch
        w = torch.randn(3, requires_grad=True)
        for step in range(3):
            (w * w).sum().backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
    """)
    assert ids(ws) == ["grad_accumulation_no_zero_grad"]
    assert ws[0].fix["after"].startswith("w.grad = None")


@pytest.mark.parametrize("loop", [
    # zero_grad every iteration
    """
    for step in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    """,
    # deliberate accumulation over two micro-batches, then step and zero_grad
    """
    for step in range(4):
        (w * w).sum().backward()
        if step % 2 == 1:
            opt.step()
            opt.zero_grad()
    """,
    # manual update with explicit zeroing
    """
    for step in range(3):
        (w * w).sum().backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            w.grad.zero_()
    """,
])
def test_no_accumulation_warning_when_gradients_are_cleared(tmp_path, loop):
    ws = lint(tmp_path, "import torch\nw = torch.randn(3, requires_grad=True)\n"
                        "opt = torch.optim.SGD([w], lr=0.1)\n" + textwrap.dedent(loop))
    assert ws == []


def test_float_of_a_tensor_that_requires_grad(tmp_path):
    ws = lint(tmp_path, """
        import torch
        w = torch.randn(1, requires_grad=True)
        loss = (w * 2).sum()
        value = float(loss)
    """)
    assert ids(ws) == ["scalar_conversion_requires_grad_warning"]
    assert ws[0].line == 4 and ws[0].fix["after"] == "value = loss.item()"


def test_item_inside_a_graph_computation(tmp_path):
    ws = lint(tmp_path, """
        import torch
        w = torch.randn(3, requires_grad=True)
        scale = torch.randn(1, requires_grad=True)
        out = w * scale.item()
        logged = out.sum().item()
    """)
    assert ids(ws) == ["scalar_conversion_requires_grad_warning"]
    assert ws[0].line == 4 and ws[0].context == {"tensor": "scale", "result": "out"}
    assert ws[0].fix["after"] == "out = w * scale"


def test_copy_construct_warning(tmp_path):
    ws = lint(tmp_path, """
        import torch
        w = torch.randn(3, requires_grad=True)
        c = torch.tensor(w + 1)
    """)
    assert ids(ws) == ["tensor_copy_construct_warning"]
    assert ws[0].fix["after"] == "c = (w + 1).clone()"


def test_lint_runs_past_errors_and_diagnose_reports_warnings_before_the_error(tmp_path):
    text = """
        import torch
        x = torch.randn(3, requires_grad=True)
        h = x * 2
        h.sum().backward()
        print(h.grad)
        # %%
        x.numpy()
        # %%
        print(h.grad)
    """
    ws = lint(tmp_path, text)
    assert [w.line for w in ws] == [5, 9]
    d = diagnose_script(str(tmp_path / "script.py"))
    assert d.id == "numpy_requires_grad"
    assert [w["id"] for w in d.warnings] == ["nonleaf_grad_access"]
