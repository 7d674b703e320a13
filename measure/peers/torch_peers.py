#!/usr/bin/env python3
"""Measure PyTorch's attention kernels ("peers") the way `lcab-measure kernel` measures lcab's, into the same records.

Implementations (--impl, comma-separated):
  torch_sdpa_flash, torch_sdpa_cudnn, torch_sdpa_efficient
        scaled_dot_product_attention restricted to one backend (torch.nn.attention.sdpa_kernel). Masks: full and
        causal natively (is_causal); any other mask only as an explicit dense boolean mask when it fits in
        --max-dense-mask-bytes (the record's extra says "dense_mask": true), otherwise status "unsupported".
  torch_flex
        FlexAttention with a block mask built from lcab's own slices (every mask pattern), read from
        `lcab-predict mask --json - --with-slices`.
  flash_attn2, flash_attn3
        the flash-attn packages (flash_attn, flash_attn_interface) when importable: full, causal and sliding
        windows.

Per point: random inputs (never zeros), a check of the forward output against a float32 reference computed for
a sample of rows and heads (relative error, recorded in extra.check_rel_err; a failed check makes the point an
"error" and it is not timed), warm-up, then --reps repetitions, each after an L2 flush (writing a buffer twice
the L2 size) and timed with CUDA events around the region alone (extra.event_time_ms), then --reps more under the
PyTorch profiler, whose CUPTI durations of the region's kernels give time_ms (--time-basis kernel_sum, the
default: a Python call's host dispatch can outlast its GPU work at short sequences, and the event time then
measures the host; see gpu_kernel_time.py; extra.gpu_span_ms and extra.kernels as lcab-measure writes them;
--time-basis event keeps the event time); median/p20/p80, TFLOP/s by the FlashAttention
convention (fwd 4*area*Hq*D, bwd 2.5x), peak memory of the point (torch.cuda.max_memory_allocated over the
memory allocated before it). Records are appended to --out as each point finishes; points already in --out are
skipped. Progress on stderr, a markdown summary on stdout.

Usage:
  python3 measure/peers/torch_peers.py --impl torch_sdpa_cudnn,torch_flex --mask causal,causal_document \
      --seqlen 4k,16k --pass fwd,bwd --heads 64 --kv-heads 8 --head-dim 128 --out data/measurements/peers.jsonl
"""

import argparse
import datetime
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import gpu_kernel_time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import record_files  # noqa: E402  (scripts/record_files.py: committed files may be stored gzip-compressed)

SDPA_BACKENDS = {
    "torch_sdpa_flash": "FLASH_ATTENTION",
    "torch_sdpa_cudnn": "CUDNN_ATTENTION",
    "torch_sdpa_efficient": "EFFICIENT_ATTENTION",
}
ALL_IMPLS = list(SDPA_BACKENDS) + ["torch_flex", "flash_attn2", "flash_attn3"]
CHECK_TOLERANCE = 2e-2  # bf16/fp16 operands land between 1e-3 and 1e-2
REP_MARKER = "lcab_rep_"
TIME_BASES = {
    "kernel_sum": "the summed durations of the GPU work the region launched (CUPTI, through the PyTorch profiler), "
                  "median over repetitions run after the event-timed ones; extra.event_time_ms is the CUDA-event "
                  "time of the region, which includes host dispatch the GPU waited for",
    "event": "CUDA events around the region (host dispatch the GPU waited for included)",
}


class Unsupported(Exception):
    """The implementation cannot run this point (status "unsupported")."""


# ---- options -------------------------------------------------------------------------------------------------

