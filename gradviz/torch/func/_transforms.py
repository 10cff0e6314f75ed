"""torch.func's autodiff transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian.

PyTorch runs the function on wrapped tensors of a new autograd "level" and unwraps the
results, so they are differentiable at the level outside only where they depend on
something that requires grad out there. Here a level is ``_Level``: a differentiated
argument becomes a fresh leaf (or, when it requires grad itself, an alias of it, so the
outer graph still reaches it), the gradient is taken with ``create_graph=True`` as
PyTorch does, and a result keeps its graph only if it reaches a tensor requiring grad
that the level did not make (and grad mode is on outside). Forward mode (jvp, jacfwd)
is computed with reverse mode: the double-vjp trick, and vector-Jacobian products laid
out as PyTorch's pushed tangents, then shaped with the ops PyTorch ends with.
"""
import functools

from .. import _errors_func as E
from .._namespace import F
from .. import _ops
from .._tensor import Tensor
from ..autograd import forward_ad
from ..autograd.functional import graph_reaches_beyond, standard_basis_rows
from ..autograd.grad_mode import STATE, enable_grad
from ..autograd.graph import apply
from ._pytree import tree_flatten, tree_leaves, tree_map, tree_unflatten, treespec_pprint
from ._vmap import check_randomness

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"]

JVP = E.JVP  # the name PyTorch's jvp and jacfwd messages call themselves by


# The levels of the grad and jvp calls running now, outermost first: a leaf an inner one
# makes is also its enclosing levels' own (a jvp of grad, a jvp of jvp), so their results
# do not keep a graph to it.
_RUNNING = []


class _Level:
    """One transform call: the fresh leaves it made and whether grad mode was on outside."""

    def __init__(self):
        self.fresh = []  # kept alive so their ids stay theirs
        self.own = set()
        self.inside = {}  # nodes found to lead only to this level's leaves
        self.outer_grad = STATE.enabled

    def __enter__(self):
        _RUNNING.append(self)
        return self

    def __exit__(self, *exc):
        _RUNNING.remove(self)

    def adopt(self, leaf):
        for level in _RUNNING if self in _RUNNING else _RUNNING + [self]:
            level.fresh.append(leaf)
            level.own.add(id(leaf))

    def differentiable(self, value):
        if not isinstance(value, Tensor):
            raise E.transform_input_not_tensor(value)
        if value._requires_grad:
            # An alias, whose backward passes the gradient through unchanged: a view's would
            # add a reshape to every gradient that flows out of the level (nested transforms).
            return apply(_ops.alias, (value,), {})
        wrapped = value.detach().requires_grad_()
        if forward_ad.is_dual(value):  # inside jvp: the fresh leaf carries the outer tangent on
            forward_ad.carry_tangent(value, wrapped)
        self.adopt(wrapped)
        return wrapped

    def unwrap_tensor(self, t, outer_grad=None):
        outer_grad = self.outer_grad if outer_grad is None else outer_grad
        if t._requires_grad and not (outer_grad and graph_reaches_beyond(t, self.own, self.inside)):
            detached = t.detach()
            if forward_ad.is_dual(t):  # leaving this level keeps an outer jvp's tangent
                forward_ad.carry_tangent(t, detached)
            return detached
        return t

    def unwrap(self, tree, outer_grad=None):
        """Results leave the level; anything but tensors (and tuples of them) is refused, as
        PyTorch's unwrapping refuses it."""
        def one(leaf):
            if not isinstance(leaf, Tensor):
                raise E.unwrap_not_tensor(leaf)
            return self.unwrap_tensor(leaf, outer_grad)
        return tree_map(one, tree)


# ---------------------------------------------------------------------------------------
# argnums

def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise E.argnum_type(argnum)
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise E.argnum_range(argnum, num_args)


def _normalize_argnums(argnums, num_args):
    if not isinstance(argnums, (int, tuple)):
        raise E.argnums_type(argnums)
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    argnums = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if not argnums:
        raise E.argnums_empty()
    if len(set(argnums)) != len(argnums):
        raise E.argnums_unique(argnums)
    return argnums


def _slice_argnums(args, argnums, as_tuple=True):
    argnums = _normalize_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args, new, argnums):
    """``args`` with the differentiated ones (``new``: one value or a tuple per argnum) swapped in."""
    argnums = _normalize_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ---------------------------------------------------------------------------------------
# helpers

