"""Real models for the side-by-side benchmark (bench/peers.py) and for trying gradviz by hand:
each module is a plain script (``gradviz run bench/models/gpt2_12.py``) and offers
``build() -> Model`` to the benchmark. All are built from their configs with random weights:
nothing is downloaded."""
