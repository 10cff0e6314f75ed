"""Message mode: ``explain_message(text)`` -> :class:`Explanation`.

``text`` may be a bare error message, one line of ``RuntimeError: ...``, a warning line, or a
whole pasted traceback (plain Python, IPython/Jupyter, with or without ANSI colours): the
error line is found first, then matched against rules that are written over the *shape* of
PyTorch's wording, so sizes, dtypes, indices, node names and release-to-release rewordings
(``...but the buffers have already been freed``) do not matter.

Several causes share one message; a rule then lists its ids most common first, and the
others come back as ``candidates`` with the question that tells them apart.  Clues in a
pasted traceback (the failing source line, ``no_grad`` blocks, ``optimizer.step()`` ...)
reorder them.  A message no rule knows gives ``known=False`` and the nearest known ones.
"""
import difflib
import re
from dataclasses import dataclass, field
from typing import Optional

from . import catalog

# --------------------------------------------------------------------------- result


@dataclass
class Explanation:
    id: Optional[str]
    candidates: list = field(default_factory=list)  # [{"id", "title", "question"}], others first-to-last
    title: str = ""
    cause: str = ""
    fix: dict = field(default_factory=dict)  # {"text", "before", "after"}
    context: dict = field(default_factory=dict)
    known: bool = True
    message: str = ""  # the error message that was matched (or not)
    nearest: list = field(default_factory=list)  # unknown messages: [{"id", "title", "score"}]

    @property
    def exit_code(self) -> int:
        """What ``gradviz explain`` should exit with: 0 when identified, 1 when unknown."""
        return 0 if self.known else 1

    @property
    def ids(self) -> list:
        """The primary id followed by the candidates' ids."""
        return ([self.id] if self.id else []) + [c["id"] for c in self.candidates]

    def as_dict(self) -> dict:
        """The ``--json`` document: {"id", "candidates", "title", "cause", "fix", "context"}."""
        return {"id": self.id, "candidates": [dict(c) for c in self.candidates], "title": self.title,
                "cause": self.cause, "fix": dict(self.fix), "context": dict(self.context)}


def candidate(entry_id: str, **extra) -> dict:
    e = catalog.get(entry_id)
    d = {"id": e.id, "title": e.title, "question": e.question}
    d.update(extra)
    return d


def example_fix(e) -> dict:
    """A catalog entry's fix, its before/after being the catalog's own example (``"example": true``):
    its names are not the user's, and the panels say so."""
    return {"text": e.fix, "before": e.before, "after": e.after, "example": bool(e.before or e.after)}


def from_entry(entry_id: str, others=(), context=None, message="") -> Explanation:
    e = catalog.get(entry_id)
    return Explanation(id=e.id, candidates=[candidate(o) for o in others if o != entry_id], title=e.title,
                       cause=e.cause, fix=example_fix(e), context=dict(context or {}), known=True, message=message)


# --------------------------------------------------------------------------- normalising

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# No leading \s*: a pattern that starts by matching whitespace rescans every run of it
# from each of its positions (quadratic in 100,000 pasted spaces); clean() collapses spaces.
_TRIGGERED = re.compile(r"\(Triggered internally at [^)]*\)\.?", re.S)
_WS = re.compile(r"\s+")


def clean(text: str) -> str:
    """One line: no ANSI colours, no '(Triggered internally at ...)', single spaces."""
    text = _ANSI.sub("", text)
    text = _TRIGGERED.sub("", text)
    return _WS.sub(" ", text).strip()


_NUM = re.compile(r"\d+")
_SIZE = re.compile(r"torch\.Size\(\[[^\]]*\]\)")
_TYPE = re.compile(r"\[torch\.(?:cuda\.)?\w+Tensor \[[^\]]*\]\]")
_DTYPE = re.compile(r"torch\.(?:float|double|half|bfloat|complex|int|long|uint|bool)\w*")
_QUOTED = re.compile(r"'[^']*'")


