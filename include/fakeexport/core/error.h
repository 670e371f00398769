// Two tiers of error, as in c10: user errors (bad input; typed, message built only on failure)
// and internal errors (a bug in fakeexport). Neither ever aborts.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace fe {

/// Base of every exception fakeexport throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The caller did something wrong: bad shape, dtype, device, argument, file.
class UserError : public Error {
 public:
  using Error::Error;
};
/// Tensors of one op live on different devices.
class DeviceMismatchError : public UserError { using UserError::UserError; };
/// Data of a fake tensor was read (item(), data_ptr(), printing values).
class DataAccessError : public UserError { using UserError::UserError; };
/// Sizes/strides incompatible with the op.
class ShapeError : public UserError { using UserError::UserError; };
/// A dtype the op does not accept, or a promotion/cast that is not allowed.
class DTypeError : public UserError { using UserError::UserError; };
/// An operator name or overload not in the registry, or an op with no kernel for the request.
class UnknownOpError : public UserError { using UserError::UserError; };
/// An argument value of the wrong kind or out of range.
class ValueError : public UserError { using UserError::UserError; };
/// A dim or index outside its range (Python's IndexError).
class IndexError : public UserError { using UserError::UserError; };
/// A fake tensor's data was needed to decide a shape or a value (`item()`, boolean masks).
class DataDependentError : public UserError { using UserError::UserError; };
/// dynamic_shapes promised more than the program allows (specialized or related dims, narrower ranges).
class ConstraintViolationError : public UserError { using UserError::UserError; };
/// A real (non-fake) tensor requested on a device this machine cannot compute on.
class DeviceUnavailableError : public UserError { using UserError::UserError; };
/// A file whose bytes break its format (safetensors, .pt2, pickle): the message names the file,
/// the entry, the field and the offending values.
class FormatError : public UserError { using UserError::UserError; };
/// A file that cannot be opened, mapped, read or written (the message carries strerror).
class FileIOError : public UserError { using UserError::UserError; };
/// An input asks for more than a resource limit allows (layers, bytes of JSON): the message names
/// the field, its value, the limit and the flag that raises it. Checked before memory grows.
class LimitError : public UserError { using UserError::UserError; };

/// A broken invariant inside fakeexport: always a bug of ours, never the user's.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
template <class... Args>
std::string cat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}
[[noreturn]] void throw_internal(const char* cond, const char* file, int line, const std::string& msg);
}  // namespace detail

/// Re-throws `e` as its own type with `prefix` before its message (callers catch by type).
[[noreturn]] void rethrow_with_prefix(const Error& e, const std::string& prefix);
/// Re-throws `e` as its own type with `message` instead of its own.
[[noreturn]] void rethrow_as(const Error& e, const std::string& message);

}  // namespace fe

/// User-error check: throws ErrType with the concatenated message, formatted only on failure.
#define FE_CHECK(cond, ErrType, ...)                          \
  do {                                                        \
    if (!(cond)) [[unlikely]]                                 \
      throw ErrType(::fe::detail::cat(__VA_ARGS__));          \
  } while (0)

/// Internal invariant: a failure is a fakeexport bug (InternalError with file and line).
#define FE_INTERNAL_ASSERT(cond, ...)                                                      \
  do {                                                                                     \
    if (!(cond)) [[unlikely]]                                                              \
      ::fe::detail::throw_internal(#cond, __FILE__, __LINE__, ::fe::detail::cat(__VA_ARGS__)); \
  } while (0)
