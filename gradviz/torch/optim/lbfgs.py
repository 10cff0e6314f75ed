"""L-BFGS with PyTorch's step (a closure, the two-loop recursion over a bounded history, and
an optional strong-Wolfe line search), statement for statement as torch/optim/lbfgs.py
runs it on tensors. The in-place ``add_(..., alpha=...)`` go through ``_aten`` (fused as
ATen fuses them); the dot products are the engine's, which sum in a different order than
the BLAS PyTorch calls, so trajectories agree to rounding, not to the bit."""
from .. import _errors_optim
from .._namespace import F as _F
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from . import _aten
from .optimizer import Optimizer


def _add_(t, other, alpha):
    """t.add_(other, alpha=alpha), alpha a number or a 0-dim tensor (PyTorch reads its value)."""
    _aten.add_(t, other._data, float(alpha))


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with their slopes, kept within bounds."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


class _Search:
    """One strong-Wolfe line search: its points so far and the bracket it narrows."""

    def __init__(self, obj_func, x, d, f, g, gtd, c1, c2, tolerance_change, max_ls):
        self.obj_func, self.x, self.d, self.f, self.gtd = obj_func, x, d, f, gtd
        self.c1, self.c2, self.tolerance_change, self.max_ls = c1, c2, tolerance_change, max_ls
        self.d_norm = d.abs().max()
        self.g = g.clone()
        self.evals = 0

    def evaluate(self, t):
        f_new, g_new = self.obj_func(self.x, t, self.d)
        self.evals += 1
        return f_new, g_new, g_new.dot(self.d)

    def bracket_phase(self, t):
        """Steps out until a bracket holds a point meeting the conditions (or one meets them)."""
        f, gtd = self.f, self.gtd
        f_new, g_new, gtd_new = self.evaluate(t)
        t_prev, f_prev, g_prev, gtd_prev = 0, f, self.g, gtd
        ls_iter = 0
        while ls_iter < self.max_ls:
            if f_new > (f + self.c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
                return ls_iter, False, ([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            if abs(gtd_new) <= -self.c2 * gtd:
                return ls_iter, True, ([t], [f_new], [g_new], None)
            if gtd_new >= 0:
                return ls_iter, False, ([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            min_step = t + 0.01 * (t - t_prev)
            max_step = t * 10
            tmp = t
            t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
            t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.clone(), gtd_new
            f_new, g_new, gtd_new = self.evaluate(t)
            ls_iter += 1
        # out of evaluations: PyTorch brackets [0, t] and keeps the last gtd list it had (none)
        return ls_iter, False, ([0, t], [f, f_new], [self.g, g_new], None)

    def zoom_phase(self, ls_iter, done, bracket, bracket_f, bracket_g, bracket_gtd):
        """Narrows the bracket by cubic interpolation, as PyTorch's second loop does."""
        insuf_progress = False
        low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
        while not done and ls_iter < self.max_ls:
            if abs(bracket[1] - bracket[0]) * self.d_norm < self.tolerance_change:
                break
            t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1],
                                   bracket_gtd[1])
            t, insuf_progress = _away_from_ends(t, bracket, insuf_progress)
            f_new, g_new, gtd_new = self.evaluate(t)
            ls_iter += 1
            if f_new > (self.f + self.c1 * t * self.gtd) or f_new >= bracket_f[low_pos]:
                bracket[high_pos], bracket_f[high_pos] = t, f_new
                bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
                low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
            else:
                if abs(gtd_new) <= -self.c2 * self.gtd:
                    done = True
                elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                    bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                    bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
                bracket[low_pos], bracket_f[low_pos] = t, f_new
                bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new
        return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos]


def _away_from_ends(t, bracket, insuf_progress):
    """A trial too near either end moves a tenth of the bracket inside it (once progress stalls)."""
    eps = 0.1 * (max(bracket) - min(bracket))
    if min(max(bracket) - t, t - min(bracket)) < eps:
        if insuf_progress or t >= max(bracket) or t <= min(bracket):
            if abs(t - max(bracket)) < abs(t - min(bracket)):
                t = max(bracket) - eps
            else:
                t = min(bracket) + eps
            return t, False
        return t, True
    return t, False


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    search = _Search(obj_func, x, d, f, g, gtd, c1, c2, tolerance_change, max_ls)
    ls_iter, done, (bracket, bracket_f, bracket_g, bracket_gtd) = search.bracket_phase(t)
    if len(bracket) == 1:
        return bracket_f[0], bracket_g[0], bracket[0], search.evals
    f_new, g_new, t = search.zoom_phase(ls_iter, done, bracket, bracket_f, bracket_g, bracket_gtd)
    return f_new, g_new, t, search.evals


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        _errors_optim.check_non_negative(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError(_errors_optim.LBFGS_PARAM_GROUPS)
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = [p.new_zeros(p.numel()) if p.grad is None else p.grad.view(-1) for p in self._params]
        return _F.cat(views, 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            numel = p.numel()
            _add_(p, update[offset:offset + numel].view_as(p), step_size)
            offset += numel

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, pdata in zip(self._params, params_data):
            p.copy_(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        closure = enable_grad()(closure)  # every evaluation records, as in PyTorch
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss = float(orig_loss)
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= group["tolerance_grad"]:
            return orig_loss
        run = _Iterations(self, closure, group, state, loss, flat_grad)
        run.loop()
        run.save()
        return orig_loss


class _Iterations:
    """The iterations of one LBFGS.step: the history carried in the parameter's state, the
    direction from the two-loop recursion, the step length, and PyTorch's stopping tests."""

    def __init__(self, optimizer, closure, group, state, loss, flat_grad):
        self.optimizer, self.closure, self.group, self.state = optimizer, closure, group, state
        self.loss, self.flat_grad = loss, flat_grad
        self.lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        for key in ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"):
            setattr(self, key, state.get(key))
        self.current_evals = 1

    def direction(self):
        """The first iteration follows the negative gradient; later ones the two-loop recursion."""
        state, flat_grad = self.state, self.flat_grad
        if state["n_iter"] == 1:
            self.d = flat_grad.neg()
            self.old_dirs, self.old_stps, self.ro, self.H_diag = [], [], [], 1
            return
        y = flat_grad.sub(self.prev_flat_grad)
        s = self.d.mul(self.t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(self.old_dirs) == self.group["history_size"]:
                self.old_dirs.pop(0)
                self.old_stps.pop(0)
                self.ro.pop(0)
            self.old_dirs.append(y)
            self.old_stps.append(s)
            self.ro.append(1.0 / ys)
            self.H_diag = ys / y.dot(y)
        num_old = len(self.old_dirs)
        if "al" not in state:
            state["al"] = [None] * self.group["history_size"]
        al = state["al"]
        q = flat_grad.neg()
        for i in range(num_old - 1, -1, -1):
            al[i] = self.old_stps[i].dot(q) * self.ro[i]
            _add_(q, self.old_dirs[i], -al[i])
        self.d = r = q.mul(self.H_diag)
        for i in range(num_old):
            be_i = self.old_dirs[i].dot(r) * self.ro[i]
            _add_(r, self.old_stps[i], al[i] - be_i)

    def line_step(self, n_iter, max_iter):
        """Moves the parameters along d; returns the evaluations spent and the optimality test."""
        optimizer, group = self.optimizer, self.group
        line_search_fn = group["line_search_fn"]
        gtd = self.gtd
        if line_search_fn is not None:
            if line_search_fn != "strong_wolfe":
                raise RuntimeError(_errors_optim.LBFGS_LINE_SEARCH)
            x_init = optimizer._clone_param()

            def obj_func(x, t, d):
                return optimizer._directional_evaluate(self.closure, x, t, d)
            self.loss, self.flat_grad, self.t, ls_func_evals = _strong_wolfe(
                obj_func, x_init, self.t, self.d, self.loss, self.flat_grad, gtd,
                max_ls=group["max_eval"] - self.current_evals)
            optimizer._add_grad(self.t, self.d)
            return ls_func_evals, self.flat_grad.abs().max() <= group["tolerance_grad"]
        optimizer._add_grad(self.t, self.d)
        if n_iter != max_iter:
            self.loss = float(self.closure())
            self.flat_grad = optimizer._gather_flat_grad()
            return 1, self.flat_grad.abs().max() <= group["tolerance_grad"]
        return 0, False

    def loop(self):
        group, state = self.group, self.state
        max_iter, tolerance_change = group["max_iter"], group["tolerance_change"]
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            self.direction()
            if self.prev_flat_grad is None:
                self.prev_flat_grad = self.flat_grad.clone()
            else:
                self.prev_flat_grad.copy_(self.flat_grad)
            self.prev_loss = self.loss
            if state["n_iter"] == 1:
                self.t = min(1.0, 1.0 / self.flat_grad.abs().sum()) * self.lr
            else:
                self.t = self.lr
            self.gtd = self.flat_grad.dot(self.d)
            if self.gtd > -tolerance_change:
                break
            ls_func_evals, opt_cond = self.line_step(n_iter, max_iter)
            self.current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or self.current_evals >= group["max_eval"] or opt_cond:
                break
            if self.d.mul(self.t).abs().max() <= tolerance_change:
                break
            if abs(self.loss - self.prev_loss) < tolerance_change:
                break

    def save(self):
        for key in ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"):
            self.state[key] = getattr(self, key)
