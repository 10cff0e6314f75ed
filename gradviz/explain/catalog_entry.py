"""One entry of ``gradviz explain``'s catalog, and the PyTorch wordings that several entries
share.  :func:`entry` takes an entry as keyword data and tidies its text: the prose fields are
written wrapped in the source and read as one line, the code pairs lose their outer newlines."""
from dataclasses import dataclass, field
from typing import Tuple

FREED_213 = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
             "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
             "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
             "or if you need to access saved tensors after calling backward.")
FREED_OLD = (
    # PyTorch 0.4 - 1.x
    "Trying to backward through the graph a second time, but the buffers have already been freed. Specify "
    "retain_graph=True when calling backward the first time.",
    # PyTorch 1.x (late)
    "Trying to backward through the graph a second time, but the saved intermediate results have already been "
    "freed. Specify retain_graph=True when calling backward the first time.",
    "Trying to backward through the graph a second time, but the saved intermediate results have already been "
    "freed. Specify retain_graph=True when calling .backward() or autograd.grad() the first time.",
    # PyTorch 0.1 - 0.3
    "Trying to backward through the graph second time, but the buffers have already been freed. Please specify "
    "retain_variables=True when calling backward for the first time.",
)
VERSION_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
VERSION_OLD_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                    "The variable in question was changed in there or anywhere later. Good luck!")
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
NO_GRAD_FN_OLD = ("element 0 of variables does not require grad and does not have a grad_fn",)


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    kind: str  # "exception" | "warning" | "silent"
    exc_type: str  # "RuntimeError", "UserWarning", ... ("" for silent pitfalls)
    happened: str
    why: str
    fix: str
    before: str
    after: str
    question: str
    messages: Tuple[str, ...] = field(default=())

    @property
    def cause(self) -> str:
        return f"{self.happened} {self.why}"

    def as_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "kind": self.kind, "exc_type": self.exc_type,
                "happened": self.happened, "why": self.why,
                "fix": {"text": self.fix, "before": self.before, "after": self.after},
                "question": self.question, "messages": list(self.messages)}


def entry(*, id, title, kind, exc_type, happened, why, fix, before, after, question, messages=()) -> Entry:
    """An :class:`Entry` from keyword data, its prose on one line and its code without outer newlines."""
    return Entry(id, title, kind, exc_type, " ".join(happened.split()), " ".join(why.split()),
                 " ".join(fix.split()), before.strip("\n"), after.strip("\n"), " ".join(question.split()),
                 tuple(messages))
