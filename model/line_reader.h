#pragma once
// Reading text files line by line whether they are stored plain or gzip-compressed. Large measurement files are
// committed as NAME.jsonl.gz (byte-identical to what the run wrote once decompressed); every reader of records goes
// through this, so that a path given as NAME.jsonl (in a README command, a profile's provenance) still reads when
// only NAME.jsonl.gz is stored.
#include <string>

namespace lcab {

/// The file that holds `path`: `path` itself when it exists, else `path` + ".gz" when that exists, else `path`
/// (so that the caller's error names what was asked for).
std::string stored_path(const std::string& path);

/// Reads lines from a plain or gzip-compressed file (zlib decides by the file's first bytes).
class LineReader {
 public:
  /// Opens stored_path(path); throws lcab::Error naming both candidates when neither can be opened.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its '\n' (of any length); false at the end of the file. Throws lcab::Error on a read error
  /// (a truncated or corrupt compressed file).
  bool next(std::string& line);
  /// The file actually read.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* file_ = nullptr;  // gzFile
};

}  // namespace lcab
