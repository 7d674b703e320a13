#include "model/line_reader.h"

#include <zlib.h>

#include <filesystem>

#include "model/error.h"

namespace lcab {

std::string stored_path(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::exists(path, ignored)) return path;
  const std::string compressed = path + ".gz";
  if (std::filesystem::exists(compressed, ignored)) return compressed;
  return path;
}

LineReader::LineReader(const std::string& path) : path_(stored_path(path)) {
  file_ = gzopen(path_.c_str(), "rb");
  LCAB_CHECK(file_ != nullptr, "cannot open '" << path << "'" << (path_ == path ? " (nor '" + path + ".gz')" : ""));
  gzbuffer(static_cast<gzFile>(file_), 1 << 17);
}

LineReader::~LineReader() {
  if (file_) gzclose(static_cast<gzFile>(file_));
}

bool LineReader::next(std::string& line) {
  line.clear();
  char chunk[1 << 14];
  gzFile f = static_cast<gzFile>(file_);
  while (gzgets(f, chunk, sizeof chunk) != nullptr) {
    line += chunk;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      return true;
    }
  }
  int code = Z_OK;
  const char* message = gzerror(f, &code);
  LCAB_CHECK(code == Z_OK, "reading '" << path_ << "' failed: " << message);  // Z_BUF_ERROR: a truncated stream
  return !line.empty();  // a last line without '\n'
}

}  // namespace lcab
