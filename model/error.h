// lcab::Error and the throwing check macros used across the project.
//
// Library code never exits: it throws lcab::Error carrying the failed check, a message, the file, line and
// function. Only main() turns an Error into an exit code (see apps/).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace lcab {

/// The single exception type of lcab. what() is a one-line, human-readable message that already names the
/// failed call or condition and where it was raised.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {
[[noreturn]] void throw_error(const std::string& what, const char* file, int line, const char* function);
}  // namespace detail

}  // namespace lcab

/// Throw lcab::Error with a message built from stream insertions: LCAB_THROW("bad S " << s).
#define LCAB_THROW(message_stream)                                                          \
  do {                                                                                      \
    std::ostringstream lcab_error_stream_;                                                  \
    lcab_error_stream_ << message_stream;                                                   \
    ::lcab::detail::throw_error(lcab_error_stream_.str(), __FILE__, __LINE__, __func__);    \
  } while (0)

/// Throw when cond is false. The message is what the user reads: say what was wrong and what is valid.
#define LCAB_CHECK(cond, message_stream) \
  do {                                   \
    if (!(cond)) LCAB_THROW(message_stream); \
  } while (0)