def normalise(text: str) -> str:
    """A skeleton for similarity ranking: numbers, sizes, tensor types, dtypes, quoted names
    replaced by placeholders; lower case."""
    t = clean(text)
    t = re.sub(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Warning):\s*", "", t)
    t = _TYPE.sub("<type>", t)
    t = _SIZE.sub("<size>", t)
    t = _DTYPE.sub("<dtype>", t)
    t = _QUOTED.sub("<name>", t)
    t = re.sub(r"\b\w+Backward\d*\b", "<node>", t)
    t = _NUM.sub("0", t)
    return t.lower()


# --------------------------------------------------------------------------- rules

_FREED_FAMILY = ["backward_twice", "rnn_hidden_not_detached", "autograd_grad_twice", "saved_tensor_after_free"]
_NO_GRAD_FN_FAMILY = ["backward_no_grad_fn", "backward_in_no_grad", "double_backward_no_create_graph"]
_VERSION_WITH_OP = ["inplace_modified_saved", "detach_inplace_needed", "optimizer_step_between_backwards",
                    "inplace_modified_input"]
_VERSION_PLAIN = ["inplace_modified_input", "optimizer_step_between_backwards", "detach_inplace_needed",
                  "inplace_modified_saved"]
_VERSION_WEIGHT = ["optimizer_step_between_backwards", "inplace_modified_saved", "detach_inplace_needed",
                   "inplace_modified_input"]
# node names that, in a version error, point at a parameter seen through a view (Linear's weight.t())
_WEIGHT_VIEWS = {"AsStrided", "AsStridedBackward", "AsStridedBackward0", "T", "TBackward", "TBackward0",
                 "Transpose", "TransposeBackward0", "Permute", "PermuteBackward0"}


def _shape(text):
    text = (text or "").strip()
    if not text:
        return []
    return [int(x) for x in re.split(r"\s*[,x]\s*", text) if x.strip().isdigit()]


def _version_facts(m):
    facts = {}
    if m.group("type"):
        facts["tensor_type"] = m.group("type")
        facts["shape"] = _shape(m.group("shape"))
        facts["current_version"] = int(m.group("cur"))
        facts["saved_version"] = int(m.group("exp"))
    if m.group("op"):
        facts["output_of"] = m.group("op")
        facts["output_nr"] = int(m.group("nr"))
    return facts


def _version_ids(m):
    op = m.group("op")
    if op:
        return _VERSION_WEIGHT if op in _WEIGHT_VIEWS else _VERSION_WITH_OP
    if m.group("type"):
        return _VERSION_PLAIN
    return ["inplace_modified_saved", "inplace_modified_input", "detach_inplace_needed",
            "optimizer_step_between_backwards"]


class Rule:
    """A regex over the cleaned message; the ids it means (most common first), and the facts
    it can read off the message."""

    def __init__(self, pattern, ids, facts=None):
        self.regex = re.compile(pattern, re.I)
        self.ids = ids  # a list, or fn(match) -> list
        self.facts = facts  # fn(match) -> dict

    def match(self, message):
        m = self.regex.search(message)
        if m is None:
            return None
        ids = self.ids(m) if callable(self.ids) else list(self.ids)
        facts = self.facts(m) if self.facts else {}
        return ids, facts


def _g(**names):
    """facts from named groups, converted: _g(index=int, op=str)."""
    def read(m):
        out = {}
        for key, conv in names.items():
            v = m.groupdict().get(key)
            if v is not None:
                out[key] = conv(v)
        return out
    return read


