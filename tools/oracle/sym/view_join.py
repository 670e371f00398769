# Expectations of tests/test_sym_view.cpp (join family): cat, stack, repeat, repeat_interleave, triu/tril.
import sys; sys.path.insert(0, "/repo/tools/oracle")
from sym_probe import probe, T
import torch

probe(lambda x, y: torch.cat([x, y], 1), T(("s0", 4), ("s1", 6)), T(("s2", 4), ("s3", 5)), title="cat dim1 (s2 == s0)")
probe(lambda x, y: torch.cat([x, y]), T(("s0", 4), 3), T(("s1", 6), 3), title="cat dim0 sym+sym")
probe(lambda x, y: torch.cat([x, y], -1), T(("s0", 4), 2, 8), T(("s0b", 4), 2, 8), title="cat last dim, equal hints")
probe(lambda x: torch.cat([x, x[:, :1]], 1), T(("s0", 4), ("s1", 6)), title="cat with slice")
probe(lambda x, y: torch.cat([x, y]), T(("s0", 4), 3), T(0), title="cat legacy empty")

probe(lambda x, y: torch.stack([x, y]), T(("s0", 4), 3), T(("s1", 4), 3), title="stack equal hints")
probe(lambda x, y: torch.stack([x, y], 2), T(("s0", 4), 3), T(("s0b", 4), 3), title="stack last")
probe(lambda x: torch.stack([x, x], 1), T(("s0", 4), ("s1", 6)), title="stack dim1")
probe(lambda x: x.repeat(2, 1), T(("s0", 4), 3), title="repeat")
probe(lambda x, y: x.repeat(y.shape[0], 1, 1), T(("s0", 4), 3), T(("s1", 5)), title="repeat sym")
probe(lambda x: x.repeat_interleave(2, dim=0), T(("s0", 4), 3), title="repeat_interleave int")
probe(lambda x: x.repeat_interleave(2), T(("s0", 4), 3), title="repeat_interleave flat")
probe(lambda x, y: x.repeat_interleave(y.shape[0], dim=1), T(("s0", 4), 3), T(("s1", 5)), title="repeat_interleave sym repeats")
probe(lambda x: x.triu(1), T(("s0", 4), ("s1", 6)), title="triu")
probe(lambda x: x.tril(), T(("s0", 4), ("s1", 6)), title="tril")
probe(lambda x: torch.cat([x, x.t()]), T(("s0", 4), ("s1", 6)), title="cat transposed (distinct hints) fails")
