"""Run scripts under *real* PyTorch (run as a subprocess: ``python _explain_oracle.py FILE...``) and
print, as one JSON object, each script's first exception and the warnings it raised.

Used by tests/test_explain_samples.py to compare gradviz's messages with PyTorch's own for the
very same code.
"""
import json
import sys
import traceback
import warnings


def run(path):
    ns = {"__name__": "__main__", "__file__": path}
    result = {"exc_type": None, "message": None, "warnings": [], "traceback": None}
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, ns)
        except Exception as e:  # noqa: BLE001
            result["exc_type"] = type(e).__name__
            result["message"] = str(e)
            result["traceback"] = traceback.format_exc()
    result["warnings"] = [{"category": w.category.__name__, "message": str(w.message), "line": w.lineno,
                           "file": w.filename} for w in caught]
    return result


if __name__ == "__main__":
    import io
    import contextlib
    import torch  # noqa: F401 - real PyTorch
    out = {}
    for p in sys.argv[1:]:
        with contextlib.redirect_stdout(io.StringIO()):
            out[p] = run(p)
    print(json.dumps(out))
