"""torch.distributions.transforms: every transform PyTorch 2.13 has here, gathered from
transforms_elementwise.py (the base, the structural and the element-wise maps) and
transforms_structured.py (maps over vectors and matrices, Cat, Stack, a cdf)."""
from .transforms_elementwise import (  # noqa: F401
    AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform, PowerTransform,
    ReshapeTransform, SigmoidTransform, SoftplusTransform, TanhTransform, Transform, identity_transform)
from .transforms_structured import (  # noqa: F401
    CatTransform, CorrCholeskyTransform, CumulativeDistributionTransform, LowerCholeskyTransform,
    PositiveDefiniteTransform, SoftmaxTransform, StackTransform, StickBreakingTransform)

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform", "TanhTransform",
    "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform", "identity_transform",
]
