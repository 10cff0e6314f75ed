"""Pictures at every size: the time and size of the default picture of an RNN unrolled
5 to 60 steps and an MLP of 2 to 12 layers, end to end (snapshot to PNG), plus the
estimate gradviz made before the layout. Run from the project root:

    python3 bench/pictures.py            # the table
    python3 bench/pictures.py --json     # the same as JSON

The tests (tests/test_render_readable.py) check that every one of these pictures is
within the pixel budget with text of at least 10 px; this file times them, which unit
tests do not.
"""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from test_render_readable import MLP, RNN, snap_of  # noqa: E402
import _module_graphs  # noqa: E402

from gradviz.render import dot  # noqa: E402

CASES = [("rnn", RNN, T) for T in (5, 10, 15, 20, 25, 30, 60)] + [("mlp", MLP, T) for T in (2, 4, 6, 8, 10, 12)]
# Snapshots grouped by module (tests/_module_graphs.py): a GPT-like model, an LSTM-like
# loop and a Sequential of (Linear, LayerNorm, GELU), as tests use them and at 100,000 nodes.
MODULE_CASES = [("gpt", _module_graphs.gpt, T) for T in (12, 2300)] + \
    [("lstm", _module_graphs.lstm, T) for T in (40, 6000)] + [("seq", _module_graphs.mlp, T) for T in (50, 12500)]


def main(argv):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, src, T in CASES + MODULE_CASES:
            snap = src(T) if callable(src) else snap_of(src, T)
            t0 = time.perf_counter()
            g = dot.Graph(snap)
            built = time.perf_counter() - t0
            r = g.save(os.path.join(tmp, f"{kind}{T}.png"))
            total = time.perf_counter() - t0
            rows.append({"graph": f"{kind} {T}", "nodes": len(snap.nodes), "boxes": g.estimate.boxes,
                         "estimate": [g.estimate.width, g.estimate.height], "png": [r.width, r.height],
                         "megapixels": round(r.width * r.height / 1e6, 1), "build_s": round(built, 3),
                         "total_s": round(total, 2),
                         "folded": any("loop of" in n or "grouped by module" in n for n in g.notes)})
    if "--json" in argv:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'graph':10} {'nodes':>6} {'boxes':>5} {'estimate px':>13} {'PNG px':>13} {'MP':>5} {'DOT s':>6} "
          f"{'total s':>7}  folded")
    for r in rows:
        print(f"{r['graph']:10} {r['nodes']:6} {r['boxes']:5} {r['estimate'][0]:6}x{r['estimate'][1]:<6} "
              f"{r['png'][0]:6}x{r['png'][1]:<6} {r['megapixels']:5} {r['build_s']:6} {r['total_s']:7}  "
              f"{'yes' if r['folded'] else 'no'}")


if __name__ == "__main__":
    main(sys.argv[1:])