def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=False, create_graph=True):
    """autograd.grad over the outputs that require grad, zeros for what it leaves out."""
    from ..autograd import grad
    if grad_outputs is None:
        pairs = [(o, None) for o in outputs if o._requires_grad]
    else:
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o._requires_grad]
    if not pairs:
        return tuple(F.zeros_like(inp) for inp in inputs)
    grads = grad(tuple(o for o, _ in pairs), tuple(inputs), tuple(g for _, g in pairs),
                 retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    return tuple(F.zeros_like(inp) if g is None else g for g, inp in zip(grads, inputs))


def _check_tensor_outputs(flat, api):
    if (len(flat) == 1 and flat[0] is None) or len(flat) < 1:
        raise E.empty_output(api, flat)
    for o in flat:
        if not isinstance(o, Tensor):
            raise E.output_not_tensor(api, o)


def _error_if_complex(api, tree, is_input):
    for idx, leaf in enumerate(tree_leaves(tree)):
        if isinstance(leaf, Tensor) and leaf.dtype.is_complex:
            raise E.complex_not_allowed(api, idx, is_input)


def _split_aux(output, api):
    if not (isinstance(output, tuple) and len(output) == 2):
        raise E.has_aux_not_pair(api)
    return output


# ---------------------------------------------------------------------------------------
# grad and grad_and_value

def grad_and_value(func, argnums=0, has_aux=False):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    level = _Level()
    with enable_grad(), level:
        diff_args = _slice_argnums(args, argnums, as_tuple=False)
        flat_diff, spec = tree_flatten(diff_args)
        wrapped = [level.differentiable(x) for x in flat_diff]
        args = _replace_args(args, tree_unflatten(wrapped, spec), argnums)
        output = func(*args, **kwargs)
        aux = None
        if has_aux:
            output, aux = _split_aux(output, "grad_and_value(f)(*args)")
        if not isinstance(output, Tensor):
            raise E.grad_output_not_tensor(output)
        if output.dim() != 0:
            raise E.grad_output_not_scalar(output.dim())
        # PyTorch frees only the inner level's graph here; levels share one graph in this
        # engine, and an enclosing transform still needs it, so it is kept.
        grads = _autograd_grad((output,), wrapped, retain_graph=True, create_graph=True)
        gradient = level.unwrap(tree_unflatten(list(grads), spec))
        output = level.unwrap(output)
        if has_aux:
            aux = level.unwrap(aux)
    return gradient, ((output, aux) if has_aux else output)


# ---------------------------------------------------------------------------------------
# vjp

def vjp(func, *primals, has_aux=False):
    return _vjp_with_argnums(func, *primals, has_aux=has_aux)


def _vjp_with_argnums(func, *primals, argnums=None, has_aux=False, api="vjp(f, *primals)"):
    """PyTorch's vjp; jacfwd, computed with it here, passes its own ``api`` for the messages
    (PyTorch's jacfwd runs jvp) and takes outputs of any dtype."""
    level = _Level()
    with enable_grad():
        if argnums is None:
            diff_primals = primals = tree_map(level.differentiable, primals)
        else:
            diff = _slice_argnums(primals, argnums, as_tuple=False)
            diff_primals = tree_map(level.differentiable, diff)
            primals = _replace_args(primals, diff_primals, argnums)
        primals_out = func(*primals)
        aux = None
        if has_aux:
            primals_out, aux = _split_aux(primals_out, api)
            aux = level.unwrap(aux)
        flat_out, out_spec = tree_flatten(primals_out)
        _check_tensor_outputs(flat_out, api)
        flat_diff, primals_spec = tree_flatten(diff_primals)
        results = level.unwrap(primals_out)
        for out in flat_out if api != JVP else ():
            if not (out.is_floating_point() or out.is_complex()):
                raise E.vjp_output_dtype(out.dtype)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None, *, _only_output=None):
        # _only_output (jacfwd's): pull back through that flat output alone, as forward mode
        # pushes each output's tangents apart from the others'
        if create_graph is None:
            create_graph = STATE.enabled
        flat_cotangents, cotangents_spec = tree_flatten(cotangents)
        if out_spec != cotangents_spec:
            raise E.cotangents_structure(treespec_pprint(cotangents_spec), treespec_pprint(out_spec))
        outs = flat_out
        if _only_output is not None:
            outs, flat_cotangents = [flat_out[_only_output]], [flat_cotangents[_only_output]]
        grads = _autograd_grad(outs, flat_diff, flat_cotangents, retain_graph=retain_graph,
                               create_graph=create_graph)
        return tree_unflatten([level.unwrap_tensor(g, STATE.enabled) for g in grads], primals_spec)

    if has_aux:
        return results, vjp_fn, aux
    return results, vjp_fn


# ---------------------------------------------------------------------------------------
# jvp

def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    return _jvp_with_argnums(func, primals, tangents, None, strict=strict, has_aux=has_aux)


def _check_tensor_list(values, argname):
    if not values:
        raise E.jvp_empty(argname)
    for v in values:
        if not isinstance(v, Tensor):
            raise E.jvp_not_tensors(argname, v)