_SIZE_G = r"torch\.Size\(\[(?P<{}>[^\]]*)\]\)"
RULES = [
    Rule(r"calling register_hooks on a saved tensor after it has been freed", ["saved_tensor_hooks_after_free"]),
    Rule(r"trying to backward through the graph (?:a )?second time|saved (?:tensors|intermediate results|"
         r"intermediate values) (?:after they )?have already been freed|buffers have already been freed",
         _FREED_FAMILY),
    Rule(r"trying to use a saved tensor that has been detached in-place", ["saved_tensor_detached_inplace"]),
    Rule(r"one of the variables needed for gradient computation has been modified by an inplace operation"
         r"(?::\s*\[?(?P<type>[\w.]+) \[(?P<shape>[^\]]*)\]\]?(?:,? which is output (?P<nr>\d+) of (?P<op>\w+),?)?"
         r" is at version (?P<cur>\d+); expected version (?P<exp>\d+))?",
         _version_ids, _version_facts),
    Rule(r"element (?P<index>\d+) of (?:tensors|variables) does not require grad and does not have a grad_fn",
         _NO_GRAD_FN_FAMILY, _g(index=int)),
    Rule(r"grad can be implicitly created only for real scalar outputs(?: but got (?P<dtype>[\w.]+))?",
         ["backward_complex_output"], _g(dtype=str)),
    Rule(r"grad can be implicitly created only for scalar outputs",
         ["backward_nonscalar", "grad_nonscalar_no_grad_outputs"]),
    Rule(r"a view of a leaf variable that requires grad is being used in an in-place operation",
         ["inplace_view_of_leaf"]),
    Rule(r"(?<!of )\ba leaf variable that requires grad is being used in an in-place operation", ["inplace_leaf"]),
    Rule(r"a leaf variable that requires grad has been used in an in-place operation",
         ["custom_fn_mark_dirty_leaf", "inplace_leaf"]),
    Rule(r"leaf variable has been moved into the graph interior", ["inplace_leaf"]),
    Rule(r"you can only change requires_grad flags of leaf variables", ["requires_grad_nonleaf"]),
    # 2.13: factories (torch.tensor(..., requires_grad=True), nn.Parameter) say "Only ...", the
    # .requires_grad setter says "only ... and complex", requires_grad_() says "only ... dtype"
    Rule(r"(?-i:O)nly tensors of floating point and complex dtype can require gradients",
         ["tensor_int_list_requires_grad", "requires_grad_int_tensor"]),
    Rule(r"only tensors of floating point and complex dtype can require gradients",
         ["requires_grad_int_tensor", "tensor_int_list_requires_grad"]),
    Rule(r"only tensors of floating point dtype can require gradients",
         ["requires_grad_int_tensor", "tensor_int_list_requires_grad"]),
    Rule(r"can't call numpy\(\) on (?:tensor|variable) that requires grad", ["numpy_requires_grad"]),
    Rule(r"the \.grad attribute of a tensor that is not a leaf tensor is being accessed", ["nonleaf_grad_access"]),
    Rule(r"for complex tensors, both grad_output and output are required to have the same dtype",
         ["grad_output_complex_dtype_mismatch"]),
    Rule(r"mismatch in shape: grad_output\[(?P<index>\d+)\] has a shape of " + _SIZE_G.format("grad_shape")
         + r" and output\[\d+\] has a shape of " + _SIZE_G.format("output_shape"),
         ["backward_gradient_shape_mismatch"], _g(index=int, grad_shape=_shape, output_shape=_shape)),
    Rule(r"mismatch in shape: grad_output", ["backward_gradient_shape_mismatch"]),
    Rule(r"differentiated tensors? (?:at index (?P<index>\d+) )?appears? to not have been used in the graph",
         ["grad_unused_input"], _g(index=int)),
    Rule(r"one of the differentiated (?:tensors|variables) does not require grad", ["grad_input_no_requires_grad"]),
    Rule(r"a tensor with (?P<numel>\d+) elements cannot be converted to scalar", ["item_multi_element"],
         _g(numel=int)),
    Rule(r"only one element tensors can be converted to python scalars",
         ["float_of_multi_element", "item_multi_element"]),
    Rule(r"trying to differentiate twice a function that was marked with @once_differentiable",
         ["once_differentiable_double_backward"]),
    Rule(r"can't retain_grad on tensor that has requires_grad=false", ["retain_grad_no_requires_grad"]),
    Rule(r"mat1 and mat2 shapes cannot be multiplied \((?P<a0>\d+)x(?P<a1>\d+) and (?P<b0>\d+)x(?P<b1>\d+)\)",
         ["mm_shape_mismatch"], lambda m: {"mat1": [int(m["a0"]), int(m["a1"])], "mat2": [int(m["b0"]), int(m["b1"])]}),
    Rule(r"size mismatch, m1: \[(?P<a0>\d+) x (?P<a1>\d+)\], m2: \[(?P<b0>\d+) x (?P<b1>\d+)\]",
         ["mm_shape_mismatch"], lambda m: {"mat1": [int(m["a0"]), int(m["a1"])], "mat2": [int(m["b0"]), int(m["b1"])]}),
    Rule(r"mat1 dim 1 must match mat2 dim 0|mat1 and mat2 shapes cannot be multiplied", ["mm_shape_mismatch"]),
    Rule(r"the size of tensor a \((?P<size_a>\d+)\) must match the size of tensor b \((?P<size_b>\d+)\) at "
         r"non-singleton dimension (?P<dim>-?\d+)", ["broadcast_mismatch"], _g(size_a=int, size_b=int, dim=int)),
    Rule(r"view size is not compatible with input tensor's size and stride", ["view_noncontiguous"]),
    Rule(r"inference tensors cannot be saved for backward", ["inference_tensor_saved"]),
    Rule(r"inplace update to inference tensor outside inferencemode is not allowed", ["inference_tensor_inplace"]),
    Rule(r"cannot register a hook on a tensor that doesn't require gradient", ["hook_no_requires_grad"]),
    Rule(r"output (?P<output_nr>\d+) of (?P<op>\w+) is a view and is being modified inplace\. this view is the "
         r"output of a function that returns multiple views", ["multi_output_view_inplace"],
         _g(output_nr=int, op=str)),
    Rule(r"a view was created in no_grad mode and is being modified inplace with grad mode enabled",
         ["view_in_no_grad_inplace"]),
    Rule(r"cannot resize variables that require grad", ["resize_requires_grad"]),
    Rule(r"function (?P<node>\w+) returned an incorrect number of gradients \(expected (?P<expected>\d+), "
         r"got (?P<got>\d+)\)", ["custom_fn_wrong_num_grads"], _g(node=str, expected=int, got=int)),
    Rule(r"function (?P<node>\w+) returned an invalid gradient at index (?P<index>\d+) - got \[(?P<got>[^\]]*)\] "
         r"but expected shape compatible with \[(?P<expected>[^\]]*)\]", ["custom_fn_wrong_grad_shape"],
         _g(node=str, index=int, got=_shape, expected=_shape)),
    Rule(r"function (?P<node>\w+) returned an invalid gradient at index (?P<index>\d+) - expected shape",
         ["custom_fn_wrong_grad_shape"], _g(node=str, index=int)),
    Rule(r"function '(?P<node>\w+)' returned nan values in its (?P<index>\d+)(?:th|st|nd|rd) output",
         ["anomaly_nan"], _g(node=str, index=int)),
    Rule(r"can't detach views in-place", ["detach_inplace_view"]),
    Rule(r"(?P<op>[\w.]+)\(\): functions with out=\.\.\. arguments don't support automatic differentiation",
         ["out_arg_requires_grad"], _g(op=str)),
    Rule(r"only tensors created explicitly by the user \(graph leaves\) support the deepcopy protocol",
         ["deepcopy_nonleaf"]),
    Rule(r"can't optimize a non-leaf tensor", ["optimizer_nonleaf"]),
    Rule(r"attempting to assign a gradient of size '\[(?P<grad_shape>[^\]]*)\]' to a tensor of size "
         r"'\[(?P<shape>[^\]]*)\]'", ["grad_assign_wrong_shape"], _g(grad_shape=_shape, shape=_shape)),
    Rule(r"assigned grad has data of a different size", ["grad_assign_wrong_shape"]),
    Rule(r"attempting to assign a gradient with dtype '(?P<grad_dtype>[^']*)' to a tensor with (?:grad_)?dtype "
         r"'(?P<dtype>[^']*)'", ["grad_assign_wrong_shape"], _g(grad_dtype=str, dtype=str)),
    Rule(r"the derivative for '(?P<what>[^']+)' is not implemented", ["derivative_not_implemented"], _g(what=str)),
    Rule(r"derivative for (?P<what>(?:aten::)?[\w.]+) is not implemented", ["derivative_not_implemented"],
         _g(what=str)),
    Rule(r"to copy construct from a tensor, it is recommended to use", ["tensor_copy_construct_warning"]),
    Rule(r"'NoneType' object has no attribute '(?P<attribute>\w+)'", ["grad_is_none_zero"], _g(attribute=str)),
    Rule(r"expected f\(\*args\) to return a scalar tensor, got tensor with (?P<dims>\d+) dims",
         ["func_grad_nonscalar"], _g(dims=int)),
    Rule(r"none of the inputs have requires_grad=true\. gradients will be none",
         ["checkpoint_no_input_requires_grad"]),
    Rule(r"\b(?:boolean|bool) value of tensor with more than one (?:value|element) is ambiguous",
         ["grad_outputs_mismatch_masked"]),
    Rule(r"converting a tensor with requires_grad=true to a scalar may lead to unexpected behavior",
         ["scalar_conversion_requires_grad_warning"]),
    Rule(r"the use_reentrant parameter should be passed explicitly", ["checkpoint_use_reentrant_unspecified"]),
]


