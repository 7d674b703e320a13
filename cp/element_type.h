// Element types of the tensors the CP executor allocates, moves and accumulates. Host-visible.
#pragma once

#include <cstdint>

namespace lcab::cp {

enum class ElementType : uint8_t { kBf16, kFp16, kFp32 };
inline int element_bytes(ElementType type) { return type == ElementType::kFp32 ? 4 : 2; }

}  // namespace lcab::cp
