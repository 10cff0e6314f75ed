"""Output: the rich panels render for every kind of result, --json is the documented shape, --list works,
and importing gradviz.explain pulls in neither rich, click nor the engine."""
import io
import json
import subprocess
import sys
import textwrap

from gradviz.explain import catalog, diagnose_script, explain, explain_message, list_entries
from gradviz.explain import render


def rendered(obj):
    buf = io.StringIO()
    render.print_explanation(obj, file=buf, width=100)
    return buf.getvalue()


def test_panels_for_a_message():
    out = rendered(explain_message(catalog.FREED_213))
    assert "backward_twice" in out and "rnn_hidden_not_detached" in out
    assert "before" in out and "after" in out


def test_panels_for_an_unknown_message():
    out = rendered(explain_message("Segmentation fault"))
    assert "Unknown message" in out and "did you mean" not in out
    out = rendered(explain_message("RuntimeError: Inference tensor cannot be saved for backward."))
    assert "Unknown message" in out and "did you mean" in out and "inference_tensor_saved" in out
    assert "Inference-mode tensor used in a recorded computation" in out  # the title, not the question


def test_panels_for_a_diagnosis_with_warnings(tmp_path):
    p = tmp_path / "s.py"
    p.write_text(textwrap.dedent("""
        import torch
        x = torch.randn(3, requires_grad=True)
        h = x * 2
        h.sum().backward()
        print(h.grad)
        h.sum().backward()
    """))
    d = diagnose_script(str(p))
    out = rendered(d)
    assert "RuntimeError" in out and "backward_twice" in out and "nonleaf_grad_access" in out
    doc = json.loads(render.to_json(d))
    assert doc["id"] == "backward_twice" and doc["error"]["line"] == 7
    assert doc["warnings"][0]["id"] == "nonleaf_grad_access"


def test_list(tmp_path):
    buf = io.StringIO()
    render.print_list(file=buf, width=200)
    assert all(e["id"] in buf.getvalue() for e in list_entries())
    assert json.loads(render.to_json(list_entries()))[0]["id"] == catalog.ORDER[0]


def test_print_warnings(tmp_path):
    from gradviz.explain import lint_script
    p = tmp_path / "s.py"
    p.write_text("import torch\nw = torch.randn(1, requires_grad=True)\nv = float(w * 2)\n")
    buf = io.StringIO()
    render.print_warnings(lint_script(str(p)), file=buf, width=200)
    assert "scalar_conversion_requires_grad_warning" in buf.getvalue()


def test_explain_dispatches_on_the_argument(tmp_path):
    p = tmp_path / "s.py"
    p.write_text("import torch\ntorch.randn(2, requires_grad=True).numpy()\n")
    assert explain(str(p)).id == "numpy_requires_grad"
    assert explain("can't optimize a non-leaf Tensor").id == "optimizer_nonleaf"


def test_import_is_light():
    code = ("import sys, gradviz.explain as e; e.explain_message('cannot resize variables that require grad'); "
            "e.list_entries(); print(sorted(m for m in ('rich', 'click', 'gradviz.torch', 'numpy') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_graph_around_the_failure_can_be_drawn(tmp_path):
    import os
    from gradviz.render import dot
    from _explain_shared import SAMPLES
    d = diagnose_script(os.path.join(SAMPLES, "rnn_hidden_not_detached.py"))
    assert d.graph_roots and "hidden" in d.graph_names
    g = dot.make_dot(list(d.graph_roots), names=d.graph_names)
    assert "TanhBackward0" in g.source
    d2 = diagnose_script(os.path.join(SAMPLES, "saved_tensor_after_free.py"))
    assert d2.graph_roots[0][0] is d2.failing_node
    dot.make_dot(list(d2.graph_roots), names=d2.graph_names)
