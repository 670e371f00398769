"""Output strides of elementwise ops on permuted / sliced symbolic inputs: does PyTorch guard while sorting strides?"""
import sys; sys.path.insert(0, "/repo/tools/oracle")
from sym_probe import probe, T
import torch

X3 = T(("s0", 4), ("s1", 8), ("s2", 6))
probe(lambda x: torch.add(x.permute(1, 0, 2), 1), X3, title="permute(1,0,2) + scalar")
probe(lambda x: torch.add(x.permute(2, 0, 1), 1), X3, title="permute(2,0,1) + scalar")
probe(lambda x: torch.add(x.permute(1, 2, 0), 1), X3, title="permute(1,2,0) + scalar")
probe(lambda x: torch.maximum(x.permute(1, 0, 2), torch.zeros(())), X3, title="maximum permute(1,0,2) + 0d")
probe(lambda x: torch.relu(x.permute(1, 0, 2)), X3, title="relu permute(1,0,2)")
probe(lambda x: torch.neg(x.permute(2, 0, 1)), X3, title="neg permute(2,0,1)")
probe(lambda x: torch.add(x.permute(1, 0, 2), x.permute(1, 0, 2)), X3, title="add permute(1,0,2) twice")
probe(lambda x, y: torch.add(x.permute(1, 0, 2), y), X3, T(("s3", 6)), title="add permute(1,0,2) + [s3]")
probe(lambda x, y: torch.add(x.permute(1, 0, 2), y), X3, T(("s3", 8), 1, 1), title="add permute(1,0,2) + [s3,1,1]")
probe(lambda x, y: torch.add(x, y), T(("s0", 4), ("s1", 8)), T(("s1", 8), ("s0", 4)), title="mismatch transposed shapes")
probe(lambda x: torch.add(x[:, 1:], 1), T(("s0", 4), ("s1", 8)), title="add sliced [:,1:] (not contig)")
probe(lambda x: torch.sigmoid(x[:, 1:]), T(("s0", 4), ("s1", 8)), title="sigmoid sliced")
probe(lambda x: torch.add(x.t(), x.t()), T(("s0", 4), ("s1", 8)), title="add x.t() twice")
probe(lambda x, y: torch.add(x.expand(("s1", 4) and 4, -1), y), T(1, ("s0", 8)), T(4, 1), title="add expanded [4,s0] + [4,1]")
probe(lambda x: torch.mul(x.unsqueeze(0).transpose(0, 1), 2), T(("s0", 4), ("s1", 8)), title="mul unsqueeze-transposed")
probe(lambda x: torch.gelu(x.transpose(0, 1)), T(("s0", 4), ("s1", 8), ("s2", 3)), title="gelu transpose(0,1)")
probe(lambda x: torch.add(x.transpose(0, 1), 1), T(("s0", 4), ("s1", 8), ("s2", 3)), title="add transpose(0,1)")
