// Checked NCCL calls for cp/ and measure/: a failed call throws lcab::Error naming the call, NCCL's error string
// and its last error message, with file and line (model/error.h).
#pragma once

#include <nccl.h>

#include "model/error.h"

#define LCAB_NCCL_CHECK(call)                                                                     \
  do {                                                                                            \
    const ncclResult_t lcab_nccl_status_ = (call);                                                \
    if (lcab_nccl_status_ != ncclSuccess)                                                         \
      LCAB_THROW(#call << " failed: " << ncclGetErrorString(lcab_nccl_status_) << " ("            \
                       << ncclGetLastError(nullptr) << ")");                                      \
  } while (0)
