// Test helper: whether a text is well-formed XML, by Expat (Debian's libexpat1-dev).
#pragma once

#include <string>

namespace lcab::report::testing {

/// "" when well-formed, otherwise Expat's message with line and column.
std::string xml_problem(const std::string& text);

}  // namespace lcab::report::testing
