// Op conformance: replays every call of the PyTorch-generated fixtures (tests/fixtures/ops/*.json,
// written by tools/oracle/gen_ops.py) through our dispatcher in fake mode and compares each output's
// sizes, strides, storage offset, dtype, device and aliasing, or the error: a user error (of the
// matching kind for IndexError / data-dependent errors) naming the op, whose message carries
// PyTorch's numbers in PyTorch's order. Also checks each op's schema text and that every registered
// op has fixture calls that succeed and calls that fail.
//
// Usage: fakeexport_conformance [--fixtures DIR] [--family F] [--op aten::x.y] [--verbose] [--list-ops]
// Prints one summary line per family and a final "N passed, M failed"; exit status 1 on any failure.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/element.h"
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/registry.h"

namespace {

using nlohmann::json;
using namespace fe;

struct Options {
  std::string dir = FE_FIXTURES_DIR "/ops";
  std::string family, op;
  bool verbose = false, list_ops = false;
};

// ---- decoding fixture values into call arguments
TensorMeta decode_meta(const json& j) {
  TensorMeta m;
  for (int64_t s : j.at("sizes")) m.sizes.push_back(s);
  for (int64_t s : j.at("strides")) m.strides.push_back(s);
  m.storage_offset = j.at("offset").get<int64_t>();
  auto dt = parse_dtype(j.at("dtype").get<std::string>());
  if (!dt) throw InternalError("fixture: unknown dtype " + j.at("dtype").dump());
  m.dtype = *dt;
  m.device = Device::parse(j.at("device").get<std::string>());
  return m;
}

Tensor fake_tensor(const TensorMeta& m) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = m;
  impl->fake = true;
  return Tensor(std::move(impl));
}

/// Value calls: a real tensor over a storage filled with opgen.pattern (tools/oracle/opgen).
Tensor real_tensor(const json& j) {
  TensorMeta m = decode_meta(j);
  int64_t n = std::max<int64_t>(m.storage_offset.expect_int(), 1);
  if (m.numel().expect_int() != 0) {
    n = m.storage_offset.expect_int() + 1;
    for (int64_t d = 0; d < m.dim(); ++d) n += (m.sizes[d].expect_int() - 1) * m.strides[d].expect_int();
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(static_cast<size_t>(n * itemsize(m.dtype)));
  const bool list = j.contains("fill") && j["fill"][0] == "list";  // explicit storage values
  const bool index = j.contains("fill") && !list;
  const int64_t mod = index ? j["fill"][1].get<int64_t>() : 23;
  for (int64_t e = 0; e < n; ++e) {
    const int64_t k = (e * 37 + 11) % mod;
    double v;
    if (list) v = e < static_cast<int64_t>(j["fill"][1].size()) ? j["fill"][1][e].get<double>() : 0.0;
    else if (index) v = static_cast<double>(k);
    else if (m.dtype == DType::Bool) v = k % 2 == 0;
    else if (is_floating(m.dtype)) v = (k - 11) / 8.0;
    else if (m.dtype == DType::UInt8) v = static_cast<double>(k);
    else v = static_cast<double>(k - 11);
    detail::store(impl->storage->data() + e * itemsize(m.dtype), m.dtype, v);
  }
  impl->meta = std::move(m);
  return Tensor(std::move(impl));
}

thread_local bool t_real = false;  // decoding a value call

Tensor make_tensor(const json& j) { return t_real ? real_tensor(j) : fake_tensor(decode_meta(j)); }

double decode_float(const json& j) {
  if (j.is_object()) {
    const std::string s = j.at("float");
    if (s == "nan") return std::nan("");
    return s == "inf" ? INFINITY : -INFINITY;
  }
  return j.get<double>();
}

MemoryFormat decode_memory_format(const std::string& s) {
  for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                         MemoryFormat::ChannelsLast3d})
    if (memory_format_name(f) == s) return f;
  throw InternalError("fixture: unknown memory format " + s);
}

Layout decode_layout(const std::string& s) {
  for (Layout l : {Layout::Strided, Layout::SparseCoo, Layout::SparseCsr, Layout::Mkldnn})
    if (layout_name(l) == s) return l;
  throw InternalError("fixture: unknown layout " + s);
}

