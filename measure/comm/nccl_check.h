// Checked NCCL calls: a failure throws lcab::Error naming the call and NCCL's message.
#pragma once

#include <nccl.h>

#include "model/error.h"

#define LCAB_NCCL(call)                                                                                    \
  do {                                                                                                     \
    const ncclResult_t lcab_nccl_result_ = (call);                                                         \
    if (lcab_nccl_result_ != ncclSuccess) LCAB_THROW(#call << " failed: " << ncclGetErrorString(lcab_nccl_result_)); \
  } while (0)
