#include "fakeexport/core/error.h"

namespace fe::detail {

void throw_internal(const char* cond, const char* file, int line, const std::string& msg) {
  throw InternalError(cat("Internal error (a fakeexport bug, please report): ", msg.empty() ? "" : msg + " ",
                          "[", cond, " failed at ", file, ":", line, "]"));
}

}  // namespace fe::detail

namespace fe {
namespace {
template <class E>
void rethrow_if(const Error& e, const std::string& msg) {
  if (dynamic_cast<const E*>(&e)) throw E(msg);
}

}  // namespace

[[noreturn]] void rethrow_with_prefix(const Error& e, const std::string& prefix) { rethrow_as(e, prefix + e.what()); }

[[noreturn]] void rethrow_as(const Error& e, const std::string& msg) {
  rethrow_if<DeviceMismatchError>(e, msg);
  rethrow_if<DataAccessError>(e, msg);
  rethrow_if<ShapeError>(e, msg);
  rethrow_if<DTypeError>(e, msg);
  rethrow_if<UnknownOpError>(e, msg);
  rethrow_if<ValueError>(e, msg);
  rethrow_if<IndexError>(e, msg);
  rethrow_if<DataDependentError>(e, msg);
  rethrow_if<ConstraintViolationError>(e, msg);
  rethrow_if<DeviceUnavailableError>(e, msg);
  rethrow_if<FormatError>(e, msg);
  rethrow_if<FileIOError>(e, msg);
  rethrow_if<UserError>(e, msg);
  rethrow_if<InternalError>(e, msg);
  throw Error(msg);
}

}  // namespace fe
