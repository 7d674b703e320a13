// The registry of context-parallel methods (DESIGN.md sections 4 and 7): ring, allgather, ulysses, usp,
// loongtrain. A method normalizes a CpConfig (fills the degrees it implies, picks its default sharding, rejects
// what it cannot run with a message that says what would be valid) and builds forward and backward schedules.
//
//   CpMethodRegistry registry;
//   register_all(registry);                       // or builtin_cp_methods()
//   Schedule s = build_schedule(config, Pass::kForward);
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/cp/schedule.h"
#include "model/cp/ulysses_ring_program.h"

namespace lcab::cp {

/// Makes rank `rank`'s compute item of `step` of a method's schedule without resolving the mask (a model's
/// shortcut for masks too large to resolve for every candidate): the item of the rank's q rows (q_map) against the
/// rows of the step's K buffer that k_map names (its pad segments: rows the item does not attend), with q_rows,
/// k_rows, q_heads (all), kv_heads (all) and pairs as the resolved item would have them; its slices may be left
/// empty. std::nullopt when the item has no cell. Called for every rank in order, each rank's steps in order.
using ComputeItemMaker =
    std::function<std::optional<ComputeItem>(int rank, int step, const TokenMap& q_map, const TokenMap& k_map)>;

struct CpMethod {
  std::string name;
  std::string description;  ///< one line, as in the README table
  /// Returns the config with degrees, windows and sharding filled in; throws lcab::Error naming the problem and
  /// the valid choices.
  std::function<CpConfig(CpConfig)> normalize;
  /// Builds the schedule of a normalized config.
  std::function<Schedule(const CpConfig&, Pass)> build;
  /// Methods of the ulysses/ring engine also give the step program their schedule is made from, which the
  /// lock-step simulator (model/perf/lockstep_simulator.h) plays without materializing it; empty for others.
  std::function<UlyssesRingProgram(const CpConfig&, Pass)> program;
  /// Methods whose items a model can make without resolving the mask (allgather: per rank, its rows against its
  /// own block and against the gathered buffer) also build their schedule with a ComputeItemMaker; empty for others.
  std::function<Schedule(const CpConfig&, Pass, const ComputeItemMaker&)> build_with_items;
  /// Methods with build_with_items: a maker giving the items `build` resolves from the mask, item for item, for a
  /// normalized config (asked for in the builder's order), so that a model can resolve some ranks' items only.
  std::function<ComputeItemMaker(const CpConfig&)> resolving_items;
};

class CpMethodRegistry {
 public:
  /// Adds a method; a duplicate name is an error.
  void add(CpMethod method);
  /// Throws lcab::Error listing the valid names when name is unknown.
  const CpMethod& find(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::vector<CpMethod>& methods() const { return methods_; }

 private:
  std::vector<CpMethod> methods_;
};

/// Registers ring, allgather, ulysses, usp and loongtrain.
void register_all(CpMethodRegistry& registry);

/// The registry with every built-in method, built once.
const CpMethodRegistry& builtin_cp_methods();

/// builtin_cp_methods().find(config.method).normalize(config).
CpConfig normalize_config(const CpConfig& config);
/// Normalizes and builds.
Schedule build_schedule(const CpConfig& config, Pass pass);

/// Checks shared by every method on a config whose degrees are filled in: the workload (mask, heads, GQA), GPUs
/// per node, U x R = P, heads divisible by U, kv heads (Hk % U == 0 or U % Hk == 0), windows dividing R, the
/// sequence long enough for the sharding. Throws lcab::Error saying what would be valid.
void validate_config(const CpConfig& config);

/// (U, R) pairs with U x R = P that the workload's heads allow, as "UxR" text (for error messages and planners).
std::vector<std::pair<int64_t, int64_t>> valid_degrees(int64_t gpus, int64_t heads, int64_t kv_heads);

}  // namespace lcab::cp
