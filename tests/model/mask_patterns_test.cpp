// Tests of the built-in mask patterns (DESIGN.md section 3): every pattern over many sizes and seeds against
// dense brute force (cells by the pattern's own definition, area, tile counts), closed forms, documents,
// determinism, the shared building blocks, and every error path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "model/cli_values.h"
#include "model/doclen.h"
#include "model/error.h"
#include "model/mask_patterns_internal.h"
#include "model/mask_spec.h"
#include "model/mask_tiling.h"
#include "tests/model/brute_force.h"

namespace lcab {
namespace {

using mask_patterns::top_k_count;

// Specs that exercise every pattern at sizes small enough for dense checks (S up to a few thousand), next to
// the defaults. Every registered pattern must appear here (checked below).
const std::vector<std::string> kSpecs = {
    "full",
    "causal",
    "full_document",
    "full_document:dist=pile",
    "causal_document:dist=pile",
    "causal_document:dist=prolong64k",
    "full_document_long:dist=pile",
    "causal_document_long",
    "causal_document_long:dist=prolong512k",
    "sliding_window",
    "sliding_window:window=1",
    "sliding_window:window=5",
    "sliding_window:window=64",
    "sliding_window:window=100",
    "sliding_window_causal",
    "sliding_window_causal:window=1",
    "sliding_window_causal:window=5",
    "sliding_window_causal:window=64",
    "sliding_window_causal:window=100",
    "global_sliding_window",
    "global_sliding_window:global=0,window=7",
    "global_sliding_window:global=3,window=5",
    "global_sliding_window:global=64,window=32",
    "share_question",
    "share_question:dist=pile",
    "causal_blockwise",
    "causal_blockwise:dist=pile",
    "prefix_lm_causal",
    "prefix_lm_causal:prefix=0",
    "prefix_lm_causal:prefix=37",
    "prefix_lm_causal:prefix=1M",
    "prefix_lm_document",
    "prefix_lm_document:dist=pile,prefix=50",
    "prefix_lm_document:dist=pile,prefix=0",
    "block_causal_document",
    "block_causal_document:block=7",
    "block_causal_document:block=16",
    "block_sparse",
    "block_sparse:block=64,density=0.3",
    "block_sparse:block=64,density=1",
    "block_sparse:block=128,density=0.05",
    "variable_block_sparse",
    "variable_block_sparse:avg_block=128",
    "variable_block_sparse:avg_block=200,density=0.5",
};

const std::vector<int64_t> kSmallSizes = {1, 2, 5, 63, 64, 65, 127, 128, 129, 200, 255, 333, 517};
const std::vector<TileShape> kSmallShapes = {{128, 128}, {128, 64}, {7, 5}, {3, 11}, {64, 64}};
constexpr int64_t kKvHeads = 2;

std::string with_param(const std::string& spec, const std::string& key_value) {
  return spec + (spec.find(':') == std::string::npos ? ":" : ",") + key_value;
}

bool has_param(const MaskPattern& pattern, const std::string& name) {
  return std::any_of(pattern.params.begin(), pattern.params.end(),
                     [&](const MaskParam& p) { return p.name == name; });
}

/// The resolved arguments of a spec (defaults filled in), as the registry hands them to the generator.
MaskArgs resolve(const std::string& spec_text, int64_t seqlen) {
  const MaskSpec spec = parse_mask_spec(spec_text);
  const MaskPattern& pattern = builtin_mask_patterns().find(spec.name);
  std::map<std::string, std::string> values;
  for (const MaskParam& p : pattern.params) values[p.name] = p.default_value;
  for (const auto& [k, v] : spec.params) values[k] = v;
  return MaskArgs(seqlen, kKvHeads, values, spec_text);
}

/// Document index of every token, from the generator's document lengths.
struct Documents {
  std::vector<int64_t> index;  ///< per token
  std::vector<int64_t> begin;  ///< per document
  Documents(const std::vector<int64_t>& lengths, int64_t seqlen) {
    for (int64_t len : lengths) {
      begin.push_back(static_cast<int64_t>(index.size()));
      index.insert(index.end(), static_cast<size_t>(len), static_cast<int64_t>(begin.size()) - 1);
    }
    EXPECT_TRUE(lengths.empty() || static_cast<int64_t>(index.size()) == seqlen) << "documents must sum to S";
  }
  int64_t pos(int64_t t) const { return t - begin[index[t]]; }
};

/// Cell predicate by the pattern's definition in DESIGN.md section 3, or nullptr for the block-sparse
/// patterns (checked structurally instead).
std::function<bool(int64_t, int64_t)> reference_cells(const std::string& spec_text, const Mask& mask) {
  const MaskArgs args = resolve(spec_text, mask.seqlen());
  const std::string name = parse_mask_spec(spec_text).name;
  const int64_t s = mask.seqlen();
  auto docs = std::make_shared<Documents>(mask.info().document_lengths, s);
  auto same = [docs](int64_t q, int64_t k) { return docs->index[q] == docs->index[k]; };
  if (name == "full") return [](int64_t, int64_t) { return true; };
  if (name == "causal") return [](int64_t q, int64_t k) { return k <= q; };
  if (name == "full_document" || name == "full_document_long") return same;
  if (name == "causal_document" || name == "causal_document_long")
    return [same](int64_t q, int64_t k) { return same(q, k) && k <= q; };
  if (name == "sliding_window") {
    const int64_t w = args.get_int("window");
    return [w](int64_t q, int64_t k) { return std::abs(q - k) <= w; };
  }
  if (name == "sliding_window_causal") {
    const int64_t w = args.get_int("window");
    return [w](int64_t q, int64_t k) { return k <= q && q - k <= w; };
  }
  if (name == "global_sliding_window") {
    const int64_t g = args.get_int("global"), w = args.get_int("window");
    return [g, w](int64_t q, int64_t k) { return q < g || k < g || std::abs(q - k) <= w; };
  }
  if (name == "share_question")
    return [same, docs](int64_t q, int64_t k) {
      return (same(q, k) && k <= q) || (docs->index[k] == 0 && docs->index[q] > 0);
    };
  if (name == "causal_blockwise") {
    const int64_t last = static_cast<int64_t>(docs->begin.size()) - 1;
    return [same, docs, last](int64_t q, int64_t k) {
      return (same(q, k) && k <= q) || (docs->index[q] == last && docs->index[k] < last);
    };
  }
  if (name == "prefix_lm_causal") {
    const std::string& p_text = args.get_string("prefix");
    const int64_t p = p_text.empty() ? s / 2 : args.get_int("prefix");
    return [p](int64_t q, int64_t k) { return k <= q || (q < p && k < p); };
  }
  if (name == "prefix_lm_document") {
    const int64_t p = args.get_int("prefix");
    return [same, docs, p](int64_t q, int64_t k) {
      return same(q, k) && (k <= q || (docs->pos(q) < p && docs->pos(k) < p));
    };
  }
  if (name == "block_causal_document") {
    const int64_t b = args.get_int("block");
    return [same, docs, b](int64_t q, int64_t k) { return same(q, k) && docs->pos(k) / b <= docs->pos(q) / b; };
  }
  return nullptr;
}

/// block_sparse: on the grid of `block`, every block is all on or all off, and every q block keeps exactly
/// top_k_count(density, k blocks) k blocks.
void expect_block_sparse_structure(const std::vector<uint8_t>& cells, int64_t s, int64_t block, double density,
                                   const std::string& what) {
  const int64_t blocks = (s + block - 1) / block;
  for (int64_t qb = 0; qb < blocks; ++qb) {
    int64_t kept = 0;
    for (int64_t kb = 0; kb < blocks; ++kb) {
      int64_t on = 0, cells_in_block = 0;
      for (int64_t q = qb * block; q < std::min(s, (qb + 1) * block); ++q)
        for (int64_t k = kb * block; k < std::min(s, (kb + 1) * block); ++k, ++cells_in_block) on += cells[q * s + k];
      ASSERT_TRUE(on == 0 || on == cells_in_block) << what << " block (" << qb << "," << kb << ") is mixed";
      kept += on > 0;
    }
    EXPECT_EQ(kept, top_k_count(density, blocks)) << what << " q block " << qb;
  }
}

/// variable_block_sparse: FULL slices whose q ranges tile [0,S) into blocks and whose k bounds come from one
/// partition, all blocks at least 128 tokens (or S when shorter).
void expect_variable_block_structure(const std::vector<Slice>& slices, int64_t s, const std::string& what) {
  std::set<std::pair<int64_t, int64_t>> q_blocks;
  std::set<int64_t> k_bounds{0, s};
  for (const Slice& sl : slices) {
    EXPECT_EQ(sl.type, SliceType::kFull) << what;
    q_blocks.insert({sl.q_begin, sl.q_end});
    k_bounds.insert(sl.k_begin);
    k_bounds.insert(sl.k_end);
  }
  int64_t covered = 0;
  for (const auto& [b, e] : q_blocks) {
    EXPECT_EQ(b, covered) << what << ": q blocks must tile [0,S)";
    EXPECT_GE(e - b, std::min<int64_t>(128, s)) << what;
    covered = e;
  }
  EXPECT_EQ(covered, s) << what;
  for (auto it = std::next(k_bounds.begin()); it != k_bounds.end(); ++it)
    EXPECT_GE(*it - *std::prev(it), std::min<int64_t>(128, s)) << what << ": k blocks shorter than 128";
}

void expect_tiles_match(const Mask& mask, const std::vector<uint8_t>& cells, int head, TileShape shape,
                        const std::string& what) {
  const TileCounts want = testing::dense_tile_counts(cells, mask.slices(head), mask.seqlen(), shape);
  const TileCounts got = MaskTiling(mask.slices(head), mask.seqlen(), shape).counts();
  const std::string where = what + " tile " + std::to_string(shape.q) + "x" + std::to_string(shape.k);
  EXPECT_EQ(got.touched, want.touched) << where;
  EXPECT_EQ(got.full, want.full) << where;
  EXPECT_EQ(got.partial, want.partial) << where;
  EXPECT_EQ(got.nonempty_rows, want.nonempty_rows) << where;
  EXPECT_EQ(got.max_tiles_per_row, want.max_tiles_per_row) << where;
}

/// Everything the dense brute force can say about one generated mask.
void check_against_dense(const std::string& spec, int64_t s, const std::vector<TileShape>& shapes) {
  const std::string what = spec + " S=" + std::to_string(s);
  const Mask mask = make_mask(spec, s, kKvHeads);
  const MaskPattern& pattern = builtin_mask_patterns().find(parse_mask_spec(spec).name);
  ASSERT_EQ(mask.seqlen(), s) << what;
  EXPECT_EQ(mask.info().spec, spec) << what;
  EXPECT_EQ(mask.is_per_kv_head(), has_param(pattern, "density")) << what;
  if (mask.is_per_kv_head()) {
    EXPECT_EQ(mask.num_head_masks(), kKvHeads) << what;
  }
  const bool documents = has_param(pattern, "dist") || pattern.name == "block_causal_document";
  EXPECT_EQ(mask.num_documents() > 0, documents) << what;
  int64_t document_tokens = 0;
  for (int64_t len : mask.info().document_lengths) {
    EXPECT_GT(len, 0) << what;
    document_tokens += len;
  }
  if (documents) {
    ASSERT_EQ(document_tokens, s) << what;
  }

  const auto reference = reference_cells(spec, mask);
  const MaskArgs args = resolve(spec, s);
  for (int h = 0; h < mask.num_head_masks(); ++h) {
    const std::vector<uint8_t> cells = mask.dense(h);
    EXPECT_EQ(mask.area(h), testing::dense_area(cells)) << what << " head " << h;
    if (reference) {
      int64_t wrong = 0;
      for (int64_t q = 0; q < s; ++q)
        for (int64_t k = 0; k < s; ++k) wrong += cells[q * s + k] != static_cast<uint8_t>(reference(q, k));
      EXPECT_EQ(wrong, 0) << what << ": cells differ from the definition";
    } else if (pattern.name == "block_sparse") {
      expect_block_sparse_structure(cells, s, args.get_int("block"), args.get_double("density"), what);
    } else {
      expect_variable_block_structure(mask.slices(h), s, what);
    }
    for (TileShape shape : shapes) expect_tiles_match(mask, cells, h, shape, what);
  }
}

class EveryPattern : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPattern, MatchesDefinitionAreaAndTilesOnDenseOverSizesAndSeeds) {
  const std::string& spec = GetParam();
  const bool random = has_param(builtin_mask_patterns().find(parse_mask_spec(spec).name), "seed");
  const std::vector<int> seeds = random ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0};
  for (int64_t s : kSmallSizes) {
    for (int seed : seeds) {
      check_against_dense(random ? with_param(spec, "seed=" + std::to_string(seed)) : spec, s, kSmallShapes);
    }
  }
  // Larger and odd: the default windows (1024) and blocks fit, S is no multiple of a tile.
  for (int64_t s : {2049, 3001}) check_against_dense(spec, s, {{128, 128}, {128, 64}});
}

