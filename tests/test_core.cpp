// Core layer: dtypes and promotion, devices, TensorMeta, scopes, fake vs real tensors.
// Expected values come from PyTorch 2.14.1 (tools/oracle): promotion.json is written by
// tools/oracle/scripts/gen_promotion.py; the literals below were printed by the same PyTorch.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fakeexport/fakeexport.h"
#include "fakeexport/ops/ivalue.h"

namespace {
using fe_test::what_of;

// ---- a minimal JSON reader (objects, arrays, strings, numbers, true/false/null) for fixtures
struct Json {
  enum Kind { Null, Bool, Num, Str, Arr, Obj } kind = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;
  const Json& operator[](const std::string& k) const { return obj.at(k); }
};

class JsonParser {
 public:
  explicit JsonParser(std::string s) : s_(std::move(s)) {}
  Json parse() {
    Json v = value();
    ws();
    if (i_ != s_.size()) throw std::runtime_error("trailing JSON text");
    return v;
  }

 private:
  void ws() { while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_; }
  void expect(char c) {
    ws();
    if (i_ >= s_.size() || s_[i_] != c) throw std::runtime_error(std::string("JSON: expected ") + c);
    ++i_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (s_.at(i_) != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        char e = s_.at(i_++);
        if (e == 'n') out += '\n';
        else if (e == 't') out += '\t';
        else if (e == 'u') {
          out += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16));  // ASCII only
          i_ += 4;
        } else out += e;
      } else {
        out += c;
      }
    }
    ++i_;
    return out;
  }
  Json value() {
    ws();
    Json v;
    char c = s_.at(i_);
    if (c == '{') {
      v.kind = Json::Obj;
      ++i_;
      ws();
      if (s_[i_] == '}') { ++i_; return v; }
      for (;;) {
        std::string k = string();
        expect(':');
        v.obj[k] = value();
        ws();
        if (s_.at(i_++) == '}') break;
      }
    } else if (c == '[') {
      v.kind = Json::Arr;
      ++i_;
      ws();
      if (s_[i_] == ']') { ++i_; return v; }
      for (;;) {
        v.arr.push_back(value());
        ws();
        if (s_.at(i_++) == ']') break;
      }
    } else if (c == '"') {
      v.kind = Json::Str;
      v.str = string();
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else if (s_.compare(i_, 4, "true") == 0) {
      v.kind = Json::Bool, v.b = true, i_ += 4;
    } else if (s_.compare(i_, 5, "false") == 0) {
      v.kind = Json::Bool, i_ += 5;
    } else {
      size_t n = 0;
      v.kind = Json::Num;
      v.num = std::stod(s_.substr(i_, 32), &n);
      i_ += n;
    }
    return v;
  }
  std::string s_;
  size_t i_ = 0;
};

const Json& promotion() {
  static const Json j = [] {
    std::ifstream f(std::string(FE_FIXTURES_DIR) + "/promotion.json");
    EXPECT_TRUE(f.good()) << "missing tests/fixtures/promotion.json";
    std::stringstream ss;
    ss << f.rdbuf();
    return JsonParser(ss.str()).parse();
  }();
  return j;
}

fe::DType dt(const std::string& s) {
  auto d = fe::parse_dtype(s);
  if (!d) throw std::runtime_error("unknown dtype " + s);
  return *d;
}

using fe::DType;

// ---------------------------------------------------------------- DType
struct DTypeRow {
  DType t;
  const char *name, *abbr;
  int64_t size;
};
// name / torch.fx.graph.dtype_abbrs / itemsize, printed by PyTorch 2.14.1.
const DTypeRow kDTypes[] = {
    {DType::UInt8, "uint8", "u8", 1},         {DType::Int8, "int8", "i8", 1},
    {DType::Int16, "int16", "i16", 2},        {DType::Int32, "int32", "i32", 4},
    {DType::Int64, "int64", "i64", 8},        {DType::Float16, "float16", "f16", 2},
    {DType::Float32, "float32", "f32", 4},    {DType::Float64, "float64", "f64", 8},
    {DType::Complex32, "complex32", "c32", 4}, {DType::Complex64, "complex64", "c64", 8},
    {DType::Complex128, "complex128", "c128", 16}, {DType::Bool, "bool", "b8", 1},
    {DType::BFloat16, "bfloat16", "bf16", 2}, {DType::Float8_e5m2, "float8_e5m2", "f8e5m2", 1},
    {DType::Float8_e4m3fn, "float8_e4m3fn", "f8e4m3fn", 1},
    {DType::Float8_e5m2fnuz, "float8_e5m2fnuz", "f8e5m2fnuz", 1},
    {DType::Float8_e4m3fnuz, "float8_e4m3fnuz", "f8e4m3fnuz", 1},
    {DType::UInt16, "uint16", "u16", 2},      {DType::UInt32, "uint32", "u32", 4},
    {DType::UInt64, "uint64", "u64", 8},
};

