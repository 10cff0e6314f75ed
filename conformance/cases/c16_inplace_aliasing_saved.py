# In-place ops whose inputs alias the written tensor, and ops on views taken under no_grad.
import torch

a = torch.ones(4, requires_grad=True)
# %%
# x.mul_(x): the saved input is the tensor being modified
b = a * 1.5
b.mul_(b)
print(b)
b.sum().backward()
# %%
# the same with a separate tensor: fine
a.grad = None
c = a * 1.5
c.mul_(torch.full((4,), 2.0))
c.sum().backward()
a.grad
# %%
# an op on a no_grad view saves it; once the base changes, backward refuses
def op_on_rebased_no_grad_view():
    base = a * 1.5
    with torch.no_grad():
        view = base.narrow(0, 0, 4)
    out = view.pow(2)
    base.add_(1)
    return out


op_on_rebased_no_grad_view().sum().backward()
# %%
# a no_grad view reports requires_grad, is a leaf, and its gradient is dropped
e = a * 1.5
with torch.no_grad():
    ev = e[:2]
print(ev.requires_grad, ev.is_leaf, ev.grad_fn)
a.grad = None
(ev * 2).sum().backward()
print(a.grad, ev.grad)
# %%
# a base updated in place with its own (full) view: the view then follows the new history
a.grad = None
d = a * 1.5
dv = d.narrow(0, 0, 4)
d.add_(dv)
print(d, dv, type(dv.grad_fn).__name__)
dv.sum().backward(retain_graph=True)
print(a.grad)
a.grad = None
d.sum().backward()
a.grad