TEST_P(EveryPattern, IsDeterministicPerSeed) {
  const std::string& spec = GetParam();
  for (int64_t s : {1, 1000, 5000}) {
    const Mask a = make_mask(spec, s, kKvHeads);
    const Mask b = make_mask(spec, s, kKvHeads);
    ASSERT_EQ(a.num_head_masks(), b.num_head_masks());
    for (int h = 0; h < a.num_head_masks(); ++h) EXPECT_EQ(a.slices(h), b.slices(h)) << spec << " S=" << s;
    EXPECT_EQ(a.info().document_lengths, b.info().document_lengths) << spec;
  }
}

std::string spec_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Specs, EveryPattern, ::testing::ValuesIn(kSpecs), spec_test_name);

TEST(MaskPatterns, EveryRegisteredPatternIsTested) {
  std::set<std::string> tested;
  for (const std::string& spec : kSpecs) tested.insert(parse_mask_spec(spec).name);
  const std::vector<std::string> design = {
      "full", "causal", "full_document", "causal_document", "full_document_long", "causal_document_long",
      "sliding_window", "sliding_window_causal", "global_sliding_window", "share_question", "causal_blockwise",
      "prefix_lm_causal", "prefix_lm_document", "block_causal_document", "block_sparse", "variable_block_sparse"};
  std::set<std::string> registered;
  for (const MaskPattern& p : builtin_mask_patterns().patterns()) {
    registered.insert(p.name);
    EXPECT_TRUE(tested.count(p.name)) << p.name << " has no spec in kSpecs";
    EXPECT_FALSE(p.definition.empty()) << p.name;
    for (const MaskParam& param : p.params) EXPECT_FALSE(param.description.empty()) << p.name << " " << param.name;
  }
  EXPECT_EQ(registered, std::set<std::string>(design.begin(), design.end()));
}

