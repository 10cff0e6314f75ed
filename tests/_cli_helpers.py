"""Shared helpers of the CLI tests: a CliRunner with a fixed width and no colour, script
files, DOT parsing, picture checks."""
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradviz import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SEED = str(SAMPLES / "seed_graph.py")
ENV = {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}


def process_env(buffering="buffered"):
    """The environment of a gradviz subprocess: this one's, plus ENV, with Python's stdout
    buffered as on a user's machine ("buffered": no PYTHONUNBUFFERED) or not ("unbuffered")."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if buffering == "unbuffered":
        env["PYTHONUNBUFFERED"] = "1"
    return {**env, **ENV}


def doc(page):
    """The text of a documentation page: ``README`` or ``docs/PAGE.md``."""
    path = ROOT / "README.md" if page == "README" else ROOT / "docs" / f"{page}.md"
    return path.read_text(encoding="utf-8")


def all_docs():
    """The README and every page of docs/, as one text (for "is it documented somewhere")."""
    return "\n".join([doc("README"), *(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))])
ANSI = re.compile(r"\x1b\[")


def runner():
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(env=ENV, mix_stderr=False)
    except TypeError:
        return CliRunner(env=ENV)


def invoke(*args, input=None):
    return runner().invoke(cli.cli, [str(a) for a in args], input=input, catch_exceptions=False)


def write(tmp_path, text, name="script.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(p)


def gradviz(*args, cwd=None, timeout=120, env=None, input=None):
    """``python -m gradviz ARGS`` in a real process."""
    import os

    full_env = {**os.environ, **ENV, **(env or {})}
    return subprocess.run([sys.executable, "-m", "gradviz", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout, env=full_env, input=input)


# --------------------------------------------------------------------------- DOT


NODE = re.compile(r'^\s*(\w+) \[label=(?:"((?:[^"\\]|\\.)*)"|([^\s\]]+))(.*)\]$', re.M)


def dot_nodes(source):
    """{node id: (label text with real newlines, rest of the attributes)}."""
    out = {}
    for m in NODE.finditer(source):
        label = m.group(2) if m.group(2) is not None else m.group(3)
        out[m.group(1)] = (label.replace("\\n", "\n").replace("\\l", "\n"), m.group(4))
    return out


def backward_labels(source):
    """First label lines of the backward graph's nodes (b_n<k>), in id order."""
    nodes = dot_nodes(source)
    ids = sorted((k for k in nodes if re.fullmatch(r"b_n\d+", k)), key=lambda k: int(k[3:]))
    return [nodes[k][0].split("\n")[0] for k in ids]


def saved_nodes(source):
    """Labels of the saved-tensor boxes (b_n<k>_s<j>)."""
    return [label for k, (label, _) in dot_nodes(source).items() if re.fullmatch(r"b_n\d+_s\d+", k)]


def leaf_names(source):
    """Names on the leaf boxes the AccumulateGrad nodes point from."""
    return sorted(label.split("\n")[0] for k, (label, _) in dot_nodes(source).items()
                  if re.fullmatch(r"b_n\d+_leaf", k))


# --------------------------------------------------------------------------- pictures


def png_size(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def check_png(path, min_side=50, max_side=32_000):
    w, h = png_size(path)
    assert min_side <= w <= max_side and min_side <= h <= max_side, (w, h)
    return w, h


def check_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg"), root.tag
    texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    return root, texts
