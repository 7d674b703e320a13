// Test helper: decodes a PNG file (8-bit grey, grey+alpha, RGB or RGBA, not interlaced: what headless
// Chromium writes) into RGB pixels, with zlib for the compressed data.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lcab::report::testing {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::array<uint8_t, 3>> pixels;  ///< row-major, alpha dropped
};

/// Throws std::runtime_error describing what is wrong with the file (not a PNG, unsupported format, bad data).
RgbImage decode_png(const std::string& path);

}  // namespace lcab::report::testing
