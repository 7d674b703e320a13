#include "kernels/cudnn_layout.h"

#include <algorithm>

#include "kernels/cuda_check.h"

namespace lcab::kernels {
namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8;

// One 32 x 32 tile per block through padded shared memory (coalesced reads and writes); blocks stride over row
// tiles so that any number of rows fits the grid.
__global__ void transpose_kernel(const float* in, float* out, int64_t rows, int64_t cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int64_t matrix = static_cast<int64_t>(blockIdx.z) * rows * cols;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * kTile;
  for (int64_t r0 = static_cast<int64_t>(blockIdx.y) * kTile; r0 < rows;
       r0 += static_cast<int64_t>(gridDim.y) * kTile) {
    for (int dy = static_cast<int>(threadIdx.y); dy < kTile; dy += kTileRows) {
      const int64_t r = r0 + dy;
      const int64_t c = c0 + threadIdx.x;
      if (r < rows && c < cols) tile[dy][threadIdx.x] = in[matrix + r * cols + c];
    }
    __syncthreads();
    for (int dy = static_cast<int>(threadIdx.y); dy < kTile; dy += kTileRows) {
      const int64_t c = c0 + dy;
      const int64_t r = r0 + threadIdx.x;
      if (r < rows && c < cols) out[matrix + c * rows + r] = tile[threadIdx.x][dy];
    }
    __syncthreads();
  }
}

}  // namespace

void transpose_batched_f32(const float* in, float* out, int64_t batch, int64_t rows, int64_t cols,
                           cudaStream_t stream) {
  if (batch <= 0 || rows <= 0 || cols <= 0) return;
  const int64_t col_tiles = (cols + kTile - 1) / kTile;
  const int64_t row_tiles = std::min<int64_t>((rows + kTile - 1) / kTile, 65535);
  LCAB_CHECK(col_tiles <= 0x7fffffff && batch <= 65535,
             "transpose of " << batch << " x " << rows << " x " << cols << " floats does not fit one grid");
  const dim3 grid(static_cast<unsigned>(col_tiles), static_cast<unsigned>(row_tiles), static_cast<unsigned>(batch));
  transpose_kernel<<<grid, dim3(kTile, kTileRows), 0, stream>>>(in, out, rows, cols);
  LCAB_CUDA_CHECK_LAUNCH();
}

}  // namespace lcab::kernels