IValue decode(const json& j, const ArgType& type) {
  if (j.is_null()) return None{};
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return SymInt(j.get<int64_t>());
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object()) {
    if (j.contains("T")) return make_tensor(j.at("T"));
    if (j.contains("float")) return decode_float(j);
    if (j.contains("dtype")) return *parse_dtype(j.at("dtype").get<std::string>());
    if (j.contains("device")) return Device::parse(j.at("device").get<std::string>());
    if (j.contains("layout")) return decode_layout(j.at("layout"));
    if (j.contains("memory_format")) return decode_memory_format(j.at("memory_format"));
    throw InternalError("fixture: cannot decode " + j.dump());
  }
  // Lists: the schema says whether they hold ints or tensors.
  if (type.base == ArgBase::Tensor) {
    std::vector<Tensor> ts;
    for (const json& e : j) ts.push_back(e.is_null() ? Tensor() : make_tensor(e.at("T")));
    return ts;
  }
  if (type.base == ArgBase::Float) {  // float[] (upsample scale_factors)
    std::vector<double> fs;
    for (const json& e : j) fs.push_back(decode_float(e));
    return fs;
  }
  std::vector<SymInt> v;
  for (const json& e : j) {
    if (!e.is_number_integer()) throw InternalError("fixture: list element not an int: " + j.dump());
    v.push_back(e.get<int64_t>());
  }
  return v;
}

// ---- comparing errors: kinds and numbers
std::vector<std::string> numbers_in(std::string_view s) {
  std::vector<std::string> out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t i = 0;
  while (i < s.size()) {
    const bool neg = s[i] == '-' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]));
    if ((std::isdigit(static_cast<unsigned char>(s[i])) || neg) && (i == 0 || !word(s[i - 1]))) {
      size_t j = i + (neg ? 1 : 0);
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j + 1 < s.size() && s[j] == '.' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      if (j < s.size() && word(s[j])) {  // part of a word such as "float32" or "2D"
        while (j < s.size() && word(s[j])) ++j;
      } else {
        out.emplace_back(s.substr(i, j - i));
      }
      i = j;
      continue;
    }
    ++i;
  }
  return out;
}

bool is_subsequence(const std::vector<std::string>& needle, const std::vector<std::string>& hay) {
  size_t k = 0;
  for (const auto& h : hay)
    if (k < needle.size() && h == needle[k]) ++k;
  return k == needle.size();
}

/// Our message without its "aten::name[.overload]: " prefix.
std::string strip_prefix(const std::string& msg) {
  if (msg.rfind("aten::", 0) != 0) return msg;
  const size_t p = msg.find(": ");
  return p == std::string::npos ? msg : msg.substr(p + 2);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

struct Outcome {
  bool ok = true;
  std::string why;
};

std::string meta_str(const TensorMeta& m) {
  auto list = [](IntSpan s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i].expect_int());
    return r + "]";
  };
  return std::string(dtype_name(m.dtype)) + list(m.sizes) + " strides " + list(m.strides) + " offset " +
         std::to_string(m.storage_offset.expect_int()) + " " + m.device.str();
}

struct Stats {
  int passed = 0, failed = 0, errors = 0, verbatim = 0;
};

class Runner {
 public:
  explicit Runner(const Options& o) : opt_(o) {}

