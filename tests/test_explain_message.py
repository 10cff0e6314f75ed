"""Message mode: explain_message() identifies every catalog entry from PyTorch 2.13's message, the
variant, older releases' wordings (the seeds'), whole pasted tracebacks, and says so when it does
not know a message."""
import json
import os
import re

import pytest

from gradviz.explain import catalog, explain_message, list_entries
from gradviz.explain.match import extract, normalise, similarity

from _explain_shared import SEEDS, catalog as shared_catalog, repro_oracle, torch_available

needs_torch = pytest.mark.skipif(not torch_available(), reason="real PyTorch not importable")


def ids_of(text):
    return explain_message(text).ids


# --------------------------------------------------------------------------- the knowledge base


def test_every_catalog_id_has_an_entry_and_nothing_else():
    assert sorted(catalog.ENTRIES) == sorted(e["id"] for e in shared_catalog())
    assert len(list_entries()) == len(shared_catalog()) == 58


def test_entries_are_complete_and_match_the_catalog_kind():
    for e in shared_catalog():
        k = catalog.get(e["id"])
        for field in ("title", "happened", "why", "fix", "before", "after", "question"):
            assert getattr(k, field).strip(), (e["id"], field)
        assert k.kind == e["kind"]
        assert k.exc_type == (e["exc_type"] or "")
        assert k.before != k.after, e["id"]


def test_explanations_are_written_in_our_own_words():
    import difflib
    for e in shared_catalog():
        k = catalog.get(e["id"])
        for ours, theirs in ((k.cause, e["cause"]), (k.fix, e["fix"])):
            ratio = difflib.SequenceMatcher(None, ours.lower(), theirs.lower()).ratio()
            assert ratio < 0.7, (e["id"], ratio, ours)


def test_list_entries_is_plain_data():
    entries = list_entries()
    json.dumps(entries)
    assert {"id", "title", "kind", "exc_type"} <= set(entries[0])


# --------------------------------------------------------------------------- PyTorch 2.13's messages


@pytest.mark.parametrize("entry", [e for e in shared_catalog() if e["message"]], ids=lambda e: e["id"])
def test_message_and_variant_are_identified(entry):
    for text in {entry["message"], entry["variant_message"]}:
        x = explain_message(text)
        assert x.known and x.exit_code == 0
        assert entry["id"] in x.ids, (text, x.ids)
        with_type = explain_message(f"{entry['exc_type']}: {text}")
        assert entry["id"] in with_type.ids


def test_shared_messages_list_the_other_causes_with_their_question():
    by_message = {}
    for e in shared_catalog():
        if e["message"]:
            by_message.setdefault(e["message"], set()).add(e["id"])
    shared = {m: ids for m, ids in by_message.items() if len(ids) > 1}
    assert len(shared) >= 3
    for message, ids in shared.items():
        x = explain_message(message)
        assert ids <= set(x.ids), (message, ids, x.ids)
        for c in x.candidates:
            assert c["question"].endswith("?") or "?" in c["question"], c
            assert c["id"] != x.id


def test_freed_family_primary_and_candidates():
    x = explain_message(catalog.FREED_213)
    assert x.id == "backward_twice"
    assert [c["id"] for c in x.candidates] == ["rnn_hidden_not_detached", "autograd_grad_twice",
                                                "saved_tensor_after_free"]


def test_no_grad_fn_family():
    x = explain_message("element 0 of tensors does not require grad and does not have a grad_fn")
    assert x.id == "backward_no_grad_fn"
    assert {c["id"] for c in x.candidates} == {"backward_in_no_grad", "double_backward_no_create_graph"}
    assert x.context["index"] == 0


# --------------------------------------------------------------------------- robustness


