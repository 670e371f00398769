// Layout and memory format enums with their Python spellings.
#pragma once
#include <cstdint>
#include <string_view>

namespace fe {

/// Tensor layout (torch.strided, ...); only strided tensors are produced today.
enum class Layout : uint8_t { Strided, SparseCoo, SparseCsr, Mkldnn };
/// Memory format request (torch.contiguous_format, ...), as taken by factories and copies.
enum class MemoryFormat : uint8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

/// "strided", "sparse_coo", ... (without "torch.").
std::string_view layout_name(Layout l);
/// "contiguous_format", "preserve_format", "channels_last", "channels_last_3d".
std::string_view memory_format_name(MemoryFormat m);

}  // namespace fe