# --------------------------------------------------------------------------- tracebacks

_ERR_LINE = re.compile(r"^[\s`>*#|]*(?:[\w.]+\.)?(?P<type>[A-Z]\w*(?:Error|Exception|Warning))\s*:\s?(?P<msg>.*)$")
_WARN_LINE = re.compile(r"^.*?:\d+: (?P<type>\w*Warning): (?P<msg>.*)$")
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
_IPY_ARROW = re.compile(r"^-*>\s*(?P<line>\d+)\s(?P<code>.*)$")
_IPY_CELL = re.compile(r"^(?:Cell In\s*\[\d*\]|Input In \[\d*\]|<ipython-input-|File [^\n]*ipykernel)")
_IPY_CONTEXT = re.compile(r"^\s+\d+\s(?P<code>.*)$")
_SECTION = re.compile(r"^(Traceback \(most recent call last\)|During handling of the above exception|"
                      r"The above exception was the direct cause|\s*File \"|In \[\d+\]:|>>> |Cell In\[)")
_LIBRARY = re.compile(r"site-packages|dist-packages|[/\\]torch[/\\]|[/\\]gradviz[/\\]torch[/\\]|<frozen ")


@dataclass
class ErrorText:
    type: Optional[str]
    message: str  # cleaned, one line
    raw: str
    failing_code: Optional[str] = None  # the last user source line in a pasted traceback
    source_lines: tuple = ()  # every source line shown in the traceback


