// The cudnn attention implementation (make_cudnn_attention in kernels/implementations.h): cuDNN's fused flash
// attention through the backend graph API (kernels/cudnn_graph.h), built when CMake finds cuDNN.
//
// Masks (model/cudnn_mask.h): full; causal (bottom-right aligned as lcab's, top-left == bottom-right for
// self-attention); sliding windows (cuDNN's left/right diagonal bounds); documents (one band per packed document)
// as a ragged batch, each document a sequence of its own length. Anything else is "unsupported", as are features
// the loaded cuDNN lacks: the library version is read at run time (cudnnGetVersion), since GPU machines may load
// an older cuDNN 9 than the headers the build saw.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/attention.h"

namespace lcab::kernels {

/// cudnnGetVersion() of the loaded library (e.g. 91900 for 9.19.0).
int64_t cudnn_runtime_version();
/// CUDNN_VERSION of the headers lcab was built with.
int64_t cudnn_compiled_version();
/// "9.19.0" from 91900.
std::string cudnn_version_string(int64_t version);

/// cudnn with ragged offsets stored as int64 once they pass largest_int32_offset (make_cudnn_attention: 2^31 - 1);
/// tests pass 0 to run the int64 path at small sizes.
std::unique_ptr<AttentionImpl> make_cudnn_attention_with_int32_offsets_up_to(int64_t largest_int32_offset);

}  // namespace lcab::kernels