TEST(CoreDType, NamesShortNamesItemsize) {
  ASSERT_EQ(std::size(kDTypes), static_cast<size_t>(fe::kNumDTypes));
  for (const auto& r : kDTypes) {
    EXPECT_EQ(fe::dtype_name(r.t), r.name);
    EXPECT_EQ(fe::dtype_short_name(r.t), r.abbr) << r.name;
    EXPECT_EQ(fe::itemsize(r.t), r.size) << r.name;
    EXPECT_EQ(fe::parse_dtype(r.name), r.t);
    EXPECT_EQ(fe::parse_dtype(std::string("torch.") + r.name), r.t);
    EXPECT_EQ(fe::parse_dtype(r.abbr), r.t);
  }
}

TEST(CoreDType, ParseAliases) {
  // torch.float is torch.float32, ... (checked with PyTorch)
  EXPECT_EQ(fe::parse_dtype("float"), DType::Float32);
  EXPECT_EQ(fe::parse_dtype("torch.float"), DType::Float32);
  EXPECT_EQ(fe::parse_dtype("double"), DType::Float64);
  EXPECT_EQ(fe::parse_dtype("half"), DType::Float16);
  EXPECT_EQ(fe::parse_dtype("torch.half"), DType::Float16);
  EXPECT_EQ(fe::parse_dtype("long"), DType::Int64);
  EXPECT_EQ(fe::parse_dtype("int"), DType::Int32);
  EXPECT_EQ(fe::parse_dtype("short"), DType::Int16);
  EXPECT_EQ(fe::parse_dtype("cfloat"), DType::Complex64);
  EXPECT_EQ(fe::parse_dtype("cdouble"), DType::Complex128);
  EXPECT_EQ(fe::parse_dtype("chalf"), DType::Complex32);
  EXPECT_FALSE(fe::parse_dtype("float31"));
  EXPECT_FALSE(fe::parse_dtype(""));
  EXPECT_FALSE(fe::parse_dtype("torch."));
  EXPECT_FALSE(fe::parse_dtype("Float"));
}

TEST(CoreDType, Categories) {
  EXPECT_TRUE(fe::is_floating(DType::BFloat16));
  EXPECT_TRUE(fe::is_floating(DType::Float8_e4m3fn));
  EXPECT_FALSE(fe::is_floating(DType::Complex64));
  EXPECT_TRUE(fe::is_complex(DType::Complex32));
  EXPECT_TRUE(fe::is_integral(DType::UInt8, false));
  EXPECT_FALSE(fe::is_integral(DType::Bool, false));
  EXPECT_TRUE(fe::is_integral(DType::Bool, true));
  EXPECT_FALSE(fe::is_integral(DType::Float16, true));
  EXPECT_EQ(fe::category_of(DType::Bool), fe::TypeCategory::Bool);
  EXPECT_EQ(fe::category_of(DType::Int8), fe::TypeCategory::Integral);
  EXPECT_EQ(fe::category_of(DType::BFloat16), fe::TypeCategory::Floating);
  EXPECT_EQ(fe::category_of(DType::Complex128), fe::TypeCategory::Complex);
}

TEST(CorePromotion, EveryPairMatchesTorchPromoteTypes) {
  const auto& pairs = promotion()["promote_types"].arr;
  ASSERT_EQ(pairs.size(), 13u * 13u);
  int checked = 0;
  for (const auto& p : pairs) {
    const std::string a = p.arr[0].str, b = p.arr[1].str;
    ASSERT_EQ(p.arr[2].kind, Json::Str) << a << "," << b << ": PyTorch raised";
    EXPECT_EQ(fe::dtype_name(fe::promote_types(dt(a), dt(b))), p.arr[2].str) << "promote_types(" << a << ", " << b << ")";
    ++checked;
  }
  EXPECT_EQ(checked, 169);
}

