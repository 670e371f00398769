// Scalar types with PyTorch's names (torch.float32), FX short names (f32) and type promotion.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace fe {

/// Element type of a tensor (c10::ScalarType subset; serializers map it explicitly, not by index).
enum class DType : uint8_t {
  UInt8, Int8, Int16, Int32, Int64, Float16, Float32, Float64,
  Complex32, Complex64, Complex128, Bool, BFloat16,
  Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz, Float8_e4m3fnuz,
  UInt16, UInt32, UInt64,
};
inline constexpr int kNumDTypes = 20;

/// Python-visible name without the `torch.` prefix: "float32", "bfloat16", "bool".
std::string_view dtype_name(DType t);
/// FX annotation short name: "f32", "bf16", "i64", "b8".
std::string_view dtype_short_name(DType t);
/// Parses "float32", "torch.float32", "float", "half", "long", "f32", ...; nullopt if unknown.
std::optional<DType> parse_dtype(std::string_view s);
/// Bytes per element.
int64_t itemsize(DType t);

bool is_floating(DType t);   ///< f16, bf16, f32, f64 and the float8 types
bool is_complex(DType t);    ///< c32, c64, c128
bool is_integral(DType t, bool include_bool);  ///< integer types (and bool if asked)

/// c10::promoteTypes: the binary promotion table; throws DTypeError for float8 / barebones unsigned.
DType promote_types(DType a, DType b);

/// Category of a dtype or Python scalar for elementwise promotion: bool < int < float < complex.
enum class TypeCategory : uint8_t { Bool = 0, Integral = 1, Floating = 2, Complex = 3 };
TypeCategory category_of(DType t);

/// Collects operands of an elementwise op and computes the result dtype the way
/// torch._prims_common.elementwise_dtypes / at::native::result_type do:
/// dimensioned tensors > zero-dim tensors > Python scalars, each only raising the category.
class ResultTypeState {
 public:
  void add_tensor(DType t, bool zero_dim);
  void add_scalar(TypeCategory c);  ///< a Python number (wrapped number)
  /// Result dtype; `default_float` is used when only int/bool tensors meet a float scalar.
  DType result(DType default_float) const;

 private:
  std::optional<DType> dim_, zero_dim_, wrapped_;
};

/// Complex counterpart of a real float dtype (f32 -> c64), used when a complex scalar promotes.
DType to_complex(DType t);

}  // namespace fe
