"""The op table, continued: the in-place views (t_, transpose_, squeeze_, unsqueeze_) and
indexing, scattering and rearranging ops beyond _ops.py's. Same rules as _ops.py."""
import numpy as np

from ._namespace import F
from ._ops import Op

# In-place views: the tensor itself takes the new shape over the same memory; its node is
# an ordinary one on the tensor's old history (PyTorch's TBackward1, not a view node).
t_inplace = Op("TBackward1", lambda self: self.T, self=lambda grad: grad.t())
transpose_inplace = Op("TransposeBackward1", lambda self, *, dim0, dim1: np.swapaxes(self, dim0, dim1),
                       self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
unsqueeze_inplace = Op("UnsqueezeBackward1", lambda self, *, dim: np.expand_dims(self, dim),
                       self=lambda grad, dim: grad.squeeze(dim))
squeeze_inplace_all = Op("SqueezeBackward3", lambda self, *, self_sym_sizes: self.reshape(
    [s for s in self.shape if s != 1]), self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
squeeze_inplace_dim = Op("SqueezeBackward4", lambda self, *, dim, self_sym_sizes: (
    np.squeeze(self, dim) if self.shape[dim] == 1 else self[...]),
    self=lambda grad, dim, self_sym_sizes: grad.unsqueeze(dim) if self_sym_sizes[dim] == 1 else grad)
squeeze_inplace_dims = Op("SqueezeBackward5", lambda self, *, dim, self_sym_sizes: np.squeeze(
    self, tuple(d for d in dim if self.shape[d] == 1)), self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))

# torch.fill(x, value): a new tensor of x's shape and dtype, every element the value
fill_scalar = Op("FillBackward0", lambda self, *, value: np.full_like(self, value), self=lambda grad: F.zeros_like(grad))
fill_tensor = Op("FillBackward1", lambda self, value: np.full_like(self, value), self=lambda grad: F.zeros_like(grad),
                 value=lambda grad: grad.sum())

rot90 = Op("Rot90Backward0", lambda self, *, k, dims: np.rot90(self, k, dims).copy(),
           self=lambda grad, k, dims: F.rot90(grad, -k, dims))


def _take_array(self, index):
    return self.reshape(-1)[index]


def _put_array(self, index, source, accumulate):
    out = self.copy()
    flat = out.reshape(-1)
    if accumulate:
        np.add.at(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return out


take = Op("TakeBackward0", lambda self, *, index: _take_array(self, index),
          self=lambda grad, self, index: F.put(F.zeros_like(self), F.from_numpy(index), grad, True))
put = Op("PutBackward0", lambda self, source, *, index, accumulate: _put_array(self, index, source, accumulate),
         self=lambda grad, index, accumulate: grad if accumulate else F.put(
             grad, F.from_numpy(index), F.zeros_like(grad).reshape(-1)[:index.size].reshape(index.shape), False),
         source=lambda grad, index, source: F.take(grad, F.from_numpy(index)).reshape(source.shape))