TEST(CorePromotion, Float8AndBarebonesUnsignedErrors) {
  // PyTorch: "Promotion for Float8 Types is not supported, attempted to promote Float8_e5m2 and Float"
  EXPECT_THROW(fe::promote_types(DType::Float8_e5m2, DType::Float32), fe::DTypeError);
  EXPECT_THROW(fe::promote_types(DType::Float8_e5m2, DType::Float8_e4m3fn), fe::DTypeError);
  EXPECT_THROW(fe::promote_types(DType::Int8, DType::Float8_e4m3fnuz), fe::DTypeError);
  EXPECT_NE(what_of([] { fe::promote_types(DType::Float8_e5m2, DType::Float32); })
                .find("Promotion for Float8 Types is not supported"),
            std::string::npos);
  EXPECT_EQ(fe::promote_types(DType::Float8_e5m2, DType::Float8_e5m2), DType::Float8_e5m2);
  // uint16/32/64 promote only with floating types (PyTorch 2.14.1).
  EXPECT_EQ(fe::promote_types(DType::UInt16, DType::Float32), DType::Float32);
  EXPECT_EQ(fe::promote_types(DType::BFloat16, DType::UInt64), DType::BFloat16);
  EXPECT_EQ(fe::promote_types(DType::UInt32, DType::UInt32), DType::UInt32);
  EXPECT_THROW(fe::promote_types(DType::UInt16, DType::Int8), fe::DTypeError);
  EXPECT_THROW(fe::promote_types(DType::UInt32, DType::UInt8), fe::DTypeError);
  EXPECT_THROW(fe::promote_types(DType::Bool, DType::UInt64), fe::DTypeError);
}

/// Feeds one operand description of promotion.json ("int32[2]", "int32[]", "float") into st.
void add_operand(fe::ResultTypeState& st, const std::string& d) {
  if (d == "bool") return st.add_scalar(fe::TypeCategory::Bool);
  if (d == "int") return st.add_scalar(fe::TypeCategory::Integral);
  if (d == "float") return st.add_scalar(fe::TypeCategory::Floating);
  if (d == "complex") return st.add_scalar(fe::TypeCategory::Complex);
  const size_t br = d.find('[');
  st.add_tensor(dt(d.substr(0, br)), d.substr(br) == "[]");
}

std::string describe(const Json& c) {
  std::string s;
  for (const auto& o : c["operands"].arr) s += (s.empty() ? "" : " + ") + o.str;
  return s;
}

TEST(CorePromotion, ResultTypeMatchesTorch) {
  const auto& cases = promotion()["result_type"].arr;
  ASSERT_GE(cases.size(), 300u);
  int checked = 0;
  for (const auto& c : cases) {
    const std::string want = c["result"].str;
    if (!fe::parse_dtype(want)) continue;  // bcomplex32: see ResultTypeBComplex32
    fe::ResultTypeState st;
    for (const auto& o : c["operands"].arr) add_operand(st, o.str);
    EXPECT_EQ(fe::dtype_name(st.result(DType::Float32)), want) << describe(c);
    ++checked;
  }
  EXPECT_GE(checked, 400);
}

TEST(CorePromotion, ResultTypeBComplex32) {
  // PyTorch 2.14 promotes bfloat16 with a complex operand to torch.bcomplex32 (a dtype fe lacks;
  // torch.add has no kernel for it either). Listed so the gap stays visible.
  std::vector<std::string> cases;
  for (const auto& c : promotion()["result_type"].arr)
    if (c["result"].str == "bcomplex32") cases.push_back(describe(c));
  EXPECT_FALSE(cases.empty());
  GTEST_SKIP() << "known mismatch: fe has no bcomplex32 dtype; PyTorch gives bcomplex32 for " << cases.size()
               << " cases, e.g. " << cases[0];
}

TEST(CorePromotion, ResultTypeDefaultFloat) {
  // torch.set_default_dtype(torch.float64): int32[2] + 1.5 -> float64; float16[2] + 1.5 stays float16.
  fe::ResultTypeState st;
  st.add_tensor(DType::Int32, false);
  st.add_scalar(fe::TypeCategory::Floating);
  EXPECT_EQ(st.result(DType::Float64), DType::Float64);
  fe::ResultTypeState h;
  h.add_tensor(DType::Float16, false);
  h.add_scalar(fe::TypeCategory::Floating);
  EXPECT_EQ(h.result(DType::Float64), DType::Float16);
}

