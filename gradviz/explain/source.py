"""Reading the user's script: names, assignments, grad-mode blocks, and rewriting a line
into its fix.  Pure text/AST, no engine."""
import ast
import re

_NO_GRAD_CALLS = re.compile(r"\b(no_grad|inference_mode)\s*\(|set_grad_enabled\s*\(\s*False")


class Source:
    def __init__(self, text):
        self.text = text
        self.lines = text.splitlines()
        try:
            self.tree = ast.parse(text)
        except SyntaxError:
            self.tree = None
        self._parents = None

    def line(self, n, comments=False):
        """Line ``n`` stripped (and without its trailing comment unless ``comments``)."""
        if n and 1 <= n <= len(self.lines):
            text = self.lines[n - 1]
            return text.strip() if comments else strip_comment(text).strip()
        return ""

    def raw_line(self, n):
        """Line ``n`` with its indentation, without its trailing comment."""
        if n and 1 <= n <= len(self.lines):
            return strip_comment(self.lines[n - 1]).rstrip()
        return ""

    # -- statements -------------------------------------------------------------------
    def statements(self):
        if self.tree is None:
            return []
        return [n for n in ast.walk(self.tree) if isinstance(n, ast.stmt)]

    def statement_at(self, lineno):
        """The innermost simple statement spanning ``lineno``."""
        best = None
        for st in self.statements():
            end = getattr(st, "end_lineno", st.lineno)
            if st.lineno <= lineno <= end and not isinstance(st, (ast.For, ast.While, ast.If, ast.With,
                                                                      ast.FunctionDef, ast.ClassDef, ast.Try,
                                                                      ast.AsyncFor, ast.AsyncWith)):
                if best is None or st.lineno >= best.lineno:
                    best = st
        return best

    def assignments(self, name):
        """Line numbers where ``name`` is bound (=, +=, for, with-as, tuple targets)."""
        out = []
        if self.tree is None:
            return out
        for node in ast.walk(self.tree):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                targets = [node.target]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                targets = [node.optional_vars]
            for t in targets:
                if name in target_names(t):
                    out.append(getattr(node, "lineno", None) or getattr(node.optional_vars, "lineno", None))
        return sorted(x for x in out if x)

    def last_assignment(self, name, before):
        lines = [n for n in self.assignments(name) if n <= before]
        return lines[-1] if lines else (self.assignments(name)[-1] if self.assignments(name) else None)

    def in_no_grad(self, lineno):
        """Is ``lineno`` inside ``with torch.no_grad()/inference_mode()/set_grad_enabled(False)``
        or a function decorated with one of them?"""
        if self.tree is None or not lineno:
            return None
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.With, ast.AsyncWith)):
                head = " ".join(ast.unparse(i.context_expr) for i in node.items)
                if _NO_GRAD_CALLS.search(head) or re.search(r"\bno_grad\b|\binference_mode\b", head):
                    if node.body[0].lineno <= lineno <= getattr(node, "end_lineno", node.lineno):
                        return head
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in node.decorator_list:
                    text = ast.unparse(d)
                    if re.search(r"\bno_grad\b|\binference_mode\b", text):
                        if node.lineno <= lineno <= getattr(node, "end_lineno", node.lineno):
                            return "@" + text
        return None

    def no_grad_functions(self):
        """{function name: how} for functions whose result is computed without grad mode: decorated
        with no_grad/inference_mode, or returning from inside such a with-block."""
        out = {}
        if self.tree is None:
            return out
        for node in ast.walk(self.tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for d in node.decorator_list:
                text = ast.unparse(d)
                if re.search(r"\bno_grad\b|\binference_mode\b", text):
                    out[node.name] = "@" + text
            if node.name in out:
                continue
            for sub in ast.walk(node):
                if isinstance(sub, (ast.With, ast.AsyncWith)):
                    head = " ".join(ast.unparse(i.context_expr) for i in sub.items)
                    if re.search(r"\bno_grad\b|\binference_mode\b", head) and \
                            any(isinstance(r, ast.Return) for b in sub.body for r in ast.walk(b)):
                        out[node.name] = f"with {head}: (inside {node.name}())"
        return out

    def loop_around(self, lineno):
        """The innermost for/while loop containing ``lineno`` as (first line, last line)."""
        best = None
        if self.tree is None:
            return None
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
                end = getattr(node, "end_lineno", node.lineno)
                if node.lineno <= lineno <= end and (best is None or node.lineno >= best[0]):
                    best = (node.lineno, end)
        return best

    def find_lines(self, pattern, start=1, end=None):
        rx = re.compile(pattern)
        end = end or len(self.lines)
        return [i for i in range(max(1, start), min(end, len(self.lines)) + 1) if rx.search(self.lines[i - 1])
                and not self.lines[i - 1].lstrip().startswith("#")]


def strip_comment(line):
    """``line`` without a trailing ``# comment`` (quotes respected)."""
    if "#" not in line:
        return line
    import io
    import tokenize
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line.rstrip("\n") + "\n").readline):
            if tok.type == tokenize.COMMENT:
                return line[:tok.start[1]].rstrip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return line


