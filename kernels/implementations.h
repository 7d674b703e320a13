// Factories of the built-in attention implementations (registered by register_all in registry.cpp).
#pragma once

#include <memory>

#include "kernels/attention.h"

namespace lcab::kernels {

/// lcab_flash: tensor-core kernels driven by host-built work lists (any slice mask); TMA + wgmma on Hopper.
std::unique_ptr<AttentionImpl> make_flash_attention();
/// lcab_flash_sm80: lcab_flash held to its mma.sync kernels on every GPU (so that path stays tested and timed).
std::unique_ptr<AttentionImpl> make_flash_attention_mma_sync();
/// naive: cuBLAS GEMMs and a masked softmax kernel, materializing S x S per head (the GPU reference).
std::unique_ptr<AttentionImpl> make_naive_attention();
/// cudnn: cuDNN's fused flash attention through the backend graph API (built only where CMake found cuDNN 9).
std::unique_ptr<AttentionImpl> make_cudnn_attention();

}  // namespace lcab::kernels