// ---------------------------------------------------------------- Device
TEST(CoreDevice, ParseAndPrint) {
  // str/repr as torch.device prints them.
  struct Row { const char *in, *str, *repr; };
  const Row rows[] = {
      {"cpu", "cpu", "device(type='cpu')"},
      {"cuda", "cuda", "device(type='cuda')"},
      {"cuda:3", "cuda:3", "device(type='cuda', index=3)"},
      {"meta", "meta", "device(type='meta')"},
      {"cpu:0", "cpu:0", "device(type='cpu', index=0)"},
      {"mps", "mps", "device(type='mps')"},
  };
  for (const auto& r : rows) {
    fe::Device d = fe::Device::parse(r.in);
    EXPECT_EQ(d.str(), r.str);
    EXPECT_EQ(d.repr(), r.repr);
  }
  EXPECT_EQ(fe::Device::parse("cuda:3").index(), 3);
  EXPECT_FALSE(fe::Device::parse("cuda").has_index());
  EXPECT_TRUE(fe::Device::parse("meta").is_meta());
  EXPECT_EQ(fe::Device(fe::DeviceType::CUDA, 0).repr(), "device(type='cuda', index=0)");
  std::ostringstream os;
  os << fe::Device(fe::DeviceType::CUDA, 1);
  EXPECT_EQ(os.str(), "cuda:1");
}

TEST(CoreDevice, BadStringsThrow) {
  // Each is rejected by torch.device() (RuntimeError).
  for (const char* s : {"gpu", "cuda:", "cuda:x", "cuda:-1", "", "CUDA", "cuda:0:1", " cuda", "cuda:1 "}) {
    EXPECT_THROW(fe::Device::parse(s), fe::ValueError) << "'" << s << "'";
  }
  EXPECT_NE(what_of([] { fe::Device::parse("gpu"); }).find("gpu"), std::string::npos);
}

TEST(CoreDevice, LeadingZeroIndex) {
  // torch.device('cuda:01') raises RuntimeError.
  EXPECT_THROW(fe::Device::parse("cuda:01"), fe::ValueError);
}

TEST(CoreDevice, Normalized) {
  EXPECT_EQ(fe::Device::parse("cuda").normalized().str(), "cuda:0");
  EXPECT_EQ(fe::Device::parse("cuda:2").normalized().str(), "cuda:2");
  EXPECT_EQ(fe::Device::parse("cpu").normalized().str(), "cpu");
  EXPECT_FALSE(fe::kCPU.normalized().has_index());
  EXPECT_EQ(fe::kMeta.normalized(), fe::kMeta);
  EXPECT_NE(fe::Device::parse("cuda"), fe::Device::parse("cuda:0"));
  EXPECT_EQ(std::hash<fe::Device>{}(fe::Device::parse("cuda:1")), std::hash<fe::Device>{}(fe::Device::parse("cuda:1")));
}

// ---------------------------------------------------------------- TensorMeta
fe::DimVector dv(std::initializer_list<int64_t> v) {
  fe::DimVector out;
  for (int64_t x : v) out.push_back(x);
  return out;
}
fe::TensorMeta meta_of(std::initializer_list<int64_t> sizes, std::initializer_list<int64_t> strides,
                       DType t = DType::Float32) {
  fe::TensorMeta m;
  m.sizes = dv(sizes);
  m.strides = dv(strides);
  m.dtype = t;
  return m;
}

TEST(CoreTensorMeta, ContiguousStrides) {
  // torch.empty(*sizes).stride()
  EXPECT_EQ(fe::contiguous_strides(dv({2, 3, 4})), dv({12, 4, 1}));
  EXPECT_EQ(fe::contiguous_strides(dv({2, 0, 3})), dv({3, 3, 1}));
  EXPECT_EQ(fe::contiguous_strides(dv({2, 1, 3})), dv({3, 3, 1}));
  EXPECT_EQ(fe::contiguous_strides(dv({0})), dv({1}));
  EXPECT_EQ(fe::contiguous_strides(dv({1, 1})), dv({1, 1}));
  EXPECT_EQ(fe::contiguous_strides(dv({0, 4})), dv({4, 1}));
  EXPECT_EQ(fe::contiguous_strides(dv({3, 0})), dv({1, 1}));
  EXPECT_EQ(fe::contiguous_strides(dv({})), dv({}));
  // More dims than inline capacity.
  EXPECT_EQ(fe::contiguous_strides(dv({2, 2, 2, 2, 2, 2, 2, 3})), dv({192, 96, 48, 24, 12, 6, 3, 1}));
}

