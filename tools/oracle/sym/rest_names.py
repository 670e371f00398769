"""Raw symbol names sym_probe's inputs get (arg i, dim d) -> sN. Ties between equal hints replace the
lexicographically larger RAW name, so tests that equate symbols use these names to reproduce
PyTorch's choice of the surviving symbol."""
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv, DimDynamic, StatelessSymbolicContext
from torch._dynamo.source import ConstantSource

env = ShapeEnv(specialize_zero_one=True, duck_shape=False)
mode = FakeTensorMode(shape_env=env)
for i in range(8):
    ft = mode.from_tensor(torch.empty([3 + k for k in range(5)]), source=ConstantSource(f"arg{i}"),
                          symbolic_context=StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC] * 5))
    print(f"arg{i}:", " ".join(str(s.node.expr) for s in ft.shape))
