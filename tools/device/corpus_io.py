"""Shared by the scripts in tools/device/: the real-program corpus's sample inputs bound as
gen_memory_peaks.py binds them, moving inputs to cuda, and one-line error records."""
import json
import os

import torch
import torch.utils._pytree as pytree

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CORPUS = os.path.join(REPO, "tests/fixtures/corpus")


def sample_inputs(ep, name):
    """(args, kwargs) of corpus program `name` for `ep`: the corpus json's flat user inputs (tensors
    from NAME.inputs.safetensors), unflattened with the program's in_spec."""
    from safetensors.torch import load_file

    meta = json.load(open(os.path.join(CORPUS, name + ".json")))
    tensors = load_file(os.path.join(CORPUS, name + ".inputs.safetensors"))
    flat = [tensors[u["name"]] if u["kind"] == "tensor" else u["value"] for u in meta["user_inputs"]]
    args, kwargs = pytree.tree_unflatten(flat, ep.call_spec.in_spec)
    return tuple(args), dict(kwargs)


def to_cuda(tree):
    """Every tensor of a (possibly nested) structure moved to cuda: tuples, lists and dicts too."""
    return pytree.tree_map(lambda t: t.to("cuda") if isinstance(t, torch.Tensor) else t, tree)


def first_line(e):
    """An exception as one line of at most 300 characters, for the JSON results."""
    return (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