# Bounds that keep a pasted log of any size linear: the error lines that matter are the
# last ones, a message runs on over a few lines, and the code lines a traceback shows
# before its error are few.
MAX_CANDIDATES = 20
MAX_MESSAGE_LINES = 50
MAX_SOURCE_LINES = 200
#: Characters of a message compared with the catalog's wordings (the longest is 412 once
#: normalised): a longer text is not any of them, and difflib's time grows with the square.
MAX_COMPARED = 600


def extract(text: str) -> list:
    """Candidate error messages in ``text``, last (most relevant) first.

    A pasted traceback gives one candidate per error/warning line; its message runs on over the
    following unindented lines (wrapped terminals, multi-line messages) up to a blank line or the
    next section.  Text with no error line is one candidate: the whole text.
    """
    text = _ANSI.sub("", text or "").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    found = []
    source_lines = []
    failing = None
    pending_frame = None  # file of the frame whose code line comes next
    in_cell = False  # inside an IPython frame: numbered context lines are code
    for i, line in enumerate(lines):
        if _IPY_CELL.search(line):
            in_cell = True
            continue
        if line.startswith("File "):  # IPython's library frames: "File ~/.../torch/_tensor.py:522, in ..."
            in_cell = False
            continue
        fm = _FRAME.match(line)
        if fm:
            pending_frame = fm.group("file")
            in_cell = False
            continue
        am = _IPY_ARROW.match(line.strip())
        if am:
            source_lines.append(am.group("code").strip())
            failing = am.group("code").strip()
            continue
        if in_cell:
            cm = _IPY_CONTEXT.match(line)
            if cm:
                source_lines.append(cm.group("code").strip())
                continue
        if pending_frame is not None:
            code = line.strip()
            if code and not set(code) <= set("^~ "):
                source_lines.append(code)
                if not _LIBRARY.search(pending_frame):
                    failing = code
            pending_frame = None
            continue
        m = _WARN_LINE.match(line) or _ERR_LINE.match(line)
        if m and not re.match(r"^\s*\w+\s{2,}Traceback", line):
            parts = [m.group("msg")]
            for k in range(i + 1, min(len(lines), i + 1 + MAX_MESSAGE_LINES)):
                nxt = lines[k]
                if not nxt.strip() or nxt[:1].isspace() or _SECTION.match(nxt) or _ERR_LINE.match(nxt) \
                        or _WARN_LINE.match(nxt) or nxt.lstrip().startswith("```"):
                    break
                parts.append(nxt)
            found.append(ErrorText(m.group("type"), clean("\n".join(parts)).rstrip("`").strip(), "\n".join(parts),
                                   failing,
                                   tuple(source_lines[-MAX_SOURCE_LINES:])))
            del found[:-MAX_CANDIDATES]  # the error that matters is at the end of a paste
    if not found:
        return [ErrorText(None, clean(text), text, None, ())]
    # the failing line belongs to the traceback before the *last* error; keep what we saw
    return list(reversed(found))