TEST(CoreTensorMeta, NumelAndOverflow) {
  EXPECT_EQ(fe::make_contiguous(dv({4, 256}), DType::Float32, fe::kCPU).numel().expect_int(), 1024);
  EXPECT_EQ(fe::make_contiguous(dv({}), DType::Float32, fe::kCPU).numel().expect_int(), 1);
  EXPECT_EQ(fe::make_contiguous(dv({3, 0}), DType::Float32, fe::kCPU).numel().expect_int(), 0);
  fe::TensorMeta big = meta_of({int64_t(1) << 40, int64_t(1) << 40}, {int64_t(1) << 40, 1});
  EXPECT_THROW(big.numel(), fe::ShapeError);
  EXPECT_THROW(fe::checked_mul(INT64_MAX, 2, "x"), fe::ShapeError);
  EXPECT_EQ(fe::make_contiguous(dv({4, 256}), DType::Float64, fe::kCPU).storage_nbytes(), 1024 * 8);
  EXPECT_EQ(meta_of({4, 3}, {1, 4}).storage_nbytes(), 12 * 4);
}

TEST(CoreTensorMeta, ContiguityAndDensity) {
  EXPECT_TRUE(meta_of({3, 4}, {4, 1}).is_contiguous());
  // torch.empty(3, 4).t(): not contiguous, but non-overlapping and dense.
  fe::TensorMeta tr = meta_of({4, 3}, {1, 4});
  EXPECT_FALSE(tr.is_contiguous());
  EXPECT_TRUE(tr.is_non_overlapping_and_dense());
  // torch.empty_strided((2,1,3),(3,100,1)).is_contiguous() is True (size-1 strides ignored).
  EXPECT_TRUE(meta_of({2, 1, 3}, {3, 100, 1}).is_contiguous());
  // torch.empty(4, 6)[:, ::2]: neither.
  fe::TensorMeta sl = meta_of({4, 3}, {6, 2});
  EXPECT_FALSE(sl.is_contiguous());
  EXPECT_FALSE(sl.is_non_overlapping_and_dense());
  // expand: overlapping.
  EXPECT_FALSE(meta_of({4, 3}, {0, 1}).is_non_overlapping_and_dense());
  EXPECT_TRUE(meta_of({2, 3, 4}, {1, 8, 2}).is_non_overlapping_and_dense());  // a permuted dense block
}

TEST(CoreTensorMeta, Annotation) {
  EXPECT_EQ(fe::make_contiguous(dv({4, 256}), DType::Float32, fe::kCPU).annotation(), "f32[4, 256]");
  EXPECT_EQ(fe::make_contiguous(dv({}), DType::Float32, fe::kCPU).annotation(), "f32[]");
  EXPECT_EQ(fe::make_contiguous(dv({7}), DType::BFloat16, fe::kCPU).annotation(), "bf16[7]");
  EXPECT_EQ(fe::make_contiguous(dv({2, 0}), DType::Bool, fe::kCPU).annotation(), "b8[2, 0]");
}

