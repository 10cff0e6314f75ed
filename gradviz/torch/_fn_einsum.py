"""torch.einsum and torch.baddbmm.

einsum is a composite in PyTorch: it takes diagonals for repeated labels, aligns every
operand to one shared order of dimensions (unsqueeze + permute), sums dimensions that
only one operand has, and contracts the operands left to right, each pair through one
batched matrix product (permute, reshape, bmm, view, permute). The same steps here give
the graph PyTorch records (PermuteBackward0, BmmBackward0, ViewBackward0, SumBackward1...).
"""
from . import _errors, _ops_nn
from ._tensor import Tensor
from .autograd.graph import apply as _apply

# Read by _functions.build(): every function this family gives the engine (F.<name>), those of
# them that are public (torch.<name>) and those that are Tensor methods (x.<name>(...)).
EXPORTS = (
    "baddbmm", "einsum",
)
TORCH = (
    "baddbmm", "einsum",
)
METHODS = (
)


_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS  # the label id of "..."


def _label_id(char):
    return ord(char) - ord("A") if char.isupper() else ord(char) - ord("a") + _LETTERS


def _label_char(label):
    return chr(ord("A") + label) if label < _LETTERS else chr(ord("a") + label - _LETTERS)


def _is_label(char):
    return char.isascii() and char.isalpha()


def _parse_inputs(lhs, count):
    """Per operand, its list of label ids (with _ELLIPSIS where '...' stands)."""
    labels = [[] for _ in range(count)]
    operand = 0
    seen_ellipsis = False
    i = 0
    while i < len(lhs):
        char = lhs[i]
        if char == " ":
            pass
        elif char == ".":
            if seen_ellipsis:
                raise RuntimeError(f"einsum(): found '.' for operand {operand} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {operand} that is not part of any ellipsis")
            i += 2
            labels[operand].append(_ELLIPSIS)
            seen_ellipsis = True
        elif char == ",":
            operand += 1
            if operand >= count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            seen_ellipsis = False
        elif _is_label(char):
            labels[operand].append(_label_id(char))
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
        i += 1
    if operand != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _parse_output(rhs, offset, counts, ellipsis_dims, position):
    """Assign output positions from an explicit '->' part: (next position, ellipsis start, has ellipsis)."""
    ellipsis_start, has_ellipsis = 0, False
    next_position = 0
    i = 0
    while i < len(rhs):
        char = rhs[i]
        if char == " ":
            pass
        elif char == ".":
            if has_ellipsis:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
            i += 2
            ellipsis_start = next_position
            next_position += ellipsis_dims
            has_ellipsis = True
        elif _is_label(char):
            label = _label_id(char)
            if counts[label] == 0 or position[label] != -1:
                problem = "appears more than once in the output" if position[label] != -1 else \
                    "does not appear in the equation for any input operand"
                raise RuntimeError(f"einsum(): output subscript {char} {problem}")
            position[label] = next_position
            next_position += 1
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
        i += 1
    return next_position, ellipsis_start, has_ellipsis


def _check_dims(operands, labels):
    """Label counts over all operands and the most dimensions any ellipsis covers."""
    counts = [0] * _ELLIPSIS
    ellipsis_dims = 0
    for i, (operand, own) in enumerate(zip(operands, labels)):
        named = sum(1 for label in own if label != _ELLIPSIS)
        has_ellipsis = _ELLIPSIS in own
        for label in own:
            if label != _ELLIPSIS:
                counts[label] += 1
        if has_ellipsis:
            ellipsis_dims = max(ellipsis_dims, operand.dim() - named)
            if named > operand.dim():
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) is more than the "
                                   f"number of dimensions ({operand.dim()}) for operand {i}")
        elif named != operand.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) does not match the "
                               f"number of dimensions ({operand.dim()}) for operand {i} and no ellipsis was given")
    return counts, ellipsis_dims


def _last_to(position, ndim):
    order = list(range(ndim - 1))
    order.insert(position, ndim - 1)
    return order


def _align(operands, labels, position, ellipsis_start, ellipsis_dims, width):
    """Each operand with its diagonals taken, missing dims unsqueezed and permuted into the
    shared order; and per aligned dim, how many operands have it with a size other than 1."""
    label_size = [1] * _ELLIPSIS
    ellipsis_size = [1] * ellipsis_dims
    dim_counts = [0] * width
    aligned = []
    for i, (operand, own) in enumerate(zip(operands, labels)):
        op = operand
        perm = [-1] * width
        dim = 0
        for label in own:
            if label == _ELLIPSIS:
                covered = operand.dim() - (len(own) - 1)
                for j in range(ellipsis_dims - covered, ellipsis_dims):
                    size = op.shape[dim]
                    if size != 1:
                        if ellipsis_size[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} which "
                                f"does not broadcast with previously seen ellipsis with size {ellipsis_size[j]} for "
                                "the respective dimension")
                        ellipsis_size[j] = size
                        dim_counts[ellipsis_start + j] += 1
                    perm[ellipsis_start + j] = dim
                    dim += 1
            elif perm[position[label]] == -1:
                size = op.shape[dim]
                if size != 1:
                    if label_size[label] not in (1, size):
                        raise RuntimeError(f"einsum(): subscript {_label_char(label)} has size {size} for operand {i} "
                                           f"which does not broadcast with previously seen size {label_size[label]}")
                    label_size[label] = size
                    dim_counts[position[label]] += 1
                perm[position[label]] = dim
                dim += 1
            else:
                earlier = perm[position[label]]
                if op.shape[dim] != op.shape[earlier]:
                    raise RuntimeError(f"einsum(): subscript {_label_char(label)} is repeated for operand {i} but the "
                                       f"sizes don't match, {op.shape[dim]} != {op.shape[earlier]}")
                op = op.diagonal(0, earlier, dim)
                op = op.permute(_last_to(earlier, op.dim()))  # movedim(-1, earlier)
        for k in range(width):
            if perm[k] == -1:
                op = op.unsqueeze(dim)
                perm[k] = dim
                dim += 1
        aligned.append(op.permute(perm))
    return aligned, dim_counts


