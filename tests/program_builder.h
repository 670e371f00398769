// Programs built node by node for analysis tests (memory, cost): user inputs, calls whose output
// metadata the test gives, outputs. Nothing is traced or verified: the tests state the metadata.
#pragma once
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace fe_test {

/// A program built node by node: user input x, then calls whose metadata the test gives.
struct Builder {
  fe::ExportedProgram ep;
  fe::Node* input(const std::string& name, fe::TensorMeta m) {
    ep.signature.inputs.push_back({fe::InputKind::UserInput, name, ""});
    return ep.graph.placeholder(name, std::move(m));
  }
  fe::Node* call(const char* op, std::vector<fe::NodeArg> args, std::vector<fe::TensorMeta> val) {
    fe::Node* n = ep.graph.call(fe::op(op), std::move(args));
    n->val = std::move(val);
    return n;
  }
  void output(std::vector<fe::Node*> outs) {
    for (fe::Node* o : outs) ep.signature.outputs.push_back({fe::OutputKind::UserOutput, o->name(), ""});
    ep.graph.output(std::move(outs));
  }
};

inline fe::TensorMeta f32(std::vector<int64_t> sizes, fe::Device d = fe::kCPU) {
  std::vector<fe::SymInt> s(sizes.begin(), sizes.end());
  return fe::make_contiguous(s, fe::DType::Float32, d);
}

inline std::vector<fe::SymInt> syms(std::vector<int64_t> v) { return {v.begin(), v.end()}; }

}  // namespace fe_test
