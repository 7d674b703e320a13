// The MPI path of nccl_bootstrap.h, compiled only when lcab is built with MPI.
#include <mpi.h>

#include "measure/comm/nccl_bootstrap.h"
#include "cp/nccl_check.h"

namespace lcab::measure {

namespace {
struct MpiFinalizer {
  ~MpiFinalizer() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};
}  // namespace

ncclUniqueId share_unique_id_mpi(int rank) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    LCAB_CHECK(MPI_Init(nullptr, nullptr) == MPI_SUCCESS, "MPI_Init failed");
    static MpiFinalizer finalizer;
  }
  ncclUniqueId id{};
  if (rank == 0) LCAB_NCCL_CHECK(ncclGetUniqueId(&id));
  LCAB_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
             "MPI_Bcast of the NCCL unique id failed");
  return id;
}

}  // namespace lcab::measure
