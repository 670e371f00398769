#include "fakeexport/core/error.h"

namespace fe::detail {

void throw_internal(const char* cond, const char* file, int line, const std::string& msg) {
  throw InternalError(cat("Internal error (a fakeexport bug, please report): ", msg.empty() ? "" : msg + " ",
                          "[", cond, " failed at ", file, ":", line, "]"));
}

}  // namespace fe::detail