def target_names(t):
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, ast.Attribute):
        return [ast.unparse(t)]
    if isinstance(t, (ast.Tuple, ast.List)):
        out = []
        for e in t.elts:
            out.extend(target_names(e))
        return out
    if isinstance(t, ast.Starred):
        return target_names(t.value)
    return []


def names_in(expr_text):
    try:
        tree = ast.parse(expr_text.strip())
    except SyntaxError:
        return []
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]


def assign_parts(code):
    """('targets', 'value names') of a one-line assignment, else (None, None)."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return None, None
    if not tree.body or not isinstance(tree.body[0], ast.Assign):
        return None, None
    st = tree.body[0]
    targets = []
    for t in st.targets:
        targets.extend(target_names(t))
    values = [n.id for n in ast.walk(st.value) if isinstance(n, ast.Name)]
    values += [ast.unparse(n) for n in ast.walk(st.value) if isinstance(n, ast.Attribute)]
    return targets, values


# --------------------------------------------------------------------------- rewriting lines

_INPLACE_METHOD = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Za-z_][\w.]*)(?P<index>\[[^\]]*\])?\."
                             r"(?P<op>[a-z]\w*?)_\((?P<args>.*)\)\s*(?P<comment>#.*)?$")
_AUG = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Za-z_][\w.]*)\s*(?P<op>\*\*|//|[-+*/@%])=\s*(?P<rhs>[^#]*?)\s*"
                  r"(?P<comment>#.*)?$")
_ITEM = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Za-z_][\w.]*)\[(?P<index>.*)\]\s*=(?!=)\s*(?P<rhs>[^#]*?)\s*"
                   r"(?P<comment>#.*)?$")

_SPECIAL = {"zero": "torch.zeros_like({n})", "fill": "torch.full_like({n}, {a})", "copy": "{a}.clone()",
            "normal": "torch.randn_like({n})", "uniform": "torch.rand_like({n})"}


def out_of_place(code):
    """The out-of-place rewrite of an in-place line, or None.

    ``y.mul_(2)`` -> ``y = y.mul(2)``; ``x += 1`` -> ``x = x + 1``;
    ``x[0] = 0.0`` -> ``x = x.clone()`` + the assignment; ``x[:, 1].fill_(0)`` likewise.
    """
    line = code.rstrip()
    m = _INPLACE_METHOD.match(line)
    if m:
        name, op, args, indent = m["name"], m["op"], m["args"], m["indent"]
        if m["index"]:
            return f"{indent}{name} = {name}.clone()\n{line.strip()}"
        if op in _SPECIAL:
            return f"{indent}{name} = " + _SPECIAL[op].format(n=name, a=args)
        return f"{indent}{name} = {name}.{op}({args})"
    m = _AUG.match(line)
    if m:
        rhs = m["rhs"]
        if re.search(r"[-+*/@%]| if ", rhs) and not re.fullmatch(r"\(.*\)", rhs):
            rhs = f"({rhs})"
        return f"{m['indent']}{m['name']} = {m['name']} {m['op']} {rhs}"
    m = _ITEM.match(line)
    if m:
        return f"{m['indent']}{m['name']} = {m['name']}.clone()\n{m['indent']}{line.strip()}"
    return None


def inplace_pattern(names):
    """A regex finding in-place changes of any of ``names`` on a line."""
    alts = "|".join(re.escape(n) for n in names if n)
    if not alts:
        return None
    return (rf"(?<![\w.])(?:{alts})(?:\[[^\]]*\])?(?:\.(?!detach|data\b)[a-z]\w*?_\(|\s*(?:\*\*|//|[-+*/@%])=|"
            rf"\s*\[[^\]]*\]\s*=(?!=))|(?<![\w.])(?:{alts})\[[^\]]*\]\s*=(?!=)|(?<![\w.])(?:{alts})\.data\b")


def add_kwarg(code, kwarg):
    """Insert ``kwarg`` into the last call of a line: ``torch.ones(3)`` -> ``torch.ones(3, requires_grad=True)``."""
    line = code.rstrip()
    comment = ""
    if "#" in line:
        line, comment = line.split("#", 1)
        line, comment = line.rstrip(), "  #" + comment
    if not line.endswith(")"):
        return None
    inner_open = line.rfind("(")
    # find the matching paren of the final ')'
    depth = 0
    for i in range(len(line) - 1, -1, -1):
        if line[i] == ")":
            depth += 1
        elif line[i] == "(":
            depth -= 1
            if depth == 0:
                inner_open = i
                break
    inside = line[inner_open + 1:-1].strip()
    sep = ", " if inside else ""
    return line[:-1] + sep + kwarg + ")" + comment


def indent_block(code, header):
    ind = re.match(r"\s*", code).group(0)
    return f"{ind}{header}\n{ind}    {code.strip()}"
