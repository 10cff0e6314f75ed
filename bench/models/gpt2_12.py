"""transformers' GPT-2 with its 12 layers and widths (GPT-2 small, 124M parameters), random weights."""
from gpt2_2 import build as _build
from _common import main


def build():
    return _build(layers=12, width=768, heads=12, vocab=50257)


if __name__ == "__main__":
    main(build)