@pytest.mark.parametrize("text, expected, facts", [
    ("one of the variables needed for gradient computation has been modified by an inplace operation: "
     "[torch.cuda.HalfTensor [128, 64, 3, 3]], which is output 0 of ReluBackward0, is at version 7; expected "
     "version 6 instead. Hint: the backtrace further above shows the operation that failed to compute its "
     "gradient. The variable in question was changed in there or anywhere later. Good luck!",
     "inplace_modified_saved", {"shape": [128, 64, 3, 3], "current_version": 7, "saved_version": 6}),
    ("one of the variables needed for gradient computation has been modified by an inplace operation: "
     "[torch.LongTensor [10]] is at version 3; expected version 2 instead. Hint: enable anomaly detection to find "
     "the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).",
     "inplace_modified_input", {"shape": [10], "tensor_type": "torch.LongTensor"}),
    ("one of the variables needed for gradient computation has been modified by an inplace operation: "
     "[torch.cuda.FloatTensor [512, 256]], which is output 0 of TBackward, is at version 3; expected version 2 "
     "instead.", "optimizer_step_between_backwards", {"output_of": "TBackward"}),
    ("one of the variables needed for gradient computation has been modified by an inplace operation",
     "inplace_modified_saved", {}),
    ("Mismatch in shape: grad_output[3] has a shape of torch.Size([7, 1, 2]) and output[3] has a shape of "
     "torch.Size([]).", "backward_gradient_shape_mismatch", {"index": 3, "grad_shape": [7, 1, 2],
                                                           "output_shape": []}),
    ("mat1 and mat2 shapes cannot be multiplied (64x3136 and 1024x10)", "mm_shape_mismatch",
     {"mat1": [64, 3136], "mat2": [1024, 10]}),
    ("size mismatch, m1: [64 x 3136], m2: [1024 x 10] at /opt/conda/conda-bld/pytorch_1565272279342/work/aten/src/"
     "THC/generic/THCTensorMathBlas.cu:273", "mm_shape_mismatch", {"mat1": [64, 3136]}),
    ("The size of tensor a (128) must match the size of tensor b (10) at non-singleton dimension 3",
     "broadcast_mismatch", {"size_a": 128, "size_b": 10, "dim": 3}),
    ("a Tensor with 1024 elements cannot be converted to Scalar", "item_multi_element", {"numel": 1024}),
    ("grad can be implicitly created only for real scalar outputs but got torch.complex128",
     "backward_complex_output", {"dtype": "torch.complex128"}),
    ("Function 'PowBackward1' returned nan values in its 1st output.", "anomaly_nan", {"node": "PowBackward1"}),
    ("Function 'LogBackward' returned nan values in its 0th output.", "anomaly_nan", {}),
    ("Output 2 of SplitWithSizesBackward0 is a view and is being modified inplace. This view is the output of a "
     "function that returns multiple views. Such functions do not allow the output views to be modified inplace. "
     "You should replace the inplace operation by an out-of-place one.", "multi_output_view_inplace",
     {"output_nr": 2}),
    ("function MyReluBackward returned an incorrect number of gradients (expected 1, got 3)",
     "custom_fn_wrong_num_grads", {"expected": 1, "got": 3}),
    ("The differentiated Tensor at index 12 appears to not have been used in the graph. Set allow_unused=True if "
     "this is the desired behavior.", "grad_unused_input", {"index": 12}),
    ("element 3 of tensors does not require grad and does not have a grad_fn", "backward_no_grad_fn", {"index": 3}),
    ("Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead.",
     "numpy_requires_grad", {}),
    ("bool value of Tensor with more than one value is ambiguous", "grad_outputs_mismatch_masked", {}),
    ("'NoneType' object has no attribute 'data'", "grad_is_none_zero", {"attribute": "data"}),
    ("attempting to assign a gradient of size '[10, 784]' to a tensor of size '[784, 10]'. Please ensure that "
     "the gradient and the tensor are the same size", "grad_assign_wrong_shape", {"shape": [784, 10]}),
    ("derivative for aten::floor_divide is not implemented", "derivative_not_implemented", {}),
    ("the derivative for 'polygamma: n' is not implemented.", "derivative_not_implemented",
     {"what": "polygamma: n"}),
    ("bmm(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
     "requires grad.", "out_arg_requires_grad", {"op": "bmm"}),
])
def test_numbers_shapes_dtypes_and_names_do_not_matter(text, expected, facts):
    x = explain_message(text)
    assert x.id == expected, (x.id, x.ids)
    for k, v in facts.items():
        assert x.context[k] == v, (k, x.context)


