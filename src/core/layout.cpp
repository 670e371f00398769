#include "fakeexport/core/layout.h"

namespace fe {

std::string_view layout_name(Layout l) {
  switch (l) {
    case Layout::Strided: return "strided";
    case Layout::SparseCoo: return "sparse_coo";
    case Layout::SparseCsr: return "sparse_csr";
    case Layout::Mkldnn: return "_mkldnn";
  }
  return "?";
}

std::string_view memory_format_name(MemoryFormat m) {
  switch (m) {
    case MemoryFormat::Contiguous: return "contiguous_format";
    case MemoryFormat::Preserve: return "preserve_format";
    case MemoryFormat::ChannelsLast: return "channels_last";
    case MemoryFormat::ChannelsLast3d: return "channels_last_3d";
  }
  return "?";
}

}  // namespace fe
