"""The connectionist temporal classification loss as ATen's CPU kernel computes it
(LossCTC.cpp, after Graves et al. 2006): the forward variables alpha in log space, the
negative log likelihood from the last two of them, and, for the gradient, the backward
variables beta and the per-label sums of alpha * beta.

Every log-sum-exp is ATen's: the largest term subtracted (0 when all are -inf), the
exponentials added in ATen's order, the logarithm, then the maximum added back. The
scalar code calls std::exp / std::log, so float32 uses glibc's expf / logf (``_libm``) and
float64 glibc's exp / log (Python's math module calls the same library; numpy's own
float64 exp rounds differently in a few percent of cases). The recursions run over time;
each step is vectorised over the extended label sequence (and, for alpha, the batch),
which changes no result: every state of a step reads only the previous step's states.
"""
import math

import numpy as np

from . import _libm

NEG_INF = -np.inf


def _glibc_exp(v):
    try:
        return math.exp(v)
    except OverflowError:  # C's exp overflows to inf
        return math.inf


def _glibc_log(v):
    if v > 0:
        return math.log(v)
    return -math.inf if v == 0 else math.nan


_EXP64 = np.frompyfunc(_glibc_exp, 1, 1)
_LOG64 = np.frompyfunc(_glibc_log, 1, 1)


def c_exp(x):
    """std::exp on every element: glibc's expf or exp."""
    if x.dtype == np.float32:
        return _libm.expf(x)
    return _EXP64(x).astype(np.float64) if x.size else x.copy()


def c_log(x):
    """std::log on every element: glibc's logf or log."""
    if x.dtype == np.float32:
        return _libm.logf(x)
    return _LOG64(x).astype(np.float64) if x.size else x.copy()


def _log_sum_exp(terms):
    """log(exp(a - m) + exp(b - m) [+ ...]) + m, m the largest term as ATen finds it: the
    first, replaced by each later one that is greater (NaN never is), and 0 if -inf."""
    largest = terms[0]
    for term in terms[1:]:
        largest = np.where(term > largest, term, largest)
    largest = np.where(largest == NEG_INF, largest.dtype.type(0), largest)
    with np.errstate(invalid="ignore"):
        total = c_exp(terms[0] - largest)
        for term in terms[1:]:
            total = total + c_exp(term - largest)
        return c_log(total) + largest


def extended_labels(targets, target_lengths, blank):
    """l': each sample's labels with a blank before, between and after them, padded with
    blanks to the longest; (batch, 2 * max length + 1) int64."""
    batch = len(target_lengths)
    longest = max(target_lengths, default=0)
    primes = np.full((batch, 2 * longest + 1), blank, dtype=np.int64)
    offset = 0
    for b, length in enumerate(target_lengths):
        if targets.ndim == 1:
            labels = targets[offset:offset + length]
            offset += length
        else:
            labels = targets[b, :length]
        primes[b, 1:2 * length:2] = labels
    return primes


def _shifted(states, by):
    """states[..., s - by] at s (-inf where that is outside)."""
    out = np.full(states.shape, NEG_INF, dtype=states.dtype)
    width = states.shape[-1]
    if by > 0 and width > by:
        out[..., by:] = states[..., :-by]
    elif by < 0 and width > -by:
        out[..., :by] = states[..., -by:]
    return out


def _skip_allowed(primes, step):
    """Where state s may also come from s - 2 (step 2) or go to s + 2 (step -2): the two
    labels differ (always false between blanks)."""
    allowed = np.zeros(primes.shape, dtype=bool)
    if step > 0:
        allowed[:, 2:] = primes[:, :-2] != primes[:, 2:]
    else:
        allowed[:, :-2] = primes[:, 2:] != primes[:, :-2]
    return allowed


