"""The default picture of real models (bench/models: transformers' GPT-2 and BERT, a
diffusers UNet, hand-written ResNet, ViT and LSTM models, a 50-block MLP), on each engine
that runs them: drawn, grouped by module with the groups labelled, repeated blocks and
calls folded, acyclic, within the picture's limits."""
import re
import subprocess
import sys
from collections import defaultdict

import pytest

from _cli_helpers import ROOT

MODELS = ROOT / "bench" / "models"
PICTURE_PIXELS, PICTURE_SIDE = 30_000_000, 16_000

# The 50-block MLP on gradviz's own engine takes under a second: it stays in the fast subset.
CASES = [  # (model, engine, a label the picture must hold)
    pytest.param("mlp50", "gradviz", "model.module.0–149 (Linear, LayerNorm, GELU) ×50", marks=()),
    pytest.param("lstmcell_lm", "gradviz", "model.module.cell (LSTMCell) calls 2–40 ×39", marks=pytest.mark.slow),
    pytest.param("lstmcell_lm", "torch", "model.module.cell (LSTMCell) calls 2–40 ×39", marks=pytest.mark.slow),
    pytest.param("resnet", "gradviz", "model.module.layer1 (Sequential)", marks=pytest.mark.slow),
    pytest.param("resnet", "torch", "model.module.layer1 (Sequential)", marks=pytest.mark.slow),
    pytest.param("vit", "gradviz", "model.module.blocks (Sequential)", marks=pytest.mark.slow),
    pytest.param("vit", "torch", "model.module.blocks (Sequential)", marks=pytest.mark.slow),
    pytest.param("gpt2_2", "torch", "model.module.transformer.h.0 (GPT2Block)", marks=pytest.mark.slow),
    pytest.param("bert", "torch", "model.module.bert.encoder (BertEncoder)", marks=pytest.mark.slow),
    pytest.param("unet", "torch", "model.module.down_blocks.0 (DownBlock2D)", marks=pytest.mark.slow),
]


def needs(model, engine):
    if engine == "torch" or model in ("gpt2_2", "bert", "unet"):
        pytest.importorskip("torch")
    if model in ("gpt2_2", "bert"):
        pytest.importorskip("transformers")
    if model == "unet":
        pytest.importorskip("diffusers")


def cycles_in(dot_source):
    """How many drawn boxes lie on a directed cycle (Kahn's algorithm, iterative)."""
    succ, indeg, nodes = defaultdict(list), defaultdict(int), set()
    for a, b in re.findall(r'^\s*("?[\w:]+"?) -> ("?[\w:]+"?)', dot_source, re.M):
        succ[a].append(b)
        indeg[b] += 1
        nodes |= {a, b}
    ready = [n for n in nodes if indeg[n] == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for m in succ[n]:
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    return len(nodes) - seen


@pytest.mark.parametrize("model, engine, label", CASES, ids=[f"{c.values[0]}-{c.values[1]}" for c in CASES])
def test_the_default_picture_of_a_real_model(tmp_path, model, engine, label):
    needs(model, engine)
    dot, png = tmp_path / "g.dot", tmp_path / "g.png"
    script = str(MODELS / f"{model}.py")
    for out in (dot, png):
        p = subprocess.run([sys.executable, "-m", "gradviz", "run", script, "--engine", engine, "--graph", str(out)],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert p.returncode == 0, p.stderr
    source = dot.read_text()
    assert label in source, (label, re.findall(r'label="([^"\\]*\(\w+\)[^"\\]*)', source)[:20])
    assert "grouped by module" in p.stdout + p.stderr
    assert cycles_in(source) == 0
    from PIL import Image
    with Image.open(png) as im:
        assert im.width * im.height <= PICTURE_PIXELS and max(im.size) <= PICTURE_SIDE
