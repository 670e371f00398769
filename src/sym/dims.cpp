#include "fakeexport/sym/dims.h"

#include <cctype>

#include "fakeexport/core/error.h"

namespace fe {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string bound_str(int64_t v) { return v == kIntOo ? "int_oo" : std::to_string(v); }

/// a*x + b on a range end; int_oo stays int_oo, overflow saturates to int_oo (then rejected).
int64_t affine(int64_t a, int64_t x, int64_t b) {
  if (x == kIntOo) return kIntOo;
  int64_t r;
  if (__builtin_mul_overflow(a, x, &r) || __builtin_add_overflow(r, b, &r)) return kIntOo;
  return r;
}

void check_coeff(int64_t k, const std::string& name) {
  FE_CHECK(k > 0, ValueError, "Attempted to multiply ", k, " with ", name,
           ", where a positive integer was expected. (Only increasing linear operations with integer "
           "coefficients are supported.)");
}

}  // namespace

Dim::Dim(std::string name, int64_t min, int64_t max) : name_(std::move(name)), min_(min), max_(max) {
  FE_CHECK(is_identifier(name_), ValueError, "Dim name must be a valid identifier, got ", name_);
  FE_CHECK(min_ < max_, ValueError, "Cannot create Dim with inconsistent min=", min_, ", max=", bound_str(max_));
}

std::string Dim::repr() const {
  std::string s = "Dim('" + name_ + "'";
  if (min_ != 2) s += ", min=" + std::to_string(min_);
  if (max_ != kIntOo) s += ", max=" + std::to_string(max_);
  return s + ")";
}

DerivedDim::DerivedDim(Dim root, int64_t coeff, int64_t offset)
    : root_(std::move(root)), coeff_(coeff), offset_(offset) {
  FE_CHECK(min() >= 0, ValueError, "Expected derived min value of ", name(),
           " to be >= 0. Please specify an appropriate min value for ", root_.name(), " (currently ",
           root_.min(), ").");
  const bool unbounded = root_.max() == kIntOo;
  FE_CHECK(unbounded || max() <= kIntOo - 1, ValueError, "Expected derived max value of ", name(),
           " to be <= ", kIntOo - 1, ". Please specify an appropriate max value for ", root_.name(),
           " (currently ", root_.max(), ").");
}

int64_t DerivedDim::min() const { return affine(coeff_, root_.min(), offset_); }
int64_t DerivedDim::max() const { return affine(coeff_, root_.max(), offset_); }

std::string DerivedDim::name() const {
  std::string s = coeff_ == 1 ? root_.name() : std::to_string(coeff_) + "*" + root_.name();
  if (offset_ > 0) s += " + " + std::to_string(offset_);
  if (offset_ < 0) s += " - " + std::to_string(-offset_);
  return s;
}

DerivedDim operator*(const Dim& d, int64_t k) {
  check_coeff(k, d.name());
  return DerivedDim(d, k, 0);
}
DerivedDim operator*(int64_t k, const Dim& d) { return d * k; }
DerivedDim operator+(const Dim& d, int64_t k) { return DerivedDim(d, 1, k); }
DerivedDim operator-(const Dim& d, int64_t k) { return DerivedDim(d, 1, -k); }
DerivedDim operator*(const DerivedDim& d, int64_t k) {
  check_coeff(k, d.name());
  return DerivedDim(d.root(), d.coeff() * k, d.offset() * k);  // 2*(dx + 1) is 2*dx + 2
}
DerivedDim operator*(int64_t k, const DerivedDim& d) { return d * k; }
DerivedDim operator+(const DerivedDim& d, int64_t k) { return DerivedDim(d.root(), d.coeff(), d.offset() + k); }
DerivedDim operator-(const DerivedDim& d, int64_t k) { return DerivedDim(d.root(), d.coeff(), d.offset() - k); }

std::vector<Dim> dims(const std::vector<std::string>& names, int64_t min, int64_t max) {
  std::vector<Dim> out;
  for (const auto& n : names) out.emplace_back(n, min, max);
  return out;
}

DimSpec::DimSpec(Dim::Hint h, int64_t min, int64_t max)
    : kind_(h == Dim::AUTO ? Kind::Auto : h == Dim::DYNAMIC ? Kind::Dynamic : Kind::Static), min_(min), max_(max) {}

}  // namespace fe
