// Checks for CUDA runtime and NCCL calls in cp/: a failed call throws lcab::Error naming the call, the
// library's error string, file and line (model/error.h). Only for .cu files of cp/.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include "model/error.h"

#define LCAB_CP_CUDA_CHECK(call)                                                                  \
  do {                                                                                            \
    const cudaError_t lcab_cp_status_ = (call);                                                   \
    if (lcab_cp_status_ != cudaSuccess)                                                           \
      LCAB_THROW(#call << " failed: " << cudaGetErrorName(lcab_cp_status_) << ": "                \
                       << cudaGetErrorString(lcab_cp_status_));                                   \
  } while (0)

#define LCAB_CP_NCCL_CHECK(call)                                                                  \
  do {                                                                                            \
    const ncclResult_t lcab_cp_status_ = (call);                                                  \
    if (lcab_cp_status_ != ncclSuccess)                                                           \
      LCAB_THROW(#call << " failed: " << ncclGetErrorString(lcab_cp_status_) << " ("              \
                       << ncclGetLastError(nullptr) << ")");                                      \
  } while (0)
