"""torch.device. Tensors live on the CPU, or on the meta device (shape and dtype, no data:
see ``_meta.py``); generators are CPU's. A leaf module (no imports), so that the generator can
name the device without reaching the tensor core.

``with torch.device('meta'):`` makes meta the device of factories called without one, as
PyTorch's device context does; ``DEFAULT`` holds the stack of such contexts."""


class device:
    __module__ = "torch"

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        text = str(type)
        self.type = text.split(":")[0]
        if index is None and ":" in text:
            index = int(text.split(":", 1)[1])
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.type)

    def __enter__(self):
        DEFAULT.append(self)
        return self

    def __exit__(self, *exc_info):
        DEFAULT.pop()


CPU = device("cpu")
META = device("meta")

#: the devices of the ``with torch.device(...)`` blocks now open, innermost last
DEFAULT = []


def is_meta_device(value):
    """Whether a ``device=`` argument (a device, a string such as 'meta' or 'meta:0', or None
    inside ``with torch.device('meta')``) names the meta device."""
    if value is None:
        return bool(DEFAULT) and DEFAULT[-1].type == "meta"
    if isinstance(value, device):
        return value.type == "meta"
    return isinstance(value, str) and value.split(":")[0] == "meta"
