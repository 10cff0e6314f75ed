# The computation graph of the seed tutorial: L = sum(10 - (w3*w1*a + w4*w2*a)).
# Run it with:  gradviz run samples/seed_graph.py   (add --cells for a table per cell)
import torch

# %% leaves: every tensor made by the user with requires_grad=True
a = torch.randn((3, 3), requires_grad=True)
w1 = torch.randn((3, 3), requires_grad=True)
w2 = torch.randn((3, 3), requires_grad=True)
w3 = torch.randn((3, 3), requires_grad=True)
w4 = torch.randn((3, 3), requires_grad=True)

# %% the forward pass records a graph of grad_fn nodes
b = w1 * a
c = w2 * a
d = w3 * b + w4 * c
L = (10 - d).sum()
print("L.grad_fn:", L.grad_fn.name())

# %% backward fills .grad of the leaves only
L.backward()
print("dL/dw4 == -c:", torch.allclose(w4.grad, -c))
print("dL/da  == -(w3*w1 + w4*w2):", torch.allclose(a.grad, -(w3 * w1 + w4 * w2)))
