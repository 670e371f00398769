// Reading PT2 archives (torch.export.save of PyTorch 2.9-2.14): the program from models/model.json,
// the weights' presence checked entry by entry against their recorded metadata. Never executes pickle.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe::serde {

/// Caps on what an archive may ask the reader for; exceeding one is a LimitError naming the flag.
struct ReadLimits {
  /// Bytes of one JSON record (model.json: 9.6 MB for Llama-3.1-405B over 8 devices): --max-record-bytes.
  int64_t max_record_bytes = int64_t{256} << 20;
  /// Nodes of one program, subgraphs included (405B: 9,065): --max-nodes.
  int64_t max_nodes = 1'000'000;
};

struct LoadOptions {
  /// Make the weights real tensors (ep.state_dict / constants), tied names sharing storage: the
  /// archive is memory-mapped copy-on-write, so a weight is read when first touched and writes (a
  /// mutated buffer) never reach the file. Otherwise they stay fake and the archive is only checked.
  bool materialize_weights = false;
  ReadLimits limits;
};

struct LoadedProgram {
  ExportedProgram ep;
  std::string schema_version;  ///< "8.20"
  std::string torch_version;   ///< as written by the saver, e.g. "2.14.1+debian"
  /// Every weight's payload is present and as long as its metadata requires.
  bool weights_present = false;
  /// Why not, e.g. PyTorch's fake-saved archives (one shared 0-byte payload).
  std::string weights_note;
};

/// What goes into data/weights when saving: a fake program has no data of its own.
enum class WeightsPolicy : uint8_t {
  None,      ///< graph only: metadata of every weight, no payload (PyTorch's load fails loudly on it)
  Zeros,     ///< all zeros, materialized one tensor at a time
  Random,    ///< uniform in [-1, 1), deterministic from `seed`
  Tensors,   ///< the program's own tensors (real ones; UserError naming a fake one)
  File,      ///< from `weights_file` (safetensors), checked name by name against the signature
  Source,    ///< from `source` (a checkpoint in another naming, e.g. HuggingFace's)
};

/// Where WeightsPolicy::Source reads tensors: by the program's state_dict / constant names.
class WeightsSource {
 public:
  virtual ~WeightsSource() = default;
  /// Every reason the program's state cannot be bound (missing, unexpected, wrong shape), at once.
  virtual std::vector<std::string> problems(const ExportedProgram& ep) const = 0;
  /// The real CPU tensor for `name` (the program's shape and dtype); undefined if it has none.
  virtual Tensor load(const std::string& name) const = 0;
};

struct SaveOptions {
  WeightsPolicy weights = WeightsPolicy::Tensors;
  uint64_t seed = 0;
  std::string weights_file;  ///< WeightsPolicy::File
  const WeightsSource* source = nullptr;  ///< WeightsPolicy::Source
  std::string torch_version = "2.14.1";
};

/// Writes the PT2 archive torch.export.save of PyTorch 2.14 writes for this program: root folder
/// named after the file stem, models/model.json, data/weights/weight_N (one per storage: tied weights
/// once) + model_weights_config.json, data/constants/..., archive_format/version, byteorder;
/// entries stored and 64-byte aligned. Payloads are streamed one tensor at a time.
void save(const ExportedProgram& ep, const std::string& path, const SaveOptions& opts = {});

/// Reads `path`; FileIOError / FormatError naming the entry and field on bad input. Archives whose
/// weights are pickled (`use_pickle`) or absent load with weights_present = false and a note.
LoadedProgram load(const std::string& path, const LoadOptions& opts = {});

}  // namespace fe::serde
