"""The op table, continued: the samplers that draw a varying number of numbers per element
(torch._standard_gamma, _sample_dirichlet, poisson, binomial) and the reparameterized
gradients of the first two. Same rules as _ops.py: PyTorch's node name, the forward on numpy
arrays, one formula per differentiable input (derivatives.yaml's)."""
from . import _kernels_gamma_grad as KG
from . import _random_counts as RC
from ._namespace import F
from ._ops import Op, derivative_not_implemented, not_implemented

# A Gamma(alpha) sample x moves with alpha by _standard_gamma_grad(alpha, x) (implicit
# reparameterization), which is what makes Gamma, Beta and Dirichlet rsample differentiable.
standard_gamma = Op("StandardGammaBackward0", lambda self, *, generator: RC.standard_gamma(generator, self),
                    self=lambda grad, self, result: grad * F._standard_gamma_grad(self, result))
# derivatives.yaml: self is not_implemented, output is not differentiable.
standard_gamma_grad = Op("StandardGammaGradBackward0", lambda self, output: KG.standard_gamma_grad(self, output),
                         self=lambda grad: derivative_not_implemented("_standard_gamma_grad"))
sample_dirichlet = Op("NotImplemented", lambda self, *, generator: RC.sample_dirichlet(generator, self),
                      self=lambda grad: not_implemented("_sample_dirichlet"))
dirichlet_grad = Op("NotImplemented", lambda x, alpha, total: KG.dirichlet_grad(x, alpha, total),
                    x=lambda grad: not_implemented("_dirichlet_grad"),
                    alpha=lambda grad: not_implemented("_dirichlet_grad"),
                    total=lambda grad: not_implemented("_dirichlet_grad"))
poisson = Op("PoissonBackward0", lambda self, *, generator: RC.poisson(generator, self),
             self=lambda grad: F.zeros_like(grad))
binomial = Op("NotImplemented", lambda count, prob, *, generator: RC.binomial(generator, count, prob),
              count=lambda grad: not_implemented("binomial"), prob=lambda grad: not_implemented("binomial"))