# --------------------------------------------------------------------------- refining with traceback clues


def _promote(ids, first):
    if first in ids:
        return [first] + [i for i in ids if i != first]
    return ids


def refine(ids, code_lines, failing):
    """Reorder a shared-message family using the source lines a traceback shows."""
    code = "\n".join(code_lines)
    fail = failing or ""
    why = None
    fam = set(ids)
    if fam == set(_FREED_FAMILY):
        if re.search(r"_saved_\w+|saved_tensors|saved_variables", fail):
            ids, why = _promote(ids, "saved_tensor_after_free"), "the failing line reads a saved tensor"
        elif re.search(r"autograd\.grad\(|\bgrad\(", fail):
            ids, why = _promote(ids, "autograd_grad_twice"), "the failing line calls autograd.grad"
        elif re.search(r"\b(hidden|hx|h0|state|states|h|c)\b\s*=.*\b(rnn|lstm|gru|cell)\w*\(", code, re.I):
            ids, why = _promote(ids, "rnn_hidden_not_detached"), "the traceback shows a recurrent state update"
    elif fam == set(_NO_GRAD_FN_FAMILY):
        if re.search(r"\.grad\b(?!_fn)|autograd\.grad\(", fail):
            ids, why = _promote(ids, "double_backward_no_create_graph"), "the failing line differentiates a gradient"
        elif re.search(r"no_grad|inference_mode|set_grad_enabled\(False\)", code):
            ids, why = _promote(ids, "backward_in_no_grad"), "the traceback shows a no_grad/inference_mode block"
    elif fam == {"backward_nonscalar", "grad_nonscalar_no_grad_outputs"}:
        if re.search(r"autograd\.grad\(|\bgrad\(", fail):
            ids, why = _promote(ids, "grad_nonscalar_no_grad_outputs"), "the failing line calls autograd.grad"
    elif "optimizer_step_between_backwards" in fam and "inplace_modified_saved" in fam:
        if re.search(r"\.step\(\)", code):
            ids, why = _promote(ids, "optimizer_step_between_backwards"), "the traceback shows optimizer.step()"
        elif re.search(r"\.detach\(\)\.\w+_\(", code):
            ids, why = _promote(ids, "detach_inplace_needed"), "the traceback modifies a detached tensor in place"
    return ids, why


