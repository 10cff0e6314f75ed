"""Script mode: diagnose_script() runs a script in the engine and names the specific cause, with facts
from the run and the user's own names in the fix -- above all where several causes share one message."""
import json
import sys
import textwrap

import pytest

from gradviz.explain import diagnose_script
from gradviz.torch.autograd import graph


def script(tmp_path, text, name="script.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(p)


def diagnose(tmp_path, text, **kw):
    return diagnose_script(script(tmp_path, text), **kw)


def check_json(d):
    doc = d.as_dict()
    assert {"id", "candidates", "title", "cause", "fix", "context"} <= set(doc)
    json.dumps(doc)
    return doc


# --------------------------------------------------------------------------- one message, four causes


def test_backward_twice(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        w = torch.randn(3, requires_grad=True)
        loss = (w * 2).exp().sum()
        loss.backward()
        loss.backward()
    """)
    assert d.id == "backward_twice"
    assert d.context["freed_by"]["line"] == 4 and d.context["freed_by"]["kind"] == "backward"
    assert d.context["failing_call"]["line"] == 5
    assert "ExpBackward0" in d.cause and "line 4" in d.cause
    assert d.fix["after"].startswith("loss.backward(retain_graph=True)")
    assert {c["id"] for c in d.candidates} == {"autograd_grad_twice", "saved_tensor_after_free",
                                               "rnn_hidden_not_detached"}
    assert all(c.get("ruled_out") for c in d.candidates)
    check_json(d)


def test_backward_twice_in_a_loop_on_the_same_loss_is_not_an_rnn(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        w = torch.randn(3, requires_grad=True)
        loss = w.sigmoid().sum()
        for i in range(3):
            loss.backward()
    """)
    assert d.id == "backward_twice"


def test_new_loss_on_top_of_a_freed_graph_without_a_loop_is_backward_twice(tmp_path):
    # the seed's notebook: c = b + 5 after b's graph was used
    d = diagnose(tmp_path, """
        import torch
        a = torch.rand(5, 3, requires_grad=True)
        b = 3.0 * a.exp()
        b.backward(torch.ones(5, 3))
        c = b + 5
        c.backward(torch.ones(5, 3))
    """)
    assert d.id == "backward_twice"
    assert d.context["new_graph_reaches_freed_one"] is True


def test_autograd_grad_twice(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        x = torch.randn(4, requires_grad=True)
        energy = (x ** 3).sum()
        (g1,) = torch.autograd.grad(energy, x)
        (g2,) = torch.autograd.grad(energy, x)
    """)
    assert d.id == "autograd_grad_twice"
    assert d.context["freed_by"]["kind"] == "autograd.grad"
    assert d.fix["after"].startswith("(g1,) = torch.autograd.grad(energy, x, retain_graph=True)")


def test_backward_then_autograd_grad(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        x = torch.randn(2, 3, requires_grad=True)
        y = x.tanh().sum()
        y.backward()
        torch.autograd.grad(y, x)
    """)
    assert d.id == "autograd_grad_twice"
    assert d.context["freed_by"]["kind"] == "backward"
    assert d.context["failing_call"]["kind"] == "autograd.grad"


def test_autograd_grad_twice_inside_a_function(tmp_path):
    d = diagnose(tmp_path, """
        import torch

        def penalty(out, inp):
            (g,) = torch.autograd.grad(out, inp)
            (h,) = torch.autograd.grad(out, inp)
            return g + h

        x = torch.randn(3, requires_grad=True)
        penalty((x * x).sum(), x)
    """)
    assert d.id == "autograd_grad_twice"
    assert d.error["line"] == 5


@pytest.mark.parametrize("attr", ["_saved_self", "_saved_result"])
def test_saved_tensor_read_after_free(tmp_path, attr):
    op = "sin" if attr == "_saved_self" else "exp"
    d = diagnose(tmp_path, f"""
        import torch
        x = torch.randn(3, requires_grad=True)
        y = x.{op}()
        y.sum().backward()
        print(y.grad_fn.{attr})
    """)
    assert d.id == "saved_tensor_after_free"
    assert d.context["attribute"] == attr
    assert d.context["freed_by"]["line"] == 4
    assert f"y.grad_fn.{attr}" in d.fix["after"]


def test_saved_tensors_of_a_custom_function_read_after_free(tmp_path):
    d = diagnose(tmp_path, """
        import torch

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                ctx.save_for_backward(t)
                return t ** 3

            @staticmethod
            def backward(ctx, g):
                (t,) = ctx.saved_tensors
                return 3 * t * t * g

        x = torch.randn(3, requires_grad=True)
        out = Cube.apply(x)
        out.sum().backward()
        print(out.grad_fn.saved_tensors)
    """)
    assert d.id == "saved_tensor_after_free"


def test_undetached_rnn_state_with_rnncell(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        cell = torch.nn.RNNCell(3, 5)
        state = torch.zeros(1, 5)
        for step in range(4):
            state = cell(torch.randn(1, 3), state)
            loss = state.pow(2).mean()
            loss.backward()
    """)
    assert d.id == "rnn_hidden_not_detached"
    assert d.context["carried"] == "state"
    assert d.context["loop"] is True and d.context["new_graph_reaches_freed_one"] is True
    assert d.context["freed_by"]["line"] == 7
    assert "state = state.detach()" in d.fix["after"]
    assert "retain_graph" in d.fix["text"]


def test_undetached_state_in_a_hand_written_recurrence(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        W = torch.randn(4, 4, requires_grad=True)
        h = torch.zeros(4)
        for t in range(3):
            h = torch.tanh(W @ h + 1.0)
            loss = h.sum()
            loss.backward()
    """)
    assert d.id == "rnn_hidden_not_detached"
    assert d.context["carried"] == "h"


def test_undetached_lstm_cell_state_pair(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        cell = torch.nn.LSTMCell(2, 3)
        h, c = torch.zeros(1, 3), torch.zeros(1, 3)
        for step in range(2):
            h, c = cell(torch.randn(1, 2), (h, c))
            h.sum().backward()
    """)
    assert d.id == "rnn_hidden_not_detached"
    assert d.context["carried"] in ("h", "c")
    assert "detach" in d.fix["after"]


def test_optimizer_step_between_two_backwards(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        out = net(torch.randn(5, 3))
        out.mean().backward(retain_graph=True)
        opt.step()
        out.abs().mean().backward()
    """)
    assert d.id == "optimizer_step_between_backwards"
    assert d.context["optimizer"] == "opt"
    assert d.context["parameter"] == "net.2.weight"
    assert d.context["step_lines"] == [6]
    assert d.context["previous_backward"]["line"] == 5
    assert d.context["saved_version"] < d.context["current_version"]
    assert d.fix["after"].splitlines()[-1] == "opt.step()"
    assert {c["id"] for c in d.candidates} >= {"inplace_modified_saved", "detach_inplace_needed"}


def test_optimizer_step_between_backwards_with_adam_in_a_gan_like_loop(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        gen = torch.nn.Linear(2, 2)
        disc = torch.nn.Linear(2, 1)
        opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
        fake = gen(torch.randn(4, 2))
        score = disc(fake)
        loss_d = score.mean()
        loss_d.backward(retain_graph=True)
        opt_d.step()
        loss_g = (-score).mean()
        loss_g.backward()
    """)
    assert d.id == "optimizer_step_between_backwards"
    assert d.context["optimizer"] == "opt_d"
    assert d.context["parameter"].startswith("disc.")


# --------------------------------------------------------------------------- versions


def test_inplace_on_a_saved_output_names_both_lines_and_versions(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        x = torch.randn(3, requires_grad=True)
        y = x.sigmoid()
        z = y * 3
        y.mul_(2)
        z.sum().backward()
    """)
    # y is saved by MulBackward0 (line 4) as an input, and by SigmoidBackward0 as its output
    assert d.id in ("inplace_modified_saved", "inplace_modified_input")
    assert d.context["tensor"] == "y"
    assert d.context["inplace_lines"] == [5]
    assert d.context["saved_version"] == 0 and d.context["current_version"] == 1
    assert d.fix["before"] == "y.mul_(2)" and d.fix["after"] == "y = y.mul(2)"


def test_inplace_modified_input_found_in_the_source(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        w = torch.randn(2, 3, requires_grad=True)
        data = torch.randn(3, 4)
        out = w @ data
        data[0] = 1.0
        data += 2
        out.sum().backward()
    """)
    assert d.id == "inplace_modified_input"
    assert d.context["tensor"] == "data"
    assert d.context["saved_at"]["line"] == 4
    assert d.context["inplace_lines"] == [5, 6]
    assert d.context["current_version"] == 2
    assert d.fix["after"] == "data = data + 2"


def test_detached_alias(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        x = torch.randn(3, requires_grad=True)
        act = x.exp()
        view = act.detach()
        view.clamp_(max=1.0)
        act.sum().backward()
    """)
    assert d.id == "detach_inplace_needed"
    assert d.context["alias"] == "view" and d.context["detach_line"] == 4
    assert d.fix["after"] == "view = act.detach().clone()"


# --------------------------------------------------------------------------- no grad_fn


def test_nothing_requires_grad(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        inputs = torch.randn(4)
        target = (inputs * 2).sum()
        target.backward()
    """)
    assert d.id == "backward_no_grad_fn"
    assert d.context["inputs_without_grad"] == ["inputs"]
    assert d.fix["after"] == "inputs = torch.randn(4, requires_grad=True)"


def test_frozen_model(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        model = torch.nn.Linear(3, 1)
        for p in model.parameters():
            p.requires_grad_(False)
        loss = model(torch.randn(2, 3)).sum()
        loss.backward()
    """)
    assert d.id == "backward_no_grad_fn"
    assert d.context["frozen_modules"] == ["model"]


def test_loss_computed_under_no_grad(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        w = torch.randn(3, requires_grad=True)
        with torch.no_grad():
            pred = w * 2
        pred.sum().backward()
    """)
    assert d.id == "backward_in_no_grad"
    assert d.context["computed_at"] == 4


def test_loss_computed_in_a_no_grad_decorated_function(tmp_path):
    d = diagnose(tmp_path, """
        import torch

        @torch.no_grad()
        def forward(w):
            return (w * w).sum()

        w = torch.randn(3, requires_grad=True)
        loss = forward(w)
        loss.backward()
    """)
    assert d.id == "backward_in_no_grad"
    assert d.fix["before"] == "@torch.no_grad()\ndef forward(w):" and d.fix["after"] == "def forward(w):"


def test_double_backward_without_create_graph(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        x = torch.randn(3, requires_grad=True)
        y = (x ** 3).sum()
        grads = torch.autograd.grad(y, x)
        gp = grads[0].norm()
        gp.backward()
    """)
    assert d.id == "double_backward_no_create_graph"
    assert "create_graph=True" in d.fix["after"]


# --------------------------------------------------------------------------- .grad is None


@pytest.mark.parametrize("body, reason", [
    ("x = torch.randn(3, requires_grad=True)\ny = x * 2\ny.sum().backward()\ny.grad.zero_()", "non_leaf"),
    ("x = torch.randn(3)\nx.grad.zero_()", "no_requires_grad"),
    ("x = torch.randn(3, requires_grad=True)\nx.grad.zero_()", "before_backward"),
    ("x = torch.randn(3, requires_grad=True)\nz = torch.randn(3, requires_grad=True)\n(z * 2).sum().backward()\n"
     "x.grad.zero_()", "not_in_graph"),
    ("x = torch.randn(3, requires_grad=True)\n(x.detach() * 2 + x.sum() * 0).sum()\nz = torch.randn(3, "
     "requires_grad=True)\n(z * x.detach()).sum().backward()\nx.grad.zero_()", "detached"),
    ("x = torch.randn(3, requires_grad=True)\nopt = torch.optim.SGD([x], lr=0.1)\n(x * 2).sum().backward()\n"
     "opt.zero_grad()\nprint(x.grad.norm())", "reset_to_none"),
])
def test_grad_is_none_reasons(tmp_path, body, reason):
    d = diagnose(tmp_path, "import torch\n" + body + "\n")
    assert d.id == "grad_is_none_zero"
    assert d.context["reason"] == reason, d.cause


# --------------------------------------------------------------------------- runs


def test_a_script_without_error(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        x = torch.randn(3, requires_grad=True)
        (x * 2).sum().backward()
        print("done")
    """)
    assert d.id is None and d.error is None and d.known and d.exit_code == 0
    assert d.stdout == "done\n"
    check_json(d)


def test_an_unknown_error(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        raise KeyError("not autograd")
    """)
    assert d.id is None and d.error["type"] == "KeyError" and d.exit_code == 1
    check_json(d)


def test_stops_at_the_first_error_and_works_with_cells(tmp_path):
    d = diagnose(tmp_path, """
        import torch
        # %%
        w = torch.randn(3, requires_grad=True)
        w.numpy()
        # %%
        raise RuntimeError("never reached")
    """)
    assert d.id == "numpy_requires_grad"
    assert d.error["line"] == 4


def test_the_run_leaves_no_trace(tmp_path):
    before_listeners = list(graph.LISTENERS)
    torch_before = sys.modules.get("torch")
    diagnose(tmp_path, """
        import torch
        torch.randn(3, requires_grad=True).numpy()
    """)
    assert graph.LISTENERS == before_listeners
    assert sys.modules.get("torch") is torch_before


def test_missing_script(tmp_path):
    from gradviz.explain.runner import ScriptError
    with pytest.raises(ScriptError):
        diagnose_script(str(tmp_path / "nope.py"))


# --------------------------------------------------------------------------- optional engine events
# The scripts below call the listeners themselves, exactly as the engine would once it emits these
# events: the diagnosis must use them.

EMIT = """
def emit(event, *args):
    for listener in list(torch.autograd.graph.LISTENERS):
        fn = getattr(listener, event, None)
        if fn is not None:
            fn(*args)
"""


def test_on_inplace_event_locates_an_inplace_op_the_source_scan_cannot_see(tmp_path):
    d = diagnose(tmp_path, "import torch\n" + EMIT + """
def corrupt(t):
    t.add_(1)
    emit("on_inplace", t, "add_", (__file__, 8), t._version)

w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
y = (w * x).sum()
corrupt(x)
y.backward()
""")
    assert d.id == "inplace_modified_input"
    assert d.context["inplace_lines"] == [8]
    assert d.context["inplace_lines_from"] == "seen by the engine"
    assert "line 8" in d.cause


def test_without_the_event_the_cause_says_the_op_was_not_located(tmp_path):
    d = diagnose(tmp_path, """
        import torch

        def corrupt(t):
            t.add_(1)

        w = torch.randn(3, requires_grad=True)
        x = torch.randn(3)
        y = (w * x).sum()
        corrupt(x)
        y.backward()
    """)
    assert d.id == "inplace_modified_input"
    assert d.context["inplace_lines"] == []
    assert "could not locate" in d.cause


def test_on_optimizer_step_event_gives_the_step_line(tmp_path):
    d = diagnose(tmp_path, "import torch\n" + EMIT + """
def update(o):
    o.step()
    emit("on_optimizer_step", o, (__file__, 8))

lin = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
sgd = torch.optim.SGD(lin.parameters(), lr=0.1)
out = lin(torch.randn(3, 2))
out.sum().backward(retain_graph=True)
update(sgd)
out.pow(2).sum().backward()
""")
    assert d.id == "optimizer_step_between_backwards"
    assert d.context["step_lines"] == [8]


def test_on_grad_read_and_on_scalar_events_feed_the_lint(tmp_path):
    from gradviz.explain import lint_script
    p = tmp_path / "s.py"
    p.write_text("import torch\n" + EMIT + """
import warnings
warnings.simplefilter("ignore")      # as `gradviz run` does: the engine's warnings are not seen
x = torch.randn(3, requires_grad=True)
h = x * 2
h.sum().backward()
print(h.grad)
emit("on_grad_read", h, (__file__, 14))
v = float(h.sum())
emit("on_scalar", h.sum(), "float", (__file__, 16))
""")
    ws = lint_script(str(p))
    assert [(w.id, w.line) for w in ws] == [("nonleaf_grad_access", 14),
                                            ("scalar_conversion_requires_grad_warning", 16)]


def test_state_carried_in_an_attribute(tmp_path):
    d = diagnose(tmp_path, """
        import torch

        class Tiny:
            def __init__(self):
                self.W = torch.randn(3, 3, requires_grad=True)
                self.h = torch.zeros(3)

            def step(self, x):
                self.h = torch.tanh(self.W @ self.h + x)
                return self.h.sum()

        m = Tiny()
        for i in range(3):
            loss = m.step(torch.randn(3))
            loss.backward()
    """)
    assert d.id == "rnn_hidden_not_detached"
    assert d.context["carried"] == "self.h"
    assert "self.h = self.h.detach()" in d.fix["after"]
