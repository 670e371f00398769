// Element load/store as double for the reference kernels (slow, simple, exact for f32/f64/ints).
#pragma once
#include <cstdint>
#include <cstring>

#include "fakeexport/core/dtype.h"
#include "fakeexport/core/error.h"

namespace fe::detail {

inline float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do { ++e; mant <<= 1; } while (!(mant & 0x400));
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // round to nearest even
  return static_cast<uint16_t>(half);
}

inline float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return 0x7fc0;  // NaN
  x += 0x7fff + ((x >> 16) & 1);                       // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

/// Reads element `p` of dtype `t` as double.
inline double load(const void* p, DType t) {
  switch (t) {
    case DType::UInt8: return *static_cast<const uint8_t*>(p);
    case DType::Int8: return *static_cast<const int8_t*>(p);
    case DType::Int16: return *static_cast<const int16_t*>(p);
    case DType::Int32: return *static_cast<const int32_t*>(p);
    case DType::Int64: return static_cast<double>(*static_cast<const int64_t*>(p));
    case DType::Float16: return half_to_float(*static_cast<const uint16_t*>(p));
    case DType::BFloat16: return bf16_to_float(*static_cast<const uint16_t*>(p));
    case DType::Float32: return *static_cast<const float*>(p);
    case DType::Float64: return *static_cast<const double*>(p);
    case DType::Bool: return *static_cast<const uint8_t*>(p) != 0;
    default: break;
  }
  throw DTypeError(cat("reference CPU kernels do not support dtype ", dtype_name(t)));
}

/// double -> int64 as x86's cvttsd2si does for PyTorch's static_cast: NaN and values outside int64
/// give INT64_MIN (in C++ such a cast is undefined behaviour, so it is spelled out).
inline int64_t truncate_to_i64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(v);
}
/// double -> int32 likewise (cvttsd2si, 32-bit): NaN and values outside int32 give INT32_MIN.
inline int32_t truncate_to_i32(double v) {
  if (!(v >= -2147483648.0 && v < 2147483648.0)) return INT32_MIN;
  return static_cast<int32_t>(v);
}

/// Writes double `v` as dtype `t` at `p` (C casts, as PyTorch's static_cast compiles on x86).
inline void store(void* p, DType t, double v) {
  switch (t) {
    case DType::UInt8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(truncate_to_i64(v)); return;
    case DType::Int8: *static_cast<int8_t*>(p) = static_cast<int8_t>(truncate_to_i32(v)); return;
    case DType::Int16: *static_cast<int16_t*>(p) = static_cast<int16_t>(truncate_to_i32(v)); return;
    case DType::Int32: *static_cast<int32_t*>(p) = truncate_to_i32(v); return;
    case DType::Int64: *static_cast<int64_t*>(p) = truncate_to_i64(v); return;
    case DType::Float16: *static_cast<uint16_t*>(p) = float_to_half(static_cast<float>(v)); return;
    case DType::BFloat16: *static_cast<uint16_t*>(p) = float_to_bf16(static_cast<float>(v)); return;
    case DType::Float32: *static_cast<float*>(p) = static_cast<float>(v); return;
    case DType::Float64: *static_cast<double*>(p) = v; return;
    case DType::Bool: *static_cast<uint8_t*>(p) = v != 0; return;
    default: break;
  }
  throw DTypeError(cat("reference CPU kernels do not support dtype ", dtype_name(t)));
}

}  // namespace fe::detail