# --------------------------------------------------------------------------- matching


def _reference_texts():
    refs = []
    for e in catalog.ENTRIES.values():
        for m in e.messages:
            refs.append((e.id, normalise(m)))
    return refs


#: References shorter than this (once normalised) are too generic to accept by similarity alone
#: ("'<name>' object has no attribute '<name>'" would match every AttributeError).
FUZZY_MIN_LENGTH = 50


_REFS = None


def similarity(message: str) -> list:
    """[(score, id)] for every known id, best first (difflib ratio over normalised skeletons,
    blended with word overlap)."""
    global _REFS
    if _REFS is None:
        _REFS = _reference_texts()
    norm = normalise(message[:2 * MAX_COMPARED])[:MAX_COMPARED]
    words = set(re.findall(r"[a-z_<>]+", norm))
    best = {}
    for entry_id, full in _REFS:
        # a pasted message may be cut short (or lack the hint sentence): also compare with the
        # reference's beginning of the same length
        for ref in {full, full[:len(norm) + 8]}:
            ratio = difflib.SequenceMatcher(None, norm, ref, autojunk=False).ratio()
            ref_words = set(re.findall(r"[a-z_<>]+", ref))
            jacc = len(words & ref_words) / max(1, len(words | ref_words))
            score = 0.6 * ratio + 0.4 * jacc
            if score > best.get(entry_id, 0.0):
                best[entry_id] = score
    order = {i: n for n, i in enumerate(catalog.ORDER)}
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], order.get(kv[0], 0)))
    return [(s, i) for i, s in ranked]


#: A message no rule knows but this similar to a known wording is taken as that wording.
FUZZY_THRESHOLD = 0.86

#: An unknown message is offered a known id as "did you mean" only from this similarity on (and
#: only within SUGGEST_SPREAD of the best one). Unrelated errors ("KeyError: 'foo'", a CUDA
#: out-of-memory message, "hello world") score 0.2-0.5 against the catalog; a known wording
#: with a word or two changed scores 0.7 and more. Nothing close: no suggestions at all.
SUGGEST_THRESHOLD = 0.6
#: A paraphrase ("trying to run backward over the same graph twice, buffers were freed") scores
#: lower; it is close when it also shares two of autograd's own words with the id's wordings.
SUGGEST_PARAPHRASE = 0.4
SUGGEST_SPREAD = 0.15
MAX_SUGGESTIONS = 3
AUTOGRAD_TERMS = frozenset(
    "grad autograd backward graph gradient gradients inplace leaf leaves freed buffers retain_graph requires_grad "
    "requires_grad_ grad_fn saved version differentiated differentiate differentiation derivative detach detach_ "
    "hook hooks register_hooks retain_grad no_grad inference inference_mode anomaly once_differentiable require "
    "requires grad_output grad_outputs allow_unused create_graph jacrev checkpoint use_reentrant mark_dirty "
    "deepcopy numpy scalar scalars view views contiguous stride mat1 mat2 multiplied broadcast singleton optimizer "
    "optimize non_leaf".split())


def _long_enough(entry_id):
    return any(len(normalise(m)) >= FUZZY_MIN_LENGTH for m in catalog.get(entry_id).messages)


