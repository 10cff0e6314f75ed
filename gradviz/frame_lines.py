"""The line a frame is at, in time independent of the length of its code.

CPython 3.11 computes ``frame.f_lineno`` by scanning the code object's line table from the
start, so for a long straight-line script (a module of 80,000 lines is one code object)
every op that asks for its creation site costs time proportional to the script, and the
whole run turns quadratic. Here a large code object's table is read once into sorted
instruction offsets, and each lookup is a binary search. Plain Python: the engine and the
script runner both use it.
"""
from bisect import bisect_right

# Below this many bytes of line table, f_lineno's own scan is cheaper than anything here.
_SMALL_TABLE = 1024
_TABLES = {}  # id(code) -> (code, instruction offsets, their lines); the code is kept so its id stays its own
_MAX_TABLES = 64


def line_of(frame):
    """``frame.f_lineno``, found without rescanning a large code object."""
    code = frame.f_code
    if len(code.co_linetable) < _SMALL_TABLE:
        return frame.f_lineno
    entry = _TABLES.get(id(code))
    if entry is None or entry[0] is not code:
        if len(_TABLES) >= _MAX_TABLES:
            _TABLES.clear()
        starts, lines = [], []
        for start, _end, line in code.co_lines():
            starts.append(start)
            lines.append(line)
        entry = _TABLES[id(code)] = (code, starts, lines)
    _, starts, lines = entry
    i = bisect_right(starts, frame.f_lasti) - 1
    line = lines[i] if i >= 0 else None
    return line if line is not None else frame.f_lineno