def parse_tokens(text):
    text = text.strip()
    scale = {"k": 1024, "K": 1024, "M": 1048576}.get(text[-1:], 1)
    value = int(text[:-1] if scale != 1 else text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be positive")
    return value * scale


def token_list(text):
    try:
        return [parse_tokens(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of token counts (e.g. 4k,16k,1M)")


def int_list(text):
    try:
        values = [int(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of integers")
    if any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"'{text}': values must be positive")
    return values


def choice_list(valid):
    def parse(text):
        values = text.split(",")
        for v in values:
            if v not in valid:
                raise argparse.ArgumentTypeError(f"'{v}' is not valid; valid: {', '.join(valid)}")
        return values
    return parse


def split_mask_specs(text):
    """As lcab's CLI: commas split specs, except inside a spec's key=value list."""
    specs = []
    for item in text.split(","):
        colon, eq = item.find(":"), item.find("=")
        starts = not specs or eq < 0 or (0 <= colon < eq)
        if starts or specs[-1].startswith("file:"):
            specs.append(item)
        else:
            specs[-1] += "," + item
    return specs


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--impl", type=choice_list(ALL_IMPLS), default=["torch_sdpa_cudnn", "torch_flex"])
    p.add_argument("--mask", type=split_mask_specs, default=["causal"], help="mask spec(s), as lcab's --mask")
    p.add_argument("--seqlen", type=token_list, default=[32768])
    p.add_argument("--pass", dest="passes", type=choice_list(["fwd", "bwd"]), default=["fwd"])
    p.add_argument("--heads", type=int_list, default=[64])
    p.add_argument("--kv-heads", type=int_list, default=[8])
    p.add_argument("--head-dim", type=int_list, default=[128])
    p.add_argument("--dtype", type=choice_list(["bf16", "fp16"]), default=["bf16"])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--out", help="append records to FILE.jsonl; points already there are skipped")
    p.add_argument("--skip-recorded-in", nargs="*", default=[], metavar="FILE",
                   help="also skip points recorded in these JSON Lines files (e.g. the committed measurements)")
    p.add_argument("--lcab-predict", default=None, help="path of lcab-predict (default: on PATH or build*/apps/)")
    p.add_argument("--max-dense-mask-bytes", type=float, default=4 * 2**30,
                   help="largest explicit boolean mask SDPA may get for masks it has no native form of")
    p.add_argument("--check-rows", type=int, default=64, help="rows sampled for the reference check")
    p.add_argument("--time-basis", choices=sorted(TIME_BASES), default="kernel_sum",
                   help="what time_ms is: " + "; ".join(f"{k}: {v}" for k, v in sorted(TIME_BASES.items())))
    args = p.parse_args(argv)
    if args.reps <= 0 or args.warmup < 0 or args.batch <= 0:
        p.error("--reps and --batch must be positive, --warmup not negative")
    for h, kv in itertools.product(args.heads, args.kv_heads):
        if h % kv:
            p.error(f"--heads {h} with --kv-heads {kv}: q heads must be a multiple of kv heads")
    return args


# ---- records -------------------------------------------------------------------------------------------------

def key_id(key):
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def recorded_keys(path):
    done = set()
    if not path or not os.path.exists(record_files.stored_path(path)):
        return done
    with record_files.open_text(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if record.get("kind") == "kernel":
                    done.add(key_id(record["key"]))
            except (json.JSONDecodeError, KeyError, TypeError):
                print(f"torch_peers: {path}:{number}: malformed record, ignored", file=sys.stderr)
    return done


def git_sha():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def device_info(torch):
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    driver = ""
    try:
        with open("/proc/driver/nvidia/version") as f:
            line = f.readline()
        # "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  ...": the first dotted number
        driver = next((w for w in line.split("Kernel Module", 1)[-1].split()
                       if w[0].isdigit() and "." in w), "")
    except OSError:
        pass
    return {"name": props.name, "sms": props.multi_processor_count, "driver": driver or f"CUDA {torch.version.cuda}"}


def percentile(samples, q):
    s = sorted(samples)
    pos = q / 100 * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


# ---- masks from lcab's slices --------------------------------------------------------------------------------

def find_lcab_predict(explicit):
    if explicit:
        return explicit
    found = shutil.which("lcab-predict")
    if found:
        return found
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for entry in sorted(os.listdir(root)):
        candidate = os.path.join(root, entry, "apps", "lcab-predict")
        if entry.startswith("build") and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("torch_peers: lcab-predict not found; build it or pass --lcab-predict PATH")


def lcab_mask(lcab_predict, spec, seqlen, kv_heads):
    """(area, list of slice lists: one shared list, or one per kv head) from lcab-predict."""
    out = subprocess.run([lcab_predict, "mask", "--mask", spec, "--seqlen", str(seqlen), "--kv-heads",
                          str(kv_heads), "--json", "-", "--with-slices"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"lcab-predict mask failed: {out.stderr.strip()}")
    record = json.loads(out.stdout.splitlines()[0])
    slices = record["mask_slices"]
    heads = slices["heads"] if "heads" in slices else [slices["slices"]]
    return record["area"], heads


def row_intervals(np, slices, seqlen):
    """Per row q, the key intervals [lo, hi) of every slice covering it (each slice type is one interval per
    row: lcab's Slice::keys_of_row). Returns int32 arrays lo, hi of shape [slots, seqlen]."""
    count = np.zeros(seqlen, dtype=np.int64)
    entries = []
    for qs, qe, ks, ke, kind in slices:
        rows = np.arange(qs, qe)
        i = rows - qs
        d = (ke - ks) - (qe - qs)
        lo = np.zeros_like(rows)
        hi = np.full_like(rows, ke - ks)
        if kind == "causal":
            hi = np.clip(i + d + 1, 0, ke - ks)
        elif kind == "invcausal":
            lo = np.minimum(i, ke - ks)
        elif kind == "bicausal":
            lo, hi = (i, i + d + 1) if d >= 0 else (i, i)
        elif kind != "full":
            raise RuntimeError(f"unknown slice type '{kind}'")
        slot = count[qs:qe].copy()
        count[qs:qe] += 1
        entries.append((rows, slot, ks + lo, ks + np.maximum(hi, lo)))
    slots = int(count.max()) if seqlen else 0
    lo_all = np.zeros((max(slots, 1), seqlen), dtype=np.int32)
    hi_all = np.zeros((max(slots, 1), seqlen), dtype=np.int32)
    for rows, slot, lo, hi in entries:
        lo_all[slot, rows] = lo
        hi_all[slot, rows] = hi
    return lo_all, hi_all


def block_table(torch, np, heads_slices, seqlen, max_cells=1 << 26):
    """(granule, bool tensor [kv_heads_in_mask, S/granule, S/granule]) when every slice is a full rectangle whose
    corners are multiples of one granule of at least 64 tokens (block-sparse masks: tens of key intervals per row,
    too many for the interval tables, but one table lookup per (q, k)); None otherwise. Vectorized: block_sparse
    at 64K with 64 kv heads has 3M slices."""
    corners = []
    granule = seqlen
    for slices in heads_slices:
        if any(kind != "full" for *_, kind in slices):
            return None
        c = np.array([sl[:4] for sl in slices], dtype=np.int64).reshape(-1, 4)
        granule = math.gcd(granule, int(np.gcd.reduce(c.ravel()))) if c.size else granule
        corners.append(c)
    if granule < 64:
        return None
    blocks = seqlen // granule
    if len(heads_slices) * blocks * blocks > max_cells:
        return None
    # Each rectangle adds +1 at (qs, ks) and (qe, ke), -1 at (qs, ke) and (qe, ks); prefix sums give the cover.
    cover = np.zeros((len(heads_slices), blocks + 1, blocks + 1), dtype=np.int32)
    for h, c in enumerate(corners):
        qs, qe, ks, ke = (c[:, i] // granule for i in range(4))
        np.add.at(cover[h], (qs, ks), 1)
        np.add.at(cover[h], (qe, ke), 1)
        np.add.at(cover[h], (qs, ke), -1)
        np.add.at(cover[h], (qe, ks), -1)
    cover = cover.cumsum(axis=1).cumsum(axis=2)[:, :blocks, :blocks]
    if cover.max(initial=0) > 1:
        raise RuntimeError("lcab's slices overlap: a block is covered twice")
    return granule, torch.from_numpy(cover > 0).cuda()


class MaskTables:
    """How FlexAttention's mask_mod and the reference see lcab's mask: a block table (block_table()) when the mask
    is made of granule-aligned full blocks, otherwise lo/hi interval tables on the GPU, [kv_heads_in_mask, slots,
    S]. Either must cover exactly lcab's area."""

    MAX_SLOTS = 32  # intervals per row that FlexAttention's mask_mod evaluates; more are "unsupported"

    def __init__(self, torch, np, heads_slices, seqlen, area):
        self.per_head = len(heads_slices) > 1
        self.block = block_table(torch, np, heads_slices, seqlen)
        if self.block is not None:
            granule, table = self.block
            table_area = float(table.sum()) * granule * granule / len(heads_slices)
            self.slots = None
        else:
            tables = [row_intervals(np, s, seqlen) for s in heads_slices]
            table_area = sum(float(np.maximum(u - l, 0).sum()) for l, u in tables) / len(tables)
            slots = max(t[0].shape[0] for t in tables)
            lo = np.zeros((len(tables), slots, seqlen), dtype=np.int32)
            hi = np.zeros((len(tables), slots, seqlen), dtype=np.int32)
            for h, (l, u) in enumerate(tables):
                lo[h, :l.shape[0]] = l
                hi[h, :u.shape[0]] = u
            self.slots = slots
            self.lo = torch.from_numpy(lo).cuda()
            self.hi = torch.from_numpy(hi).cuda()
        # The tables must describe exactly lcab's mask: their area (slices never overlap) is lcab's.
        if abs(table_area - area) > 1e-6 * max(area, 1.0):
            raise RuntimeError(f"mask tables cover {table_area} (q, k) pairs but lcab says {area}")

    def visible_blocks(self, kv_head, q, k):
        """Like visible(), from the block table (only when block_table() built one)."""
        granule, table = self.block
        return table[kv_head][q // granule, k // granule]

    def visible(self, kv_head, q, k):
        """Boolean tensor: does row q see key k (broadcasting q and k)."""
        if self.block is not None:
            return self.visible_blocks(kv_head, q, k)
        lo, hi = self.lo[kv_head], self.hi[kv_head]
        seen = (k >= lo[0][q]) & (k < hi[0][q])
        for m in range(1, self.slots):
            seen = seen | ((k >= lo[m][q]) & (k < hi[m][q]))
        return seen


# ---- implementations -----------------------------------------------------------------------------------------

class Point:
    def __init__(self, impl, mask, seqlen, pass_, batch, heads, kv_heads, head_dim, dtype):
        self.impl, self.mask, self.seqlen, self.pass_ = impl, mask, seqlen, pass_
        self.batch, self.heads, self.kv_heads, self.head_dim, self.dtype = batch, heads, kv_heads, head_dim, dtype

    def key(self):
        return {"impl": self.impl, "pass": self.pass_, "mask": self.mask, "seqlen": self.seqlen, "batch": self.batch,
                "heads": self.heads, "kv_heads": self.kv_heads, "head_dim": self.head_dim, "dtype": self.dtype}

    def label(self):
        return (f"{self.impl} {self.pass_} {self.mask} S={self.seqlen} {self.heads}/{self.kv_heads} "
                f"hd{self.head_dim} {self.dtype}")


def mask_name(spec):
    return spec.split(":", 1)[0]


def make_sdpa(torch, point, tables, extra, max_dense_bytes):
    """A function (q, k, v) -> out in [B, H, S, D] layout for one SDPA backend."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    backend = getattr(SDPBackend, SDPA_BACKENDS[point.impl])
    name = mask_name(point.mask)
    kwargs = {}
    if name == "causal":
        kwargs["is_causal"] = True
    elif name != "full":
        heads_in_mask = point.heads if tables.per_head else 1
        dense_bytes = heads_in_mask * point.seqlen * point.seqlen
        if dense_bytes > max_dense_bytes:
            raise Unsupported(f"SDPA has no native form of '{point.mask}' and its dense boolean mask "
                              f"({dense_bytes / 2**30:.1f} GiB) exceeds --max-dense-mask-bytes")
        rows = torch.arange(point.seqlen, device="cuda")[:, None]
        cols = torch.arange(point.seqlen, device="cuda")[None, :]
        if tables.per_head:
            group = point.heads // point.kv_heads
            dense = torch.stack([tables.visible(h // group, rows, cols) for h in range(point.heads)])[None]
        else:
            dense = tables.visible(0, rows, cols)[None, None]
        kwargs["attn_mask"] = dense
        extra["dense_mask"] = True
    gqa = point.heads != point.kv_heads

    def run(q, k, v):
        with sdpa_kernel([backend]):
            if gqa and extra.get("kv_repeated"):
                group = point.heads // point.kv_heads
                k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
                return F.scaled_dot_product_attention(q, k, v, **kwargs)
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=gqa, **kwargs)
    return run


# From this length on, interval-table masks get their BlockMask from row_chunked_block_mask(): create_block_mask
# evaluates the mask_mod over all S x S pairs at once (64 GiB at 32K with variable_block_sparse's 7-25 intervals).
ROW_CHUNKED_BLOCK_MASK_FROM = 32768
ROW_CHUNK = 4096


def row_chunked_block_mask(torch, tables, mask_mod, heads, group, seqlen, block=128):
    """FlexAttention's BlockMask for an interval-table mask, the (q block, k block) pairs classified as partial or
    full from lcab's intervals ROW_CHUNK rows at a time (as create_block_mask does, in bounded memory)."""
    from torch.nn.attention.flex_attention import BlockMask
    if seqlen % ROW_CHUNK:
        raise Unsupported(f"row-chunked block mask needs S a multiple of {ROW_CHUNK}")
    blocks = seqlen // block
    h_count = heads or 1
    shape = dict(dtype=torch.int32, device="cuda")
    partial_n, full_n = torch.zeros(1, h_count, blocks, **shape), torch.zeros(1, h_count, blocks, **shape)
    partial_i, full_i = (torch.zeros(1, h_count, blocks, blocks, **shape) for _ in range(2))
    cols = torch.arange(seqlen, device="cuda")[None, :]
    kv_heads_in_mask = h_count // group if tables.per_head else 1
    for kv_head in range(kv_heads_in_mask):
        q_heads = range(kv_head * group, (kv_head + 1) * group) if tables.per_head else range(1)
        for r0 in range(0, seqlen, ROW_CHUNK):
            rows = torch.arange(r0, r0 + ROW_CHUNK, device="cuda")[:, None]
            seen = tables.visible(kv_head, rows, cols).reshape(ROW_CHUNK // block, block, blocks, block)
            cells = seen.sum(dim=(1, 3))
            full = cells == block * block
            partial = (cells > 0) & ~full
            b0, b1 = r0 // block, (r0 + ROW_CHUNK) // block
            for sel, count, index in ((partial, partial_n, partial_i), (full, full_n, full_i)):
                order = torch.argsort(sel.to(torch.int32), dim=-1, descending=True, stable=True).to(torch.int32)
                n = sel.sum(dim=-1).to(torch.int32)
                for h in q_heads:
                    count[0, h, b0:b1] = n
                    index[0, h, b0:b1] = order
    return BlockMask.from_kv_blocks(partial_n, partial_i, full_n, full_i, BLOCK_SIZE=block, mask_mod=mask_mod,
                                    seq_lengths=(seqlen, seqlen))


def make_flex(torch, point, tables, extra):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    # Every point compiles afresh: Dynamo caches compiled frames per code object and, past its recompile limit,
    # silently runs flex_attention EAGERLY (materializing S x S scores: a 256 GiB allocation at 32K, or ~1 TFLOP/s
    # where it fits). fullgraph=True turns any fallback into an error instead of an eager measurement.
    torch._dynamo.reset()
    if tables.block is not None:
        visible = tables.visible_blocks
        extra["flex_mask_mod"] = f"block table, {tables.block[0]}-token granule"
    elif tables.slots <= MaskTables.MAX_SLOTS:  # lo/hi tables exist whenever there is no block table
        visible = tables.visible
        extra["flex_mask_mod"] = f"row intervals, {tables.slots} per row"
    else:
        raise Unsupported(f"rows see up to {tables.slots} key intervals; the FlexAttention mask_mod here "
                          f"handles at most {MaskTables.MAX_SLOTS} (or a block-aligned mask of full blocks)")
    group = point.heads // point.kv_heads
    if tables.per_head:
        def mask_mod(b, h, q, k):
            return visible(h // group, q, k)
        heads = point.heads
    else:
        def mask_mod(b, h, q, k):
            return visible(0, q, k)
        heads = None
    if tables.block is None and point.seqlen >= ROW_CHUNKED_BLOCK_MASK_FROM:
        block_mask = row_chunked_block_mask(torch, tables, mask_mod, heads, group, point.seqlen)
        extra["flex_block_mask"] = ("BlockMask.from_kv_blocks from lcab's row intervals, evaluated in chunks of "
                                    f"{ROW_CHUNK} rows (create_block_mask allocates 64 B per (q, k) here)")
    else:
        # Eager mask evaluation materializes heads x S x S booleans but needs no compilation; past 1 GiB, compile.
        eager_bytes = (heads or 1) * point.seqlen * point.seqlen
        build = create_block_mask if eager_bytes <= (1 << 30) else torch.compile(create_block_mask)
        block_mask = build(mask_mod, None, heads, point.seqlen, point.seqlen, device="cuda")
    extra["flex_block_size"] = list(block_mask.BLOCK_SIZE)
    extra["flex_compiled"] = "torch.compile(flex_attention, dynamic=False, fullgraph=True) after torch._dynamo.reset()"
    compiled = torch.compile(flex_attention, dynamic=False, fullgraph=True)

    def run(q, k, v):
        return compiled(q, k, v, block_mask=block_mask, enable_gqa=point.heads != point.kv_heads)
    return run


def make_flash_attn(point):
    name = mask_name(point.mask)
    window = None
    causal = name == "causal"
    if name in ("sliding_window", "sliding_window_causal"):
        w = 1024
        for kv in point.mask.split(":", 1)[1].split(",") if ":" in point.mask else []:
            key, _, value = kv.partition("=")
            if key == "window":
                w = int(value)
        window = (w, 0) if name == "sliding_window_causal" else (w, w)
    elif name not in ("full", "causal"):
        raise Unsupported(f"flash-attn takes full, causal and sliding windows, not '{point.mask}'")
    try:
        if point.impl == "flash_attn3":
            from flash_attn_interface import flash_attn_func
        else:
            from flash_attn import flash_attn_func
    except ImportError as e:
        raise Unsupported(f"{point.impl}: package not importable ({e})")
    kwargs = {"causal": causal}
    if window:
        kwargs["window_size"] = window

    def run(q, k, v):  # flash-attn takes [B, S, H, D]
        out = flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), **kwargs)
        out = out[0] if isinstance(out, tuple) else out
        return out.transpose(1, 2)
    return run


# ---- reference check -----------------------------------------------------------------------------------------

def check_forward(torch, run, q, k, v, tables, point, rows_to_check):
    """Relative error of out against a float32 reference on sampled rows and heads (all keys)."""
    out = run(q, k, v).float()
    gen = torch.Generator(device="cpu").manual_seed(7)
    rows = torch.randint(0, point.seqlen, (rows_to_check,), generator=gen).cuda()
    group = point.heads // point.kv_heads
    scale = 1.0 / math.sqrt(point.head_dim)
    cols = torch.arange(point.seqlen, device="cuda")[None, :]
    err_num, err_den = 0.0, 0.0
    for h in sorted({0, point.heads // 2, point.heads - 1}):
        kvh = h // group
        qs = q[0, h, rows].float()
        ks, vs = k[0, kvh].float(), v[0, kvh].float()
        scores = (qs @ ks.T) * scale
        seen = tables.visible(kvh if tables.per_head else 0, rows[:, None], cols)
        scores = scores.masked_fill(~seen, float("-inf"))
        probs = torch.softmax(scores, dim=-1).nan_to_num(0.0)  # rows that see nothing give 0
        ref = probs @ vs
        got = out[0, h, rows]
        err_num += float((got - ref).norm() ** 2)
        err_den += float(ref.norm() ** 2)
    rel = math.sqrt(err_num / max(err_den, 1e-30))
    if not math.isfinite(rel):
        raise RuntimeError("output holds NaN or inf")
    return rel


# ---- one point -----------------------------------------------------------------------------------------------

def measure_point(torch, np, point, tables, area, args, flush_buffer):
    extra = {"reps": args.reps, "warmup": args.warmup, "layout": "BHSD"}
    dtype = torch.bfloat16 if point.dtype == "bf16" else torch.float16
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    baseline = torch.cuda.memory_allocated()
    if point.impl in SDPA_BACKENDS:
        run = make_sdpa(torch, point, tables, extra, args.max_dense_mask_bytes)
    elif point.impl == "torch_flex":
        run = make_flex(torch, point, tables, extra)
    else:
        run = make_flash_attn(point)
    b, s, d = point.batch, point.seqlen, point.head_dim
    backward = point.pass_ == "bwd"

    def rand(*shape):  # uniform in [-1, 1): never zeros
        return (torch.rand(*shape, device="cuda", dtype=torch.float32) * 2 - 1).to(dtype)
    q = rand(b, point.heads, s, d).requires_grad_(backward)
    k = rand(b, point.kv_heads, s, d).requires_grad_(backward)
    v = rand(b, point.kv_heads, s, d).requires_grad_(backward)
    started = time.perf_counter()
    try:
        extra["check_rel_err"] = check_forward(torch, run, q.detach(), k.detach(), v.detach(), tables, point,
                                               args.check_rows)
    except RuntimeError as e:
        message = str(e)
        if "No available kernel" not in message and "not supported" not in message.lower():
            raise
        if not (point.impl in SDPA_BACKENDS and point.heads != point.kv_heads):
            raise Unsupported(message.splitlines()[0])
        # This backend may lack GQA: repeat K/V to Hq heads inside the call (as PyTorch users do) and retry.
        extra["kv_repeated"] = True
        try:
            extra["check_rel_err"] = check_forward(torch, run, q.detach(), k.detach(), v.detach(), tables,
                                                   point, args.check_rows)
        except RuntimeError as again:
            if "No available kernel" in str(again):
                raise Unsupported(str(again).splitlines()[0])
            raise
    # Wall time of the first call and the reference check (for FlexAttention, mostly its compilation).
    extra["first_call_s"] = round(time.perf_counter() - started, 3)
    if extra["check_rel_err"] > CHECK_TOLERANCE:
        raise RuntimeError(f"output differs from the float32 reference: relative error "
                           f"{extra['check_rel_err']:.3g} > {CHECK_TOLERANCE}")

    if backward:
        out = run(q, k, v)
        dout = rand(*out.shape)

        def region():
            out.backward(dout, retain_graph=True)

        def before():
            q.grad = k.grad = v.grad = None
    else:
        def region():
            with torch.no_grad():
                run(q, k, v)

        def before():
            pass
    for _ in range(args.warmup):
        before()
        flush_buffer.zero_()
        region()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(args.reps)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(args.reps)]
    for n in range(args.reps):
        before()
        flush_buffer.zero_()
        starts[n].record()
        region()
        stops[n].record()
    torch.cuda.synchronize()
    event_times = [a.elapsed_time(z) for a, z in zip(starts, stops)]
    extra["event_time_ms"] = summarize(event_times)
    if args.time_basis == "kernel_sum":
        reps = profile_reps(torch, region, before, flush_buffer, args.reps)
        times = [rep["kernel_sum_ms"] for rep in reps]
        extra["gpu_span_ms"] = percentile([rep["span_ms"] for rep in reps], 50)
        extra["kernels"] = gpu_kernel_time.kernel_summary(reps)
    else:
        times = event_times
    extra["time_basis"] = args.time_basis
    peak = torch.cuda.max_memory_allocated() - baseline
    flops = 4.0 * area * point.heads * point.head_dim * point.batch * (2.5 if backward else 1.0)
    median = percentile(times, 50)
    extra["notes"] = ("peak_mem_bytes: torch.cuda.max_memory_allocated during the point minus the memory "
                      "allocated before it; time_ms: " + TIME_BASES[args.time_basis])
    return {"status": "ok", "time_ms": summarize(times), "tflops": flops / (median * 1e-3) / 1e12, "flops": flops,
            "peak_mem_bytes": int(peak), "extra": extra}


def summarize(times_ms):
    return {"median": percentile(times_ms, 50), "p20": percentile(times_ms, 20), "p80": percentile(times_ms, 80)}


def profile_reps(torch, region, before, flush_buffer, reps):
    """The region run `reps` more times under the PyTorch profiler (CUPTI), each after an L2 flush and a
    synchronization, inside a profiler range that closes after the GPU is done: the GPU's own time per
    repetition (gpu_kernel_time.rep_gpu_times)."""
    from torch.profiler import ProfilerActivity, profile, record_function
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for n in range(reps):
            before()
            flush_buffer.zero_()
            torch.cuda.synchronize()
            with record_function(f"{REP_MARKER}{n}"):
                region()
                torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
    return gpu_kernel_time.rep_gpu_times(events, REP_MARKER, reps)


def main(argv):
    args = parse_args(argv)
    if args.out:
        try:
            record_files.check_appendable(args.out)
        except ValueError as e:
            sys.exit(f"torch_peers: {e}")
    try:
        import numpy as np
        import torch
    except ImportError as e:
        sys.exit(f"torch_peers: PyTorch and numpy are needed ({e})")
    if not torch.cuda.is_available():
        sys.exit("torch_peers: no CUDA GPU visible to PyTorch")
    lcab_predict = find_lcab_predict(args.lcab_predict)
    device = device_info(torch)
    meta = {"lcab_version": "peers", "git_sha": git_sha(), "torch": torch.__version__,
            "time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "argv": [os.path.basename(__file__)] + list(argv)}
    done = recorded_keys(args.out)
    for path in args.skip_recorded_in:
        done |= recorded_keys(path)
    out = open(args.out, "a") if args.out else None
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush_buffer = torch.empty(max(2 * l2, 32 << 20), dtype=torch.uint8, device="cuda")

    points = [Point(i, m, s, p, args.batch, h, kv, d, t)
              for m, s, h, kv, d, t, p, i in itertools.product(args.mask, args.seqlen, args.heads, args.kv_heads,
                                                                args.head_dim, args.dtype, args.passes, args.impl)]
    rows, skipped, cache = [], 0, {}
    for n, point in enumerate(points):
        if key_id(point.key()) in done:
            skipped += 1
            continue
        record = {"schema": "lcab.record/1", "source": "measured", "kind": "kernel", "key": point.key(),
                  "device": device, "meta": meta}
        point_started = time.perf_counter()
        try:
            cache_key = (point.mask, point.seqlen, point.kv_heads)
            if cache_key not in cache:
                cache.clear()
                area, heads_slices = lcab_mask(lcab_predict, point.mask, point.seqlen, point.kv_heads)
                cache[cache_key] = (area, MaskTables(torch, np, heads_slices, point.seqlen, area))
            area, tables = cache[cache_key]
            record["area"] = area
            record["flops"] = 4.0 * area * point.heads * point.head_dim * point.batch * (
                2.5 if point.pass_ == "bwd" else 1.0)
            result = measure_point(torch, np, point, tables, area, args, flush_buffer)
            record.update({k: v for k, v in result.items() if k != "extra"})
            record.update(result["extra"])
        except Unsupported as e:
            record.update({"status": "unsupported", "error": str(e)})
        except torch.cuda.OutOfMemoryError as e:
            record.update({"status": "oom", "error": str(e).splitlines()[0]})
        except Exception as e:  # noqa: BLE001 - every failure is the point's status; the sweep goes on
            record.update({"status": "error", "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"})
        torch.cuda.empty_cache()
        record["point_wall_s"] = round(time.perf_counter() - point_started, 3)  # setup, compile, check, runs
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()
        outcome = (f"{record['time_ms']['median']:.3f} ms, {record['tflops']:.1f} TFLOP/s"
                   if record["status"] == "ok" else f"{record['status']}: {record.get('error', '')}")
        print(f"[{n + 1}/{len(points)}] {point.label()}: {outcome}", file=sys.stderr, flush=True)
        rows.append((point, record))
    if skipped:
        print(f"{skipped} points already recorded (--out, --skip-recorded-in), skipped", file=sys.stderr)
    print("| impl | pass | mask | seqlen | heads | hd | status | median ms | p20 ms | p80 ms | TFLOP/s | check err |")
    print("|---|---|---|---:|---|---:|---|---:|---:|---:|---:|---:|")
    for point, r in rows:
        t = r.get("time_ms")
        cells = [point.impl, point.pass_, point.mask, str(point.seqlen), f"{point.heads}/{point.kv_heads}",
                 str(point.head_dim), r["status"], f"{t['median']:.3f}" if t else "", f"{t['p20']:.3f}" if t else "",
                 f"{t['p80']:.3f}" if t else "", f"{r['tflops']:.1f}" if t else "",
                 f"{r['check_rel_err']:.2e}" if "check_rel_err" in r else ""]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
