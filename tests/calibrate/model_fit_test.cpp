#include "calibrate/model_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/error.h"

namespace lcab::calibrate {
namespace {

/// A small stand-in for the kernel model, nonlinear in the way the real one is: work items (full tiles,
/// partial tiles, one row overhead each) handed longest-first to `slots` slots; time = launch + makespan.
struct SyntheticKernel {
  struct Item {
    double full = 0, partial = 0;
  };
  std::vector<Item> items;
  int slots = 4;

  double time_us(double full_us, double partial_us, double row_us, double launch_us) const {
    std::vector<double> costs;
    for (const Item& item : items) costs.push_back(item.full * full_us + item.partial * partial_us + row_us);
    std::sort(costs.rbegin(), costs.rend());
    std::vector<double> loads(static_cast<size_t>(slots), 0.0);
    for (double c : costs) *std::min_element(loads.begin(), loads.end()) += c;
    return launch_us + *std::max_element(loads.begin(), loads.end());
  }
};

std::vector<SyntheticKernel> synthetic_cases(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<SyntheticKernel> cases;
  for (int n = 0; n < 40; ++n) {
    SyntheticKernel k;
    const int rows = 3 + static_cast<int>(rng() % 20);
    const bool causal = n % 2 == 1;
    for (int r = 0; r < rows; ++r) k.items.push_back({causal ? double(r) : double(rows), causal ? 1.0 : 0.0});
    cases.push_back(k);
  }
  return cases;
}

perf::KernelParams& kernel_of(perf::HardwareProfile& profile) { return profile.kernels.at(0); }

std::vector<ProfileParameter> kernel_parameters() {
  auto param = [](const char* name, perf::Sourced perf::KernelParams::*member) {
    return ProfileParameter{name, "", 1.0,
                            [member](const perf::HardwareProfile& p) { return (p.kernels.at(0).*member).value; },
                            [member](perf::HardwareProfile& p, double v) { (p.kernels.at(0).*member).value = v; }};
  };
  return {param("full_tile_us", &perf::KernelParams::full_tile_us),
          param("partial_tile_us", &perf::KernelParams::partial_tile_us),
          param("row_us", &perf::KernelParams::row_us), param("launch_us", &perf::KernelParams::launch_us)};
}

perf::HardwareProfile starting_profile() {
  perf::HardwareProfile profile;
  perf::KernelParams kernel;
  kernel.full_tile_us.value = 1.0;
  kernel.partial_tile_us.value = 1.0;
  kernel.row_us.value = 1.0;
  kernel.launch_us.value = 1.0;
  profile.kernels.push_back(kernel);
  return profile;
}

ModelFitProblem problem_for(const std::vector<SyntheticKernel>& cases, const std::vector<double>& truth) {
  ModelFitProblem problem;
  problem.group = "synthetic kernel";
  problem.parameters = kernel_parameters();
  for (const SyntheticKernel& k : cases)
    problem.measured_ms.push_back(k.time_us(truth[0], truth[1], truth[2], truth[3]) / 1000.0);
  problem.predict = [cases](const perf::HardwareProfile& p, size_t n) {
    const perf::KernelParams& k = p.kernels.at(0);
    return cases[n].time_us(k.full_tile_us.value, k.partial_tile_us.value, k.row_us.value, k.launch_us.value) /
           1000.0;
  };
  return problem;
}

TEST(ModelFit, RecoversParametersOfAPiecewiseLinearModel) {
  const std::vector<SyntheticKernel> cases = synthetic_cases(11);
  const std::vector<double> truth = {2.0, 3.5, 4.0, 12.0};
  perf::HardwareProfile profile = starting_profile();
  const ModelFitResult result = fit_model_parameters(problem_for(cases, truth), profile);
  for (size_t j = 0; j < truth.size(); ++j) EXPECT_NEAR(result.values[j], truth[j], truth[j] * 1e-6) << j;
  EXPECT_NEAR(kernel_of(profile).row_us.value, 4.0, 4e-6);  // written back into the profile
  EXPECT_LT(result.stats.worst_pct, 1e-6);
}

TEST(ModelFit, IgnoresOutliersAndReportsRealModelResiduals) {
  const std::vector<SyntheticKernel> cases = synthetic_cases(12);
  const std::vector<double> truth = {2.0, 3.5, 4.0, 12.0};
  ModelFitProblem problem = problem_for(cases, truth);
  problem.measured_ms[5] *= 2.5;
  problem.measured_ms[20] *= 0.3;
  perf::HardwareProfile profile = starting_profile();
  const ModelFitResult result = fit_model_parameters(problem, profile);
  EXPECT_NEAR(result.values[0], 2.0, 2e-3);
  EXPECT_EQ(result.outlier_rows, (std::vector<int>{5, 20}));
  EXPECT_LT(result.inlier_stats.worst_pct, 0.1);
  EXPECT_GT(result.stats.worst_pct, 100.0);  // the 2.5x outlier, measured against the real model
}

TEST(ModelFit, MissingDataNamesTheParameter) {
  std::vector<SyntheticKernel> cases = synthetic_cases(13);
  for (SyntheticKernel& k : cases)
    for (auto& item : k.items) item.partial = 0;  // no partial tiles anywhere
  perf::HardwareProfile profile = starting_profile();
  ModelFitProblem problem = problem_for(cases, {2.0, 3.5, 4.0, 12.0});
  problem.parameters[1].hint = "masks with partial tiles, e.g. causal";
  try {
    fit_model_parameters(problem, profile);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("partial_tile_us"), std::string::npos) << what;
    EXPECT_NE(what.find("causal"), std::string::npos) << what;
  }
  EXPECT_EQ(kernel_of(profile).partial_tile_us.value, 1.0);  // untouched on failure
}

}  // namespace
}  // namespace lcab::calibrate
