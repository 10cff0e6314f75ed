"""gradviz's own benchmark suite: ``python3 bench/run.py --help`` (see bench/README.md)."""
