#include "kernels/attention.h"
#include "kernels/implementations.h"

namespace lcab::kernels {

void register_all(AttentionRegistry& registry) {
  registry.add(make_flash_attention());
  registry.add(make_flash_attention_mma_sync());
  registry.add(make_naive_attention());
#ifdef LCAB_HAVE_CUDNN
  registry.add(make_cudnn_attention());
#endif
}

}  // namespace lcab::kernels
