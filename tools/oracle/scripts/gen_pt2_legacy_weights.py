"""torch.save of the seed MLP archive's state_dict (what a torch 2.8 .pt2 stores as
data/weights/model.pt): tests/fixtures/pt2/seed_mlp.state_dict.pt, for the restricted reader."""
import torch

ep = torch.export.load("tests/fixtures/pt2/seed_mlp.pt2")
torch.save(dict(ep.state_dict), "tests/fixtures/pt2/seed_mlp.state_dict.pt")
print(sorted(ep.state_dict))
