#!/usr/bin/env python3
"""Host logic of measure/peers/torch_peers.py that decides what FlexAttention and SDPA are given (no GPU, no
PyTorch: a stand-in for torch.from_numpy(...).cuda()). The block table and the interval tables must describe
exactly lcab's mask, or every peer measurement is of another mask.

  python3 tests/peers/mask_tables_test.py [--lcab-predict PATH]
"""

import json
import os
import random
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "measure", "peers"))
import torch_peers as peers  # noqa: E402

LCAB_PREDICT = None


class HostTorch:
    """The two calls of torch the table builders make, on numpy arrays."""

    class _Array(np.ndarray):
        def cuda(self):
            return np.asarray(self)

    @staticmethod
    def from_numpy(array):
        return array.view(HostTorch._Array)


def dense(heads_slices, seqlen):
    """bool [heads, S, S] from lcab slices, one (q, k) at a time (the reference)."""
    out = np.zeros((len(heads_slices), seqlen, seqlen), dtype=bool)
    for h, slices in enumerate(heads_slices):
        for qs, qe, ks, ke, kind in slices:
            for q in range(qs, qe):
                i, d = q - qs, (ke - ks) - (qe - qs)
                lo, hi = 0, ke - ks
                if kind == "causal":
                    hi = min(max(i + d + 1, 0), ke - ks)
                elif kind == "invcausal":
                    lo = min(i, ke - ks)
                elif kind == "bicausal":
                    lo, hi = (i, i + d + 1) if d >= 0 else (i, i)
                out[h, q, ks + lo:ks + max(hi, lo)] = True
    return out


def random_block_sparse(rng, seqlen, block, heads, density):
    """Per head, full rectangles on a block grid, neighbours in a row sometimes merged (as lcab emits them)."""
    blocks = seqlen // block
    result = []
    for _ in range(heads):
        slices = []
        for qb in range(blocks):
            kb = 0
            while kb < blocks:
                if rng.random() < density:
                    width = 1 + (rng.random() < 0.3)
                    end = min(kb + width, blocks)
                    slices.append([qb * block, (qb + 1) * block, kb * block, end * block, "full"])
                    kb = end + 1
                else:
                    kb += 1
        result.append(slices)
    return result


def table_cells(granule, table, seqlen):
    """The block table expanded to (q, k) cells."""
    return np.repeat(np.repeat(np.asarray(table), granule, axis=1), granule, axis=2)[:, :seqlen, :seqlen]


class BlockTableTest(unittest.TestCase):
    def test_equals_the_cell_by_cell_mask_on_random_block_sparse_masks(self):
        rng = random.Random(3)
        for trial in range(20):
            block = rng.choice([64, 128, 256])
            seqlen = block * rng.choice([2, 4, 8])
            heads = rng.choice([1, 2, 4])
            slices = random_block_sparse(rng, seqlen, block, heads, rng.choice([0.1, 0.4, 0.8]))
            built = peers.block_table(HostTorch, np, slices, seqlen)
            self.assertIsNotNone(built, f"trial {trial}")
            granule, table = built
            self.assertEqual(seqlen % granule, 0)
            self.assertGreaterEqual(granule, block if any(slices) else 64)
            np.testing.assert_array_equal(table_cells(granule, table, seqlen), dense(slices, seqlen),
                                          err_msg=f"trial {trial}")

    def test_declines_masks_that_are_not_whole_aligned_full_blocks(self):
        self.assertIsNone(peers.block_table(HostTorch, np, [[[0, 256, 0, 256, "causal"]]], 256))
        self.assertIsNone(peers.block_table(HostTorch, np, [[[0, 96, 0, 96, "full"]]], 256))  # 32-token granule
        # Too many cells for the lookup table: declined, the interval tables take it.
        self.assertIsNone(peers.block_table(HostTorch, np, [[[0, 64, 0, 64, "full"]]], 1 << 20, max_cells=1 << 10))

    def test_overlapping_slices_are_an_error(self):
        with self.assertRaises(RuntimeError):
            peers.block_table(HostTorch, np, [[[0, 128, 0, 128, "full"], [0, 128, 0, 256, "full"]]], 256)


class MaskTablesTest(unittest.TestCase):
    def check(self, heads_slices, seqlen):
        reference = dense(heads_slices, seqlen)
        area = float(reference.sum()) / len(heads_slices)
        tables = peers.MaskTables(HostTorch, np, heads_slices, seqlen, area)
        q = np.arange(seqlen)[:, None]
        k = np.arange(seqlen)[None, :]
        for h in range(len(heads_slices)):
            np.testing.assert_array_equal(np.asarray(tables.visible(h, q, k)), reference[h])
        with self.assertRaises(RuntimeError):  # a table that disagrees with lcab's area is refused
            peers.MaskTables(HostTorch, np, heads_slices, seqlen, area + 1)
        return tables

    def test_interval_tables_for_causal_documents_and_windows(self):
        tables = self.check([[[0, 100, 0, 100, "causal"], [100, 256, 100, 256, "causal"],
                              [150, 256, 0, 50, "full"]]], 256)
        self.assertIsNone(tables.block)
        self.assertEqual(tables.slots, 2)
        self.check([[[0, 64, 0, 64, "causal"], [64, 256, 0, 256, "bicausal"]]], 256)  # a 65-key window
        self.check([[[0, 128, 0, 256, "invcausal"]], [[0, 256, 0, 256, "causal"]]], 256)

    def test_block_masks_take_the_block_table(self):
        rng = random.Random(5)
        tables = self.check(random_block_sparse(rng, 512, 128, 2, 0.5), 512)
        self.assertIsNotNone(tables.block)


class RecordsTest(unittest.TestCase):
    def test_skip_recorded_in_reads_keys_of_other_files(self):
        key = {"impl": "torch_flex", "pass": "fwd", "mask": "causal", "seqlen": 4096, "batch": 1, "heads": 64,
               "kv_heads": 8, "head_dim": 128, "dtype": "bf16"}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.jsonl")
            with open(path, "w") as f:
                f.write(json.dumps({"kind": "kernel", "key": dict(reversed(list(key.items())))}) + "\n\nnot json\n")
            done = peers.recorded_keys(path)
        self.assertEqual(done, {peers.key_id(key)})
        args = peers.parse_args(["--skip-recorded-in", "a.jsonl", "b.jsonl", "--mask", "document:count=4,causal"])
        self.assertEqual(args.skip_recorded_in, ["a.jsonl", "b.jsonl"])
        self.assertEqual(args.mask, ["document:count=4", "causal"])


@unittest.skipUnless(os.environ.get("LCAB_PREDICT"), "LCAB_PREDICT (path of lcab-predict) not set")
class LcabMasksTest(unittest.TestCase):
    """Real lcab masks through lcab-predict mask --json: the tables cover exactly lcab's area."""

    def test_every_pattern_at_2k(self):
        for spec in peers.split_mask_specs(
                "full,causal,full_document,causal_document,sliding_window,sliding_window_causal,"
                "global_sliding_window,share_question,causal_blockwise,prefix_lm_causal,prefix_lm_document,"
                "block_causal_document,block_sparse,variable_block_sparse"):
            for kv_heads in (1, 4):
                area, heads = peers.lcab_mask(os.environ["LCAB_PREDICT"], spec, 2048, kv_heads)
                tables = peers.MaskTables(HostTorch, np, heads, 2048, area)  # raises if the area differs
                self.assertTrue(tables.block is not None or tables.slots >= 1, spec)


if __name__ == "__main__":
    unittest.main()
