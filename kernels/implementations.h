// Factories of the built-in attention implementations (registered by register_all in registry.cpp).
#pragma once

#include <memory>

#include "kernels/attention.h"

namespace lcab::kernels {

/// lcab_flash: FlashAttention-2-style tensor-core kernels driven by host-built work lists (any slice mask).
std::unique_ptr<AttentionImpl> make_flash_attention();
/// naive: cuBLAS GEMMs and a masked softmax kernel, materializing S x S per head (the GPU reference).
std::unique_ptr<AttentionImpl> make_naive_attention();

}  // namespace lcab::kernels
