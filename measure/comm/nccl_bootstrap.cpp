#include "measure/comm/nccl_bootstrap.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cp/nccl_check.h"

namespace lcab::measure {

namespace fs = std::filesystem;

void disable_nvls_unless_set() { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); }

std::vector<ncclComm_t> init_comms_single_process(const std::vector<int>& devices) {
  LCAB_CHECK(!devices.empty(), "no GPUs to build communicators over");
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  LCAB_NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  return comms;
}

std::string format_unique_id_file(const std::string& job_id, const ncclUniqueId& id) {
  static const char* hex = "0123456789abcdef";
  std::string text = "lcab-nccl-id " + (job_id.empty() ? std::string("-") : job_id) + " ";
  for (char c : id.internal) {
    const unsigned char u = static_cast<unsigned char>(c);
    text += hex[u >> 4];
    text += hex[u & 15];
  }
  return text + "\n";
}

bool parse_unique_id_file(const std::string& text, const std::string& job_id, ncclUniqueId& id) {
  std::istringstream in(text);
  std::string magic, job, digits;
  if (!(in >> magic >> job >> digits) || magic != "lcab-nccl-id") return false;
  if (job != (job_id.empty() ? std::string("-") : job_id)) return false;
  if (digits.size() != 2 * sizeof id.internal) return false;
  for (size_t n = 0; n < sizeof id.internal; ++n) {
    unsigned value = 0;
    if (std::sscanf(digits.c_str() + 2 * n, "%2x", &value) != 1) return false;
    id.internal[n] = static_cast<char>(value);
  }
  return true;
}

namespace {
ncclUniqueId share_unique_id_file(const RankEnvironment& env, const std::string& id_file, double timeout_s) {
  LCAB_CHECK(!id_file.empty(), "one process per GPU (" << env.launcher << ", " << env.world_size
                                                       << " ranks) needs --nccl-id-file PATH on a file system every "
                                                          "rank sees, or a build with MPI under mpirun");
  ncclUniqueId id{};
  if (env.rank == 0) {
    LCAB_NCCL_CHECK(ncclGetUniqueId(&id));
    const std::string temporary = id_file + ".tmp." + std::to_string(getpid());
    {
      std::ofstream out(temporary);
      LCAB_CHECK(out.good(), "cannot write the NCCL id file '" << temporary << "'");
      out << format_unique_id_file(env.job_id, id);
    }
    fs::rename(temporary, id_file);
    return id;
  }
  const auto started = fs::file_time_type::clock::now();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code error;
    const auto written = fs::last_write_time(id_file, error);
    if (!error && written >= started - std::chrono::minutes(1)) {
      std::ifstream in(id_file);
      std::stringstream text;
      text << in.rdbuf();
      if (parse_unique_id_file(text.str(), env.job_id, id)) return id;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  LCAB_THROW("rank " << env.rank << " found no NCCL id from rank 0 in '" << id_file << "' after " << timeout_s
                     << " s (is rank 0 running, and is the path on a file system every rank sees?)");
}
}  // namespace

ncclUniqueId share_unique_id(const RankEnvironment& env, const std::string& id_file, double timeout_s) {
#ifdef LCAB_WITH_MPI
  if (env.launcher == "mpirun") return share_unique_id_mpi(env.rank);
#endif
  return share_unique_id_file(env, id_file, timeout_s);
}

void remove_unique_id_file(const RankEnvironment& env, const std::string& id_file) {
#ifdef LCAB_WITH_MPI
  if (env.launcher == "mpirun") return;
#endif
  if (env.rank == 0 && !id_file.empty()) {
    std::error_code ignored;
    fs::remove(id_file, ignored);
  }
}

}  // namespace lcab::measure
