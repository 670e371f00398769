// Checking real inputs against an exported program's input specs: static sizes, symbols bound
// consistently, derived sizes, and the range constraints (PyTorch's "Guard failed: ..." checks,
// plus rank/dtype/device, which PyTorch 2.14's ep.module() does not check).
#include <map>
#include <regex>

#include "fakeexport/core/error.h"
#include "fakeexport/export/exported_program.h"

namespace fe {
namespace {

std::string size_src(const std::string& input, size_t d) { return input + ".size()[" + std::to_string(d) + "]"; }

/// "2 * x.size()[0]": the expression with symbols named by the input dims that define them.
std::string source_expr(const sym::Expr& e, const std::map<std::string, std::string>& src) {
  std::string s = e.str();
  for (const auto& [sym, name] : src) s = std::regex_replace(s, std::regex("\\b" + sym + "\\b"), name);
  return std::regex_replace(s, std::regex("\\*"), " * ");
}

}  // namespace

void check_inputs(const ExportedProgram& ep, const std::vector<Tensor>& inputs) {
  std::vector<const Node*> user;
  auto phs = ep.graph.placeholders();
  for (size_t i = 0; i < phs.size(); ++i)
    if (ep.signature.inputs[i].kind == InputKind::UserInput && !ep.signature.inputs[i].constant) user.push_back(phs[i]);
  FE_CHECK(inputs.size() == user.size(), ValueError, "exported program: expected ", user.size(),
           " inputs but got ", inputs.size());
  std::map<std::string, int64_t> value;     // symbol -> bound value
  std::map<std::string, std::string> src;   // symbol -> "x.size()[0]"
  struct Pending {
    std::string where;
    sym::Expr e;
    int64_t got;
  };
  std::vector<Pending> pending;
  for (size_t i = 0; i < user.size(); ++i) {
    const std::string& name = user[i]->target_name();
    const TensorMeta& want = user[i]->val[0];
    FE_CHECK(inputs[i].defined(), ValueError, "exported program: input '", name, "' is an undefined tensor");
    const TensorMeta& got = inputs[i].meta();
    FE_CHECK(got.dim() == want.dim(), ShapeError, "exported program: input '", name, "' has ", got.dim(),
             " dims (", got.annotation(), ") but the program takes ", want.annotation());
    FE_CHECK(got.dtype == want.dtype && got.device == want.device, DTypeError, "exported program: input '", name,
             "' is ", got.annotation(), " on ", got.device.str(), " but the program takes ", want.annotation(), " on ",
             want.device.str());
    for (size_t d = 0; d < want.sizes.size(); ++d) {
      const int64_t v = got.sizes[d].hint();
      const sym::Expr e = want.sizes[d].expr();
      if (e.is_constant()) {
        FE_CHECK(v == e.constant(), ShapeError, "Guard failed: ", size_src(name, d), " == ", e.constant(),
                 " (input '", name, "' has ", got.annotation(), ")");
      } else if (e.is_symbol() && !value.count(e.name())) {
        value[e.name()] = v;
        src[e.name()] = size_src(name, d);
      } else {
        pending.push_back({size_src(name, d), e, v});
      }
    }
  }
  for (const auto& [sym, v] : value) {
    for (const auto& [key, r] : ep.range_constraints) {
      if (key != sym) continue;
      FE_CHECK(v >= r.lo, ShapeError, "Guard failed: ", src[sym], " >= ", r.lo, " (got ", v, ")");
      FE_CHECK(r.hi == sym::kPosInf || v <= r.hi, ShapeError, "Guard failed: ", src[sym], " <= ", r.hi, " (got ", v,
               ")");
    }
  }
  for (const Pending& p : pending) {
    const int64_t want = p.e.evaluate([&](std::string_view s) {
      auto it = value.find(std::string(s));
      FE_INTERNAL_ASSERT(it != value.end(), "check_inputs: symbol ", s, " is bound by no input dim");
      return it->second;
    });
    FE_CHECK(p.got == want, ShapeError, "Guard failed: ", p.where, " == ", source_expr(p.e, src), " (got ", p.got,
             ", expected ", want, ")");
  }
}

}  // namespace fe