def test_whitespace_and_wrapping_do_not_matter():
    wrapped = ("RuntimeError: Trying to backward through the graph a second time (or directly access saved\n"
               "tensors after they have already been freed). Saved intermediate values of the graph are freed\n"
               "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward\n"
               "through the graph a second time or if you need to access saved tensors after calling backward.")
    assert explain_message(wrapped).id == "backward_twice"
    assert explain_message("   element 0 of tensors   does not require grad\tand does not have a grad_fn  ").known


@pytest.mark.parametrize("entry_id", list(catalog.ORDER))
def test_every_known_wording_of_an_entry_is_identified(entry_id):
    for text in catalog.get(entry_id).messages:
        assert entry_id in ids_of(text), (entry_id, text)


# --------------------------------------------------------------------------- older PyTorch (the seeds)

OLD_WORDINGS = [
    ("Trying to backward through the graph a second time, but the buffers have already been freed. Specify "
     "retain_graph=True when calling backward the first time.", "backward_twice"),
    ("Trying to backward through the graph a second time, but the saved intermediate results have already been "
     "freed. Specify retain_graph=True when calling .backward() or autograd.grad() the first time.",
     "backward_twice"),
    ("Trying to backward through the graph second time, but the buffers have already been freed. Please specify "
     "retain_variables=True when calling backward for the first time.", "backward_twice"),
    ("element 0 of variables does not require grad and does not have a grad_fn", "backward_no_grad_fn"),
    ("a leaf Variable that requires grad has been used in an in-place operation.", "inplace_leaf"),
    ("leaf variable has been moved into the graph interior", "inplace_leaf"),
    ("view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
     "contiguous subspaces). Call .contiguous() before .view().", "view_noncontiguous"),
    ("One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this "
     "is the desired behavior.", "grad_unused_input"),
    ("only one element tensors can be converted to Python scalars", "item_multi_element"),
    ("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
     "sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor).",
     "tensor_copy_construct_warning"),
    ("Function AddBackward returned an invalid gradient at index 1 - expected shape [3, 4] but got [4, 3]",
     "custom_fn_wrong_grad_shape"),
]


@pytest.mark.parametrize("text, expected", OLD_WORDINGS)
def test_older_pytorch_wordings(text, expected):
    assert expected in ids_of(text)


def _seed_error_lines():
    out = []
    for name in sorted(os.listdir(SEEDS)):
        with open(os.path.join(SEEDS, name), errors="replace") as f:
            for line in f:
                if re.search(r"(?:Runtime|Value|Type|Attribute)Error: |Warning: ", line):
                    out.append((name, line.strip()))
    return out


SEED_EXPECTED = [
    (r"does not require grad and does not have a grad_fn", "backward_no_grad_fn"),
    (r"implicitly created only for scalar outputs", "backward_nonscalar"),
    (r"backward through the graph a second time", "backward_twice"),
]


def test_every_autograd_error_line_of_the_seeds_is_identified():
    seen = set()
    for name, line in _seed_error_lines():
        x = explain_message(line)
        for pattern, expected in SEED_EXPECTED:
            if re.search(pattern, line):
                assert x.id == expected, (name, line, x.ids)
                seen.add(expected)
                break
        else:  # not an autograd error (e.g. an image library's ValueError): must say it does not know
            assert not x.known and x.exit_code == 1, (name, line, x.id)
    assert seen == {e for _, e in SEED_EXPECTED}


def test_the_seeds_older_freed_wording_lists_all_four_causes():
    line = next(line for _, line in _seed_error_lines() if "buffers have already been freed" in line)
    assert set(ids_of(line)) == {"backward_twice", "autograd_grad_twice", "saved_tensor_after_free",
                                 "rnn_hidden_not_detached"}


def test_a_whole_seed_file_pasted_is_identified_by_its_last_error():
    for name in sorted(os.listdir(SEEDS)):
        with open(os.path.join(SEEDS, name), errors="replace") as f:
            text = f.read()
        if "buffers have already been freed" in text:
            assert explain_message(text).known


# --------------------------------------------------------------------------- tracebacks

