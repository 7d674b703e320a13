#include "model/mask_file.h"

#include <fstream>

#include "model/error.h"

namespace lcab {
namespace {
std::vector<Slice> slices_from_json(const nlohmann::json& list, const std::string& source) {
  LCAB_CHECK(list.is_array(), source << ": 'slices' must be an array of [q_begin, q_end, k_begin, k_end, type]");
  std::vector<Slice> slices;
  slices.reserve(list.size());
  for (size_t n = 0; n < list.size(); ++n) {
    const auto& s = list[n];
    LCAB_CHECK(s.is_array() && s.size() == 5 && s[0].is_number_integer() && s[1].is_number_integer() &&
                   s[2].is_number_integer() && s[3].is_number_integer() && s[4].is_string(),
               source << ": slice " << n << " must be [q_begin, q_end, k_begin, k_end, type], got " << s.dump());
    slices.push_back({s[0].get<int64_t>(), s[1].get<int64_t>(), s[2].get<int64_t>(), s[3].get<int64_t>(),
                      parse_slice_type(s[4].get<std::string>())});
  }
  return slices;
}
}  // namespace

nlohmann::json slices_to_json(const std::vector<Slice>& slices) {
  nlohmann::json list = nlohmann::json::array();
  for (const Slice& s : slices) list.push_back({s.q_begin, s.q_end, s.k_begin, s.k_end, std::string(to_string(s.type))});
  return list;
}

Mask mask_from_json(const nlohmann::json& j, int64_t seqlen, int64_t kv_heads, const std::string& source) {
  LCAB_CHECK(j.is_object(), source << ": a mask file must hold a JSON object with 'slices' or 'heads'");
  if (auto it = j.find("seqlen"); it != j.end()) {
    LCAB_CHECK(it->is_number_integer() && it->get<int64_t>() == seqlen,
               source << ": the file is for seqlen " << it->dump() << " but --seqlen is " << seqlen);
  }
  MaskInfo info;
  info.spec = "file:" + source;
  try {
    if (auto it = j.find("heads"); it != j.end()) {
      LCAB_CHECK(it->is_array() && !it->empty(), source << ": 'heads' must be a non-empty array of slice lists");
      LCAB_CHECK(static_cast<int64_t>(it->size()) == kv_heads,
                 source << ": the file has " << it->size() << " head masks but there are " << kv_heads
                        << " kv heads");
      std::vector<std::vector<Slice>> heads;
      for (const auto& h : *it) heads.push_back(slices_from_json(h, source));
      return Mask::per_kv_head(seqlen, std::move(heads), info);
    }
    LCAB_CHECK(j.contains("slices"), source << ": a mask file needs 'slices' (shared) or 'heads' (per kv head)");
    return Mask(seqlen, slices_from_json(j.at("slices"), source), info);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.rfind(source, 0) == 0) throw;
    throw Error(source + ": " + what);
  }
}

Mask load_mask_file(const std::string& path, int64_t seqlen, int64_t kv_heads) {
  std::ifstream in(path);
  LCAB_CHECK(in.good(), "cannot open mask file '" << path << "'");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    LCAB_THROW("mask file '" << path << "' is not valid JSON: " << e.what());
  }
  return mask_from_json(j, seqlen, kv_heads, path);
}

}  // namespace lcab
