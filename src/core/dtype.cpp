#include "fakeexport/core/dtype.h"

#include <array>
#include <string>

#include "fakeexport/core/error.h"

namespace fe {
namespace {

struct DTypeInfo {
  std::string_view name, short_name;
  int64_t size;
};
constexpr std::array<DTypeInfo, kNumDTypes> kInfo{{
    {"uint8", "u8", 1},          {"int8", "i8", 1},
    {"int16", "i16", 2},         {"int32", "i32", 4},
    {"int64", "i64", 8},         {"float16", "f16", 2},
    {"float32", "f32", 4},       {"float64", "f64", 8},
    {"complex32", "c32", 4},     {"complex64", "c64", 8},
    {"complex128", "c128", 16},  {"bool", "b8", 1},
    {"bfloat16", "bf16", 2},     {"float8_e5m2", "f8e5m2", 1},
    {"float8_e4m3fn", "f8e4m3fn", 1}, {"float8_e5m2fnuz", "f8e5m2fnuz", 1},
    {"float8_e4m3fnuz", "f8e4m3fnuz", 1}, {"uint16", "u16", 2},
    {"uint32", "u32", 4},        {"uint64", "u64", 8},
}};

const DTypeInfo& info(DType t) { return kInfo[static_cast<size_t>(t)]; }

bool is_float8(DType t) { return t >= DType::Float8_e5m2 && t <= DType::Float8_e4m3fnuz; }
bool is_barebones_unsigned(DType t) { return t >= DType::UInt16 && t <= DType::UInt64; }

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }
std::string_view dtype_short_name(DType t) { return info(t).short_name; }
int64_t itemsize(DType t) { return info(t).size; }

std::optional<DType> parse_dtype(std::string_view s) {
  if (s.starts_with("torch.")) s.remove_prefix(6);
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kInfo[i].name == s || kInfo[i].short_name == s) return static_cast<DType>(i);
  }
  // Python aliases (torch.float, torch.half, torch.long, ...).
  static constexpr std::pair<std::string_view, DType> kAliases[] = {
      {"float", DType::Float32},  {"double", DType::Float64},     {"half", DType::Float16},
      {"long", DType::Int64},     {"int", DType::Int32},          {"short", DType::Int16},
      {"cfloat", DType::Complex64}, {"cdouble", DType::Complex128}, {"chalf", DType::Complex32},
  };
  for (auto [n, t] : kAliases)
    if (n == s) return t;
  return std::nullopt;
}

bool is_floating(DType t) {
  return t == DType::Float16 || t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16 ||
         is_float8(t);
}
bool is_complex(DType t) { return t == DType::Complex32 || t == DType::Complex64 || t == DType::Complex128; }
bool is_integral(DType t, bool include_bool) {
  if (t == DType::Bool) return include_bool;
  return t <= DType::Int64 || is_barebones_unsigned(t);
}

TypeCategory category_of(DType t) {
  if (t == DType::Bool) return TypeCategory::Bool;
  if (is_complex(t)) return TypeCategory::Complex;
  if (is_floating(t)) return TypeCategory::Floating;
  return TypeCategory::Integral;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (is_float8(a) || is_float8(b)) {
    throw DTypeError(detail::cat("Promotion for Float8 Types is not supported, attempted to promote ",
                                 dtype_name(a), " and ", dtype_name(b)));
  }
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    // Only a floating partner is allowed (c10::promoteTypes).
    if (is_floating(a)) return a;
    if (is_floating(b)) return b;
    throw DTypeError(detail::cat("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
                                 dtype_name(a), " and ", dtype_name(b)));
  }
  // c10/core/ScalarType.cpp, axes u1 i1 i2 i4 i8 f2 f4 f8 c2 c4 c8 b1 bf.
  using D = DType;
  constexpr D u1 = D::UInt8, i1 = D::Int8, i2 = D::Int16, i4 = D::Int32, i8 = D::Int64, f2 = D::Float16,
              f4 = D::Float32, f8 = D::Float64, c2 = D::Complex32, c4 = D::Complex64, c8 = D::Complex128,
              b1 = D::Bool, bf = D::BFloat16;
  static constexpr D kTable[13][13] = {
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c2, c4, c8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c2, c4, c8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c2, c4, c8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c4, c8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, c8, f8, f8},
      /* c2 */ {c2, c2, c2, c2, c2, c2, c4, c8, c2, c4, c8, c2, c4},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c4, c8, c4, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c4, c8, bf, bf},
  };
  // The enum's first 13 values are in table order.
  return kTable[static_cast<int>(a)][static_cast<int>(b)];
}

DType to_complex(DType t) {
  switch (t) {
    case DType::Float16: return DType::Complex32;
    case DType::Float64: return DType::Complex128;
    case DType::Complex32:
    case DType::Complex64:
    case DType::Complex128: return t;
    default: return DType::Complex64;
  }
}

void ResultTypeState::add_tensor(DType t, bool zero_dim) {
  auto& slot = zero_dim ? zero_dim_ : dim_;
  slot = slot ? promote_types(*slot, t) : t;
}

void ResultTypeState::add_scalar(TypeCategory c) {
  // Python numbers enter with their default dtype (at::native::update_result_type_state).
  DType t = c == TypeCategory::Bool ? DType::Bool
            : c == TypeCategory::Integral ? DType::Int64
            : c == TypeCategory::Floating ? DType::Float64 : DType::Complex128;
  wrapped_ = wrapped_ ? promote_types(*wrapped_, t) : t;
}

DType ResultTypeState::result(DType default_float) const {
  // at::native::result_type: combine_categories(dim, combine_categories(zero_dim, wrapped)).
  using Opt = std::optional<DType>;
  auto combine = [](Opt higher, Opt lower) -> Opt {
    if (!higher) return lower;
    if (!lower) return higher;
    if (is_complex(*higher)) return higher;
    if (is_complex(*lower)) return is_floating(*higher) ? to_complex(*higher) : *lower;
    if (is_floating(*higher)) return higher;
    if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
    return higher;
  };
  Opt wrapped = wrapped_;
  // Wrapped floats take the default dtype, wrapped complex its complex counterpart.
  if (wrapped == DType::Float64) wrapped = default_float;
  else if (wrapped == DType::Complex128) wrapped = to_complex(default_float);
  return combine(dim_, combine(zero_dim_, wrapped)).value_or(default_float);
}

}  // namespace fe