TEST(MaskPatterns, DifferentSeedsGiveDifferentMasks) {
  // One spec per random pattern, at a size where its randomness has room.
  const std::vector<std::pair<std::string, int64_t>> cases = {
      {"full_document", 4096},          {"causal_document", 4096},      {"full_document_long", 20000},
      {"causal_document_long", 20000},  {"share_question", 4096},       {"causal_blockwise", 4096},
      {"prefix_lm_document", 4096},     {"block_causal_document:block=16", 4096},
      {"block_sparse", 2048},           {"variable_block_sparse", 4096}};
  std::set<std::string> covered;
  for (const auto& [spec, s] : cases) {
    covered.insert(parse_mask_spec(spec).name);
    std::vector<std::vector<Slice>> seen;
    for (int seed = 0; seed < 5; ++seed) {
      const Mask m = make_mask(with_param(spec, "seed=" + std::to_string(seed)), s, kKvHeads);
      for (const auto& other : seen) EXPECT_NE(m.slices(0), other) << spec << " seed " << seed;
      seen.push_back(m.slices(0));
    }
    // per-kv-head masks differ between heads too
    const Mask m = make_mask(spec, s, kKvHeads);
    if (m.is_per_kv_head()) {
      EXPECT_NE(m.slices(0), m.slices(1)) << spec;
    }
  }
  for (const MaskPattern& p : builtin_mask_patterns().patterns())
    if (has_param(p, "seed")) {
      EXPECT_TRUE(covered.count(p.name)) << p.name << " has no seed test";
    }
}

