#!/usr/bin/env python3
"""gradviz's default picture of real models beside torchviz's, torchview's and TorchLens's.

usage: python3 bench/peers.py --setup             # once: the peers and a Graphviz of their own
       python3 bench/peers.py [--models gpt2_2,unet] [--tools gradviz,torchviz] [--timeout S]
                              [--markdown PATH] [--json PATH]

Each model is a script in bench/models/ built from its config with random weights. For each
model and tool, one fresh process draws the tool's default picture as a PNG; measured are
the wall time of that process (start-up and model building included, as a user waits for
it), the picture's size in pixels, and whether a picture came out at all. The plain run of
the same script (``python model.py``: forward, loss, backward) is the baseline of gradviz's
time ratio.

The defaults, as a user meets them:
- gradviz: ``gradviz run MODEL.py --engine torch --graph out.png`` (the 50-block MLP on
  gradviz's own engine, its default), the backward graph grouped by module;
- torchviz: ``make_dot(loss, params=dict(model.named_parameters()))``, the backward graph;
- torchview: ``draw_graph(model, input_data=inputs)``, the forward graph of modules;
- TorchLens: ``trace(model, inputs).draw()``, the forward graph of every op.

The peers need Graphviz's ``dot`` program; ``--setup`` unpacks Debian's packages into
bench/.peers/graphviz (``apt-get download`` + ``dpkg -x``) and installs the peers into
bench/.peers/site with pip. Neither is a dependency of gradviz: only this benchmark's
peer processes see them.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS_DIR = os.path.join(ROOT, "bench", "models")
PEERS_DIR = os.path.join(ROOT, "bench", ".peers")
GRAPHVIZ_DEBS = ("graphviz", "libgvc6", "libcgraph6", "libcdt5", "libpathplan4", "libxdot4", "libgvpr2",
                 "liblab-gamut1", "libltdl7", "libgts-0.7-5", "libann0", "libgd3")
PEER_PACKAGES = ("torchviz", "torchview", "torchlens")
MODELS = ("gpt2_2", "gpt2_12", "bert", "unet", "resnet", "vit", "lstm_lm", "lstmcell_lm", "mlp50")
OWN_ENGINE = {"mlp50"}  # drawn by gradviz on its own engine (its default); the peers need real torch
TOOLS = ("gradviz", "torchviz", "torchview", "torchlens")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- setup
def setup():
    """The peers into bench/.peers/site, Graphviz into bench/.peers/graphviz."""
    site, graphviz = os.path.join(PEERS_DIR, "site"), os.path.join(PEERS_DIR, "graphviz")
    os.makedirs(site, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", site, *PEER_PACKAGES],
                   check=True)
    with tempfile.TemporaryDirectory() as debs:
        subprocess.run(["apt-get", "download", *GRAPHVIZ_DEBS], cwd=debs, check=True)
        for deb in sorted(glob.glob(os.path.join(debs, "*.deb"))):
            subprocess.run(["dpkg", "-x", deb, graphviz], check=True)
    # dot finds its plugins through a config file it writes next to them
    subprocess.run([os.path.join(graphviz, "usr", "bin", "dot"), "-c"], env=peer_env(), check=True)
    log(f"peers installed in {PEERS_DIR}")


def peer_env():
    """The environment of a peer's process: their packages and Graphviz first."""
    env = dict(os.environ)
    graphviz = os.path.join(PEERS_DIR, "graphviz", "usr")
    libs = os.path.join(graphviz, "lib", "x86_64-linux-gnu")
    env["PATH"] = os.path.join(graphviz, "bin") + os.pathsep + env.get("PATH", "")
    env["LD_LIBRARY_PATH"] = os.pathsep.join([libs, os.path.join(libs, "graphviz"), env.get("LD_LIBRARY_PATH", "")])
    env["PYTHONPATH"] = os.path.join(PEERS_DIR, "site")
    return env


# ----------------------------------------------------------------------------- one picture
def draw_with_peer(tool, model_name, out):
    """In the worker process: the peer's default picture of the model, as ``out`` (PNG)."""
    import importlib
    sys.path.insert(0, MODELS_DIR)  # the model scripts import each other as scripts do
    model = importlib.import_module(model_name).build()
    stem = out[:-len(".png")]
    if tool == "torchviz":
        from torchviz import make_dot
        loss = model.loss(model.module(*model.inputs))
        make_dot(loss, params=dict(model.module.named_parameters())).render(stem, format="png", cleanup=True)
    elif tool == "torchview":
        from torchview import draw_graph
        draw_graph(model.module, input_data=list(model.inputs)).visual_graph.render(stem, format="png", cleanup=True)
    elif tool == "torchlens":
        import torchlens
        torchlens.trace(model.module, list(model.inputs)).draw(vis_outpath=stem, vis_fileformat="png")
    else:
        raise SystemExit(f"unknown peer {tool}")


