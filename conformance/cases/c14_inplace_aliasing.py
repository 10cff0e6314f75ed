# In-place ops where tensors alias each other, found by the property tests
# (tests/test_properties_engine.py): views made under no_grad, views whose base starts to
# require grad, x.mul_(x), a base updated with its own view, overlapping slice assignment,
# the second backward through CopySlices / CopyBackwards, and the op names in version errors.
import torch

# %%
# a view made under no_grad of a tensor that requires grad
a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with torch.no_grad():
    v_ng = a[:2]
    v_ng2 = a.view(2, 2)
print(v_ng.requires_grad, v_ng.is_leaf, v_ng.grad_fn, v_ng2.requires_grad)

# %%
# the view of a tensor that did not require grad, after its base starts to
del v_ng, v_ng2
c = torch.zeros(4)
cv = c[:2]
c.add_(a)
print(c.requires_grad, type(c.grad_fn).__name__, cv.requires_grad, type(cv.grad_fn).__name__)
cv.sum().backward()
a.grad

# %%
# slice assignment from an overlapping slice of the same tensor
e = torch.arange(6.0)
e[1:3] = e[:2]

# %%
del e
e2 = torch.arange(6.0)
e2[1:3] = e2[:2].clone()
e2

# %%
# copy_ into a non-leaf saves nothing: a second backward works
f = a + 1
f.copy_(a * 2)
print(type(f.grad_fn).__name__)
a.grad = None
f.sum().backward()
f.sum().backward()
a.grad

# %%
# CopySlices frees its graph: a second backward fails
g = a + 1
g[0] = 5.0
a.grad = None
g.sum().backward()
print(a.grad)
g.sum().backward()

# %%
# version errors name the op that made the modified tensor
h = a * 1.5
hy = h * h
h.clamp_(-1.0, 1.0)
print(type(h.grad_fn).__name__)
hy.sum().backward()

# %%
k = a * 1.5
ky = k * k
k.fill_(0.25)
print(type(k.grad_fn).__name__)
ky.sum().backward()

# %%
# copy_ does not save its source: changing the source later is fine
cp_dst = torch.zeros(4)
cp_src = a * 1.5
cp_dst.copy_(cp_src)
cp_src.add_(1)
a.grad = None
cp_dst.sum().backward()
a.grad

# %%
# a no_grad view whose base was then modified in place: reading is_leaf / grad_fn raises
def rebased_no_grad_view():
    base = a * 1.5
    with torch.no_grad():
        view = base.narrow(0, 0, 4)
    base.add_(1)
    return view


for attr in ("requires_grad", "is_leaf", "grad_fn"):
    try:
        print(attr, getattr(rebased_no_grad_view(), attr))
    except RuntimeError as err:
        print(attr, "raises", type(err).__name__, err)

# %%
# slice assignment does not save its source either
sa_dst = torch.zeros(4)
sa_src = a * 1.5
sa_dst[1:3] = sa_src[:2]
sa_src.add_(1)
a.grad = None
sa_dst.sum().backward()
a.grad

