"""Names for unnamed forward values: an expression built from op names, ``w1*a``.

Expressions are built in execution order from the inputs' names, so no recursion is
needed; each is capped at MAX_LEN characters (``tanh(…)``), so a 100,000-op chain does
not build a 100,000-level string.
"""

MAX_LEN = 40

# precedence: lower binds tighter. ATOM: names, numbers, calls, parenthesised.
ATOM, POWER, UNARY, PRODUCT, SUM = 0, 1, 2, 3, 4

_BINARY = {  # op -> (symbol, precedence, associative)
    "add": (" + ", SUM, True),
    "sub": (" - ", SUM, False),
    "mul": ("*", PRODUCT, True),
    "div": ("/", PRODUCT, False),
    "true_divide": ("/", PRODUCT, False),
    "mm": ("@", PRODUCT, False),
    "matmul": ("@", PRODUCT, False),
    "bmm": ("@", PRODUCT, False),
    "mv": ("@", PRODUCT, False),
    "dot": ("@", PRODUCT, False),
}


def atom(text):
    return (text, ATOM)


def build(op_name, operands, params=None, output_nr=None):
    """(text, precedence) of ``op_name`` applied to operands [(text, precedence)]."""
    base = op_name[:-1] if op_name.endswith("_") and not op_name.endswith("__") else op_name
    if base == "rsub" and len(operands) == 2:  # other - self
        base, operands = "sub", [operands[1], operands[0]]
    text, prec = _build(base, operands, params or {})
    if len(text) > MAX_LEN:
        short = [(t if len(t) <= MAX_LEN // 3 else "…", p if len(t) <= MAX_LEN // 3 else ATOM)
                 for t, p in operands]
        text, prec = _build(base, short, params or {})
        if len(text) > MAX_LEN:
            text, prec = base + "(…)", ATOM
    if output_nr is not None:
        text, prec = _wrap(text, prec, ATOM) + f"[{output_nr}]", ATOM
    return text, prec


def _build(op, operands, params):
    if op in _BINARY and len(operands) == 2:
        symbol, prec, assoc = _BINARY[op]
        alpha = params.get("alpha", 1)
        left, right = operands
        if alpha not in (1, None) and op in ("add", "sub"):
            right = (f"{alpha}*{_wrap(*right, PRODUCT)}", PRODUCT)
        return _wrap(*left, prec) + symbol + _wrap(*right, prec if assoc else prec - 1), prec
    if op == "neg" and len(operands) == 1:
        return "-" + _wrap(*operands[0], UNARY), UNARY
    if op == "pow" and len(operands) == 1 and "exponent" in params:
        return _wrap(*operands[0], ATOM) + "**" + _number(params["exponent"]), POWER
    if op == "pow" and len(operands) == 2:
        return _wrap(*operands[0], ATOM) + "**" + _wrap(*operands[1], ATOM), POWER
    return op + "(" + ", ".join(t for t, _ in operands) + ")", ATOM


def _wrap(text, prec, limit):
    """Parenthesise ``text`` when it binds looser than its context allows."""
    return f"({text})" if prec > limit else text


def _number(x):
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return repr(x)
    return "?"