def _terms(text) -> set:
    return set(re.findall(r"[a-z_0-9]+", normalise(text))) & AUTOGRAD_TERMS


_ENTRY_TERMS = {}


def _entry_terms(entry_id) -> set:
    if entry_id not in _ENTRY_TERMS:
        _ENTRY_TERMS[entry_id] = set().union(*(_terms(m) for m in catalog.get(entry_id).messages))
    return _ENTRY_TERMS[entry_id]


def suggestions(ranked, message="") -> list:
    """The close ones of a similarity ranking, [(score, id)] best first: at least
    SUGGEST_THRESHOLD (or SUGGEST_PARAPHRASE with two autograd words in common with
    ``message``), near the best, and only ids whose wordings are long enough for a similarity
    to mean something (a short skeleton such as "'<name>' object has no attribute '<name>'" is
    equally close to every AttributeError)."""
    terms = _terms(message) if message else set()
    if not ranked:
        return []
    close = [(s, i) for s, i in ranked if _long_enough(i) and (
        s >= SUGGEST_THRESHOLD or (s >= SUGGEST_PARAPHRASE and len(terms & _entry_terms(i)) >= 2))]
    if not close:
        return []
    best = close[0][0]
    return [(s, i) for s, i in close if s >= best - SUGGEST_SPREAD][:MAX_SUGGESTIONS]


#: Characters of a message the rules read: PyTorch's messages are shorter, and a rule that
#: opens with a repeated class (``[\w.]+``) costs the square of what it scans.
MAX_MATCHED = 4000


def match_rules(message: str):
    message = message[:MAX_MATCHED]
    for rule in RULES:
        hit = rule.match(message)
        if hit is not None:
            return hit
    return None


def explain_message(text: str) -> Explanation:
    """Identify an autograd error/warning from its message or a whole pasted traceback."""
    candidates = extract(text)
    for cand in candidates:
        hit = match_rules(cand.message)
        if hit is None:
            continue
        ids, facts = hit
        ids, why = refine(ids, cand.source_lines, cand.failing_code)
        ctx = {"message": cand.message, "match": "rule"}
        if cand.type:
            ctx["exc_type"] = cand.type
        if cand.failing_code:
            ctx["failing_code"] = cand.failing_code
        if why:
            ctx["ranked_by"] = why
        ctx.update(facts)
        return from_entry(ids[0], ids[1:], ctx, cand.message)
    # nothing matched a rule: similarity ranking against every known wording
    main = candidates[0]
    ranked = similarity(main.message) if main.message else []
    if ranked and ranked[0][0] >= FUZZY_THRESHOLD and _long_enough(ranked[0][1]):
        score, best = ranked[0]
        ctx = {"message": main.message, "match": "approximate", "score": round(score, 3)}
        others = [i for s, i in ranked[1:3] if s >= FUZZY_THRESHOLD - 0.1]
        return from_entry(best, others, ctx, main.message)
    nearest = [{"id": i, "title": catalog.get(i).title, "score": round(s, 3)} for s, i in suggestions(ranked, main.message)]
    if nearest:
        closest = (f"The closest known one is {nearest[0]['id']}." if len(nearest) == 1 else
                   f"The closest known ones are: {', '.join(n['id'] for n in nearest)}.")
    else:
        closest = "No known error is close to it."
    return Explanation(
        id=None,
        candidates=[dict(n, question=catalog.get(n["id"]).question) for n in nearest],
        title="Unknown message",
        cause="gradviz does not recognise this message as one of the autograd errors it knows. " + closest,
        fix={"text": "Run `gradviz explain --list` to see what gradviz knows, or run the script with "
                     "`gradviz explain script.py` so the engine can diagnose it.", "before": "", "after": ""},
        context={"message": main.message, "match": "none", "nearest": nearest},
        known=False, message=main.message, nearest=nearest)