PLAIN_TB = '''Traceback (most recent call last):
  File "/home/me/train.py", line 41, in <module>
    main()
  File "/home/me/train.py", line 37, in main
    loss.backward()
  File "/usr/lib/python3.11/site-packages/torch/_tensor.py", line 522, in backward
    torch.autograd.backward(
  File "/usr/lib/python3.11/site-packages/torch/autograd/__init__.py", line 266, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [256, 10]], which is output 0 of ReluBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).
'''

JUPYTER_TB = ('\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n'
              '\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)\n'
              'Cell \x1b[0;32mIn[7], line 3\x1b[0m\n'
              '\x1b[1;32m      1\x1b[0m g, \x1b[38;5;241m=\x1b[39m torch\x1b[38;5;241m.\x1b[39mautograd.grad(y, x)\n'
              '\x1b[0;32m----> 3\x1b[0m g2, \x1b[38;5;241m=\x1b[39m torch\x1b[38;5;241m.\x1b[39mautograd.grad(y, x)\n'
              '\x1b[0;31mRuntimeError\x1b[0m: Trying to backward through the graph a second time (or directly '
              'access saved tensors after they have already been freed). Saved intermediate values of the graph are '
              'freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward '
              'through the graph a second time or if you need to access saved tensors after calling backward.\n')

CHAINED_TB = '''/home/me/x.py:5: UserWarning: Error detected in SqrtBackward0. Traceback of forward call that caused the error:
  File "/home/me/x.py", line 4, in <module>
    y = torch.sqrt(x).sum()
 (Triggered internally at ../torch/csrc/autograd/python_anomaly_mode.cpp:114.)
  y.backward()
Traceback (most recent call last):
  File "/home/me/x.py", line 5, in <module>
    y.backward()
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
'''


def test_plain_traceback():
    x = explain_message(PLAIN_TB)
    assert x.id == "inplace_modified_saved"
    assert x.context["failing_code"] == "loss.backward()"
    assert x.context["shape"] == [256, 10]


def test_jupyter_traceback_with_colours_promotes_autograd_grad():
    x = explain_message(JUPYTER_TB)
    assert x.id == "autograd_grad_twice"
    assert "backward_twice" in x.ids
    assert x.context["ranked_by"]


def test_last_error_of_a_traceback_wins_over_earlier_warnings():
    assert explain_message(CHAINED_TB).id == "anomaly_nan"


def test_warning_lines_are_found():
    text = ('/tmp/t.py:5: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. '
            "Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
            "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the "
            "non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
            "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
            "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:494.)\n  print(y.grad)\n")
    x = explain_message(text)
    assert x.id == "nonleaf_grad_access"
    assert x.context["exc_type"] == "UserWarning"


def test_traceback_clues_refine_shared_messages():
    tb = ('Traceback (most recent call last):\n  File "a.py", line 9, in <module>\n    print(out.grad_fn._saved_self)\n'
          "RuntimeError: " + catalog.FREED_213)
    assert explain_message(tb).id == "saved_tensor_after_free"
    tb = ('Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n    with torch.no_grad():\n'
          '  File "a.py", line 9, in <module>\n    loss.backward()\n'
          "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")
    tb2 = ('Traceback (most recent call last):\n  File "a.py", line 9, in <module>\n    x.grad.sum().backward()\n'
           "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")
    assert explain_message(tb2).id == "double_backward_no_create_graph"
    tb3 = ('Traceback (most recent call last):\n  File "gan.py", line 20, in <module>\n    opt_d.step()\n'
           '  File "gan.py", line 22, in <module>\n    loss_g.backward()\n'
           "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [torch.FloatTensor [1, 128]], which is output 0 of ReluBackward0, is at version 2; "
           "expected version 1 instead.")
    assert explain_message(tb3).id == "optimizer_step_between_backwards"


def test_extract_finds_the_message_only():
    (first, *_) = extract(PLAIN_TB)
    assert first.type == "RuntimeError"
    assert first.message.startswith("one of the variables needed")
    assert "Traceback" not in first.message