  Outcome run_call(const OpDef& op, const json& c, bool& was_error, bool& verbatim) {
    const FunctionSchema& s = op.schema;
    const bool real = c.value("values", false);
    t_real = real;
    std::vector<IValue> args;
    const json& jargs = c.at("args");
    for (size_t i = 0; i < jargs.size(); ++i) {
      if (i >= s.arguments.size()) return {false, "fixture passes more positional arguments than the schema has"};
      args.push_back(decode(jargs[i], s.arguments[i].type));
    }
    if (c.contains("kwargs")) {
      for (auto it = c["kwargs"].begin(); it != c["kwargs"].end(); ++it) {
        const int k = s.arg_index(it.key());
        if (k < 0) return {false, "schema has no argument '" + it.key() + "'"};
        while (args.size() <= static_cast<size_t>(k)) args.emplace_back(None{});  // placeholder
        args[k] = decode(it.value(), s.arguments[k].type);
      }
      // Positions skipped by kwargs get their defaults.
      for (size_t i = jargs.size(); i < args.size(); ++i) {
        const bool given = c["kwargs"].contains(s.arguments[i].name);
        if (!given && s.arguments[i].default_value)
          args[i] = map_tensors<Tensor>(*s.arguments[i].default_value, [](NoTensor) { return Tensor(); });
      }
    }
    std::vector<Tensor> inputs;  // for alias checks, by argument position
    for (const IValue& v : args) inputs.push_back(std::holds_alternative<Tensor>(v) ? std::get<Tensor>(v) : Tensor());

    was_error = c.contains("error");
    const bool int_return = !s.returns.empty() && s.returns[0].type.base != ArgBase::Tensor;
    try {
      std::optional<FakeTensorMode> fake;
      if (!real) fake.emplace();
      std::vector<Tensor> outs;
      std::vector<SymInt> ints;
      if (real && int_return && s.returns[0].type.base == ArgBase::Scalar) {
        // _local_scalar_dense on a real tensor: the op's real path is Tensor::item().
        if (was_error) {  // the op's own checks (element count) raise before any value is read
          (void)meta_of(op, args);
          return {false, "PyTorch raised; we would read the value"};
        }
        const double v = std::get<Tensor>(args[0]).item();
        const json& w = c.at("out").at(0);
        const double want = w.contains("bool") ? (w["bool"].get<bool>() ? 1.0 : 0.0)
                            : w.contains("int") ? static_cast<double>(w["int"].get<int64_t>())
                                                : decode_float(w.at("float"));
        if (!(v == want || (std::isnan(v) && std::isnan(want))))
          return {false, "value: want " + w.dump() + ", got " + std::to_string(v)};
        return {};
      }
      if (int_return) {
        ints = meta_of(op, args).ints;
      } else if (real && s.returns.empty() && op.cpu) {
        // An output-less side-effect op (_assert_async.msg, _print): dispatch checks its arguments
        // only; on real tensors its kernel runs, as `run` runs it.
        outs = dispatch(op, args, SrcLocArg::current());
        op.cpu(op, args, std::span<Tensor>{});
      } else {
        outs = dispatch(op, args, SrcLocArg::current());
      }
      if (was_error)
        return {false, "PyTorch raised " + c["error"]["type"].get<std::string>() + ": " +
                           first_line(c["error"]["msg"]) + "\n      we returned normally"};
      return compare_outputs(c.at("out"), outs, ints, inputs);
    } catch (const UserError& e) {
      if (!was_error) return {false, std::string("PyTorch succeeded; we raised: ") + e.what()};
      return compare_error(op, c.at("error"), e, verbatim);
    } catch (const std::exception& e) {
      return {false, std::string("internal error (not a user error): ") + e.what()};
    }
  }

  Outcome compare_outputs(const json& want, const std::vector<Tensor>& outs, const std::vector<SymInt>& ints,
                          const std::vector<Tensor>& inputs) {
    size_t ti = 0, ii = 0;
    for (size_t k = 0; k < want.size(); ++k) {
      const json& w = want[k];
      if (w.contains("int")) {
        if (ii >= ints.size()) return {false, "missing int output " + std::to_string(k)};
        if (ints[ii].expect_int() != w["int"].get<int64_t>())
          return {false, "int output " + std::to_string(k) + ": want " + w["int"].dump() + ", got " +
                             std::to_string(ints[ii].expect_int())};
        ++ii;
        continue;
      }
      if (!w.contains("sizes")) return {false, "unsupported output kind " + w.dump()};
      if (ti >= outs.size())
        return {false, "PyTorch returned " + std::to_string(want.size()) + " outputs, we " + std::to_string(outs.size())};
      const Tensor& got = outs[ti++];
      TensorMeta exp = decode_meta(w);
      const TensorMeta& g = got.meta();
      if (exp.sizes != g.sizes || exp.strides != g.strides || exp.storage_offset != g.storage_offset ||
          exp.dtype != g.dtype || exp.device != g.device)
        return {false, "output " + std::to_string(k) + ": want " + meta_str(exp) + "\n      got  " + meta_str(g)};
      if (w.contains("values")) {
        Outcome v = compare_values(k, w["values"], got);
        if (!v.ok) return v;
      }
      // Aliasing is FakeTensorMode's contract; eager kernels (value calls) sometimes copy where the
      // fake-mode decomposition aliases (native_dropout in eval mode).
      if (w.contains("values")) continue;
      const int alias = w.value("alias", -1);
      if (w.value("is_self", false)) {
        if (!got.is_same(inputs[0])) return {false, "output " + std::to_string(k) + " must be self itself"};
        continue;
      }
      auto base_of = [](const Tensor& t) { return t.impl()->view_base ? t.impl()->view_base.get() : t.impl(); };
      if (alias >= 0) {
        if (!inputs[alias].defined() || base_of(got) != base_of(inputs[alias]))
          return {false, "output " + std::to_string(k) + " must be a view of argument " + std::to_string(alias)};
      } else {
        for (size_t i = 0; i < inputs.size(); ++i)
          if (inputs[i].defined() && base_of(got) == base_of(inputs[i]))
            return {false, "output " + std::to_string(k) + " must be a new tensor, not a view of argument " +
                               std::to_string(i)};
      }
    }
    if (ti != outs.size())
      return {false, "PyTorch returned " + std::to_string(want.size()) + " outputs, we " + std::to_string(outs.size())};
    return {};
  }

