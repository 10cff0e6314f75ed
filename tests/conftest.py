"""The ``torch_2_13`` marker: tests whose expected results are PyTorch 2.13's.

gradviz's own engine copies PyTorch 2.13 to the letter (values to the bit, random streams,
node names, warnings, printed forms), and ``--engine torch`` must work on every release
from 2.0 on (``.ci/other-torch VERSION`` runs its tests there). So the tests split in two:

- engine oracles: gradviz's engine against the installed PyTorch, or against what 2.13 did
  (``conformance/expected``). On another release their expectations do not hold, and they
  are skipped, with the reason. Every ``tests/test_*_oracle.py`` is one, as is any test
  marked ``@pytest.mark.torch_2_13`` (say, one that runs a script on both engines and
  compares the graphs).
- everything else, the adapter's tests included, runs on every release.

The installed version is read from the package's metadata, so collecting imports no torch.
Without PyTorch nothing is skipped here: those tests skip themselves (importorskip).
"""
import importlib.metadata

import pytest

ORACLE_RELEASE = "2.13"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", f"torch_2_13: compares gradviz's engine with PyTorch {ORACLE_RELEASE}'s results: "
                   "skipped when another PyTorch release is installed")


def installed_torch():
    """The installed torch's version ('2.13.0+cpu'), or None."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def is_oracle_release(version) -> bool:
    return version.split("+")[0].split(".")[:2] == ORACLE_RELEASE.split(".")


def pytest_collection_modifyitems(config, items):
    version = installed_torch()
    if version is None or is_oracle_release(version):
        return
    skip = pytest.mark.skip(reason=f"compares gradviz's engine with PyTorch {ORACLE_RELEASE}; "
                                   f"PyTorch {version} is installed")
    for item in items:
        if item.path.name.endswith("_oracle.py") or item.get_closest_marker("torch_2_13") is not None:
            item.add_marker(skip)
