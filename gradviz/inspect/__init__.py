"""Inspection: record the forward pass, snapshot the graph as plain data.

    from gradviz.inspect import Recorder, snapshot
    with Recorder() as rec:
        ...forward, backward...
    snap = snapshot(L, names={id(L): "L", ...}, recorder=rec)

The engine never imports this package; it only calls the listeners registered on
``gradviz.torch.autograd.graph.LISTENERS``.
"""
from .model import (BackwardCallInfo, BackwardNode, Edge, ForwardOp, GradInfo, GraphSnapshot, LeafInfo, Root,
                    SavedInfo, Value)
from .recorder import Recorder
from .snapshot import snapshot

__all__ = ["Recorder", "snapshot", "GraphSnapshot", "BackwardNode", "Edge", "SavedInfo", "LeafInfo", "Root",
           "Value", "ForwardOp", "GradInfo", "BackwardCallInfo"]
