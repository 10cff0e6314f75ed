"""torch.backends as a CPU-only PyTorch build shows it: the flags tutorials set for
reproducibility (cudnn.deterministic, cudnn.benchmark) are kept and read back, and every
accelerator reports itself unavailable. The engine's results do not depend on them: numpy
has no cuDNN and no TF32."""
from . import _errors


class _Cudnn:
    def __init__(self):
        self.enabled = True
        self.benchmark = False
        self.deterministic = False
        self.allow_tf32 = True

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def version():
        return None


class _Matmul:
    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


class _Cuda:
    def __init__(self):
        self.matmul = _Matmul()

    @staticmethod
    def is_built():
        return False


class _Mps:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def is_built():
        return False


class _Available:
    """A backend this CPU build has (mkldnn, openmp, mkl)."""

    @staticmethod
    def is_available():
        return True


cudnn = _Cudnn()
cuda = _Cuda()
mps = _Mps()
mkldnn = _Available()
openmp = _Available()
mkl = _Available()


class _Settings:
    """The process-wide switches torch.* sets and reads back."""
    float32_matmul_precision = "highest"
    deterministic = False
    deterministic_warn_only = False


SETTINGS = _Settings()
_MATMUL_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision):
    if precision not in _MATMUL_PRECISIONS:
        _errors.warn_at_user(_errors.bad_matmul_precision(precision))
        return
    SETTINGS.float32_matmul_precision = precision


def get_float32_matmul_precision():
    return SETTINGS.float32_matmul_precision


def use_deterministic_algorithms(mode, *, warn_only=False):
    if type(mode) is not bool:
        raise _errors.bool_argument("_set_deterministic_algorithms", "mode", mode, position=1)
    if type(warn_only) is not bool:
        raise _errors.bool_argument("_set_deterministic_algorithms", "warn_only", warn_only)
    SETTINGS.deterministic, SETTINGS.deterministic_warn_only = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    return SETTINGS.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return SETTINGS.deterministic_warn_only