def _sum_product(left, right, sum_dims):
    """(left * right).sum(sum_dims, keepdim=True) through one bmm, as ATen's sumproduct_pair."""
    if not sum_dims:
        return left * right
    ndim = left.dim()
    summed = set(sum_dims)
    both, left_only, right_only = [], [], []
    both_size = left_size = right_size = sum_size = 1
    for d in range(ndim):
        in_left, in_right = left.shape[d] != 1, right.shape[d] != 1
        if d in summed:
            if in_left and in_right:
                if left.shape[d] != right.shape[d]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[d]
            elif in_left:
                left = left.sum(d, True)
            elif in_right:
                right = right.sum(d, True)
        elif in_left and in_right:
            if left.shape[d] != right.shape[d]:
                raise RuntimeError("non-broadcast dimensions must match")
            both.append(d)
            both_size *= left.shape[d]
        elif in_left:
            left_only.append(d)
            left_size *= left.shape[d]
        else:
            right_only.append(d)
            right_size *= right.shape[d]
    out_size = ([left.shape[d] for d in both] + [left.shape[d] for d in left_only] + [1] * len(sum_dims)
                + [right.shape[d] for d in right_only])
    left_perm = both + left_only + list(sum_dims) + right_only
    right_perm = both + list(sum_dims) + right_only + left_only
    out_perm = [0] * len(out_size)
    for i, d in enumerate(both + left_only + list(sum_dims) + right_only):
        out_perm[d] = i
    left = left.permute(left_perm).reshape(both_size, left_size, sum_size)
    right = right.permute(right_perm).reshape(both_size, sum_size, right_size)
    return left.bmm(right).view(out_size).permute(out_perm)


def _contract(aligned, dim_counts, out_dims, width):
    """Left to right, pairwise; each dim is summed as soon as no later operand has it."""
    ops = list(aligned)
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_only, b_only = [], [], []
        for dim in range(out_dims, width):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_only.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_only.append(dim)
                    dim_counts[dim] = 0
        if a_only:
            a = a.sum(a_only, True)
        if b_only:
            b = b.sum(b_only, True)
        ops.insert(0, _sum_product(a, b, sum_dims))
    result = ops[0]
    if width > out_dims:
        if len(aligned) > 1:
            return result.view(list(result.shape[:out_dims]))
        return result.sum(list(range(out_dims, width)))
    return result


def _einsum(equation, operands):
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    labels = _parse_inputs(lhs, len(operands))
    counts, ellipsis_dims = _check_dims(operands, labels)
    position = [-1] * _ELLIPSIS
    if arrow < 0:
        # The implicit output: the ellipsis first, then the labels seen once, in alphabetical order.
        next_position, ellipsis_start, has_ellipsis = ellipsis_dims, 0, True
        for label in range(_ELLIPSIS):
            if counts[label] == 1:
                position[label] = next_position
                next_position += 1
    else:
        next_position, ellipsis_start, has_ellipsis = _parse_output(equation[arrow + 2:], len(lhs) + 2, counts,
                                                                    ellipsis_dims, position)
    out_dims = next_position
    if not has_ellipsis:
        ellipsis_start = next_position
        next_position += ellipsis_dims
    for label in range(_ELLIPSIS):
        if counts[label] and position[label] == -1:
            position[label] = next_position
            next_position += 1
    aligned, dim_counts = _align(operands, labels, position, ellipsis_start, ellipsis_dims, next_position)
    return _contract(aligned, dim_counts, out_dims, next_position)


def _sublist_label(value):
    if value is Ellipsis:
        return "..."
    if 0 <= value < _LETTERS:
        return chr(ord("A") + value)
    if _LETTERS <= value < 2 * _LETTERS:
        return chr(ord("a") + value - _LETTERS)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args):
    """einsum(equation, *operands), einsum(equation, [operands]) or the sublist form
    einsum(op1, [0, 1], op2, [1, 2], [0, 2])."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_sublist_label(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_label(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _einsum(equation, list(operands))


def _check_expands(shape, target):
    """``input`` must broadcast to the product's shape, with expand's error otherwise."""
    lead = len(target) - len(shape)
    for dim, (size, wanted) in enumerate(zip(shape, target[lead:])):
        if size not in (1, wanted):
            raise _errors.expand_size(wanted, size, dim + lead, target, shape)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = batch1.shape
    if tuple(batch2.shape[:2]) != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{batch2.shape[0]}, {batch2.shape[1]}].")
    _check_expands(tuple(input.shape), (b, n, batch2.shape[2]))
    return _apply(_ops_nn.baddbmm, (input, batch1, batch2), {"beta": beta, "alpha": alpha})