TEST(MaskPatterns, ClosedFormAreas) {
  for (int64_t s : {1, 2, 7, 1000, 4096, 131072, 1 << 20, 3'000'001}) {
    EXPECT_EQ(make_mask("full", s).area(), s * s);
    EXPECT_EQ(make_mask("causal", s).area(), s * (s + 1) / 2);
    for (int64_t w : {1, 2, 3, 64, 1000, 1024, 4095, 100000}) {
      const std::string wt = std::to_string(w);
      if (s > 2 * w) {
        EXPECT_EQ(make_mask("sliding_window:window=" + wt, s).area(), (2 * w + 1) * s - w * (w + 1));
      }
      if (s > w) {
        EXPECT_EQ(make_mask("sliding_window_causal:window=" + wt, s).area(), (w + 1) * s - w * (w + 1) / 2);
      }
      // Short sequences: every row sees everything (symmetric) or its whole past (causal).
      if (s <= w) {
        EXPECT_EQ(make_mask("sliding_window:window=" + wt, s).area(), s * s);
        EXPECT_EQ(make_mask("sliding_window_causal:window=" + wt, s).area(), s * (s + 1) / 2);
      }
    }
  }
  // Bands stay a handful of slices at any S.
  EXPECT_EQ(make_mask("sliding_window:window=1024", 1 << 20).num_slices(), 3);
  EXPECT_EQ(make_mask("sliding_window_causal:window=1024", 1 << 20).num_slices(), 2);
  // prefix_lm_causal: p^2 + causal rows below.
  const int64_t s = 10000, p = 3000;
  EXPECT_EQ(make_mask("prefix_lm_causal:prefix=3000", s).area(), p * p + (s * (s + 1) / 2 - p * (p + 1) / 2));
}

