"""The module tracker names parameters by id(); CPython reuses a dead tensor's id for a new
one, so a new tree's parameter must take over an id whose old owner is gone (it stayed
unnamed before: a fit() loop that builds a model per call showed None for a bias now and
then, where PyTorch's run showed model#3.2.bias)."""
import gc
import weakref

import gradviz.torch as T
from gradviz.inspect import modules


def test_a_tree_indexed_after_its_ids_owner_died_names_the_reused_id():
    tracker = modules.ModuleTracker(T)
    old = T.nn.Linear(2, 3)
    old_root = modules._Root(old, "model")
    tracker._index_tensors(old_root)
    reused = id(old.bias)
    new = T.nn.Linear(2, 3)
    new_root = modules._Root(new, "model#2")
    # what id reuse looks like to the tracker: the new tree's bias under the dead bias's id
    new_root.tensors = {reused: ("", "bias", weakref.ref(new.bias), "Linear")}
    del old  # the old tree and its tensors die; old_root's weak references go dead
    gc.collect()
    tracker._index_tensors(new_root)
    assert tracker._tensors[reused] is new_root


def test_a_live_owner_keeps_its_id():
    tracker = modules.ModuleTracker(T)
    first = T.nn.Linear(2, 3)
    first_root = modules._Root(first, "model")
    tracker._index_tensors(first_root)
    second_root = modules._Root(first, "alias")  # the same live tree seen again under another name
    tracker._index_tensors(second_root)
    assert tracker._tensors[id(first.weight)] is first_root
    assert tracker.tensor_path(first.weight)[1] == "model.weight"