def ctc_forward(log_probs, targets, input_lengths, target_lengths, blank):
    """(neg_log_likelihood (batch,), log_alpha (batch, time, 2 * max target length + 1))."""
    dtype = log_probs.dtype
    steps, batch, _ = log_probs.shape
    primes = extended_labels(targets, target_lengths, blank)
    width = primes.shape[1]
    by_batch = log_probs.transpose(1, 0, 2)
    emit = np.take_along_axis(by_batch, np.broadcast_to(primes[:, None, :], (batch, steps, width)), axis=2)
    in_lengths = np.asarray(input_lengths, dtype=np.int64).reshape(batch)
    states = 2 * np.asarray(target_lengths, dtype=np.int64).reshape(batch) + 1
    live_states = np.arange(width)[None, :] < states[:, None]
    skip = _skip_allowed(primes, 2)

    log_alpha = np.full((batch, steps, width), NEG_INF, dtype=dtype)
    started = in_lengths > 0
    log_alpha[started, 0, 0] = by_batch[started, 0, blank]
    first_label = started & (states > 1)
    if first_label.any():
        log_alpha[first_label, 0, 1] = emit[first_label, 0, 1]
    for t in range(1, steps):
        prev = log_alpha[:, t - 1, :]
        from_prev = _shifted(prev, 1)
        from_skip = np.where(skip, _shifted(prev, 2), dtype.type(NEG_INF))
        value = _log_sum_exp((prev, from_prev, from_skip)) + emit[:, t, :]
        write = live_states & (t < in_lengths)[:, None]
        log_alpha[:, t, :] = np.where(write, value, log_alpha[:, t, :])
    return _likelihood(log_alpha, in_lengths, states, dtype), log_alpha


def _likelihood(log_alpha, in_lengths, states, dtype):
    """-log p(l | x): the last blank's and the last label's alphas log-added (the blank's
    alone for an empty target); an empty input explains only an empty target."""
    batch = len(in_lengths)
    nll = np.empty(batch, dtype=dtype)
    for b in range(batch):
        length, last = int(in_lengths[b]), int(states[b]) - 1
        if length == 0:
            nll[b] = -dtype.type(0 if last == 0 else NEG_INF)
        elif last == 0:
            nll[b] = -log_alpha[b, length - 1, 0]
        else:
            final = log_alpha[b, length - 1, last - 1:last + 1]
            nll[b] = -_log_sum_exp((final[1:], final[:1]))[0]
    return nll


def _log_add_into(acc, term):
    """ATen's ``lcab "log+=" term``: the term itself where acc is still -inf."""
    largest = np.where(acc < term, term, acc)
    with np.errstate(invalid="ignore"):
        summed = c_log(c_exp(acc - largest) + c_exp(term - largest)) + largest
    return np.where(acc == NEG_INF, term, summed)


def _log_beta(emit_b, primes_b, length, states, dtype):
    """beta for one sample: (length, states), from the last step back to the first."""
    beta = np.full((max(length, 1), states), NEG_INF, dtype=dtype)
    beta[length - 1, states - 1] = emit_b[length - 1, states - 1]
    if states > 1:
        beta[length - 1, states - 2] = emit_b[length - 1, states - 2]
    skip = _skip_allowed(primes_b[None, :states], -2)[0]
    for t in range(length - 2, -1, -1):
        nxt = beta[t + 1]
        to_next = _shifted(nxt, -1)
        to_skip = np.where(skip, _shifted(nxt, -2), dtype.type(NEG_INF))
        beta[t] = _log_sum_exp((nxt, to_next, to_skip)) + emit_b[t]
    return beta


def ctc_backward(grad_out, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha, blank,
                 zero_infinity):
    """d loss_b / d log_probs, (time, batch, labels), each sample scaled by grad_out[b]."""
    dtype = log_probs.dtype
    steps, batch, labels = log_probs.shape
    primes = extended_labels(targets, target_lengths, blank)
    grad = np.full(log_probs.shape, NEG_INF, dtype=dtype)
    for b in range(batch):
        nll = neg_log_likelihood[b]
        if zero_infinity and nll == np.inf:
            grad[:, b, :] = 0
            continue
        length, states = int(input_lengths[b]), 2 * int(target_lengths[b]) + 1
        lp = log_probs[:, b, :]
        if length > 0:
            emit_b = np.take_along_axis(lp[:length], np.broadcast_to(primes[b, None, :states], (length, states)), 1)
            beta = _log_beta(emit_b, primes[b], length, states, dtype)
            alpha = log_alpha[b, :length, :states]
            grad[length - 1, b, blank] = alpha[length - 1, states - 1] + beta[length - 1, states - 1]
            if states > 1:
                grad[length - 1, b, primes[b, states - 2]] = alpha[length - 1, states - 2] + beta[length - 1, states - 2]
            for s in range(states - 1, -1, -1):  # each label's sum in ATen's order: s descending
                label = primes[b, s]
                grad[:length - 1, b, label] = _log_add_into(grad[:length - 1, b, label],
                                                            alpha[:length - 1, s] + beta[:length - 1, s])
        with np.errstate(invalid="ignore", over="ignore"):
            collected = grad[:length, b, :]
            grad[:length, b, :] = (c_exp(lp[:length]) - c_exp(collected + nll - lp[:length])) * grad_out[b]
        grad[length:, b, :] = 0
    return grad
