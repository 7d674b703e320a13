#include "calibrate/kernel_parameters.h"

#include <algorithm>
#include <optional>

namespace lcab::calibrate {

namespace {

/// Excess of a boundary tile over an unmasked one (never negative, also for base profiles that had it so).
double partial_excess_us(const perf::KernelParams& k) {
  return std::max(0.0, k.partial_tile_us.value - k.full_tile_us.value);
}

ProfileParameter field_parameter(const char* name, const char* hint, size_t index,
                                 perf::Sourced perf::KernelParams::*member, double scale) {
  return entry_parameter(name, hint, scale, &perf::HardwareProfile::kernels, index, member);
}

}  // namespace

/// An optional term of the entry (KernelParams::slice_us, kv_tile_us), fitted where the base entry has it.
ProfileParameter optional_parameter(const char* name, const char* hint, size_t index,
                                    std::optional<perf::Sourced> perf::KernelParams::*member, double scale) {
  ProfileParameter p;
  p.name = name;
  p.hint = hint;
  p.scale = scale > 0 ? scale : 1.0;
  p.get = [=](const perf::HardwareProfile& profile) { return (profile.kernels[index].*member)->value; };
  p.set = [=](perf::HardwareProfile& profile, double value) { (profile.kernels[index].*member)->value = value; };
  return p;
}

std::vector<perf::Sourced*> kernel_fit_fields(perf::KernelParams& params) {
  std::vector<perf::Sourced*> fields = {&params.full_tile_us, &params.partial_tile_us, &params.row_us,
                                        &params.launch_us};
  if (params.slice_us) fields.push_back(&*params.slice_us);
  if (params.kv_tile_us) fields.push_back(&*params.kv_tile_us);
  if (params.kv_expand_bytes_per_element) fields.push_back(&*params.kv_expand_bytes_per_element);
  if (params.has_sustained_clocks()) fields.push_back(&*params.sustained_slowdown);
  if (params.host_floor_us) fields.push_back(&*params.host_floor_us);
  if (params.dq_tile_fraction) fields.push_back(&*params.dq_tile_fraction);
  if (params.unmasked_tile_us) fields.push_back(&*params.unmasked_tile_us);
  if (params.has_slice_spills()) fields.push_back(&*params.spilled_slice_us);
  if (params.idle_half_tile_us) fields.push_back(&*params.idle_half_tile_us);
  return fields;
}

void seed_optional_terms(perf::KernelParams& params, double short_measured_ms) {
  if (params.host_floor_us && params.host_floor_us->value <= 0 && short_measured_ms > 0)
    params.host_floor_us->value = short_measured_ms * 1000.0;
}

std::vector<std::string> optional_term_names(const perf::KernelParams& params) {
  std::vector<std::string> names;
  if (params.slice_us) names.push_back("slice_us");
  if (params.kv_tile_us) names.push_back("kv_tile_us");
  if (params.kv_expand_bytes_per_element) names.push_back("kv_expand_bytes_per_element");
  if (params.has_sustained_clocks()) names.push_back("sustained_slowdown");
  if (params.host_floor_us) names.push_back("host_floor_us");
  if (params.dq_tile_fraction) names.push_back("dq_tile_fraction");
  if (params.unmasked_tile_us) names.push_back("unmasked_tile_us");
  if (params.has_slice_spills()) names.push_back("spilled_slice_us");
  if (params.idle_half_tile_us) names.push_back("idle_half_tile_us");
  return names;
}

void remove_optional_term(perf::KernelParams& params, const std::string& name) {
  if (name == "slice_us") params.slice_us.reset();
  if (name == "kv_tile_us") params.kv_tile_us.reset();
  if (name == "kv_expand_bytes_per_element") params.kv_expand_bytes_per_element.reset();
  if (name == "sustained_slowdown" || name == "sustained_rate_per_us") {
    params.sustained_slowdown.reset();
    params.sustained_rate_per_us.reset();
  }
  if (name == "host_floor_us") params.host_floor_us.reset();
  if (name == "dq_tile_fraction") params.dq_tile_fraction.reset();
  if (name == "unmasked_tile_us") params.unmasked_tile_us.reset();
  if (name == "spilled_slice_us" || name == "register_slices") {
    params.spilled_slice_us.reset();
    params.register_slices.reset();
  }
  if (name == "idle_half_tile_us") params.idle_half_tile_us.reset();
}

std::vector<ProfileParameter> kernel_fit_parameters(const perf::HardwareProfile& profile, size_t index) {
  const perf::KernelParams& start = profile.kernels[index];
  std::vector<ProfileParameter> parameters;

  ProfileParameter full = field_parameter("full_tile_us", "records whose masks have unmasked tiles", index,
                                          &perf::KernelParams::full_tile_us, start.full_tile_us.value);
  // Moving the unmasked tile's cost keeps the boundary tile's excess: the two parameters stay independent.
  full.set = [index](perf::HardwareProfile& p, double value) {
    perf::KernelParams& k = p.kernels[index];
    const double excess = partial_excess_us(k);
    k.full_tile_us.value = value;
    k.partial_tile_us.value = value + excess;
  };
  parameters.push_back(full);

  ProfileParameter partial;
  partial.name = "partial_tile_us";
  partial.hint = "masks whose tiles are cut by the mask boundary: causal, sliding_window, documents";
  partial.scale = std::max(partial_excess_us(start), 0.1 * start.full_tile_us.value);
  if (!(partial.scale > 0)) partial.scale = 1.0;
  partial.get = [index](const perf::HardwareProfile& p) { return partial_excess_us(p.kernels[index]); };
  partial.set = [index](perf::HardwareProfile& p, double excess) {
    perf::KernelParams& k = p.kernels[index];
    k.partial_tile_us.value = k.full_tile_us.value + excess;
  };
  parameters.push_back(partial);

  parameters.push_back(field_parameter("row_us", "several sequence lengths or masks with different row lengths",
                                       index, &perf::KernelParams::row_us, start.row_us.value));
  parameters.push_back(field_parameter("launch_us", "short calls: small sequence lengths", index,
                                       &perf::KernelParams::launch_us, start.launch_us.value));
  if (start.slice_us)
    parameters.push_back(optional_parameter("slice_us", "boundary tiles whose q-tile rows meet many slices "
                                            "(variable_block_sparse, documents)", index, &perf::KernelParams::slice_us,
                                            0.01 * start.full_tile_us.value));
  if (start.kv_tile_us)
    parameters.push_back(optional_parameter("kv_tile_us", "both GQA and MHA records (q heads per kv head)", index,
                                            &perf::KernelParams::kv_tile_us, 0.1 * start.full_tile_us.value));
  if (start.kv_expand_bytes_per_element)
    parameters.push_back(optional_parameter("kv_expand_bytes_per_element", "both GQA and MHA records", index,
                                            &perf::KernelParams::kv_expand_bytes_per_element, 4.0));
  // The time constant (sustained_rate_per_us) is the GPU's, given by the base profile; the slowdown is the kernel's.
  if (start.has_sustained_clocks())
    parameters.push_back(optional_parameter("sustained_slowdown", "short and long calls (1K to 64K)", index,
                                            &perf::KernelParams::sustained_slowdown, 0.1));
  if (start.host_floor_us)
    parameters.push_back(optional_parameter("host_floor_us", "calls shorter than the host's dispatch (1K)", index,
                                            &perf::KernelParams::host_floor_us, 50.0));
  if (start.dq_tile_fraction)
    parameters.push_back(optional_parameter("dq_tile_fraction", "MHA and GQA records (dK/dV items loop over the "
                                            "GQA group, dQ items do not)", index,
                                            &perf::KernelParams::dq_tile_fraction, 0.5));
  if (start.unmasked_tile_us)
    parameters.push_back(optional_parameter("unmasked_tile_us", "records of masks that mask nothing (full) and of "
                                            "other masks", index, &perf::KernelParams::unmasked_tile_us,
                                            start.full_tile_us.value));
  // The register budget (register_slices) is the kernel's, given by the base profile; the spill cost is fitted.
  if (start.has_slice_spills())
    parameters.push_back(optional_parameter("spilled_slice_us", "masks whose rows meet more slices than fit in "
                                            "registers (variable_block_sparse from 16K)", index,
                                            &perf::KernelParams::spilled_slice_us, 0.1 * start.full_tile_us.value));
  if (start.idle_half_tile_us)
    parameters.push_back(optional_parameter("idle_half_tile_us", "masks whose boundary tiles have a key half no query "
                                            "of their q tile sees (sliding windows, causal documents) and masks whose "
                                            "boundary tiles do not", index, &perf::KernelParams::idle_half_tile_us,
                                            start.full_tile_us.value));
  return parameters;
}

}  // namespace lcab::calibrate
