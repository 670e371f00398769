// Reading PT2 archives (torch.export.save of PyTorch 2.9-2.14): the program from models/model.json,
// the weights' presence checked entry by entry against their recorded metadata. Never executes pickle.
#pragma once
#include <string>
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe::serde {

struct LoadOptions {
  /// Copy the weights into real tensors (ep.state_dict / constants), tied names sharing storage;
  /// otherwise they stay fake (metadata only) and the archive is only checked.
  bool materialize_weights = false;
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

/// Reads `path`; FileIOError / FormatError naming the entry and field on bad input. Archives whose
/// weights are pickled (`use_pickle`) or absent load with weights_present = false and a note.
LoadedProgram load(const std::string& path, const LoadOptions& opts = {});

}  // namespace fe::serde