@needs_torch
@needs_torch
@pytest.mark.slow
def test_real_pytorch_tracebacks_of_every_reproducer():
    """Each reproducer of tests/errors/repro run under real PyTorch: its full traceback identifies the id."""
    from _explain_shared import catalog_by_id
    failures = []
    cat = catalog_by_id()
    for path, res in repro_oracle().items():
        name = os.path.basename(path)
        entry = next((e for e in cat.values() if name in e["repro"]), None)
        if entry is None:
            continue
        texts = [res["traceback"]] if res["traceback"] else [
            f"{w['file']}:{w['line']}: {w['category']}: {w['message']}" for w in res["warnings"]]
        if not texts:
            continue  # silent (data_silent_wrong)
        found = [i for t in texts for i in explain_message(t).ids]
        if entry["id"] not in found:
            failures.append((name, entry["id"], found, (res["message"] or "")[:80]))
    assert not failures, failures


# --------------------------------------------------------------------------- unknown messages


def test_unknown_unrelated_message_says_so_and_suggests_nothing():
    x = explain_message("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total capacity)")
    assert not x.known and x.id is None and x.exit_code == 1
    assert x.nearest == [] and x.as_dict()["candidates"] == []
    assert x.as_dict()["id"] is None
    assert "No known error is close to it." in x.cause


def test_unknown_near_miss_names_the_nearest():
    x = explain_message("Trying to backward thru the graph a second time")
    assert not x.known and x.exit_code == 1
    assert 1 <= len(x.nearest) <= 3 and all(n["id"] in catalog.ENTRIES for n in x.nearest)
    assert x.nearest[0]["id"] == "backward_twice"
    assert [c["id"] for c in x.as_dict()["candidates"]] == [n["id"] for n in x.nearest]


def test_nearest_ranks_a_garbled_known_message_first():
    x = explain_message("RuntimeError: trying to run backward over the same graph twice, buffers were freed")
    assert x.nearest and x.nearest[0]["id"] in {"backward_twice", "rnn_hidden_not_detached", "autograd_grad_twice",
                                                "saved_tensor_after_free"}


def test_close_rewording_is_accepted_as_approximate():
    text = ("one of the tensors needed for gradient computation was modified by an inplace operation: "
            "[torch.FloatTensor [3]], which is output 0 of SigmoidBackward0, is at version 1; expected version 0")
    x = explain_message(text)
    assert x.known and x.context["match"] == "approximate"
    assert x.id in {"inplace_modified_saved", "detach_inplace_needed", "optimizer_step_between_backwards",
                    "inplace_modified_input"}


def test_generic_attribute_errors_are_not_taken_for_a_none_grad():
    assert not explain_message("AttributeError: 'Tensor' object has no attribute 'resize_'").known
    assert not explain_message("AttributeError: 'SinBackward0' object has no attribute '_raw_saved_self'").known


def test_similarity_is_ranked_and_normalised():
    ranked = similarity("grad can be implicitly created only for scalar outputs")
    assert ranked[0][0] > 0.9
    assert normalise("x [torch.FloatTensor [3, 4]] torch.Size([2]) torch.float64 'abc' 12") == \
        "x <type> <size> <dtype> <name> 0"


# --------------------------------------------------------------------------- output


def test_json_shape():
    for text in (catalog.FREED_213, "nonsense that is no error at all"):
        d = explain_message(text).as_dict()
        assert set(d) == {"id", "candidates", "title", "cause", "fix", "context"}
        assert {"text", "before", "after"} <= set(d["fix"]) <= {"text", "before", "after", "example"}
        json.dumps(d)


def test_jupyter_context_lines_are_used_as_clues():
    tb = ("RuntimeError                              Traceback (most recent call last)\n"
          "Cell In[4], line 4\n"
          "      1 w = torch.randn(3, requires_grad=True)\n"
          "      2 with torch.no_grad():\n"
          "      3     loss = (w * w).sum()\n"
          "----> 4 loss.backward()\n\n"
          "File ~/.venv/lib/python3.11/site-packages/torch/_tensor.py:522, in Tensor.backward(self, gradient)\n"
          "    512     return handle_torch_function(\n"
          "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n")
    x = explain_message(tb)
    assert x.id == "backward_in_no_grad"
    assert x.context["failing_code"] == "loss.backward()"