  /// Values in row-major order; floats within a tolerance for their dtype, NaN equal to NaN.
  Outcome compare_values(size_t k, const json& want, const Tensor& got) {
    const TensorMeta& m = got.meta();
    const int64_t n = m.numel().expect_int();
    if (static_cast<int64_t>(want.size()) != n) return {false, "value count differs"};
    double rtol = 0, atol = 0;
    switch (m.dtype) {
      case DType::Float64: rtol = 1e-9; atol = 1e-9; break;
      case DType::Float32: rtol = 1e-5; atol = 1e-5; break;
      case DType::Float16: rtol = 1e-3; atol = 1e-3; break;
      case DType::BFloat16: rtol = 1e-2; atol = 1e-2; break;
      default: break;
    }
    const std::byte* base = static_cast<const std::byte*>(got.data_ptr());
    std::vector<int64_t> idx(m.dim(), 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t off = 0;
      for (int64_t d = 0; d < m.dim(); ++d) off += idx[d] * m.strides[d].expect_int();
      const double g = detail::load(base + off * itemsize(m.dtype), m.dtype);
      const double w = want[e].is_boolean() ? (want[e].get<bool>() ? 1.0 : 0.0) : decode_float(want[e]);
      const bool same = (std::isnan(w) && std::isnan(g)) || g == w || std::fabs(g - w) <= atol + rtol * std::fabs(w);
      if (!same)
        return {false, "output " + std::to_string(k) + " value " + std::to_string(e) + ": want " + want[e].dump() +
                           ", got " + std::to_string(g)};
      for (int64_t d = m.dim(); d-- > 0;) {
        if (++idx[d] < m.sizes[d].expect_int()) break;
        idx[d] = 0;
      }
    }
    return {};
  }

  /// The meta function over the arguments' metadata (defaults filled in).
  static MetaOut meta_of(const OpDef& op, std::vector<IValue>& args) {
    complete_args(op, args);
    std::vector<MetaValue> margs;
    for (const IValue& v : args)
      margs.push_back(map_tensors<const TensorMeta*>(v, [](const Tensor& t) { return t.defined() ? &t.meta() : nullptr; }));
    MetaOut mo;
    run_meta(op, margs, mo);
    return mo;
  }

  Outcome compare_error(const OpDef& op, const json& want, const UserError& e, bool& verbatim) {
    const std::string type = want.at("type");
    const std::string pmsg = want.at("msg");
    const std::string ours = e.what();
    const std::string label = op.schema.ns + "::" + op.schema.name;
    if (ours.rfind(label, 0) != 0) return {false, "our message must start with '" + label + "': " + ours};
    if (type == "IndexError" && !dynamic_cast<const fe::IndexError*>(&e))
      return {false, "PyTorch raised IndexError, we " + std::string(ours)};
    if ((type.find("DataDependent") != std::string::npos || type == "DynamicOutputShapeException") &&
        !dynamic_cast<const DataDependentError*>(&e))
      return {false, "PyTorch raised " + type + " (data-dependent), we: " + ours};
    const std::string body = strip_prefix(ours);
    const auto want_nums = numbers_in(first_line(pmsg));
    const auto got_nums = numbers_in(body);
    if (!is_subsequence(want_nums, got_nums))
      return {false, "error numbers differ\n      PyTorch " + type + ": " + first_line(pmsg) + "\n      ours: " + ours};
    verbatim = body.find(first_line(pmsg)) != std::string::npos;
    return {};
  }

