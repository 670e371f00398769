// The unary math ops, declared once: X(name, Tag, Kind, math in double of `x`). The registry
// (aten::<name> and aten::<name>_), the C++ API (fe::<name>, fe::<name>_), the Tensor methods and
// the conformance fixture list (tools/oracle/opgen/unary.py reads this file) all expand it.
// Kind is the dtype rule: Floating (int/bool compute in the default float dtype), Abs (complex ->
// real), Neg (bool refused), Same (the input's dtype; Ceil's kernel refuses bool, see unary.cpp).
#pragma once

#define FE_UNARY_OPS(X)                                  \
  X(exp, Exp, Floating, std::exp(x))                     \
  X(expm1, Expm1, Floating, std::expm1(x))               \
  X(log, Log, Floating, std::log(x))                     \
  X(log1p, Log1p, Floating, std::log1p(x))               \
  X(sqrt, Sqrt, Floating, std::sqrt(x))                  \
  X(rsqrt, Rsqrt, Floating, 1.0 / std::sqrt(x))          \
  X(sin, Sin, Floating, std::sin(x))                     \
  X(cos, Cos, Floating, std::cos(x))                     \
  X(tanh, Tanh, Floating, std::tanh(x))                  \
  X(sigmoid, Sigmoid, Floating, 1.0 / (1.0 + std::exp(-x))) \
  X(erf, Erf, Floating, std::erf(x))                     \
  X(reciprocal, Reciprocal, Floating, 1.0 / x)           \
  X(abs, Abs, Abs, std::fabs(x))                         \
  X(neg, Neg, Neg, -x)                                   \
  X(ceil, Ceil, Same, std::ceil(x))                      \
  X(sign, Sign, Same, std::isnan(x) ? x : static_cast<double>((x > 0) - (x < 0)))
