#include "cp/launch.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/cuda_check.h"

#if LCAB_HAVE_MPI
#include <mpi.h>
#endif

namespace lcab::cp {
namespace {

std::optional<int> env_int(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  LCAB_CHECK(end && *end == '\0' && parsed >= 0, "environment variable " << name << "='" << value
                                                                         << "' is not a non-negative integer");
  return static_cast<int>(parsed);
}

CommUniqueId id_from_file(const LaunchEnvironment& env, const std::string& path, double timeout_s) {
  LCAB_CHECK(!path.empty(), "rank " << env.rank << " of " << env.world_size << " (" << env.launcher
                                    << ") needs the NCCL unique id: build with MPI, set NCCL_COMM_ID=host:port, "
                                       "or name a shared file with --nccl-id-file");
  CommUniqueId id;
  if (env.rank == 0) {
    id = new_unique_id();
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary);
      out.write(id.bytes.data(), static_cast<std::streamsize>(id.bytes.size()));
      LCAB_CHECK(out.good(), "cannot write the NCCL id file " << tmp);
    }
    std::filesystem::rename(tmp, path);  // others never see a partial file
    return id;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    std::ifstream in(path, std::ios::binary);
    if (in && in.read(id.bytes.data(), static_cast<std::streamsize>(id.bytes.size()))) return id;
    LCAB_CHECK(std::chrono::steady_clock::now() < deadline,
               "rank " << env.rank << " waited " << timeout_s << " s for rank 0 to write the NCCL id to " << path);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

int visible_gpu_count() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return devices;
}

void set_current_device(int device) { LCAB_CUDA_CHECK(cudaSetDevice(device)); }

void run_thread_per_gpu(int gpus, const std::function<void(RankComms&)>& body) {
  int devices = 0;
  LCAB_CUDA_CHECK(cudaGetDeviceCount(&devices));
  LCAB_CHECK(gpus >= 1 && gpus <= devices, "a thread-per-GPU run on " << gpus << " GPUs; this machine has "
                                                                      << devices);
  const CommUniqueId id = new_unique_id();
  std::mutex mutex;
  std::exception_ptr first_error;
  std::vector<std::thread> threads;
  for (int rank = 0; rank < gpus; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        RankComms comms(rank, gpus, rank, id);
        body(comms);
        LCAB_CUDA_CHECK(cudaDeviceSynchronize());
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
        if (!first_error) first_error = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

std::optional<LaunchEnvironment> detect_launcher() {
  struct Source {
    const char* launcher;
    const char* rank;
    const char* size;
    const char* local;
  };
  for (const Source& s : {Source{"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
                          Source{"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
                          Source{"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"}}) {
    const std::optional<int> rank = env_int(s.rank), size = env_int(s.size);
    if (!rank || !size) continue;
    if (*size <= 1) return std::nullopt;
    LaunchEnvironment env;
    env.rank = *rank;
    env.world_size = *size;
    env.local_rank = env_int(s.local).value_or(*rank);
    env.launcher = s.launcher;
    LCAB_CHECK(env.rank < env.world_size, s.rank << "=" << env.rank << " is not below " << s.size << "="
                                                 << env.world_size);
    return env;
  }
  return std::nullopt;
}

std::unique_ptr<RankComms> connect_process(const LaunchEnvironment& env, const std::string& id_file,
                                           double timeout_s) {
  disable_nvls_unless_set();
  CommUniqueId id;
#if LCAB_HAVE_MPI
  int mpi_ready = 0;
  MPI_Initialized(&mpi_ready);
  if (!mpi_ready && env.launcher == "openmpi") {
    MPI_Init(nullptr, nullptr);
    mpi_ready = 1;
    // Finalized at exit, as mpirun requires of every rank that initialized (without it mpirun reports the job
    // as exited improperly and returns 1 although every record was written).
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
  }
  if (mpi_ready) {
    if (env.rank == 0) id = new_unique_id();
    MPI_Bcast(id.bytes.data(), static_cast<int>(id.bytes.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
    return std::make_unique<RankComms>(env.rank, env.world_size, env.local_rank, id);
  }
#endif
  if (std::getenv("NCCL_COMM_ID")) id = new_unique_id();  // the same on every rank: NCCL derives it from the address
  else id = id_from_file(env, id_file, timeout_s);
  return std::make_unique<RankComms>(env.rank, env.world_size, env.local_rank, id);
}

}  // namespace lcab::cp
