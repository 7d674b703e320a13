#include "model/cp/cp_method.h"

#include <sstream>

#include "model/cp/allgather.h"
#include "model/cp/ulysses_ring.h"
#include "model/error.h"

namespace lcab::cp {
namespace {

bool kv_heads_fit(int64_t ulysses, int64_t kv_heads) {
  return kv_heads % ulysses == 0 || ulysses % kv_heads == 0;
}

std::string degree_list(int64_t gpus, int64_t heads, int64_t kv_heads) {
  std::ostringstream out;
  for (auto [u, r] : valid_degrees(gpus, heads, kv_heads)) out << (out.tellp() > 0 ? ", " : "") << u << "x" << r;
  const std::string text = out.str();
  return text.empty() ? "none" : text;
}

std::string divisors_of(int64_t n) {
  std::ostringstream out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out << (d > 1 ? ", " : "") << d;
  return out.str();
}

// 1-D methods: the degrees are implied; anything else given is an error.
CpConfig one_dimensional(CpConfig c, bool ulysses_only) {
  const int64_t P = c.gpus;
  const int64_t want_u = ulysses_only ? P : 1;
  const int64_t want_r = ulysses_only ? 1 : P;
  LCAB_CHECK(c.ulysses_degree == 0 || c.ulysses_degree == want_u,
             "method " << c.method << " on " << P << " GPUs uses Ulysses degree " << want_u << ", got "
                       << c.ulysses_degree << " (use usp or loongtrain to combine Ulysses and ring degrees)");
  LCAB_CHECK(c.ring_degree == 0 || c.ring_degree == want_r,
             "method " << c.method << " on " << P << " GPUs uses ring degree " << want_r << ", got " << c.ring_degree
                       << " (use usp or loongtrain to combine Ulysses and ring degrees)");
  LCAB_CHECK(c.windows <= 1, "method " << c.method << " has no windows (got " << c.windows
                                       << "); windows are for loongtrain");
  c.ulysses_degree = want_u;
  c.ring_degree = want_r;
  c.windows = 1;
  if (c.sharding == ShardingKind::kAuto && ulysses_only) c.sharding = ShardingKind::kContiguous;
  validate_config(c);
  return c;
}

// 2-D methods: U x R = P with at least one given.
CpConfig two_dimensional(CpConfig c, bool with_windows) {
  const int64_t P = c.gpus;
  LCAB_CHECK(P >= 1, "gpus must be >= 1, got " << P);
  const Workload& wl = c.workload;
  LCAB_CHECK(c.ulysses_degree > 0 || c.ring_degree > 0,
             "method " << c.method << " needs a Ulysses degree U or a ring degree R with U x R = " << P
                       << "; valid UxR: " << degree_list(P, wl.heads, wl.kv_heads));
  for (int64_t d : {c.ulysses_degree, c.ring_degree})
    LCAB_CHECK(d == 0 || (d > 0 && P % d == 0),
               "degree " << d << " does not divide " << P << " GPUs; valid UxR: "
                         << degree_list(P, wl.heads, wl.kv_heads));
  if (c.ulysses_degree == 0) c.ulysses_degree = P / c.ring_degree;
  if (c.ring_degree == 0) c.ring_degree = P / c.ulysses_degree;
  if (c.windows == 0) c.windows = 1;
  LCAB_CHECK(with_windows || c.windows == 1,
             "method " << c.method << " has no windows (got " << c.windows << "); windows are for loongtrain");
  validate_config(c);
  return c;
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> valid_degrees(int64_t gpus, int64_t heads, int64_t kv_heads) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t u = 1; u <= gpus; ++u)
    if (gpus % u == 0 && heads % u == 0 && kv_heads > 0 && kv_heads_fit(u, kv_heads)) out.emplace_back(u, gpus / u);
  return out;
}

void validate_config(const CpConfig& c) {
  const Workload& wl = c.workload;
  LCAB_CHECK(wl.mask, "CP config for method " << c.method << " has no mask");
  LCAB_CHECK(wl.batch >= 1 && wl.head_dim >= 1 && wl.dtype_bytes >= 1 && wl.grad_accum_bytes >= 1,
             "batch, head_dim, dtype_bytes and grad_accum_bytes must be >= 1, got " << wl.batch << ", "
                                                                                   << wl.head_dim << ", "
                                                                                   << wl.dtype_bytes << ", "
                                                                                   << wl.grad_accum_bytes);
  LCAB_CHECK(wl.heads >= 1 && wl.kv_heads >= 1 && wl.heads % wl.kv_heads == 0,
             "heads " << wl.heads << " must be a positive multiple of kv_heads " << wl.kv_heads);
  LCAB_CHECK(!wl.mask->is_per_kv_head() || wl.mask->num_head_masks() == wl.kv_heads,
             "mask has " << wl.mask->num_head_masks() << " per-kv-head slice lists but the workload has "
                         << wl.kv_heads << " kv heads; make the mask with kv_heads = " << wl.kv_heads);
  const int64_t P = c.gpus;
  LCAB_CHECK(P >= 1, "gpus must be >= 1, got " << P);
  LCAB_CHECK(c.gpus_per_node >= 1 && (P <= c.gpus_per_node || P % c.gpus_per_node == 0),
             "gpus_per_node " << c.gpus_per_node << " does not fit " << P
                              << " GPUs: P must be at most one node or a whole number of nodes; valid gpus_per_node "
                                 "for P="
                              << P << ": " << divisors_of(P) << " or any value >= " << P);
  const int64_t U = c.ulysses_degree, R = c.ring_degree;
  LCAB_CHECK(U >= 1 && R >= 1 && U * R == P, "Ulysses degree " << U << " x ring degree " << R << " must equal " << P
                                                               << " GPUs; valid UxR: "
                                                               << degree_list(P, wl.heads, wl.kv_heads));
  LCAB_CHECK(wl.heads % U == 0, "Ulysses degree " << U << " does not divide " << wl.heads << " q heads; valid UxR: "
                                                  << degree_list(P, wl.heads, wl.kv_heads));
  LCAB_CHECK(kv_heads_fit(U, wl.kv_heads), "Ulysses degree " << U << " and " << wl.kv_heads
                                                             << " kv heads: one must divide the other; valid UxR: "
                                                             << degree_list(P, wl.heads, wl.kv_heads));
  LCAB_CHECK(c.windows >= 1 && R % c.windows == 0,
             "windows " << c.windows << " must divide the ring degree " << R << "; valid: " << divisors_of(R));
  const int64_t S = wl.seqlen();
  if (c.sharding == ShardingKind::kContiguous) {
    LCAB_CHECK(S >= P, "sequence of " << S << " tokens is too short for " << P << " GPUs (need S >= " << P << ")");
  } else {
    LCAB_CHECK(S >= 2 * R, "sequence of " << S << " tokens is too short for zigzag sharding over ring degree " << R
                                          << ": 2R = " << 2 * R << " chunks need S >= " << 2 * R);
    LCAB_CHECK(S >= P, "sequence of " << S << " tokens is too short for " << P << " GPUs (need S >= " << P << ")");
  }
}

void CpMethodRegistry::add(CpMethod method) {
  for (const CpMethod& m : methods_)
    LCAB_CHECK(m.name != method.name, "CP method '" << method.name << "' registered twice");
  methods_.push_back(std::move(method));
}

const CpMethod& CpMethodRegistry::find(std::string_view name) const {
  for (const CpMethod& m : methods_)
    if (m.name == name) return m;
  std::string valid;
  for (const CpMethod& m : methods_) valid += (valid.empty() ? "" : ", ") + m.name;
  LCAB_THROW("unknown CP method '" << name << "'; valid: " << valid);
}

std::vector<std::string> CpMethodRegistry::names() const {
  std::vector<std::string> out;
  for (const CpMethod& m : methods_) out.push_back(m.name);
  return out;
}

void register_all(CpMethodRegistry& registry) {
  const auto program = [](const CpConfig& c, Pass pass) { return UlyssesRingProgram(c, pass); };
  registry.add({"ring", "zigzag sharding; KV passed one hop per step over P ranks, overlapped with compute",
                [](CpConfig c) { return one_dimensional(std::move(c), false); }, build_ulysses_ring_schedule, program, {}, {}});
  registry.add({"allgather", "zigzag sharding; all-gather K,V (overlapped with the local block), reduce-scatter dK,dV",
                [](CpConfig c) { return one_dimensional(std::move(c), false); }, build_allgather_schedule, {},
                build_allgather_schedule_with, allgather_resolving_maker});
  registry.add({"ulysses", "contiguous sharding; all-to-all sequence to heads, attention on Hq/P heads, back",
                [](CpConfig c) { return one_dimensional(std::move(c), true); }, build_ulysses_ring_schedule, program, {}, {}});
  registry.add({"usp", "U x R grid: Ulysses all-to-alls over U around a zigzag ring over R",
                [](CpConfig c) { return two_dimensional(std::move(c), false); }, build_ulysses_ring_schedule, program, {}, {}});
  registry.add({"loongtrain", "U x R grid: Ulysses over U, double ring over R (inner ring in W windows, outer hops)",
                [](CpConfig c) { return two_dimensional(std::move(c), true); }, build_ulysses_ring_schedule,
                program, {}, {}});
}

const CpMethodRegistry& builtin_cp_methods() {
  static const CpMethodRegistry registry = [] {
    CpMethodRegistry r;
    register_all(r);
    return r;
  }();
  return registry;
}

CpConfig normalize_config(const CpConfig& config) { return builtin_cp_methods().find(config.method).normalize(config); }

Schedule build_schedule(const CpConfig& config, Pass pass) {
  const CpMethod& method = builtin_cp_methods().find(config.method);
  return method.build(method.normalize(config), pass);
}

}  // namespace lcab::cp
