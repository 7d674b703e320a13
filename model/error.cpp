#include "model/error.h"

#include <cstring>

namespace lcab::detail {

void throw_error(const std::string& what, const char* file, int line, const char* function) {
  const char* base = std::strrchr(file, '/');
  std::ostringstream out;
  out << what << " (" << (base ? base + 1 : file) << ":" << line << " in " << function << ")";
  throw Error(out.str());
}

}  // namespace lcab::detail
