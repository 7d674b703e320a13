#include "model/perf/planner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "model/error.h"

namespace lcab::perf {
namespace {

cp::CpConfig base_config(const PlanRequest& request, const ClusterShape& cluster, const std::string& method) {
  cp::CpConfig c;
  c.method = method;
  c.gpus = cluster.gpus;
  c.gpus_per_node = cluster.gpus_per_node;
  c.workload = request.workload;
  return c;
}

// LoongTrain's windows are a few inner rings; more than 8 windows is an outer ring of tiny inner rings.
constexpr int64_t kMaxDefaultWindows = 8;

std::vector<int64_t> window_counts(const PlanRequest& request, int64_t ring) {
  std::vector<int64_t> out;
  if (!request.windows.empty()) {
    for (int64_t w : request.windows)
      if (w > 1 && w < ring && ring % w == 0) out.push_back(w);
    return out;
  }
  for (int64_t w = 2; w < ring && w <= kMaxDefaultWindows; w *= 2)
    if (ring % w == 0) out.push_back(w);
  return out;
}

}  // namespace

std::string describe_config(const cp::CpConfig& c) {
  std::string text = c.method;
  if (c.method == "usp" || c.method == "loongtrain") {
    text += " " + std::to_string(c.ulysses_degree) + "x" + std::to_string(c.ring_degree);
    if (c.method == "loongtrain") text += " w" + std::to_string(c.windows);
    text += " " + std::string(cp::to_string(c.placement));
  }
  return text;
}

std::vector<cp::CpConfig> plan_candidates(const PlanRequest& request, const ClusterShape& cluster) {
  std::vector<std::string> methods = request.methods;
  if (methods.empty()) methods = cp::builtin_cp_methods().names();
  const std::vector<std::pair<int64_t, int64_t>> grids =
      cp::valid_degrees(cluster.gpus, request.workload.heads, request.workload.kv_heads);
  std::vector<cp::CpConfig> out;
  for (const std::string& method : methods) {
    cp::builtin_cp_methods().find(method);  // unknown names: an error listing the valid ones
    const cp::CpConfig base = base_config(request, cluster, method);
    if (method != "usp" && method != "loongtrain") {
      out.push_back(base);
      continue;
    }
    if (request.one_config_per_method) {
      cp::CpConfig c = base;
      for (auto [u, r] : grids) {
        if (u < 2 || r < 2 || u > cluster.gpus_per_node) continue;
        c.ulysses_degree = u;
        c.ring_degree = r;
      }
      if (c.ulysses_degree == 0) continue;  // no 2-D grid for this GPU count
      if (method == "loongtrain") {
        const std::vector<int64_t> w = window_counts(request, c.ring_degree);
        c.windows = w.empty() ? 1 : w.front();
      }
      out.push_back(c);
      continue;
    }
    for (auto [u, r] : grids) {
      if (u < 2 || r < 2) continue;  // 1-D cases are ring and ulysses themselves
      for (cp::Placement placement : {cp::Placement::kUlyssesIntra, cp::Placement::kRingIntra}) {
        cp::CpConfig c = base;
        c.ulysses_degree = u;
        c.ring_degree = r;
        c.placement = placement;
        if (method == "usp") {
          out.push_back(c);
          continue;
        }
        for (int64_t w : window_counts(request, r)) {
          c.windows = w;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

Plan make_plan(const HardwareProfile& profile, const ClusterShape& cluster, const PlanRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  validate_cluster(cluster);
  LCAB_CHECK(request.workload.mask, "a plan needs a mask");
  const std::vector<cp::CpConfig> candidates = plan_candidates(request, cluster);
  Plan plan;
  plan.memory_limit_bytes =
      request.memory_limit_bytes > 0 ? request.memory_limit_bytes : static_cast<int64_t>(profile.gpu.memory_bytes.value);

  std::vector<std::optional<PlanEntry>> results(candidates.size());
  std::vector<std::string> errors(candidates.size());
  std::atomic<size_t> next{0};
  std::mutex first_error_mutex;
  std::exception_ptr unexpected;
  auto worker = [&]() {
    CpPredictor predictor(profile, cluster);
    for (size_t n = next++; n < candidates.size(); n = next++) {
      try {
        PlanEntry e;
        e.prediction = predictor.predict(candidates[n], request.kernel, request.passes, PredictOptions{false, false, false});
        e.fits = e.prediction.peak_mem_bytes() <= plan.memory_limit_bytes;
        results[n] = std::move(e);
      } catch (const Error& e) {
        errors[n] = e.what();
      } catch (...) {
        std::lock_guard<std::mutex> lock(first_error_mutex);
        if (!unexpected) unexpected = std::current_exception();
      }
    }
  };
  int threads = request.threads > 0 ? request.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::clamp<int>(threads, 1, std::max<int>(1, static_cast<int>(candidates.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (unexpected) std::rethrow_exception(unexpected);

  for (size_t n = 0; n < candidates.size(); ++n) {
    if (results[n]) plan.entries.push_back(std::move(*results[n]));
    else plan.skipped.push_back({candidates[n], errors[n]});
  }
  std::stable_sort(plan.entries.begin(), plan.entries.end(), [](const PlanEntry& a, const PlanEntry& b) {
    if (a.fits != b.fits) return a.fits;
    return a.prediction.time_us() < b.prediction.time_us();
  });
  plan.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return plan;
}

}  // namespace lcab::perf
