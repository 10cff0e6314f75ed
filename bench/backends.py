"""Backends: gradviz (gradviz.torch), PyTorch, and the hand-written numpy floor.

A backend builds each engine workload from the shared numpy inputs and returns

* ``Step(run, reset)`` for timed workloads: ``run()`` does one forward+backward and returns
  the gradients (backend-native); ``reset()`` clears leaf gradients and is never timed;
* ``MemSteps(forward, backward, reset)`` for W5: ``forward()`` returns a handle that keeps
  the graph alive, ``backward(handle)`` returns the gradients.

``TorchStyle`` drives any module with PyTorch's surface (``gradviz.torch`` and ``torch``)
through exactly the same code, so the two engines run identical Python.
"""
import importlib

from bench.workloads import add_chain, add_tree, chain_step


class Unavailable(Exception):
    """The backend cannot be imported here (e.g. PyTorch is not installed)."""


class Step:
    def __init__(self, run, reset=None):
        self.run = run
        self.reset = reset or (lambda: None)


class MemSteps:
    def __init__(self, forward, backward, reset=None):
        self.forward, self.backward = forward, backward
        self.reset = reset or (lambda: None)


class TorchStyle:
    """A PyTorch-compatible module: tensor, mm, tanh, sin, relu, sum, mean, backward, .grad."""

    numpy_based = False

    def __init__(self, name, module):
        self.name, self.module = name, module
        self.numpy_based = module.split(".")[0] != "torch"
        self.T = None

    def setup(self, threads):
        try:
            self.T = importlib.import_module(self.module)
        except Exception as e:  # ImportError, or a broken install raising something else
            raise Unavailable(f"cannot import {self.module}: {type(e).__name__}: {e}") from None
        if hasattr(self.T, "set_num_threads"):
            self.T.set_num_threads(threads)

    def info(self):
        d = {"module": self.module, "version": str(getattr(self.T, "__version__", "?")),
             "file": getattr(self.T, "__file__", None)}
        if hasattr(self.T, "get_num_threads"):
            d["num_threads"] = self.T.get_num_threads()
        return d

    def to_numpy(self, t):
        import numpy as np

        if t is None:
            return None
        t = t.detach()
        return np.asarray(t.numpy() if hasattr(t, "numpy") else t)

    def _t(self, a, requires_grad=False):
        return self.T.tensor(a, requires_grad=requires_grad)

    # W1, W3
    def chain(self, inp, p):
        T, depth = self.T, p["depth"]
        x, B, C = self._t(inp["x"], True), self._t(inp["B"]), inp["C"]
        tanh, sin = T.tanh, T.sin

        def reset():
            x.grad = None

        def run():
            y = x
            for k in range(depth):
                y = chain_step(k, y, C, B, tanh, sin)
            T.sum(y).backward()
            return [x.grad]
        return Step(run, reset)

    # W2
    def mlp(self, inp, p):
        T = self.T
        x, Y = self._t(inp["x"]), self._t(inp["Y"])
        params = [self._t(a, True) for a in inp["params"]]
        layers = len(params) // 2

        def reset():
            for q in params:
                q.grad = None

        def run():
            h = x
            for i in range(layers):
                h = T.mm(h, params[2 * i]) + params[2 * i + 1]
                if i + 1 < layers:
                    h = T.relu(h)
            err = h - Y
            T.mean(err * err).backward()
            return [q.grad for q in params]
        return Step(run, reset)

    # W4
    def wide(self, inp, p):
        T = self.T
        leaves = [self._t(a, True) for a in inp["leaves"]]
        reduce_ = add_chain if p["mode"] == "chain" else add_tree

        def reset():
            for q in leaves:
                q.grad = None

        def run():
            T.sum(reduce_(leaves)).backward()
            return [q.grad for q in leaves]
        return Step(run, reset)

    # W6
    def matmul(self, inp, p):
        A, B = self._t(inp["A"], True), self._t(inp["B"], True)
        G = self._t(inp["G"])

        def reset():
            A.grad = None
            B.grad = None

        def run():
            self.T.mm(A, B).backward(G)
            return [A.grad, B.grad]
        return Step(run, reset)

    # W5
    def mem_chain(self, inp, p):
        T = self.T
        x = self._t(inp["x"])
        Ws = [self._t(w, True) for w in inp["Ws"]]

        def forward():
            h = x
            for W in Ws:
                h = T.tanh(T.mm(h, W))
            return T.sum(h)  # holding the loss keeps the graph alive

        def backward(loss):
            loss.backward()
            return [W.grad for W in Ws]

        def reset():
            for W in Ws:
                W.grad = None
        return MemSteps(forward, backward, reset)