TEST(MaskPatterns, LargeSequencesGenerateFromSlicesOnly) {
  // S = 1M: anything of size S x S would need a terabyte; these must be O(slices).
  const int64_t s = 1 << 20;
  for (const char* spec :
       {"full_document", "causal_document:dist=prolong512k", "full_document_long", "causal_document_long",
        "sliding_window", "sliding_window_causal", "global_sliding_window", "share_question", "causal_blockwise",
        "prefix_lm_causal", "prefix_lm_document", "block_causal_document"}) {
    const Mask m = make_mask(spec, s, 8);
    EXPECT_GT(m.area(), 0) << spec;
    EXPECT_GT(count_tiles(m, {128, 128}).touched, 0) << spec;
  }
  const Mask sparse = make_mask("block_sparse:block=128,density=0.1", 128 * 1024, 8);
  EXPECT_EQ(sparse.num_head_masks(), 8);
  // 1024 q blocks x round(0.1 * 1024) = 102 kept blocks of 128 x 128 per head
  for (int h = 0; h < 8; ++h) EXPECT_EQ(sparse.area(h), int64_t{1024} * 102 * 128 * 128);
  const TileCounts tiles = count_tiles(sparse, {128, 128});
  EXPECT_EQ(tiles.touched, int64_t{8} * 1024 * 102);
  EXPECT_EQ(tiles.partial, 0);  // every kept block is covered by one FULL slice
  const Mask variable = make_mask("variable_block_sparse", 128 * 1024, 8);
  EXPECT_NEAR(variable.density(), 0.2, 0.03);
}

TEST(MaskPatterns, DocumentLengthsComeFromTheDistribution) {
  for (const auto& [s, dist] : std::vector<std::pair<int64_t, std::string>>{
           {4096, "pile"}, {12 * 1024, "pile"}, {32768, "prolong64k"}, {64 * 1024, "prolong64k"},
           {200000, "prolong512k"}}) {
    for (int seed : {0, 7}) {
      Rng rng(static_cast<uint64_t>(seed));
      const std::vector<int64_t> want = sample_document_lengths(doclen_distribution(dist), s, rng);
      const std::string seed_text = "seed=" + std::to_string(seed);
      // the default dist depends on S
      EXPECT_EQ(make_mask("causal_document:" + seed_text, s).info().document_lengths, want) << s;
      EXPECT_EQ(make_mask("full_document:dist=" + dist + "," + seed_text, s).info().document_lengths, want);
    }
  }
}

