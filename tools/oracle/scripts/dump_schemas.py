"""Dumps PyTorch's schema string for every operator our registry declares.
Usage: tools/oracle/run tools/oracle/scripts/dump_schemas.py OPS_LIST_FILE OUT_JSON
OPS_LIST_FILE holds one `aten::name.overload` per line (written by `fakeexport_ops --list`)."""
import json, sys
import torch

names = [l.strip() for l in open(sys.argv[1]) if l.strip()]
out = {}
for q in names:
    ns, rest = q.split("::")
    name, overload = (rest.split(".", 1) + ["default"])[:2]
    packet = getattr(getattr(torch.ops, ns), name)
    out[q] = str(getattr(packet, overload)._schema)
json.dump(out, open(sys.argv[2], "w"), indent=1, sort_keys=True)
print(f"{len(out)} schemas")