def _jvp_with_argnums(func, primals, tangents, argnums, *, strict=False, has_aux):
    if not isinstance(primals, tuple):
        raise E.jvp_primals_not_tuple()
    diff_args = primals if argnums is None else _slice_argnums(primals, argnums)
    flat_primals, primals_spec = tree_flatten(diff_args)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise E.jvp_structure(primals_spec, tangents_spec)
    _check_tensor_list(flat_primals, "primals")
    _check_tensor_list(flat_tangents, "tangents")
    level = _Level()
    with enable_grad(), level:
        for p, t in zip(flat_primals, flat_tangents):
            if p.shape != t.shape:
                raise E.jvp_tangent_size(p.shape, t.shape)
        if forward_ad.transform_may_open_level():
            flat_out, out_spec, tangents_out, aux = _jvp_forward_mode(func, primals, argnums, flat_primals,
                                                                      flat_tangents, primals_spec, has_aux, level)
        else:
            flat_out, out_spec, tangents_out, aux = _jvp_double_vjp(func, primals, argnums, flat_primals,
                                                                    flat_tangents, primals_spec, has_aux, level)
        for i, t in enumerate(tangents_out):
            if t is None:
                if strict:
                    raise E.jvp_strict_independent()
                tangents_out[i] = F.zeros_like(flat_out[i])
        # PyTorch's primal outputs come out of the dual tensors as aliases
        primals_out = tree_unflatten([_alias_if_graph(level.unwrap_tensor(o)) for o in flat_out], out_spec)
        tangents_out = tree_unflatten([level.unwrap_tensor(t) for t in tangents_out], out_spec)
    if has_aux:
        return primals_out, tangents_out, aux
    return primals_out, tangents_out


def _jvp_forward_mode(func, primals, argnums, flat_primals, flat_tangents, primals_spec, has_aux, level):
    """jvp as PyTorch runs it: the primals made dual at a forward AD level of its own."""
    with forward_ad.dual_level_of_transform():
        duals = tree_unflatten([forward_ad.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)],
                               primals_spec)
        args = duals if argnums is None else _replace_args(primals, duals, argnums)
        result, aux = _call_jvp_function(func, args, has_aux, level)
        flat_out, out_spec = tree_flatten(result)
        _check_tensor_outputs(flat_out, JVP)
        tangents_out = [forward_ad.unpack_dual(o).tangent for o in flat_out]
    return flat_out, out_spec, tangents_out, aux


def _jvp_double_vjp(func, primals, argnums, flat_primals, flat_tangents, primals_spec, has_aux, level):
    """jvp inside another jvp (PyTorch's functorch levels nest; this engine has one forward AD
    level): J t by the double-vjp trick, while the outer level's tangents flow through it."""
    wrapped = [level.differentiable(p) for p in flat_primals]
    duals = tree_unflatten(wrapped, primals_spec)
    args = duals if argnums is None else _replace_args(primals, duals, argnums)
    result, aux = _call_jvp_function(func, args, has_aux, level)
    flat_out, out_spec = tree_flatten(result)
    _check_tensor_outputs(flat_out, JVP)
    return flat_out, out_spec, _push_forward(flat_out, wrapped, flat_tangents, level), aux


def _call_jvp_function(func, args, has_aux, level):
    result = func(*args)
    aux = None
    if has_aux:
        result, aux = _split_aux(result, JVP)
        aux = level.unwrap(aux)
    return result, aux


def _alias_if_graph(t):
    return apply(_ops.alias, (t,), {}) if t._requires_grad else t


def _push_forward(outputs, inputs, tangents, level):
    """J t per output by the double-vjp trick: the vjp is linear in its cotangents ``u``, and
    its gradient with respect to ``u`` along ``t`` is J t. None where an output does not
    depend on the inputs (PyTorch's missing tangent)."""
    from ..autograd import grad
    live = [i for i, o in enumerate(outputs) if o._requires_grad and (o.is_floating_point() or o.is_complex())]
    result = [None] * len(outputs)
    if not live:
        return result
    dummies = [F.zeros_like(outputs[i], requires_grad=True) for i in live]
    for dummy in dummies:
        level.adopt(dummy)
    vjps = grad(tuple(outputs[i] for i in live), tuple(inputs), tuple(dummies), create_graph=True,
                allow_unused=True)
    pairs = [(v, t) for v, t in zip(vjps, tangents) if v is not None and v._requires_grad]
    if not pairs:
        return result
    pushed = grad(tuple(v for v, _ in pairs), tuple(dummies), tuple(t for _, t in pairs), create_graph=True,
                  allow_unused=True)
    for i, t in zip(live, pushed):
        result[i] = t
    return result


# ---------------------------------------------------------------------------------------
# jacrev, jacfwd, hessian