TEST(MaskPatterns, LongMixPutsTheLongShareInLongDocumentsInRandomOrder) {
  // Short documents of length 1 make the two parts easy to tell apart.
  const DoclenDistribution ones("ones", {{1, 2, 1.0}});
  const mask_patterns::LongDocumentMix mix{0.6, 100, 200};
  const int64_t s = 10000;
  bool long_not_first = false;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed);
    const std::vector<int64_t> lengths = mask_patterns::long_mix_document_lengths(ones, s, rng, mix);
    int64_t total = 0, long_tokens = 0, ones_count = 0;
    for (size_t n = 0; n < lengths.size(); ++n) {
      total += lengths[n];
      EXPECT_LE(lengths[n], 200);
      if (lengths[n] == 1) ++ones_count;
      else long_tokens += lengths[n];
      if (n == 0 && lengths[n] == 1) long_not_first = true;
    }
    EXPECT_EQ(total, s);
    EXPECT_GE(long_tokens, 6000 - 1);  // the truncated last long document may have length 1
    EXPECT_LE(ones_count, 4000 + 1);
  }
  EXPECT_TRUE(long_not_first) << "documents are not shuffled";
  // With the real ranges, at S = 1M: the long documents hold 60% of the tokens.
  Rng rng(3);
  const std::vector<int64_t> lengths =
      mask_patterns::long_mix_document_lengths(doclen_distribution("pile"), 1 << 20, rng);
  int64_t total = 0;
  for (int64_t len : lengths) total += len;
  EXPECT_EQ(total, 1 << 20);
}