TEST(CoreTensorMeta, WrapDim) {
  EXPECT_EQ(fe::wrap_dim(-1, 3, "op"), 2);
  EXPECT_EQ(fe::wrap_dim(0, 0, "op"), 0);  // scalars accept dim 0 and -1
  EXPECT_EQ(fe::wrap_dim(-1, 0, "op"), 0);
  EXPECT_THROW(fe::wrap_dim(3, 3, "op"), fe::IndexError);
  // PyTorch: "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
  EXPECT_NE(what_of([] { fe::wrap_dim(3, 3, "op"); })
                .find("Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
            std::string::npos);
}

// ---------------------------------------------------------------- scopes
TEST(CoreScopes, FakeTensorModeNesting) {
  EXPECT_FALSE(fe::FakeTensorMode::active());
  {
    fe::FakeTensorMode a;
    EXPECT_TRUE(fe::FakeTensorMode::active());
    {
      fe::FakeTensorMode b;
      EXPECT_TRUE(fe::FakeTensorMode::active());
    }
    EXPECT_TRUE(fe::FakeTensorMode::active());
  }
  EXPECT_FALSE(fe::FakeTensorMode::active());
}

TEST(CoreScopes, DeviceScopeNesting) {
  EXPECT_EQ(fe::default_device(), fe::kCPU);
  EXPECT_FALSE(fe::scoped_device());
  {
    fe::DeviceScope a(fe::Device::parse("cuda"));
    EXPECT_EQ(fe::default_device().str(), "cuda");
    {
      fe::DeviceScope b(fe::Device::parse("meta"));
      EXPECT_EQ(fe::default_device(), fe::kMeta);
      EXPECT_EQ(fe::scoped_device(), fe::kMeta);
    }
    EXPECT_EQ(fe::default_device().str(), "cuda");
  }
  EXPECT_EQ(fe::default_device(), fe::kCPU);
  EXPECT_FALSE(fe::scoped_device());
}

TEST(CoreScopes, DTypeScope) {
  EXPECT_EQ(fe::default_dtype(), DType::Float32);
  {
    fe::DTypeScope s(DType::Float64);
    EXPECT_EQ(fe::default_dtype(), DType::Float64);
    fe::FakeTensorMode m;
    EXPECT_EQ(fe::randn({2}).dtype(), DType::Float64);
    EXPECT_EQ(fe::full({2}, 1).dtype(), DType::Int64);
    {
      fe::DTypeScope h(DType::Float16);
      EXPECT_EQ(fe::zeros({2}).dtype(), DType::Float16);
    }
    EXPECT_EQ(fe::default_dtype(), DType::Float64);
  }
  EXPECT_EQ(fe::default_dtype(), DType::Float32);
}

// ---------------------------------------------------------------- fake and real tensors
TEST(CoreFakeTensor, NoStorageAndDataAccessErrors) {
  const int64_t before = fe::tensor_data_bytes_allocated();
  fe::FakeTensorMode mode;
  fe::Tensor x = fe::randn({2, 3});
  EXPECT_TRUE(x.is_fake());
  EXPECT_TRUE(fe::is_fake(x));
  EXPECT_FALSE(x.has_storage());
  EXPECT_EQ(x.numel(), 6);
  EXPECT_EQ(x.device(), fe::kCPU);
  EXPECT_THROW(x.data_ptr(), fe::DataAccessError);
  EXPECT_THROW(x.values_string(), fe::DataAccessError);
  fe::Tensor one = fe::zeros({1});
  EXPECT_THROW(one.item(), fe::DataDependentError);
  EXPECT_NE(what_of([&] { one.item(); }).find("aten::_local_scalar_dense"), std::string::npos);
  EXPECT_NE(what_of([&] { x.data_ptr(); }).find("aten::"), std::string::npos);
  fe::Tensor big = fe::empty({1 << 15, 1 << 15});  // 4 GiB if it were real
  EXPECT_EQ(big.numel(), int64_t(1) << 30);
  EXPECT_EQ(fe::tensor_data_bytes_allocated(), before);
}

TEST(CoreFakeTensor, Repr) {
  fe::FakeTensorMode mode;
  auto repr = [](const fe::Tensor& t) {
    std::ostringstream os;
    os << t;
    return os.str();
  };
  // repr(FakeTensor) in PyTorch 2.14.1.
  EXPECT_EQ(repr(fe::randn({2, 3})), "FakeTensor(..., size=(2, 3))");
  EXPECT_EQ(repr(fe::randn({2, 3}, {.device = fe::Device::parse("cuda")})),
            "FakeTensor(..., device='cuda:0', size=(2, 3))");
  EXPECT_EQ(repr(fe::randn({3}, {.device = fe::Device::parse("cuda")})),
            "FakeTensor(..., device='cuda:0', size=(3,))");
  EXPECT_EQ(repr(fe::randn({})), "FakeTensor(..., size=())");
  EXPECT_EQ(repr(fe::randn({2}, {.dtype = DType::Float64})), "FakeTensor(..., size=(2,), dtype=torch.float64)");
}

TEST(CoreRealTensor, ItemAndValues) {
  ASSERT_FALSE(fe::FakeTensorMode::active());
  const int64_t before = fe::tensor_data_bytes_allocated();
  fe::Tensor a = fe::full({1}, 3.0);
  EXPECT_FALSE(a.is_fake());
  EXPECT_TRUE(a.has_storage());
  EXPECT_EQ(a.item(), 3.0);  // torch.full((1,), 3.0).item() == 3.0
  EXPECT_EQ(fe::tensor_data_bytes_allocated() - before, 4);
  EXPECT_THROW(fe::full({2}, 3.0).item(), fe::ValueError);  // "a Tensor with 2 elements cannot be converted"
  EXPECT_EQ(fe::full({2}, 3).values_string(), "tensor([3, 3])");  // str(torch.full((2,), 3))
  EXPECT_EQ(fe::full({1}, 7).item(), 7.0);
  EXPECT_EQ(fe::full({1}, true).item(), 1.0);
}

// str(tensor) as PyTorch 2.14 prints it, case by case (tests/fixtures/tensor_str.json from
// tools/oracle/scripts/gen_tensor_str.py): widths, int mode ("3."), scientific notation, nan/inf,
// nested rows, dtype and size suffixes.
TEST(CoreRealTensor, ValuesStringAsPyTorch) {
  std::ifstream f(std::string(FE_FIXTURES_DIR) + "/tensor_str.json");
  ASSERT_TRUE(f.good());
  const nlohmann::json fx = nlohmann::json::parse(f);
  ASSERT_GE(fx["cases"].size(), 30u);
  for (const auto& c : fx["cases"]) {
    std::vector<double> vals;
    for (const auto& v : c["values"])
      vals.push_back(v.is_string() ? (v == "nan" ? NAN : v == "inf" ? INFINITY : -INFINITY) : v.is_boolean() ? double(v.get<bool>()) : v.get<double>());
    std::vector<fe::SymInt> shape;
    for (const auto& d : c["shape"]) shape.emplace_back(d.get<int64_t>());
    fe::Tensor t = fe::empty({static_cast<int64_t>(vals.size())}, {.dtype = DType::Float64});
    if (!vals.empty()) std::memcpy(t.data_ptr(), vals.data(), vals.size() * sizeof(double));
    const DType dt = *fe::parse_dtype(c["dtype"].get<std::string>());
    t = t.reshape(shape).to(dt);
    EXPECT_EQ(t.values_string(), c["str"].get<std::string>()) << c.dump();
  }
}

TEST(CoreRealTensor, MetaLikeAndFakeLike) {
  fe::Tensor r = fe::zeros({3, 4});
  fe::Tensor m = fe::meta_like(r);
  EXPECT_EQ(m.device(), fe::kMeta);
  EXPECT_FALSE(m.has_storage());
  EXPECT_FALSE(m.is_fake());
  EXPECT_EQ(m.meta().sizes, r.meta().sizes);
  EXPECT_EQ(m.meta().strides, r.meta().strides);
  EXPECT_THROW(m.data_ptr(), fe::DataAccessError);
  std::ostringstream os;
  os << m;
  EXPECT_EQ(os.str(), "tensor(..., device='meta', size=(3, 4))");  // repr(torch.empty(3, 4, device='meta'))
  fe::Tensor f = fe::fake_like(r);
  EXPECT_TRUE(f.is_fake());
  EXPECT_EQ(f.device(), fe::kCPU);
  EXPECT_FALSE(f.is_same(r));
}

// ---------------------------------------------------------------- python_float_repr
TEST(CoreFloatRepr, MatchesPythonRepr) {
  // repr(float) in CPython, printed by the oracle.
  const std::pair<double, const char*> cases[] = {
      {1.0, "1.0"},           {0.5, "0.5"},
      {1e-05, "1e-05"},       {1e+16, "1e+16"},
      {123456.789, "123456.789"}, {0.0001, "0.0001"},
      {1e-5 * 3, "3.0000000000000004e-05"}, {2.5e-07, "2.5e-07"},
      {-0.0, "-0.0"},         {INFINITY, "inf"},
      {-INFINITY, "-inf"},    {0.1 + 0.2, "0.30000000000000004"},
      {1e22, "1e+22"},        {9999999999999998.0, "9999999999999998.0"},
      {100.0, "100.0"},       {5e-324, "5e-324"},
      {0.00012, "0.00012"},   {1.5e300, "1.5e+300"},
      {-2.5, "-2.5"},         {0.0, "0.0"},
  };
  for (auto [v, want] : cases) EXPECT_EQ(fe::python_float_repr(v), want) << want;
  EXPECT_EQ(fe::python_float_repr(NAN), "nan");
}

}  // namespace
