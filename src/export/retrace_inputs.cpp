#include "export/retrace_inputs.h"

#include <functional>
#include <string>
#include <unordered_map>

#include "fakeexport/core/error.h"

namespace fe::detail {

std::vector<size_t> retrace_input_order(const std::vector<InputSpec>& inputs) {
  auto is_state = [](const InputSpec& s) { return s.kind == InputKind::Buffer || s.kind == InputKind::ConstantTensor; };
  auto module_of = [](const std::string& t) { return t.substr(0, t.find_last_of('.') == std::string::npos ? 0 : t.find_last_of('.')); };
  // The module tree: children in order of first appearance.
  std::unordered_map<std::string, std::vector<std::string>> children;
  std::unordered_map<std::string, bool> seen{{"", true}};
  for (const InputSpec& s : inputs) {
    if (s.kind != InputKind::Parameter && !is_state(s)) continue;
    std::string m = module_of(s.target), prefix;
    size_t start = 0;
    while (!m.empty()) {
      const size_t dot = m.find('.', start);
      const std::string next = m.substr(0, dot);
      if (!seen[next]) {
        seen[next] = true;
        children[prefix].push_back(next);
      }
      prefix = next;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  std::vector<size_t> state_order;
  std::vector<std::string> preorder;
  std::function<void(const std::string&)> visit = [&](const std::string& m) {
    preorder.push_back(m);
    for (const std::string& c : children[m]) visit(c);
  };
  visit("");
  for (const std::string& m : preorder)
    for (size_t i = 0; i < inputs.size(); ++i)
      if (is_state(inputs[i]) && module_of(inputs[i].target) == m) state_order.push_back(i);
  std::vector<size_t> order;
  size_t next_state = 0;
  for (size_t i = 0; i < inputs.size(); ++i) order.push_back(is_state(inputs[i]) ? state_order[next_state++] : i);
  return order;
}

std::vector<OutputSpec> retraced_output_specs(const std::vector<InputSpec>& inputs,
                                              const std::vector<std::pair<size_t, std::string>>& mutated,
                                              const std::vector<OutputSpec>& outputs) {
  std::vector<OutputSpec> specs;
  for (const auto& [index, name] : mutated) {
    const InputSpec& in = inputs.at(index);
    OutputSpec o;
    o.name = name;
    switch (in.kind) {
      case InputKind::Buffer: o.kind = OutputKind::BufferMutation, o.target = in.target; break;
      case InputKind::Parameter: o.kind = OutputKind::ParameterMutation, o.target = in.target; break;
      case InputKind::UserInput: o.kind = OutputKind::UserInputMutation, o.target = in.name; break;
      default:
        throw UnknownOpError(cat("decompose: the program writes to input '", in.name, "' (",
                                 input_kind_name(in.kind), "), which is not retraced yet"));
    }
    specs.push_back(std::move(o));
  }
  specs.insert(specs.end(), outputs.begin(), outputs.end());
  return specs;
}

}  // namespace fe::detail
