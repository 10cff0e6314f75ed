"""torch.device. Everything here runs on the CPU: one device, CPU, that tensors and
generators report. A leaf module (no imports), so that the generator can name the device
without reaching the tensor core."""


class device:
    __module__ = "torch"

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type = type.type
        self.type = str(type).split(":")[0]
        self.index = index

    def __repr__(self):
        return f"device(type='{self.type}')"

    def __str__(self):
        return self.type

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.type)


CPU = device("cpu")
