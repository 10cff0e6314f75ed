"""samples/errors: one sample per catalog entry the engine can raise.

For each sample: (a) running it in gradviz (as `gradviz run` does) raises PyTorch's exact message --
the very text real PyTorch raises for the same file, and the shape of the catalog's message;
(b) message mode identifies its id from that message; script mode picks the id from the run.
"""
import os

import pytest

from gradviz import scripting
from gradviz.explain import catalog, diagnose_script, explain_message
from gradviz.explain.runner import run_until_error

from _explain_shared import (NOT_IN_ENGINE, catalog_by_id, sample_id, sample_oracle,
                             sample_paths, torch_available)

SAMPLES = sample_paths()
needs_torch = pytest.mark.skipif(not torch_available(), reason="real PyTorch not importable")


PARAMS = EXACT = PLAIN = [pytest.param(p, id=os.path.basename(p)[:-3]) for p in SAMPLES]


def _fresh_gradviz_warnings(path):
    import json
    import subprocess
    import sys
    code = ("import json, sys; from gradviz.explain.runner import run_until_error; "
            "print(json.dumps([w.message for w in run_until_error(sys.argv[1]).warnings]))")
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _gradviz(path):
    out = run_until_error(path)
    return out


def test_every_raisable_catalog_entry_has_a_sample():
    have = {sample_id(p) for p in SAMPLES}
    wanted = set(catalog_by_id()) - NOT_IN_ENGINE
    assert wanted - have == set()
    assert have <= set(catalog.ENTRIES)


def test_samples_are_small():
    for p in SAMPLES:
        with open(p) as f:
            assert len(f.read().splitlines()) <= 30, p


@needs_torch
@pytest.mark.parametrize("path", EXACT)
def test_sample_raises_pytorchs_exact_message(path):
    sid = sample_id(path)
    torch_res = sample_oracle()[path]
    ours = _gradviz(path)
    kind = catalog.get(sid).kind
    if kind == "exception":
        assert torch_res["message"] is not None, "real PyTorch does not raise for this sample"
        assert ours.exc is not None, "gradviz does not raise"
        assert type(ours.exc).__name__ == torch_res["exc_type"]
        assert str(ours.exc) == torch_res["message"]
    elif kind == "warning":
        theirs = [w["message"] for w in torch_res["warnings"]]
        assert theirs, "real PyTorch does not warn"
        # PyTorch warns some of these once per process: compare with a fresh gradviz process too
        assert set(theirs) <= set(_fresh_gradviz_warnings(path))
    else:  # silent: neither raises
        assert torch_res["message"] is None and ours.exc is None


@pytest.mark.parametrize("path", PARAMS)
def test_sample_message_has_the_catalog_shape_and_is_identified(path):
    sid = sample_id(path)
    ours = _gradviz(path)
    entry = catalog_by_id()[sid]
    if entry["kind"] == "exception":
        assert ours.exc is not None
        message = str(ours.exc)
        assert getattr(ours.exc, "gradviz_id", sid) in explain_message(message).ids
    elif entry["kind"] == "warning":
        matching = [w.message for w in ours.warnings if sid in explain_message(w.message).ids]
        assert matching, [w.message for w in ours.warnings]
        message = matching[0]
    else:
        return
    x = explain_message(message)
    assert sid in x.ids, (message, x.ids)
    # same rule as the catalog's own 2.13 text (numbers/shapes aside)
    assert set(explain_message(entry["message"]).ids) == set(x.ids) or sid in explain_message(entry["message"]).ids


@pytest.mark.parametrize("path", PARAMS)
def test_gradviz_run_reproduces_the_sample(path):
    """`gradviz run` (scripting.run_script) reports the same error the sample is about."""
    sid = sample_id(path)
    result = scripting.run_script(path, echo=False)
    kind = catalog.get(sid).kind
    if kind == "exception":
        assert result.errors, "gradviz run reports no error"
        assert sid in explain_message(result.errors[0].error.message).ids
    else:
        assert result.ok


@pytest.mark.parametrize("path", PARAMS)
def test_script_mode_picks_the_samples_id(path):
    sid = sample_id(path)
    d = diagnose_script(path)
    if catalog.get(sid).kind == "exception":
        assert d.error is not None
        assert d.id == sid, (d.id, d.cause)
        assert d.known and d.exit_code == 0
        assert d.fix["text"]
        assert "diagnosis_error" not in d.context
    else:
        assert d.error is None
        assert sid in [w["id"] for w in d.warnings]


@needs_torch
@pytest.mark.parametrize("path", PLAIN)
def test_pytorchs_own_traceback_of_the_sample_is_identified(path):
    sid = sample_id(path)
    res = sample_oracle()[path]
    texts = [res["traceback"]] if res["traceback"] else [
        f"{w['file']}:{w['line']}: {w['category']}: {w['message']}" for w in res["warnings"]]
    if not texts:
        return
    assert sid in [i for t in texts for i in explain_message(t).ids]
