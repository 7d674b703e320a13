#include "png_pixels.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <zlib.h>

namespace lcab::report::testing {
namespace {

uint32_t big_endian_u32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return static_cast<uint8_t>(a);
  return static_cast<uint8_t>(pb <= pc ? b : c);
}

}  // namespace

RgbImage decode_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 8 || !std::equal(signature, signature + 8, bytes.begin())) {
    throw std::runtime_error(path + " is not a PNG file");
  }
  int width = 0, height = 0, channels = 0;
  std::vector<uint8_t> compressed;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t length = big_endian_u32(&bytes[at]);
    const std::string type(bytes.begin() + static_cast<std::ptrdiff_t>(at + 4),
                           bytes.begin() + static_cast<std::ptrdiff_t>(at + 8));
    if (at + 12 + length > bytes.size()) throw std::runtime_error(path + ": truncated chunk " + type);
    const uint8_t* data = &bytes[at + 8];
    if (type == "IHDR") {
      width = static_cast<int>(big_endian_u32(data));
      height = static_cast<int>(big_endian_u32(data + 4));
      const int bit_depth = data[8], colour_type = data[9], interlace = data[12];
      if (bit_depth != 8 || interlace != 0) throw std::runtime_error(path + ": only 8-bit non-interlaced PNG");
      switch (colour_type) {
        case 0: channels = 1; break;
        case 2: channels = 3; break;
        case 4: channels = 2; break;
        case 6: channels = 4; break;
        default: throw std::runtime_error(path + ": unsupported PNG colour type " + std::to_string(colour_type));
      }
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (width <= 0 || height <= 0 || channels == 0) throw std::runtime_error(path + ": no image header");
  const size_t stride = static_cast<size_t>(width) * static_cast<size_t>(channels);
  std::vector<uint8_t> raw((stride + 1) * static_cast<size_t>(height));
  uLongf raw_size = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &raw_size, compressed.data(), static_cast<uLong>(compressed.size())) != Z_OK ||
      raw_size != raw.size()) {
    throw std::runtime_error(path + ": image data does not inflate to " + std::to_string(raw.size()) + " bytes");
  }
  // Undo the per-row filters (PNG specification, section 9).
  std::vector<uint8_t> image(stride * static_cast<size_t>(height));
  for (int y = 0; y < height; ++y) {
    const uint8_t filter = raw[static_cast<size_t>(y) * (stride + 1)];
    const uint8_t* src = &raw[static_cast<size_t>(y) * (stride + 1) + 1];
    uint8_t* row = &image[static_cast<size_t>(y) * stride];
    const uint8_t* up = y > 0 ? row - stride : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<size_t>(channels) ? row[x - static_cast<size_t>(channels)] : 0;
      const int b = up ? up[x] : 0;
      const int c = up && x >= static_cast<size_t>(channels) ? up[x - static_cast<size_t>(channels)] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: predictor = paeth(a, b, c); break;
        default: throw std::runtime_error(path + ": bad filter type " + std::to_string(filter));
      }
      row[x] = static_cast<uint8_t>(src[x] + predictor);
    }
  }
  RgbImage out;
  out.width = width;
  out.height = height;
  out.pixels.reserve(static_cast<size_t>(width) * static_cast<size_t>(height));
  for (size_t p = 0; p < image.size(); p += static_cast<size_t>(channels)) {
    if (channels <= 2) {
      out.pixels.push_back({image[p], image[p], image[p]});
    } else {
      out.pixels.push_back({image[p], image[p + 1], image[p + 2]});
    }
  }
  return out;
}

}  // namespace lcab::report::testing
