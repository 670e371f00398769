// torch.export's dynamic-shape markers: Dim("name", min, max), derived dims `A*dim + B`, and the
// hints Dim::AUTO / DYNAMIC / STATIC. Texts and rules follow PyTorch 2.14 (tests/test_sym_dims.cpp).
#pragma once
#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fe {

/// Unbounded upper end of a range (PyTorch's int_oo).
inline constexpr int64_t kIntOo = INT64_MAX;

/// A named dynamic dimension with an inclusive range [min, max]; default min 0, max int_oo.
class Dim {
 public:
  /// ValueError for a name that is no identifier or min >= max (PyTorch's assertion texts).
  explicit Dim(std::string name, int64_t min = 0, int64_t max = kIntOo);
  const std::string& name() const { return name_; }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }
  /// "Dim('dx', min=4, max=256)"; min is shown unless 2, max unless int_oo.
  std::string repr() const;

  /// PyTorch's Dim.AUTO / DYNAMIC / STATIC markers.
  enum class Hint : uint8_t { Auto, Dynamic, Static };
  static constexpr Hint AUTO = Hint::Auto;
  static constexpr Hint DYNAMIC = Hint::Dynamic;
  static constexpr Hint STATIC = Hint::Static;

  friend bool operator==(const Dim&, const Dim&) = default;

 private:
  std::string name_;
  int64_t min_, max_;
};

/// `coeff*root + offset` with coeff > 0: a dimension defined through another (y = 2*dx).
class DerivedDim {
 public:
  DerivedDim(Dim root, int64_t coeff, int64_t offset);  ///< ValueError when its range leaves [0, int64 max)
  const Dim& root() const { return root_; }
  int64_t coeff() const { return coeff_; }
  int64_t offset() const { return offset_; }
  int64_t min() const;
  int64_t max() const;
  /// PyTorch's __name__: "2*dx + 1", "dx - 1", "dx + 2".
  std::string name() const;

 private:
  Dim root_;
  int64_t coeff_, offset_;
};

/// Arithmetic building derived dims (only increasing integer-linear maps, as in PyTorch).
DerivedDim operator*(const Dim& d, int64_t k);
DerivedDim operator*(int64_t k, const Dim& d);
DerivedDim operator+(const Dim& d, int64_t k);
DerivedDim operator-(const Dim& d, int64_t k);
DerivedDim operator*(const DerivedDim& d, int64_t k);
DerivedDim operator*(int64_t k, const DerivedDim& d);
DerivedDim operator+(const DerivedDim& d, int64_t k);
DerivedDim operator-(const DerivedDim& d, int64_t k);

/// One entry of a dynamic_shapes spec: None (static), an int (static, checked), a Dim, a derived
/// dim, or a hint Dim::AUTO / DYNAMIC / STATIC (AUTO and DYNAMIC with an optional range).
class DimSpec {
 public:
  enum class Kind : uint8_t { None, Int, Auto, Dynamic, Static, Named, Derived };
  DimSpec() = default;
  DimSpec(std::nullopt_t) {}  // NOLINT: Python's None
  template <std::integral I>
  DimSpec(I v) : kind_(Kind::Int), value_(static_cast<int64_t>(v)) {}  // NOLINT
  DimSpec(Dim d) : kind_(Kind::Named), dim_(std::move(d)) {}           // NOLINT
  DimSpec(DerivedDim d) : kind_(Kind::Derived), derived_(std::move(d)) {}  // NOLINT
  DimSpec(Dim::Hint h, int64_t min = 0, int64_t max = kIntOo);         // NOLINT: Dim.AUTO(min=, max=)

  Kind kind() const { return kind_; }
  int64_t value() const { return value_; }  ///< Kind::Int
  const Dim& dim() const { return *dim_; }   ///< Kind::Named
  const DerivedDim& derived() const { return *derived_; }  ///< Kind::Derived
  int64_t min() const { return min_; }  ///< Auto/Dynamic hint range
  int64_t max() const { return max_; }

 private:
  Kind kind_ = Kind::None;
  int64_t value_ = 0, min_ = 0, max_ = kIntOo;
  std::optional<Dim> dim_;
  std::optional<DerivedDim> derived_;
};

/// dynamic_shapes of torch.export: per forward argument name, one DimSpec per dim. An argument
/// that is absent is static.
using DynamicShapes = std::map<std::string, std::vector<DimSpec>>;

/// torch.export.dims("a", "b", min=..., max=...): one Dim per name, sharing the range.
std::vector<Dim> dims(const std::vector<std::string>& names, int64_t min = 0, int64_t max = kIntOo);

}  // namespace fe
