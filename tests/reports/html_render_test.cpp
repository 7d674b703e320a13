// Renders the HTML report in headless Chromium and checks that the screenshot shows a report, not a blank
// page. Skipped where Chromium is absent (scripts/setup.sh installs Debian's chromium).
//
// The check decodes the PNG (png_pixels.h) and requires: the requested size; a white-ish dominant background;
// at least 2% of the pixels differing from it (text, axes, tables); at least 32 distinct colours
// (anti-aliased text and lines); and at least 40 pixels close to the palette's first colour (#0072B2), which
// only the SVG figures use, so that a page whose figures failed to draw fails.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "png_pixels.h"
#include "report_fixtures.h"
#include "reports/report_builder.h"
#include "reports/report_writer.h"

namespace lcab::report {
namespace {

std::string find_chromium() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string dirs = path;
  for (size_t begin = 0; begin <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', begin), dirs.size());
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::filesystem::path candidate = std::filesystem::path(dirs.substr(begin, end - begin)) / name;
      if (std::filesystem::exists(candidate)) return candidate.string();
    }
    begin = end + 1;
  }
  return "";
}

TEST(HtmlRender, ChromiumScreenshotIsNotBlank) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium not found on PATH (scripts/setup.sh installs it)";
  const std::string dir = testing::scratch_directory();
  write_report(build_report(testing::fixture_records(), ReportOptions{}, nullptr), dir + "/report");
  const std::string png = dir + "/shot.png";
  constexpr int kWidth = 1400, kHeight = 1000;
  const std::string command = "timeout 120 '" + chromium +
                              "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                              "--disable-background-networking --disable-component-update --disable-sync "
                              "--hide-scrollbars --user-data-dir='" + dir + "/profile' --screenshot='" + png +
                              "' --window-size=" + std::to_string(kWidth) + "," + std::to_string(kHeight) +
                              " 'file://" + dir + "/report/index.html' > '" + dir + "/chromium.log' 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(std::filesystem::exists(png)) << "chromium wrote no screenshot (exit status " << status << "); see "
                                            << dir << "/chromium.log";
  const testing::RgbImage image = testing::decode_png(png);
  EXPECT_EQ(image.width, kWidth);
  EXPECT_EQ(image.height, kHeight);

  std::map<std::array<uint8_t, 3>, size_t> histogram;
  for (const auto& p : image.pixels) ++histogram[p];
  auto background = histogram.begin();
  for (auto it = histogram.begin(); it != histogram.end(); ++it) {
    if (it->second > background->second) background = it;
  }
  const auto& bg = background->first;
  EXPECT_GE(bg[0] + bg[1] + bg[2], 3 * 230) << "the page background is not white";
  const double foreground_share = 1.0 - static_cast<double>(background->second) / static_cast<double>(image.pixels.size());
  EXPECT_GT(foreground_share, 0.02) << "the screenshot is (nearly) one colour";
  EXPECT_GE(histogram.size(), 32u) << "too few colours for text and figures";
  size_t palette_blue = 0;
  for (const auto& [colour, n] : histogram) {
    const int dr = colour[0] - 0x00, dg = colour[1] - 0x72, db = colour[2] - 0xB2;
    if (dr * dr + dg * dg + db * db < 30 * 30) palette_blue += n;
  }
  EXPECT_GE(palette_blue, 40u) << "no figure line or marker in the palette's blue was drawn";
}

}  // namespace
}  // namespace lcab::report
