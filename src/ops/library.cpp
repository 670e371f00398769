// Custom operators (fakeexport/library.h): user ops enter the one registry next to the built-in
// families, so nothing downstream (tracer, printer, serde, verifier, run) treats them specially.
#include "fakeexport/library.h"

#include <dlfcn.h>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/schema.h"
#include "ops/meta_util.h"

namespace fe::library {

const OpDef& define(std::string_view schema, MetaFn meta, KernelFn cpu) {
  FE_CHECK(meta, ValueError, "define '", schema, "': a meta function is required (it is how export sees the op)");
  FunctionSchema s;
  try {
    s = parse_schema(schema);
  } catch (const Error& e) {
    throw ValueError(detail::cat("define: cannot parse schema '", schema, "': ", e.what()));
  }
  FE_CHECK(s.ns != "aten" && s.ns != "prims" && s.ns != "higher_order" && !s.ns.empty(), ValueError, "define '", schema,
           "': the namespace '", s.ns, "' is PyTorch's own; use your library's (mylib::op)");
  FE_CHECK(!registry().find(s.qualified_name()), ValueError, "define '", schema, "': ", s.qualified_name(),
           " is already defined");
  const std::string text(schema);  // OpDecl holds a C string for the declaration's duration only
  return mutable_registry().add({text.c_str(), meta, cpu});
}

std::vector<Tensor> call(const OpDef& op, std::vector<IValue> args, SrcLocArg loc) {
  return dispatch(op, std::move(args), loc);
}

TensorMeta empty_like(const TensorMeta& x) {
  TensorMeta m = x;
  m.strides = ops::dense_or_sorted_strides(x);
  m.storage_offset = 0;
  m.requires_grad = false;
  return m;
}

void load(const std::string& path) {
  registry();  // built-in ops first: a library's ops must not shadow them
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    const char* why = dlerror();
    throw FileIOError(detail::cat("--load-library ", path, ": cannot load: ", why ? why : "unknown error"));
  }
}

}  // namespace fe::library