  int run_file(const std::filesystem::path& path, std::map<std::string, std::pair<int, int>>& coverage) {
    std::ifstream in(path);
    json fx = json::parse(in);
    const std::string family = fx.at("family");
    if (!opt_.family.empty() && family != opt_.family) return 0;
    Stats st;
    int shown = 0;
    auto fail = [&](const std::string& what) {
      ++st.failed;
      if (opt_.verbose || shown++ < 15) std::cout << "  FAIL " << what << "\n";
    };
    // Schema text must equal PyTorch's.
    for (auto it = fx["schemas"].begin(); it != fx["schemas"].end(); ++it) {
      if (!opt_.op.empty() && it.key() != opt_.op) continue;
      const OpDef* op = registry().find(it.key());
      if (!op) {
        fail(it.key() + ": not in our registry");
        continue;
      }
      if (op->schema.str() != it.value().get<std::string>())
        fail(it.key() + ": schema differs\n      PyTorch: " + it.value().get<std::string>() + "\n      ours:    " +
             op->schema.str());
      else
        ++st.passed;
    }
    size_t idx = 0;
    for (const json& c : fx.at("calls")) {
      ++idx;
      const std::string name = c.at("op");
      if (!opt_.op.empty() && name != opt_.op) continue;
      const OpDef* op = registry().find(name);
      if (!op) continue;  // reported once above
      bool was_error = false, verbatim = false;
      Outcome o;
      try {
        o = run_call(*op, c, was_error, verbatim);
      } catch (const std::exception& e) {
        o = {false, std::string("harness: ") + e.what()};
      }
      auto& cov = coverage[name];
      (was_error ? cov.second : cov.first)++;
      if (was_error) {
        ++st.errors;
        if (verbatim) ++st.verbatim;
      }
      if (o.ok) {
        ++st.passed;
      } else {
        std::string argsd = c.at("args").dump();
        if (c.contains("kwargs")) argsd += " " + c["kwargs"].dump();
        if (argsd.size() > 400) argsd = argsd.substr(0, 400) + "...";
        fail(name + " #" + std::to_string(idx) + " " + argsd + "\n      " + o.why);
      }
    }
    std::cout << family << ": " << st.passed << " passed, " << st.failed << " failed (" << st.errors
              << " error calls, " << st.verbatim << " with PyTorch's message verbatim)\n";
    total_.passed += st.passed;
    total_.failed += st.failed;
    return st.failed;
  }

  int run() {
    if (opt_.list_ops) {
      for (const OpDef* op : registry().all()) std::cout << op->qualified << "\n";
      return 0;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(opt_.dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::map<std::string, std::pair<int, int>> coverage;
    for (const auto& f : files) run_file(f, coverage);
    // Coverage: every registered op has calls that succeed and calls that fail.
    if (opt_.family.empty() && opt_.op.empty()) {
      int missing = 0;
      // The fused CUDA attention ops run on CUDA only (the CPU oracle cannot call them): their metas
      // are checked against the metadata PyTorch recorded in archives it wrote on a GPU
      // (tests/test_pt2_cuda.cpp, tests/fixtures/cuda/pt2).
      static const std::set<std::string> kCudaOnly = {"aten::_scaled_dot_product_cudnn_attention.default",
                                                       "aten::_scaled_dot_product_flash_attention.default",
                                                       "aten::_scaled_dot_product_efficient_attention.default"};
      int cuda_only = 0;
      for (const OpDef* op : registry().all()) {
        if (kCudaOnly.count(op->qualified)) {
          ++cuda_only;
          continue;
        }
        auto it = coverage.find(op->qualified);
        const int ok = it == coverage.end() ? 0 : it->second.first;
        const int err = it == coverage.end() ? 0 : it->second.second;
        if (ok == 0 || err == 0) {
          ++missing;
          std::cout << "  FAIL coverage: " << op->qualified << " has " << ok << " sample and " << err
                    << " error calls in the fixtures\n";
        }
      }
      std::cout << "coverage: " << registry().all().size() - missing - cuda_only << " of " << registry().all().size()
                << " registered ops have sample and error calls (" << cuda_only
                << " CUDA-only ops are checked against PyTorch's CUDA archives instead)\n";
      total_.failed += missing;
      total_.passed += static_cast<int>(registry().all().size()) - missing - cuda_only;
    }
    std::cout << total_.passed << " passed, " << total_.failed << " failed\n";
    return total_.failed == 0 ? 0 : 1;
  }

 private:
  Options opt_;
  Stats total_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--fixtures") o.dir = next();
    else if (a == "--family") o.family = next();
    else if (a == "--op") o.op = next();
    else if (a == "--verbose" || a == "-v") o.verbose = true;
    else if (a == "--list-ops") o.list_ops = true;
    else {
      std::cerr << "usage: fakeexport_conformance [--fixtures DIR] [--family F] [--op aten::x.y] [--verbose] [--list-ops]\n";
      return 2;
    }
  }
  try {
    return Runner(o).run();
  } catch (const std::exception& e) {
    std::cerr << "fakeexport_conformance: " << e.what() << "\n";
    return 2;
  }
}
