"""The error texts of torch.save / torch.load (torch/serialization.py and
torch/_weights_only_unpickler.py), in PyTorch 2.13's exact words."""
import pickle

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def save_target(f):
    return AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")


def load_not_seekable(f):
    return AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load from a file "
                          "that is seekable. Please pre-load the data into a buffer like io.BytesIO and try to load "
                          "from it instead.")


def unsupported_global(full_path):
    """What the weights-only unpickler says of a global it does not allow, wrapped as
    torch.load wraps it."""
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins."):]
    message = (f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
               f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
               f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
               "if you trust this class/function.")
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
        f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
        "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message + DOCS_MESSAGE)


def legacy_format():
    """gradviz's own: files in PyTorch's pre-1.6 (non-zip) format are not read."""
    return RuntimeError("gradviz's engine reads torch.save's zip format only (PyTorch 1.6 and later); this file is "
                        "in the legacy format: run the script with --engine torch to load it")


def no_cuda(backend):
    return RuntimeError(f"Attempting to deserialize object on a {backend.upper()} device but "
                        f"torch.{backend}.is_available() is False. If you are running on a CPU-only machine, "
                        "please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.")


PICKLE_MODULE_WITH_WEIGHTS_ONLY = "Can not safely load weights when explicit pickle_module is specified"