TEST(MaskPatterns, BlockDocumentsHaveOneToEightBlocks) {
  Rng rng(5);
  const int64_t s = 100000, block = 64;
  const std::vector<int64_t> lengths = mask_patterns::block_document_lengths(s, block, 8, rng);
  std::set<int64_t> block_counts;
  int64_t total = 0;
  for (size_t n = 0; n < lengths.size(); ++n) {
    total += lengths[n];
    if (n + 1 < lengths.size()) {
      EXPECT_EQ(lengths[n] % block, 0);
      block_counts.insert(lengths[n] / block);
    }
    EXPECT_LE(lengths[n], 8 * block);
  }
  EXPECT_EQ(total, s);
  EXPECT_EQ(block_counts, (std::set<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(MaskPatterns, BlockBoundsAndTopK) {
  EXPECT_EQ(mask_patterns::uniform_block_bounds(130, 64), (std::vector<int64_t>{0, 64, 128, 130}));
  EXPECT_EQ(mask_patterns::uniform_block_bounds(128, 64), (std::vector<int64_t>{0, 64, 128}));
  EXPECT_EQ(mask_patterns::uniform_block_bounds(5, 64), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(top_k_count(0.2, 10), 2);
  EXPECT_EQ(top_k_count(0.01, 10), 1);
  EXPECT_EQ(top_k_count(1.0, 7), 7);
  EXPECT_EQ(top_k_count(0.5, 3), 2);
  EXPECT_THROW(top_k_count(0.0, 3), Error);

  for (int64_t s : {1, 100, 128, 255, 256, 1000, 100000}) {
    for (uint64_t seed = 0; seed < 5; ++seed) {
      Rng rng(seed);
      const std::vector<int64_t> b = mask_patterns::random_block_bounds(s, 128, 512, rng);
      ASSERT_GE(b.size(), 2u);
      EXPECT_EQ(b.front(), 0);
      EXPECT_EQ(b.back(), s);
      for (size_t n = 1; n < b.size(); ++n) {
        EXPECT_GE(b[n] - b[n - 1], std::min<int64_t>(128, s)) << s;
        EXPECT_LE(b[n] - b[n - 1], 2 * 512 - 1) << s;
      }
    }
  }
  Rng rng(1);
  const int64_t s = 10'000'000;
  const std::vector<int64_t> b = mask_patterns::random_block_bounds(s, 128, 512, rng);
  EXPECT_NEAR(static_cast<double>(s) / static_cast<double>(b.size() - 1), 512.0, 10.0);

  // top-k over random bounds: every q block keeps exactly k k-blocks, as whole blocks.
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Rng r(seed);
    const std::vector<int64_t> qb = mask_patterns::random_block_bounds(5000, 128, 300, r);
    const std::vector<int64_t> kb = mask_patterns::random_block_bounds(5000, 128, 300, r);
    const double density = 0.05 * static_cast<double>(seed + 1);
    const std::vector<Slice> slices = mask_patterns::top_k_block_slices(qb, kb, density, r);
    std::map<int64_t, int64_t> kept_per_q_block;
    for (const Slice& sl : slices) {
      const auto first = std::find(kb.begin(), kb.end(), sl.k_begin);
      const auto last = std::find(kb.begin(), kb.end(), sl.k_end);
      ASSERT_TRUE(first != kb.end() && last != kb.end()) << "slice k range is not on block bounds";
      ASSERT_TRUE(std::find(qb.begin(), qb.end(), sl.q_begin) != qb.end());
      kept_per_q_block[sl.q_begin] += last - first;
    }
    EXPECT_EQ(kept_per_q_block.size(), qb.size() - 1);
    for (const auto& [q, kept] : kept_per_q_block)
      EXPECT_EQ(kept, top_k_count(density, static_cast<int64_t>(kb.size()) - 1)) << "q block at " << q;
    EXPECT_NO_THROW(Mask(5000, slices));
  }
}

// top_k_block_slices as first written (kept flags as bytes, scanned one block at a time), against the bitset version:
// the same slices in the same order for the same generator state, over block counts around and at multiples of 64,
// every density from one block to all, uniform and random bounds.
std::vector<Slice> top_k_block_slices_by_bytes(const std::vector<int64_t>& q_bounds,
                                               const std::vector<int64_t>& k_bounds, double density, Rng& rng) {
  const size_t num_q_blocks = q_bounds.size() - 1, num_k_blocks = k_bounds.size() - 1;
  const size_t keep = static_cast<size_t>(top_k_count(density, static_cast<int64_t>(num_k_blocks)));
  std::vector<uint8_t> kept(num_k_blocks, 0);
  std::vector<Slice> slices;
  for (size_t qb = 0; qb < num_q_blocks; ++qb) {
    for (size_t j = num_k_blocks - keep; j < num_k_blocks; ++j) {
      const size_t pick = static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(j) + 1));
      kept[kept[pick] ? j : pick] = 1;
    }
    for (size_t kb = 0; kb < num_k_blocks;) {
      if (!kept[kb]) {
        ++kb;
        continue;
      }
      const size_t run_begin = kb;
      while (kb < num_k_blocks && kept[kb]) kept[kb++] = 0;
      slices.push_back({q_bounds[qb], q_bounds[qb + 1], k_bounds[run_begin], k_bounds[kb], SliceType::kFull});
    }
  }
  return slices;
}

TEST(MaskPatterns, TopKSlicesEqualTheByteFlagVersion) {
  int compared = 0;
  for (const int64_t k_blocks : {1, 2, 63, 64, 65, 127, 128, 129, 200, 256, 1000}) {
    for (const double density : {0.01, 0.2, 0.5, 0.9, 1.0}) {
      for (const uint64_t seed : {1, 2}) {
        Rng bounds_rng(seed + 100);
        const std::vector<int64_t> q_bounds = mask_patterns::uniform_block_bounds(128 * 40, 128);
        const std::vector<int64_t> k_bounds =
            seed == 1 ? mask_patterns::uniform_block_bounds(64 * k_blocks, 64)
                      : mask_patterns::random_block_bounds(200 * k_blocks, 128, 200, bounds_rng);
        Rng a(seed), b(seed);
        const std::vector<Slice> bits = mask_patterns::top_k_block_slices(q_bounds, k_bounds, density, a);
        const std::vector<Slice> bytes = top_k_block_slices_by_bytes(q_bounds, k_bounds, density, b);
        ASSERT_EQ(bits, bytes) << k_blocks << " blocks, density " << density << ", seed " << seed;
        EXPECT_EQ(a.next_u64(), b.next_u64());  // the same draws
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 110);
}

TEST(MaskPatterns, TopKKeepsEveryBlockAndAdjacentPairEquallyOften) {
  // A uniformly random 3-subset of 10 blocks: each block kept with probability 0.3, each adjacent pair (one
  // merged slice) with probability 3/10 * 2/9.
  const int64_t rows = 40000;
  const std::vector<int64_t> q_bounds = mask_patterns::uniform_block_bounds(rows, 1);
  const std::vector<int64_t> k_bounds = mask_patterns::uniform_block_bounds(10, 1);
  Rng rng(9);
  const std::vector<Slice> slices = mask_patterns::top_k_block_slices(q_bounds, k_bounds, 0.3, rng);
  std::vector<int64_t> kept(10, 0), pairs(9, 0);
  for (const Slice& sl : slices) {
    for (int64_t k = sl.k_begin; k < sl.k_end; ++k) ++kept[k];
    for (int64_t k = sl.k_begin; k + 1 < sl.k_end; ++k) ++pairs[k];
  }
  for (int64_t n : kept) EXPECT_NEAR(static_cast<double>(n) / rows, 0.3, 0.012);
  for (int64_t n : pairs) EXPECT_NEAR(static_cast<double>(n) / rows, 0.3 * 2.0 / 9.0, 0.008);
}

TEST(MaskPatterns, BandsInsideARange) {
  // Bands over [begin, end) of a longer sequence stay inside that range.
  for (int64_t w : {1, 3, 10, 50}) {
    for (int64_t n : {1, 2, 5, 20, 101}) {
      const int64_t begin = 13, s = begin + n + 9;
      std::vector<Slice> sym, causal;
      mask_patterns::append_symmetric_band(sym, begin, begin + n, w);
      mask_patterns::append_causal_band(causal, begin, begin + n, w);
      const Mask a(s, sym), b(s, causal);
      const std::vector<uint8_t> da = a.dense(), db = b.dense();
      for (int64_t q = 0; q < s; ++q)
        for (int64_t k = 0; k < s; ++k) {
          const bool inside = q >= begin && q < begin + n && k >= begin && k < begin + n;
          ASSERT_EQ(da[q * s + k], inside && std::abs(q - k) <= w) << "w=" << w << " n=" << n;
          ASSERT_EQ(db[q * s + k], inside && k <= q && q - k <= w) << "w=" << w << " n=" << n;
        }
    }
  }
}

void expect_error(const std::string& spec, const std::vector<std::string>& fragments, int64_t s = 4096) {
  try {
    make_mask(spec, s, 2);
    ADD_FAILURE() << spec << ": expected an error";
  } catch (const Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << spec << ": '" << e.what() << "' lacks '" << f
                                                                  << "'";
  }
}

TEST(MaskPatterns, UnknownNamesAndKeysListTheValidOnes) {
  expect_error("sliding", {"unknown mask pattern 'sliding'", "valid:", "sliding_window", "block_sparse",
                           "variable_block_sparse", "file"});
  expect_error("sliding_window:size=3", {"no parameter 'size'", "valid: window"});
  expect_error("block_sparse:blocks=64", {"no parameter 'blocks'", "block", "density", "seed"});
  expect_error("causal:seed=1", {"no parameter 'seed'", "valid: none"});
  expect_error("causal_document:dist=wiki", {"dist=wiki", "valid: pile, prolong512k, prolong64k"});
  expect_error("share_question:dist=", {"not key=value"});
}

TEST(MaskPatterns, BadParameterValuesAreClearErrors) {
  for (const std::string p : {"sliding_window", "sliding_window_causal", "global_sliding_window"}) {
    expect_error(p + ":window=0", {"window=0", "must be >= 1"});
    expect_error(p + ":window=-5", {"window=-5", "must be >= 1"});
    expect_error(p + ":window=wide", {"window=wide", "not an integer"});
  }
  expect_error("global_sliding_window:global=-1", {"global=-1", "must be >= 0"});
  for (const std::string p : {"block_sparse", "variable_block_sparse"}) {
    expect_error(p + ":density=0", {"density", "(0, 1]"});
    expect_error(p + ":density=1.5", {"density", "(0, 1]"});
    expect_error(p + ":density=-0.1", {"density", "(0, 1]"});
    expect_error(p + ":density=dense", {"not a number"});
  }
  expect_error("block_sparse:block=96", {"block=96", "valid: 64, 128"});
  expect_error("block_sparse:block=256", {"block=256", "valid: 64, 128"});
  expect_error("variable_block_sparse:avg_block=100", {"avg_block=100", "must be >= 128"});
  expect_error("block_causal_document:block=0", {"block=0", "must be >= 1"});
  expect_error("prefix_lm_causal:prefix=-1", {"prefix=-1", "must be >= 0"});
  expect_error("prefix_lm_document:prefix=-1", {"prefix=-1", "must be >= 0"});
  expect_error("causal_document:seed=x", {"seed=x", "not an integer"});
  EXPECT_THROW(make_mask("causal", 0), Error);
}

}  // namespace
}  // namespace lcab