class NumpyFloor:
    """Forward and backward written by hand in numpy: no graph objects, no dispatch.

    This is the least work any numpy-based engine must do for the same result.
    """

    name = "numpy"
    numpy_based = True

    def setup(self, threads):
        import numpy
        self.np = numpy

    def info(self):
        return {"module": "numpy", "version": self.np.__version__}

    def to_numpy(self, g):
        return None if g is None else self.np.asarray(g)

    def chain(self, inp, p):
        np, depth = self.np, p["depth"]
        x, B, C = inp["x"], inp["B"], inp["C"]

        def run():
            saved = []  # what each tanh (its output) and sin (its input) needs
            y = x
            for k in range(depth):
                r = k & 3
                if r == 0:
                    y = y * C
                elif r == 1:
                    y = y + B
                elif r == 2:
                    y = np.tanh(y)
                    saved.append(y)
                else:
                    saved.append(y)
                    y = np.sin(y)
            y.sum()
            g = np.ones_like(y)
            for k in range(depth - 1, -1, -1):
                r = k & 3
                if r == 0:
                    g = g * C
                elif r == 2:
                    out = saved.pop()
                    g = g * (1 - out * out)
                elif r == 3:
                    g = g * np.cos(saved.pop())
            return [g]
        return Step(run)

    def mlp(self, inp, p):
        np, x, Y, params = self.np, inp["x"], inp["Y"], inp["params"]
        layers = len(params) // 2

        def run():
            inputs = []  # input of each layer (post-relu), kept for the weight gradient
            h = x
            for i in range(layers):
                inputs.append(h)
                h = h @ params[2 * i] + params[2 * i + 1]
                if i + 1 < layers:
                    h = np.maximum(h, 0)
            err = h - Y
            np.mean(err * err)
            g = err * (2.0 / err.size)
            grads = [None] * len(params)
            for i in range(layers - 1, -1, -1):
                h_in = inputs.pop()
                grads[2 * i] = h_in.T @ g
                grads[2 * i + 1] = g.sum(axis=0)
                if i:
                    g = (g @ params[2 * i].T) * (h_in > 0)
            return grads
        return Step(run)

    def wide(self, inp, p):
        np, leaves, n = self.np, inp["leaves"], p["n"]
        if p["mode"] == "chain":
            def run():
                add_chain(leaves).sum()
                g = np.ones_like(leaves[0])
                return [g for _ in range(n)]  # an add passes its gradient to both sides
        else:
            def run():
                levels = [list(leaves)]
                while len(levels[-1]) > 1:
                    lv = levels[-1]
                    up = [lv[i] + lv[i + 1] for i in range(0, len(lv) - 1, 2)]
                    if len(lv) % 2:
                        up.append(lv[-1])
                    levels.append(up)
                levels[-1][0].sum()
                grads = [np.ones_like(levels[-1][0])]
                for lv in reversed(levels[:-1]):  # each child takes its parent's gradient
                    grads = [grads[j >> 1] for j in range(len(lv))]
                return grads
        return Step(run)

    def matmul(self, inp, p):
        A, B, G = inp["A"], inp["B"], inp["G"]

        def run():
            A @ B
            return [G @ B.T, A.T @ G]
        return Step(run)

    def mem_chain(self, inp, p):
        np, x, Ws = self.np, inp["x"], inp["Ws"]

        def forward():
            acts = [x]
            for W in Ws:
                acts.append(np.tanh(acts[-1] @ W))
            acts[-1].sum()
            return acts  # the saved activations are this backend's whole "graph"

        def backward(acts):
            g = np.ones_like(acts[-1])
            grads = [None] * len(Ws)
            for i in range(len(Ws) - 1, -1, -1):
                out = acts.pop()  # freed as backward goes, like a saved slot
                g = g * (1 - out * out)
                grads[i] = acts[-1].T @ g
                if i:
                    g = g @ Ws[i].T
            return grads
        return MemSteps(forward, backward)


def make_backend(name, torch_module="torch"):
    if name == "gradviz":
        return TorchStyle("gradviz", "gradviz.torch")
    if name == "torch":
        return TorchStyle("torch", torch_module)
    if name == "numpy":
        return NumpyFloor()
    raise KeyError(f"unknown backend {name!r}")
