// Sharding: which global tokens each ring position (and each rank) holds, in which row order (DESIGN.md
// section 4).
//
// A method shards the sequence over R ring positions; each position's rows are then split contiguously over
// the U members of its Ulysses group (U = 1 for plain ring / all-gather, R = 1 for plain Ulysses). Every
// position gets the same number of rows; where S does not divide, pad rows are appended to chunks (pads are
// never in a slice, so never work). Kinds:
//   contiguous        position p holds [p*c, (p+1)*c), c = ceil(S / R)
//   zigzag            2R chunks of c = ceil(S / 2R) tokens; position p holds chunk p then chunk 2R-1-p (equal
//                     causal work per position)
//   zigzag_documents  the same inside every *unit*: consecutive documents are grouped into units of at least
//                     2R * min_chunk_tokens tokens (a short remainder joins the last unit); each unit is padded to
//                     a multiple of 2R and zigzagged, so every position gets an equal share of every unit
//                     (balanced for document masks, causal or not). Documents longer than a unit are units of
//                     their own. Units keep the number of chunks at 2R x units <= S / min_chunk_tokens, so
//                     schedules stay small for tiny documents (where a contiguous split is balanced anyway).
#pragma once

#include <cstdint>
#include <vector>

#include "model/cp/schedule.h"
#include "model/mask.h"

namespace lcab::cp {

struct PositionSharding {
  ShardingKind kind = ShardingKind::kContiguous;  ///< the kind actually used (never kAuto)
  std::vector<TokenMap> positions;  ///< one per ring position, all with rows() == rows_per_position
  int64_t rows_per_position = 0;    ///< a multiple of the split given to shard_sequence
  int64_t pad_tokens = 0;           ///< over all positions
  int64_t units = 1;                ///< zigzag_documents: number of units
};

/// Shards S = mask.seqlen() tokens over `positions` ring positions so that each position's rows divide into
/// `split` equal parts. kAuto picks zigzag_documents for masks made of more than one document, zigzag otherwise.
/// Throws lcab::Error when S < 2 * positions for zigzag kinds (or S < positions * split for contiguous).
PositionSharding shard_sequence(const Mask& mask, int64_t positions, int64_t split, ShardingKind kind,
                                int64_t min_document_chunk_tokens);

/// Rows [row_begin, row_end) of map, as a token map (a Ulysses member's share of its position's rows).
TokenMap slice_rows(const TokenMap& map, int64_t row_begin, int64_t row_end);

/// Concatenation of maps in order (the rows of a gathered buffer).
TokenMap concatenate(const std::vector<TokenMap>& maps);

/// Index over the key axis of a set of blocks (token maps): for any global key range, which block rows hold it.
/// Blocks must not hold the same global token twice.
class KeyBlockIndex {
 public:
  struct Entry {
    int64_t global_begin;
    int64_t global_end;
    int block;
    int64_t row;  ///< row of global_begin in the block
  };
  explicit KeyBlockIndex(const std::vector<TokenMap>& blocks);
  /// Entries overlapping [begin, end), in global order: [first, last).
  std::pair<const Entry*, const Entry*> overlapping(int64_t begin, int64_t end) const;
  int num_blocks() const { return num_blocks_; }

 private:
  std::vector<Entry> entries_;
  int num_blocks_ = 0;
};

}  // namespace lcab::cp
