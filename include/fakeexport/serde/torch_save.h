// Reading the tensors of a `torch.save` archive without executing pickle.
//
// torch.save writes a zip: `<root>/data.pkl` (a pickle), `<root>/data/<key>` (each storage's raw
// bytes), `<root>/byteorder`, `<root>/version`, ... .pt2 archives of PyTorch 2.6-2.8 store their
// weights this way (data/weights/model.pt) and every .pt2 stores data/sample_inputs/model.pt so.
// The pickle is read by a restricted reader of our own: it knows only the opcodes and globals that
// tensor-rebuild records use (torch._utils._rebuild_tensor_v2, _rebuild_parameter, torch.*Storage,
// collections.OrderedDict) and refuses anything else (os.system, builtins.eval, ...) before it
// could matter, with a fe::FormatError naming the entry.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/core/tensor.h"
#include "fakeexport/serde/safetensors.h"  // fe::FormatError, fe::FileIOError

namespace fe::serde {

class ZipReader;

/// The pickle rebuilds fake tensors (torch._export.serde.serialize._reconstruct_fake_tensor): the
/// sample inputs of a program exported under FakeTensorMode, which have metadata but no values.
class FakeSampleInputsError : public FormatError { using FormatError::FormatError; };

/// One tensor of a torch.save archive.
struct TorchSaveTensor {
  /// Its path in the saved object: a dict key ("fc1.weight"), tuple/list indices joined by '.'
  /// ("0.1" is args[1] of ((args...), {kwargs})), dict keys below the top joined the same way
  /// ("1.k"); "" for a tensor saved alone.
  std::string name;
  /// A real, CPU tensor (whatever the saved location was). Tensors saved on one storage (tied
  /// weights, views) share one fe::Storage; the same tensor object saved twice is one Tensor.
  Tensor tensor;
};

/// The records of one archive: entry name -> its bytes, or nullopt when there is no such entry.
/// The spans must stay valid while read_torch_save_records runs (tensors copy their data).
using TorchSaveRecords = std::function<std::optional<std::span<const std::byte>>(std::string_view name)>;

/// A torch.save file on disk.
std::vector<TorchSaveTensor> read_torch_save(const std::string& path);
/// A torch.save archive already opened (e.g. a .pt file, or one whose root is not the first entry's).
std::vector<TorchSaveTensor> read_torch_save(const ZipReader& zip);
/// A torch.save archive in memory, typically an entry of an outer .pt2 (`what` names it in
/// messages, e.g. "model.pt2:model/data/weights/model.pt"). An empty span is a FormatError
/// (PyTorch writes 0 bytes for absent sample inputs: check the size first if that is expected).
std::vector<TorchSaveTensor> read_torch_save(std::span<const std::byte> zip_bytes, std::string_view what);
/// The general form: records under `root` ("archive"; entries are "<root>/data.pkl", ...).
std::vector<TorchSaveTensor> read_torch_save_records(const TorchSaveRecords& records, std::string_view root,
                                                     std::string_view what);

}  // namespace fe::serde