def command(tool, model_name, out):
    script = os.path.join(MODELS_DIR, f"{model_name}.py")
    if tool == "plain":
        return [sys.executable, script], None
    if tool == "gradviz":
        engine = [] if model_name in OWN_ENGINE else ["--engine", "torch"]
        return [sys.executable, "-m", "gradviz", "run", script, *engine, "--graph", out], None
    return [sys.executable, os.path.abspath(__file__), "--worker", tool, model_name, out], peer_env()


def measure(tool, model_name, workdir, timeout):
    out = os.path.join(workdir, f"{model_name}-{tool}.png")
    argv, env = command(tool, model_name, out)
    started = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        seconds, failure = time.perf_counter() - started, None
        if done.returncode != 0:
            lines = [ln for ln in (done.stderr or done.stdout).strip().splitlines() if ln.strip()]
            failure = lines[-1][:200] if lines else f"exit {done.returncode}"
    except subprocess.TimeoutExpired:
        seconds, failure = timeout, f"no picture within {timeout:.0f} s"
    row = {"model": model_name, "tool": tool, "seconds": round(seconds, 2), "failure": failure}
    if tool != "plain":
        row.update(picture_size(out))
    return row


def picture_size(path):
    if not os.path.exists(path):
        return {"drawn": False, "width": None, "height": None}
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None
    with Image.open(path) as im:
        return {"drawn": True, "width": im.width, "height": im.height}


# ----------------------------------------------------------------------------- the table
def markdown(rows):
    by = {(r["model"], r["tool"]): r for r in rows}
    models = sorted({r["model"] for r in rows}, key=lambda m: MODELS.index(m) if m in MODELS else 99)
    tools = [t for t in TOOLS if any(r["tool"] == t for r in rows)]
    lines = ["| model | plain run | " + " | ".join(tools) + " |", "|---" * (len(tools) + 2) + "|"]
    for m in models:
        plain = by.get((m, "plain"))
        cells = [m, f"{plain['seconds']} s" if plain else "-"]
        for t in tools:
            r = by.get((m, t))
            if r is None:
                cells.append("-")
            elif not r["drawn"]:
                cells.append(f"no picture ({r['failure'] or 'no file'})")
            else:
                ratio = f", {r['seconds'] / plain['seconds']:.1f}x plain" if plain and t == "gradviz" else ""
                mp = r["width"] * r["height"] / 1e6
                cells.append(f"{r['seconds']} s{ratio}; {r['width']}x{r['height']} px ({mp:.1f} Mpx)")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _outcome(row):
    if row["tool"] == "plain":
        return row["failure"] or ""
    return f"{row['width']}x{row['height']} px" if row["drawn"] else f"no picture: {row['failure']}"


def main(argv):
    if argv[:1] == ["--worker"]:
        draw_with_peer(*argv[1:4])
        return
    ap = argparse.ArgumentParser(prog="bench/peers.py", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup", action="store_true", help="install the peers and a Graphviz for them, then exit")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated, from: " + ", ".join(MODELS))
    ap.add_argument("--tools", default=",".join(TOOLS), help="comma-separated, from: " + ", ".join(TOOLS))
    ap.add_argument("--timeout", type=float, default=600, help="per picture, in seconds (default 600)")
    ap.add_argument("--keep", metavar="DIR", help="keep the pictures in DIR")
    ap.add_argument("--markdown", metavar="PATH", help="also write the table as markdown")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if args.setup:
        return setup()
    tools = [t for t in args.tools.split(",") if t]
    needs_peers = [t for t in tools if t != "gradviz"]
    if needs_peers and not os.path.isdir(os.path.join(PEERS_DIR, "site")):
        raise SystemExit("the peers are not installed: run python3 bench/peers.py --setup first")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.keep or tmp
        os.makedirs(workdir, exist_ok=True)
        for model_name in [m for m in args.models.split(",") if m]:
            for tool in ["plain", *tools]:
                row = measure(tool, model_name, workdir, args.timeout)
                log(f"{model_name:8} {tool:9} {row['seconds']:7.1f} s  {_outcome(row)}")
                rows.append(row)
    table = markdown(rows)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
