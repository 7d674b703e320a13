#include "measure/kernel_sweep.h"

#include <sstream>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::measure {

RecordKey KernelPoint::key() const {
  RecordKey key;
  key.impl = impl;
  key.pass = pass;
  key.mask = mask;
  key.seqlen = seqlen;
  key.batch = batch;
  key.heads = heads;
  key.kv_heads = kv_heads;
  key.head_dim = head_dim;
  key.dtype = dtype;
  return key;
}

std::string KernelPoint::label() const {
  std::ostringstream out;
  out << impl << " " << pass << " " << mask << " S=" << format_tokens(seqlen) << " " << heads << "/" << kv_heads
      << " hd" << head_dim << " " << dtype;
  if (batch != 1) out << " b" << batch;
  return out.str();
}

namespace {
template <typename T>
void check_not_empty(const std::vector<T>& axis, const char* option) {
  LCAB_CHECK(!axis.empty(), "--" << option << " needs at least one value");
}
void check_positive(const std::vector<int64_t>& axis, const char* option) {
  check_not_empty(axis, option);
  for (int64_t v : axis) LCAB_CHECK(v > 0, "--" << option << " must be positive, got " << v);
}
void check_choice(const std::vector<std::string>& axis, const char* option, const std::vector<std::string>& valid) {
  check_not_empty(axis, option);
  for (const std::string& v : axis) {
    bool ok = false;
    for (const std::string& x : valid) ok = ok || v == x;
    LCAB_CHECK(ok, "--" << option << " '" << v << "' is not valid; valid: " << join(valid));
  }
}
}  // namespace

std::vector<KernelPoint> expand_kernel_sweep(const KernelSweepAxes& axes) {
  check_not_empty(axes.impls, "impl");
  check_not_empty(axes.masks, "mask");
  check_positive(axes.seqlens, "seqlen");
  check_choice(axes.passes, "pass", {"fwd", "bwd"});
  check_positive(axes.heads, "heads");
  check_positive(axes.kv_heads, "kv-heads");
  check_positive(axes.head_dims, "head-dim");
  check_choice(axes.dtypes, "dtype", {"bf16", "fp16"});
  LCAB_CHECK(axes.batch > 0, "--batch must be positive, got " << axes.batch);
  for (int64_t h : axes.heads) {
    for (int64_t kv : axes.kv_heads) {
      LCAB_CHECK(h % kv == 0, "--heads " << h << " with --kv-heads " << kv
                                         << ": q heads must be a multiple of kv heads (GQA); sweep incompatible "
                                            "shapes in separate runs");
    }
  }
  std::vector<KernelPoint> points;
  for (const std::string& mask : axes.masks)
    for (int64_t seqlen : axes.seqlens)
      for (int64_t heads : axes.heads)
        for (int64_t kv_heads : axes.kv_heads)
          for (int64_t head_dim : axes.head_dims)
            for (const std::string& dtype : axes.dtypes)
              for (const std::string& pass : axes.passes)
                for (const std::string& impl : axes.impls)
                  points.push_back({impl, mask, seqlen, pass, axes.batch, heads, kv_heads, head_dim, dtype});
  return points;
}

}  // namespace lcab::measure