def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    if not (chunk_size is None or chunk_size > 0):
        raise E.jacrev_chunk_size()

    @functools.wraps(func)
    def wrapper(*args):
        _error_if_complex("jacrev", args, is_input=True)
        output, vjp_fn, aux = _vjp_pieces(func, args, argnums, has_aux)
        flat_output, output_spec = tree_flatten(output)
        _error_if_complex("jacrev", flat_output, is_input=False)
        flat_primals, primals_spec = tree_flatten(_slice_argnums(args, argnums))
        numels = [o.numel() for o in flat_output]
        rows = _vjp_rows(vjp_fn, flat_output, output_spec, flat_primals)
        stacked = [_stack_rows(r, p) for r, p in zip(rows, flat_primals)]
        by_primal = [tuple(piece.view(out.shape + primal.shape)
                           for piece, out in zip(jac.split(numels, dim=0), flat_output))
                     for jac, primal in zip(stacked, flat_primals)]
        by_output = tuple(tree_unflatten(list(per_input), primals_spec) for per_input in zip(*by_primal))
        if isinstance(argnums, int):
            by_output = tuple(x[0] for x in by_output)
        result = tree_unflatten(list(by_output), output_spec)
        return (result, aux) if has_aux else result
    return wrapper


def _vjp_pieces(func, args, argnums, has_aux, api="vjp(f, *primals)"):
    if has_aux:
        return _vjp_with_argnums(func, *args, argnums=argnums, has_aux=True, api=api)
    output, vjp_fn = _vjp_with_argnums(func, *args, argnums=argnums, has_aux=False, api=api)
    return output, vjp_fn, None


def _vjp_rows(vjp_fn, flat_output, output_spec, flat_primals, only_output=None):
    """Per primal, vjp_fn of every standard-basis cotangent, in order (row k is for flat
    output element k): what PyTorch's vmap(vjp_fn) over the basis computes. With
    ``only_output``, the rows of that flat output alone, pulled back through it alone."""
    numels = [o.numel() if only_output in (None, i) else 0 for i, o in enumerate(flat_output)]
    rows = [[] for _ in flat_primals]
    for basis in standard_basis_rows(numels, [o.dtype for o in flat_output]):
        pieces = [b.view(o.shape) if only_output in (None, i) else F.zeros_like(o)
                  for i, (b, o) in enumerate(zip(basis, flat_output))]
        pulled = vjp_fn(tree_unflatten(pieces, output_spec), _only_output=only_output)
        for acc, g in zip(rows, tree_leaves(pulled)):
            acc.append(g)
    return rows


def _stack_rows(rows, primal):
    return F.stack(rows, dim=0) if rows else F.zeros((0,) + tuple(primal.shape), dtype=primal.dtype)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    @functools.wraps(func)
    def wrapper(*args):
        _error_if_complex("jacfwd", args, is_input=True)
        primals = args if argnums is None else _slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)
        check_randomness(randomness)
        output, vjp_fn, aux = _vjp_pieces(func, args, argnums, has_aux, api=JVP)
        _error_if_complex("jacfwd", output, is_input=False)
        flat_output, output_spec = tree_flatten(output)
        primal_numels = [p.numel() for p in flat_primals]
        by_output = []
        for i, out in enumerate(flat_output):
            # PyTorch's pushed tangents for this output, (sum of primal numels, *out.shape)
            rows = _vjp_rows(vjp_fn, flat_output, output_spec, flat_primals, only_output=i)
            columns = [_stack_rows(r, p).reshape(out.numel(), n).t().contiguous()
                       for r, p, n in zip(rows, flat_primals, primal_numels)]
            pushed = F.cat(columns, dim=0).reshape((sum(primal_numels),) + tuple(out.shape))
            # movedim(0, -1), spelled as the permute it is (the engine's movedim(0, -1) keeps the order)
            pieces = F.split(pushed.permute(*range(1, pushed.dim()), 0), primal_numels, dim=-1)
            jac_ins = [piece.squeeze(-1) if primal.dim() == 0 else piece.unflatten(-1, primal.shape)
                       for piece, primal in zip(pieces, flat_primals)]
            by_output.append(tree_unflatten(jac_ins, primals_spec))
        if isinstance(argnums, int):
            by_output = [x[0] for x in by_output]
        result = tree_unflatten(by_output, output_spec)
        if has_aux:
            # PyTorch maps the aux over the basis too and takes its first row
            count = sum(primal_numels)
            aux = tree_map(lambda a: a.expand((count,) + tuple(a.shape)).select(0, 0) if a._requires_grad else a,
                           aux)
            return result, aux
        return result
    return wrapper


def hessian(func, argnums=0):
    return jacfwd(jacrev(func, argnums), argnums)
