// TMA (cp.async.bulk.tensor, PTX ISA 9.7.9.25) microbenchmarks on bf16 2-D tensors:
//  - latency of one box (depth-1 ring, mbarrier wait), L2 hit and HBM miss, by box size/swizzle;
//  - issue cost (back-to-back issues by one thread), plain and multicast (cluster of 2);
//  - streaming throughput per SM (one CTA alone) and chip-wide (one CTA per SM), by box and swizzle,
//    from an L2-resident tensor (boxes spread, and in a GEMM stage's row order) and streaming from HBM; from HBM also with 1..96 SMs active and ring
//    depth 2 / 4 / default (tma_hbm_sms), and in a GEMM operand's panel pattern (tma_hbm_panel);
//  - multicast: a cluster of 2 needing the same 2-box tile per stage, loading it twice (plain) or
//    each CTA loading one half multicast to both; and the same with producer and consumer on separate
//    warps on every SM, L2-bound, for what a multicast copy costs the L2 (tma_multicast_l2).
//  - skinny rings (--skinny-ctas): the tma_skinny_walk rings with 8..128 CTAs streaming at once (tma_skinny_ctas);
//    (--skinny-abox) the 128x128 ring with and without its A box per stage (tma_skinny_abox); (--skinny-private) that
//    ring's A box shared by every CTA or each CTA's own (tma_skinny_private); (--skinny-order) resident, fetched or
//    private A boxes issued before or after B (tma_skinny_order); (--skinny-oob) A boxes partly or mostly beyond the
//    matrix edge in rings shaped as our x128 tiles (tma_skinny_oob);
//  - (--gpc-probe) the SMs a grid lands on, the SMs that share a GPC (clusters of 2..16), and the skinny ring on
//    SMs of one GPC against SMs spread over the GPCs (gpc_smid_order, gpc_clusters, tma_gpc_ring); (--gpc-wide) the
//    same with the 64x256 tile's 256-row B box against the 128-row one (tma_gpc_wide); (--oob-land) a stage's
//    issue-to-landing cycles with and without zero fill against the CTAs streaming (tma_oob_land); (--gpc-load) the
//    skinny rings on SMs of one GPC while SMs of the other GPCs load the HBM (tma_gpc_load).
// Usage: mb_tma [--quick] [--panel-only] [--stream-only] [--lrc-only | --walk-drift [--ncu] |
//        --walk-pitch [--paced [--fine]] [--ncu] |
//        --walk-partial | --walk-variants | --walk-place | --walk-alone | --walk-drift-paced [--epi] [--ncu] |
//        --sm-share | --sm-share-mix | --skinny-only [--ncu] | --skinny-ctas |
//        --skinny-abox | --skinny-private | --skinny-order | --skinny-oob | --gpc-probe | --gpc-wide | --oob-land |
//        --l2-residency | --l2-residency-pitch | --hbm-pitch [--fine] | --box-spread-pitch | --box-pitch-table |
//        --miss-mix |
//        --pair-share | --pair-smem | --direct-store | --mc-oob | --gpc-load | --wide-k | --wide-k-mma | --wide-k-gap |
//        --wide-k-place | --wide-k-tpc | --wide-k-knee]
//  - (--miss-mix) the L2's throughput from every SM with a known share of the boxes missing to HBM (tma_miss_mix);
//    (--pair-share) a one-wave grid's GEMM walk with each B panel read by one CTA or by two in step (tma_pair_share);
//    (--walk-partial) one wave of a GEMM's tiles against ring depth, with the stages' landing time (tma_walk_partial);
//    (--walk-variants) the same walks with B's box split in two, the tile rows' k-blocks staggered or the slabs kept in
//    L2 (tma_walk_variants); (--walk-place) the same walks on chosen SMs: TPC pairs or single SMs (tma_walk_place);
//    (--walk-alone) the 64x256 walk on one 16-SM set alone: each cluster group and the SMs outside them
//    (tma_walk_alone);
//    (--walk-drift-paced) the whole-grid 128x128 walks paced at the MMAs' time, at 4-6 stages (tma_walk_drift_paced);
//    (--wide-k) the whole-grid 8192^3 walks with one or two 64-column boxes per operand a stage (128- / 256-byte
//    k-block rows), the GEMM's release of the previous stage or the stage itself, 2-4 stages, no MMAs (tma_wide_k);
//    (--wide-k-mma) the same lag-1 rings with the GEMM's wgmma batches on each stage, TMA loads on or off
//    (tma_wide_k_mma); (--wide-k-gap) those rings with what our GEMM adds: its output tile written through TMA, A and B
//    as two tensors, its shared-memory layout, its register split and launch (tma_wide_k_gap); (--wide-k-place) that
//    walk launched plainly and as a cluster of 1, each also with the tiles the other launch put on each SM
//    (tma_wide_k_place: placement or launch mode?); (--wide-k-tpc) that walk launched plainly on SM -> tile maps that
//    keep the plain or the cluster placement's GPCs and re-pair their TPCs, or the converse (tma_wide_k_tpc: which part
//    of the placement?); (--wide-k-knee) that walk on plain maps with 0-8 of each GPC's 8-SM blocks' sequences moved
//    to other GPCs, a GPC's distinct A panels a round from 2.6 up past the cluster map's (tma_wide_k_knee: a knee in
//    the distinct bytes a GPC draws?).
#include "mb_tma_common.cuh"
#include "mb_wgmma_ops.cuh"

#include <cuda_bf16.h>

static bool g_quick = false;
static bool g_panel_only = false;  // only tma_hbm_panel (issue 8)
static bool g_stream_only = false; // only tma_stream (and tma_hbm_sms)
static bool g_lrc_only = false;    // only the LRC sweeps (tma_lrc, tma_lrc_gemm)
static bool g_walk_drift = false;  // only --walk-drift (tma_walk_drift)
static bool g_walk_alone = false;  // only --walk-alone (tma_walk_alone)
static bool g_walk_drift_paced = false;  // only --walk-drift-paced (tma_walk_drift_paced)
static bool g_l2_residency_pitch = false;  // only --l2-residency-pitch (tma_l2_residency_pitch)
static bool g_hbm_pitch = false;
static bool g_box_spread_pitch = false;  // only --box-spread-pitch
static bool g_box_pitch_table = false;  // only --box-pitch-table  // only --hbm-pitch (tma_hbm_pitch)
static bool g_epi = false;  // --walk-drift-paced --epi: the paced walk with an epilogue stop after each tile
static bool g_fine = false;  // --hbm-pitch / --walk-pitch --paced --fine: pitches in fine steps
static bool g_paced = false;  // --walk-pitch --paced: each stage held the MMAs' time less the walk's own cycles
static bool g_walk_pitch = false;  // only --walk-pitch (tma_walk_pitch)
static bool g_walk_partial = false;  // only --walk-partial (tma_walk_partial)
static bool g_walk_variants = false;  // only --walk-variants (tma_walk_variants)
static bool g_walk_place = false;  // only --walk-place (tma_walk_place)
static bool g_sm_share = false;    // only --sm-share (tma_sm_share)
static bool g_sm_share_mix = false; // only --sm-share-mix (tma_sm_share_mix)
static bool g_skinny_only = false; // only tma_skinny_walk
static bool g_skinny_abox = false; // only tma_skinny_abox
static bool g_skinny_ctas = false; // only tma_skinny_ctas
static bool g_skinny_private = false; // only tma_skinny_private
static bool g_skinny_order = false; // only tma_skinny_order
static bool g_skinny_oob = false;   // only tma_skinny_oob
static bool g_gpc_probe = false;    // only --gpc-probe
static bool g_gpc_wide = false;     // only --gpc-wide
static bool g_oob_land = false;     // only --oob-land
static bool g_l2_residency = false; // only --l2-residency
static bool g_miss_mix = false;     // only --miss-mix
static bool g_pair_share = false;   // only --pair-share
static bool g_pair_smem = false;    // only --pair-smem
static bool g_direct_store = false; // only --direct-store
static bool g_mc_oob = false;       // only --mc-oob
static bool g_gpc_load = false;     // only --gpc-load
static bool g_wide_k = false;       // only --wide-k (tma_wide_k)
static bool g_wide_k_mma = false;   // only --wide-k-mma (tma_wide_k_mma)
static bool g_wide_k_gap = false;   // only --wide-k-gap (tma_wide_k_gap)
static bool g_wide_k_place = false; // only --wide-k-place (tma_wide_k_place)
static bool g_wide_k_tpc = false;   // only --wide-k-tpc (tma_wide_k_tpc)
static bool g_wide_k_knee = false;  // only --wide-k-knee (tma_wide_k_knee)
static bool g_ncu = false;         // one launch per configuration (profiling)

// ---------------------------------------------------------------- host: tensor maps

struct Tensor2D {
  void* base;
  uint64_t rows, cols;  // cols = inner (contiguous) extent in bf16 elements
};

// A bf16 tensor map with a box of box_inner x box_outer elements and the given swizzle (0 = none).
static CUtensorMap make_map(const Tensor2D& t, uint32_t box_inner, uint32_t box_outer, int swizzle) {
  CUtensorMap m;
  cuuint64_t dims[2] = {t.cols, t.rows};
  cuuint64_t strides[1] = {t.cols * 2};
  cuuint32_t box[2] = {box_inner, box_outer};
  cuuint32_t estr[2] = {1, 1};
  CUtensorMapSwizzle sw = swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                          : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                          : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult r = encode_fn()(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, t.base, dims, strides, box, estr,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) die("cuTensorMapEncodeTiled failed (%d) for box %ux%u swizzle %d", (int)r, box_inner, box_outer, swizzle);
  return m;
}

// Inner box extent for a swizzle mode: the swizzle span in bf16 elements (128 B rows when none).
static uint32_t inner_for(int swizzle) { return swizzle ? (uint32_t)swizzle / 2 : 64; }

// ---------------------------------------------------------------- device: TMA
__device__ __forceinline__ void tma_load_mc(uint32_t dst, const CUtensorMap* m, int c0, int c1, uint32_t bar,
                                            uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(m)), "r"(bar), "r"(c0), "r"(c1), "h"(mask) : "memory");
}

// The issuing thread must not do integer division in its loop: on the uniform datapath a few
// divisions cost ~500 cycles per iteration and throttle the TMA (seen in our first run). Box and
// tile counts are powers of two, so indices wrap with masks and split with shifts.
struct BoxWalk {
  uint32_t b, step, mask, nbx_mask, nbx_log2;
  __device__ __forceinline__ void coords(int inner, int outer, int& c0, int& c1) const {
    c0 = (int)(b & nbx_mask) * inner;
    c1 = (int)(b >> nbx_log2) * outer;
  }
  __device__ __forceinline__ void next() { b = (b + step) & mask; }
};

// Stage index and the parity of the round that last used it, advanced without division.
struct Ring {
  int s = 0, stages;
  uint32_t parity = 0;
  bool wrapped = false;  // a full round has been issued: waits are needed from now on
  __device__ explicit Ring(int n) : stages(n) {}
  __device__ __forceinline__ void next() {
    if (++s == stages) { s = 0; if (wrapped) parity ^= 1; wrapped = true; }
  }
};

// One box at a time: out[i] = cycles from issue to the mbarrier wait returning.
// mode 0: the same box every time (L2 hit after a warm-up); mode 1: a new box each time, walking
// down the rows at column 0 (256 B L2 promotion of a 128 B row never reaches another box).
__global__ void tma_latency_kernel(const __grid_constant__ CUtensorMap m, int iters, int box_bytes, int inner,
                                   int outer, int nby, int mode, long long* out) {
  extern __shared__ uint8_t raw[];
  const uint32_t dst = aligned_base(raw), bar = dst + box_bytes;
  if (threadIdx.x != 0) return;
  mbar_init(bar, 1);
  fence_mbar_init();
  prefetch_map(&m);
  uint32_t ph = 0;
  if (mode == 0) {  // warm-up: descriptor and box into the caches
    mbar_arrive_expect_tx(bar, box_bytes);
    tma_load(dst, &m, 0, 0, bar);
    mbar_wait(bar, ph);
    ph ^= 1;
  }
  for (int i = 0; i < iters; ++i) {
    const int c0 = 0, c1 = mode == 1 ? i * outer : 0;  // a new row block each time (iters <= nby)
    long long t0 = clk();
    mbar_arrive_expect_tx(bar, box_bytes);
    tma_load(dst, &m, c0, c1, bar);
    mbar_wait(bar, ph);
    long long t1 = clk();
    ph ^= 1;
    out[i] = t1 - t0;
  }
}

// Ring of `stages` boxes fed by one thread. mode 0: boxes of a small (L2-resident) tensor;
// mode 1: every box of a large tensor read once across the grid (HBM stream). nb = boxes (2^k).
// mode 3: as mode 0 but each CTA takes consecutive boxes along a row band (step 1), as a GEMM stage loads the
// boxes of one k-block: narrow (64/32-byte) boxes issued back to back then share 128-byte lines.
// mode 4: the panel walk of mode 2 over an L2-resident tensor whose few panels many CTAs share, at a GEMM's
// row pitch (nbx_log2 = the number of panels); mode 5: the same with each CTA out of phase along the row.
// mode 2: a GEMM operand's panel walk from HBM: CTA g reads row panel g, g + grid, ... (`outer` rows each)
// box by box along the row (nb = boxes per panel row, any count), as a K-major B operand is read.
// mode 6 (miss mix): of every `nbx_log2` boxes, the first `mix` come from HBM (the CTA's own walk of the panels from
// MIX_RESIDENT_PANELS on, as mode 2: each read once) and the rest from the first MIX_RESIDENT_PANELS panels (L2-resident:
// CTA g on panel g mod that count, out of phase along the row): the L2's throughput with a known share of misses.
// mode 7: each CTA its own panel (rows g x outer ...), cycling its first nb boxes (L2-resident after the first pass):
// where a box's rows fall in the L2 at this pitch sets the CTA's rate (tma_box_spread_pitch).
#define MIX_RESIDENT_PANELS 4
__global__ void tma_stream_kernel(const __grid_constant__ CUtensorMap m, int stages, int box_bytes, int iters,
                                  int inner, int outer, int nbx_log2, int nb, int mode, ClockProbe* probe,
                                  unsigned long long* cycles, int mix = 0, int panels = 0) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = aligned_base(raw), bars = base + stages * box_bytes;
  if (threadIdx.x != 0) return;
  init_stage_barriers(bars, stages);
  prefetch_map(&m);
  const bool lead = blockIdx.x == 0;
  if (lead) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
  BoxWalk w{mode == 0 ? blockIdx.x * 13u : mode == 3 ? blockIdx.x * 104u : blockIdx.x,
            mode == 0 ? 7u : mode == 3 ? 1u : gridDim.x, (uint32_t)nb - 1,
            (1u << nbx_log2) - 1, (uint32_t)nbx_log2};
  w.b &= w.mask;
  Ring r(stages);
  long long t0 = clk();
  int fetched = 0;   // mode 6: HBM boxes so far
  for (int it = 0; it < iters; ++it, r.next(), w.next()) {
    const uint32_t bar = bars + 8 * r.s;
    if (r.wrapped) mbar_wait(bar, r.parity);
    mbar_arrive_expect_tx(bar, box_bytes);
    int c0, c1;
    if (mode == 6) {
      if (it % nbx_log2 < mix) {
        c0 = (fetched % nb) * inner;
        const int walk = (int)((blockIdx.x + gridDim.x * (uint32_t)(fetched / nb)) % (uint32_t)(panels - MIX_RESIDENT_PANELS));
        c1 = (MIX_RESIDENT_PANELS + walk) * outer;
        ++fetched;
      } else {
        c0 = (int)((it + blockIdx.x * 7u) % (uint32_t)nb) * inner;
        c1 = (int)(blockIdx.x % MIX_RESIDENT_PANELS) * outer;
      }
    } else if (mode == 2) {
      c0 = (it % nb) * inner;
      c1 = (int)(blockIdx.x + gridDim.x * (uint32_t)(it / nb)) * outer;
    } else if (mode == 7) {
      c0 = (it % nb) * inner;
      c1 = (int)blockIdx.x * outer;
    } else if (mode == 4 || mode == 5) {  // the same walk over an L2-resident tensor of nbx_log2 panels shared by
      // CTAs: in step (4), or each CTA starting at its own place along the row (5: the same sharing, out of phase)
      const int phase = mode == 5 ? (int)(blockIdx.x * 7u) : 0;
      c0 = ((it + phase) % nb) * inner;
      c1 = (int)((blockIdx.x + (uint32_t)(it / nb)) % (uint32_t)nbx_log2) * outer;
    } else {
      w.coords(inner, outer, c0, c1);
    }
    tma_load(base + r.s * box_bytes, &m, c0, c1, bar);
  }
  for (int k = 0; k < stages; ++k, r.next()) mbar_wait(bars + 8 * r.s, r.parity);  // drain (iters >= stages)
  long long t1 = clk();
  cycles[blockIdx.x] = t1 - t0;
  if (lead) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
}

// L2 request coalescing (issue 8, the LRC): every SM streams 16 KB boxes (128 rows of 128 bytes) of one of `panels`
// panels that `group` CTAs share: consecutive blockIdx (`consecutive`) or every panels-th one, rank r of a group
// starting r x `offset` boxes further along the panel. `fresh`: each group walks its own run of never-read panels of
// a 1 GiB tensor (first touches miss L2); otherwise a small L2-resident panel over and over. One launch of one
// configuration is one kernel: under ncu, `--lrc-only --ncu` launches each exactly once in record order.
__global__ void tma_share_kernel(const __grid_constant__ CUtensorMap m, int stages, int box_bytes, int iters, int outer,
                                 int inner, int nb, int panels, int total_panels, int group, int consecutive,
                                 int offset, unsigned long long* cycles) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = aligned_base(raw), bars = base + stages * box_bytes;
  if (threadIdx.x != 0) return;
  init_stage_barriers(bars, stages);
  prefetch_map(&m);
  const int p = consecutive ? (int)blockIdx.x / group : (int)blockIdx.x % panels;
  const int rank = consecutive ? (int)blockIdx.x % group : (int)blockIdx.x / panels;
  Ring r(stages);
  long long t0 = clk();
  for (int it = 0; it < iters; ++it, r.next()) {
    const uint32_t bar = bars + 8 * r.s;
    if (r.wrapped) mbar_wait(bar, r.parity);
    mbar_arrive_expect_tx(bar, box_bytes);
    const int pos = it + rank * offset;
    const int c0 = (pos % nb) * inner;
    const int c1 = ((p + panels * (pos / nb)) % total_panels) * outer;
    tma_load(base + r.s * box_bytes, &m, c0, c1, bar);
  }
  for (int k = 0; k < stages; ++k, r.next()) mbar_wait(bars + 8 * r.s, r.parity);
  cycles[blockIdx.x] = clk() - t0;
}

// The same coalescer in a GEMM's pattern: persistent CTAs walk output tiles in our kernel's tile order (CUTLASS's
// get_work_idx_m_and_n, as sim/scheduler.tile_coords: raster m/n, group g), per k-block one A box (a_rows x 128 B)
// and one B box (b_rows x 128 B) of an 8192 x 8192 bf16 A and B (K-major, 16 KB row pitch) into a ring of `stages`;
// a consumer thread holds each stage `work` cycles (the MMAs' time) before releasing it.
__device__ __forceinline__ void tile_mn(int t, int tiles_m, int tiles_n, int raster_n, int group, int& m, int& n) {
  const int major_n = raster_n ? tiles_n : tiles_m, minor_n = raster_n ? tiles_m : tiles_n;
  const int g = max(1, min(group, minor_n));
  const int strip = t / (g * major_n), within = t % (g * major_n);
  const int width = min(g, minor_n - strip * g);
  const int major = within / width, minor = strip * g + within % width;
  m = raster_n ? minor : major;
  n = raster_n ? major : minor;
}

// A GEMM walk's ring: each stage's full barrier (the producer's one arrival and the TMA bytes) and empty barrier
// (``releases`` arrivals), and the tensor maps prefetched; the whole CTA waits for it.
__device__ __forceinline__ void init_walk_ring(uint32_t full, uint32_t empty, int stages, uint32_t releases,
                                               const CUtensorMap* ma, const CUtensorMap* mb) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) { mbar_init(full + 8 * s, 1); mbar_init(empty + 8 * s, releases); }
    fence_mbar_init();
    prefetch_map(ma);
    prefetch_map(mb);
  }
  __syncthreads();
}

__global__ void tma_gemm_walk_kernel(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb,
                                     int stages, int a_bytes, int b_bytes, int tiles, int k_iters, int tiles_m,
                                     int tiles_n, int raster_n, int group, int a_rows, int b_rows, int b_row0,
                                     int work, unsigned long long* cycles, int a_cta_rows = 0, int a_kwrap = 0,
                                     int a_after = 0, const int* tile_of_smid = nullptr, int b_kwrap = 0,
                                     unsigned long long* land = nullptr, unsigned* smid_out = nullptr,
                                     int b_split = 1, int k_stagger = 0,      // b_split: 1 or 2
                                     int epi_cycles = 0) {   // the consumer's stop after each tile (an epilogue)
  extern __shared__ uint8_t raw[];
  // tile_of_smid: the CTA on SM s takes tile tile_of_smid[s] (its rank), or leaves at once if that is -1: a ring on
  // chosen SMs (--gpc-probe); otherwise the CTA's rank is its blockIdx
  int cta = (int)blockIdx.x;
  if (tile_of_smid) {
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    cta = tile_of_smid[sm];
    if (cta < 0) return;
  }
  const int stage_bytes = a_bytes + b_bytes;
  const uint32_t base = aligned_base(raw), full = base + stages * stage_bytes, empty = full + 8 * stages;
  const uint32_t issued = empty + 8 * stages;   // land: each stage's issue clock (8 B a stage), for its landing time
  init_walk_ring(full, empty, stages, 1, &ma, &mb);
  const long long t0 = clk();
  const int total = tiles_m * tiles_n;
  if (threadIdx.x == 0) {            // producer
    Ring r(stages);
    for (int j = 0; j < tiles; ++j) {
      int m, n;
      tile_mn((cta + (int)gridDim.x * j) % total, tiles_m, tiles_n, raster_n, group, m, n);
      // k_stagger: the tile row m walks its k-blocks from m x k_stagger on, wrapping: a B slab's sharers (the tile
      // rows of its column) read it k_stagger x their row distance apart, an A slab's (one tile row) still together
      const int k0 = k_stagger ? (m * k_stagger) % k_iters : 0;
      for (int kk = 0; kk < k_iters; ++kk, r.next()) {
        const int k = kk + k0 < k_iters ? kk + k0 : kk + k0 - k_iters;
        if (r.wrapped) mbar_wait(empty + 8 * r.s, r.parity);
        if (land) asm volatile("st.shared.u64 [%0], %1;" :: "r"(issued + 8 * r.s), "l"(clk()) : "memory");
        mbar_arrive_expect_tx(full + 8 * r.s, stage_bytes);
        const uint32_t dst = base + r.s * stage_bytes;
        // a_bytes 0: a B-only ring; a_cta_rows: each CTA its own A rows; a_kwrap: A's k-blocks wrap; a_after: B first
        const int a_col = (a_kwrap ? k % a_kwrap : k) * 64, a_row = m * a_rows + cta * a_cta_rows;
        if (a_bytes && !a_after) tma_load(dst, &ma, a_col, a_row, full + 8 * r.s);
        const int b_col = (b_kwrap ? k % b_kwrap : k) * 64, b_row = b_row0 + n * b_rows;
        if (b_split == 2) {   // B's box rows as two boxes of b_rows / 2 rows (mb made with that box; the same bytes)
          tma_load(dst + a_bytes, &mb, b_col, b_row, full + 8 * r.s);
          tma_load(dst + a_bytes + b_bytes / 2, &mb, b_col, b_row + b_rows / 2, full + 8 * r.s);
        } else {
          tma_load(dst + a_bytes, &mb, b_col, b_row, full + 8 * r.s);
        }
        if (a_bytes && a_after) tma_load(dst, &ma, a_col, a_row, full + 8 * r.s);
      }
    }
  } else if (threadIdx.x == 32) {    // consumer: the MMAs' time, then release
    int cs = 0, tile_k = 0;
    uint32_t cpar = 0;
    unsigned long long landed = 0;   // land: the stages' issue-to-landing cycles, summed (seen when the consumer waits)
    for (int it = 0; it < tiles * k_iters; ++it) {
      mbar_wait(full + 8 * cs, cpar);
      const long long w0 = clk();
      if (land) {
        long long t_issue;
        asm volatile("ld.shared.u64 %0, [%1];" : "=l"(t_issue) : "r"(issued + 8 * cs) : "memory");
        landed += (unsigned long long)(w0 - t_issue);
      }
      while (clk() - w0 < work) {}
      mbar_arrive(empty + 8 * cs);
      if (++cs == stages) { cs = 0; cpar ^= 1; }
      // the tile's epilogue: the producer refills the ring meanwhile (a counter, not it % k_iters: a modulo a stage
      // costs this one-thread consumer ~200 cycles and paces the walk itself, as the first --epi run found)
      if (epi_cycles && ++tile_k == k_iters) {
        tile_k = 0;
        const long long e0 = clk();
        while (clk() - e0 < epi_cycles) {}
      }
    }
    cycles[cta] = clk() - t0;
    if (land) land[cta] = landed / (unsigned long long)(tiles * k_iters);
    if (smid_out) {   // --sm-share: which SM ran this CTA
      uint32_t sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      smid_out[cta] = sm;
    }
  }
}

// Where a ring's stage s keeps its A and B boxes: the stage's A then its B, one stage after the other (the walks'
// layout), or split as gemm_sm90.cu's carve() lays them (every stage's A, then every stage's B: --wide-k-gap layout).
struct WideKRing {
  uint32_t base;
  int stages, a_bytes, b_bytes;   // a stage's A and B bytes
  bool split;
  __device__ __forceinline__ uint32_t a(int s) const { return base + s * (split ? a_bytes : a_bytes + b_bytes); }
  __device__ __forceinline__ uint32_t b(int s) const {
    return split ? base + stages * a_bytes + s * b_bytes : a(s) + a_bytes;
  }
};

// The producer of the --wide-k walks (one thread): per stage kb A boxes (128 rows) and kb B boxes (tile_n rows) of 64
// columns, the second at column +64, laid out as the GEMM lays them (box j of an operand at j x its box bytes, the
// stage where `ring` puts it), under one full barrier; each stage's issue clock kept (8 B a stage at `issued`) for its
// landing time. load = false: after the ring's first round only the arrival (no bytes; the stage keeps that round's
// data). cta: whose tiles the CTA walks (blockIdx.x, or another CTA's under --wide-k-place's remap).
__device__ __forceinline__ void wide_k_produce(const CUtensorMap* ma, const CUtensorMap* mb, const WideKRing& ring,
                                               uint32_t full, uint32_t empty, uint32_t issued, int kb, int tile_n,
                                               int tiles, int k_iters, int tiles_m, int tiles_n, int b_row0,
                                               bool load, int cta) {
  const int a_box = 128 * 128, b_box = tile_n * 128, stage_bytes = kb * (a_box + b_box);
  const int total = tiles_m * tiles_n;
  Ring r(ring.stages);
  for (int j = 0; j < tiles; ++j) {
    int m, n;
    tile_mn((cta + (int)gridDim.x * j) % total, tiles_m, tiles_n, 0, 8, m, n);
    const int a_row = m * 128, b_row = b_row0 + n * tile_n;
    for (int k = 0, col = 0; k < k_iters; ++k, col += 64 * kb, r.next()) {
      if (r.wrapped) mbar_wait(empty + 8 * r.s, r.parity);
      asm volatile("st.shared.u64 [%0], %1;" :: "r"(issued + 8 * r.s), "l"(clk()) : "memory");
      const uint32_t bar = full + 8 * r.s, a_dst = ring.a(r.s), b_dst = ring.b(r.s);
      if (load || !r.wrapped) {
        mbar_arrive_expect_tx(bar, stage_bytes);
        for (int i = 0; i < kb; ++i) tma_load(a_dst + i * a_box, ma, col + 64 * i, a_row, bar);
        for (int i = 0; i < kb; ++i) tma_load(b_dst + i * b_box, mb, col + 64 * i, b_row, bar);
      } else {
        mbar_arrive(bar);
      }
    }
  }
}

// --wide-k's walk (the thirty-first session: our GEMM's 2-stage rings of 256-byte k-block rows run 26-29% slower than
// the model, their 128-byte twins as it predicts; ncu finds the L2 less busy for them). Persistent CTAs walk the whole
// tile grid in our tile order (pm8) as tma_gemm_walk_kernel does, each stage `kb` 64-column 128-byte-swizzle boxes of A
// (128 rows) and then kb of B (tile_n rows), the second at column +64, laid out as the GEMM lays them (box j of an
// operand at j x its box bytes); one full barrier expects all the stage's bytes. A consumer thread holds each stage
// `work` cycles and releases it after (lag 0), or, as the GEMM's consumers do (wgmma.wait_group 1 and then the PREVIOUS
// stage freed), releases stage s-1 once stage s has landed, before holding s, and a tile's last stage at its end
// (lag 1: one stage in flight in a 2-stage ring). land: the median CTA's mean issue-to-landing cycles of a stage.
__global__ void tma_wide_k_kernel(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb,
                                  int stages, int kb, int tile_n, int tiles, int k_iters, int tiles_m, int tiles_n,
                                  int b_row0, int work, int lag, unsigned long long* cycles,
                                  unsigned long long* land) {
  extern __shared__ uint8_t raw[];
  const int stage_bytes = kb * (128 * 128 + tile_n * 128);
  const uint32_t base = aligned_base(raw), full = base + stages * stage_bytes, empty = full + 8 * stages;
  const uint32_t issued = empty + 8 * stages;   // each stage's issue clock (8 B a stage)
  init_walk_ring(full, empty, stages, 1, &ma, &mb);
  const long long t0 = clk();
  if (threadIdx.x == 0) {            // producer
    const WideKRing ring{base, stages, kb * 128 * 128, kb * tile_n * 128, false};
    wide_k_produce(&ma, &mb, ring, full, empty, issued, kb, tile_n, tiles, k_iters, tiles_m, tiles_n, b_row0, true,
                   (int)blockIdx.x);
  } else if (threadIdx.x == 32) {    // consumer
    int cs = 0, prev = -1;
    uint32_t cpar = 0;
    unsigned long long landed = 0;
    for (int j = 0; j < tiles; ++j) {
      for (int k = 0; k < k_iters; ++k) {
        mbar_wait(full + 8 * cs, cpar);
        const long long w0 = clk();
        long long t_issue;
        asm volatile("ld.shared.u64 %0, [%1];" : "=l"(t_issue) : "r"(issued + 8 * cs) : "memory");
        landed += (unsigned long long)(w0 - t_issue);
        if (lag && prev >= 0) mbar_arrive(empty + 8 * prev);   // the previous stage's MMAs are done
        while (clk() - w0 < work) {}
        if (lag) prev = cs;
        else mbar_arrive(empty + 8 * cs);
        if (++cs == stages) { cs = 0; cpar ^= 1; }
      }
      if (lag) { mbar_arrive(empty + 8 * prev); prev = -1; }   // the tile's end: wgmma.wait_group 0, then release
    }
    cycles[blockIdx.x] = clk() - t0;
    land[blockIdx.x] = landed / (unsigned long long)(tiles * k_iters);
  }
}

// --wide-k-mma (the thirty-first session): tma_wide_k_kernel's lag-1 ring with REAL MMAs: two consumer warpgroups
// (threads 128-383; the producer is thread 0) that, per landed stage, issue the GEMM's wgmma batch on it (KB x 4
// k-steps of one m64n<TN>k16 bf16 SS each, descriptors as gemm_sm90.cu builds them: warpgroup w's A at row 64 w of
// the stage, a 256-byte k-block row's second 32-byte k-steps in the second box), commit, wgmma.wait_group 1, and then
// free the PREVIOUS stage (one arrival a warpgroup), a tile's last stage after wait_group 0; the accumulators are
// never read (no epilogue). load = 0: the producer loads the ring's first round only and from then on just arrives on
// the full barrier (no bytes; the stage keeps that round's data): the wgmma batches alone on the same layout.
// land: issue-to-landing cycles of a stage as warpgroup 0 sees it; waited: its cycles in wgmma.wait_group 1 a stage
// (how long the previous batch was still running once this stage had landed and its batch was issued).
// --wide-k-gap (the thirty-second session) adds what our GEMM does and this walk did not, by `gap`'s bits (0 in
// --wide-k-mma) and REGS: kGapOut, after each tile (wait_group 0, the last stage freed) the consumers write it to D as
// gemm_sm90.cu's epilogue_tma does (a 16 KB staging buffer after the ring, per warpgroup and 64-column subtile: wait
// for the previous store's reads, bf16 pairs into 128-byte-swizzled rows, fence.proxy.async, one TMA store, commit;
// md's box 64 columns x 64 rows); kGapSplit, the GEMM's shared-memory layout (WideKRing::split); kGapZero, the
// accumulators zeroed at each tile's start; REGS, the GEMM's setmaxnreg split (producer warpgroup 40, consumers 232).
// (Two tensors for A and B, and a cluster launch, are the host's: bench_wide_k_gap.)
// --wide-k-place (the thirty-second session): smid_out (if set) gets each CTA's %smid; cta_of_smid (if set) makes the
// CTA on SM s walk the tiles of CTA cta_of_smid[s] (another launch's CTA on that SM; -1: its own, blockIdx.x).
constexpr int kGapOut = 1, kGapSplit = 2, kGapZero = 4;
constexpr int kWideKEpiBytes = 64 * 128;   // a warpgroup's staging: 64 rows x 64 bf16 columns

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

// A consumer warpgroup's 64 x TN accumulators (m64nTN fragment) to D at (row0, col0), as gemm_sm90.cu's epilogue_tma
// (one m-subtile, one n-subtile of TN): `stage` is the warpgroup's 8 KB staging buffer, named barrier 1 + cons.
template <int TN>
__device__ __forceinline__ void wide_k_epilogue(const float (&acc)[TN / 2], uint32_t stage, const CUtensorMap* md,
                                                int cons, int row0, int col0) {
  const int tid = threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
#pragma unroll
  for (int sub = 0; sub < TN / 64; ++sub) {
    if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("bar.sync %0, 128;" ::"r"(1 + cons) : "memory");
#pragma unroll
    for (int i = 8 * sub; i < 8 * sub + 8; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = warp * 16 + lane / 4 + 8 * h;
        const int byte = (i - 8 * sub) * 16 + (lane % 4) * 4;   // within the 128-byte row
        const uint32_t addr = stage + r * 128 + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15));
        const uint32_t v = pack_bf16x2(acc[i * 4 + 2 * h], acc[i * 4 + 2 * h + 1]);
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v));
      }
    }
    fence_proxy_async();
    asm volatile("bar.sync %0, 128;" ::"r"(1 + cons) : "memory");
    if (tid == 0) {
      tma_store(md, stage, col0 + 64 * sub, row0);
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
}

template <int TN, int KB, bool REGS>
__global__ void __launch_bounds__(384, 1)
tma_wide_k_mma_kernel(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb,
                      const __grid_constant__ CUtensorMap md, int stages, int tiles, int k_iters, int tiles_m,
                      int tiles_n, int b_row0, int load, int gap, unsigned long long* cycles, unsigned long long* land,
                      unsigned long long* waited, float* sink, const int* cta_of_smid, unsigned* smid_out) {
  extern __shared__ uint8_t raw[];
  constexpr int a_box = 128 * 128, b_box = TN * 128, stage_bytes = KB * (a_box + b_box);
  const WideKRing ring{aligned_base(raw), stages, KB * a_box, KB * b_box, (gap & kGapSplit) != 0};
  const uint32_t epi = ring.base + stages * stage_bytes;   // the staging buffers (kGapOut only)
  const uint32_t full = epi + ((gap & kGapOut) ? 2 * kWideKEpiBytes : 0), empty = full + 8 * stages;
  const uint32_t issued = empty + 8 * stages;   // each stage's issue clock (8 B a stage)
  init_walk_ring(full, empty, stages, 2, &ma, &mb);   // one release a consumer warpgroup
  int cta = (int)blockIdx.x;   // whose tiles this CTA walks
  if (cta_of_smid || smid_out) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    if (smid_out && threadIdx.x == 0) smid_out[blockIdx.x] = sm;
    if (cta_of_smid && cta_of_smid[sm] >= 0) cta = cta_of_smid[sm];
  }
  const long long t0 = clk();
  if (threadIdx.x < 128) {           // the producer warpgroup: thread 0 loads
    if constexpr (REGS) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    if (threadIdx.x == 0)
      wide_k_produce(&ma, &mb, ring, full, empty, issued, KB, TN, tiles, k_iters, tiles_m, tiles_n, b_row0, load != 0,
                     cta);
  } else {                           // two consumer warpgroups
    if constexpr (REGS) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    const int cons = ((int)threadIdx.x - 128) / 128;
    const bool lead = (threadIdx.x % 128) == 0, timer = threadIdx.x == 128;
    float acc[TN / 2];
#pragma unroll
    for (int i = 0; i < TN / 2; ++i) acc[i] = 0.f;
    int cs = 0, prev = -1;
    uint32_t cpar = 0;
    unsigned long long landed = 0, wait_sum = 0;
    for (int j = 0; j < tiles; ++j) {
      if (gap & kGapZero) {
#pragma unroll
        for (int i = 0; i < TN / 2; ++i) acc[i] = 0.f;
      }
      for (int k = 0; k < k_iters; ++k) {
        mbar_wait(full + 8 * cs, cpar);
        if (timer) {
          long long t_issue;
          asm volatile("ld.shared.u64 %0, [%1];" : "=l"(t_issue) : "r"(issued + 8 * cs) : "memory");
          landed += (unsigned long long)(clk() - t_issue);
        }
        const uint32_t a_base = ring.a(cs) + cons * 64 * 128, b_base = ring.b(cs);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < 4 * KB; ++kk) {
          const int kbyte = kk * 32;
          const uint32_t a_k = a_base + (kbyte / 128) * a_box + (kbyte % 128);
          const uint32_t b_k = b_base + (kbyte / 128) * b_box + (kbyte % 128);
          Wgmma<TN, 0>::run(acc, desc_sw128(a_k), desc_sw128(b_k), 1);
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        const long long w0 = clk();
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        if (timer) wait_sum += (unsigned long long)(clk() - w0);
        if (prev >= 0 && lead) mbar_arrive(empty + 8 * prev);   // the previous stage's wgmma are done
        prev = cs;
        if (++cs == stages) { cs = 0; cpar ^= 1; }
      }
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (lead) mbar_arrive(empty + 8 * prev);   // the tile's end
      prev = -1;
      if (gap & kGapOut) {
        int m, n;
        tile_mn((cta + (int)gridDim.x * j) % (tiles_m * tiles_n), tiles_m, tiles_n, 0, 8, m, n);
        wide_k_epilogue<TN>(acc, epi + cons * kWideKEpiBytes, &md, cons, m * 128 + cons * 64, n * TN);
      }
    }
    if ((gap & kGapOut) && lead) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < TN / 2; ++i) s += acc[i];
    if (s == 1234.5f) sink[0] = s;   // keeps the accumulators live; never true in practice
    if (timer) {
      cycles[blockIdx.x] = clk() - t0;
      land[blockIdx.x] = landed / (unsigned long long)(tiles * k_iters);
      waited[blockIdx.x] = wait_sum / (unsigned long long)(tiles * k_iters);
    }
  }
}

// --pair-share's walk (one tile a CTA, our tile order) with the consumer as two warpgroups that read `read_bytes` of
// each landed stage with ld.shared (as the 128x128x64 tile's wgmma reads its operands: each warpgroup its A half and
// all of B, 48 KB a k-block) and then spin `work` cycles before the stage is released (each of the 8 warps arrives):
// do the consumers' shared-memory reads slow a ring whose loads the GPC pool holds?
__global__ void tma_walk_smem_kernel(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb,
                                     int stages, int a_bytes, int b_bytes, int k_iters, int tiles_m, int tiles_n,
                                     int read_bytes, int work, unsigned long long* cycles, unsigned* sink,
                                     int tiles = 1) {
  extern __shared__ uint8_t raw[];
  const int stage_bytes = a_bytes + b_bytes;
  const uint32_t base = aligned_base(raw), full = base + stages * stage_bytes, empty = full + 8 * stages;
  init_walk_ring(full, empty, stages, 8, &ma, &mb);   // each of the 8 consumer warps releases a stage
  const long long t0 = clk();
  if (threadIdx.x == 0) {            // producer: `tiles` tiles, CTA b taking b, b + grid, ... in our tile order (pm8)
    Ring r(stages);
    for (int j = 0; j < tiles; ++j) {
      int m, n;
      tile_mn(((int)blockIdx.x + (int)gridDim.x * j) % (tiles_m * tiles_n), tiles_m, tiles_n, 0, 8, m, n);
      for (int k = 0; k < k_iters; ++k, r.next()) {
        if (r.wrapped) mbar_wait(empty + 8 * r.s, r.parity);
        mbar_arrive_expect_tx(full + 8 * r.s, stage_bytes);
        const uint32_t dst = base + r.s * stage_bytes;
        tma_load(dst, &ma, k * 64, m * 128, full + 8 * r.s);
        tma_load(dst + a_bytes, &mb, k * 64, n * 128, full + 8 * r.s);
      }
    }
  } else if (threadIdx.x >= 32 && threadIdx.x < 32 + 256) {   // two consumer warpgroups
    const int t = (int)threadIdx.x - 32;
    int cs = 0;
    uint32_t cpar = 0, acc = 0;
    for (int it = 0; it < tiles * k_iters; ++it) {
      mbar_wait(full + 8 * cs, cpar);
      const uint32_t st = base + cs * stage_bytes, mask = (uint32_t)stage_bytes - 1;   // stage_bytes: a power of 2
      const int rounds = read_bytes / (256 * 16);
      for (int j = 0; j < rounds; j += 4) {      // four independent 16-byte loads a thread in flight
        uint32_t v[16];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const uint32_t off = ((uint32_t)(t * 16 + (j + u) * 256 * 16)) & mask;
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(v[4 * u]), "=r"(v[4 * u + 1]), "=r"(v[4 * u + 2]), "=r"(v[4 * u + 3]) : "r"(st + off));
        }
#pragma unroll
        for (int u = 0; u < 16; ++u) acc ^= v[u];
      }
      const long long w0 = clk();
      while (clk() - w0 < work) {}
      __syncwarp();
      if ((t & 31) == 0) mbar_arrive(empty + 8 * cs);
      if (++cs == stages) { cs = 0; cpar ^= 1; }
    }
    if (t == 0) cycles[blockIdx.x] = clk() - t0;
    if (acc == 0x12345678u) sink[0] = acc;
  }
}

// Direct stores of a GEMM epilogue (not TMA), each of `wgs` warpgroups writing its 128x128 bf16 block of a
// (128 x wgs) x 128 tile into a row-major output of N columns; CTA b takes tiles b, b + grid, ... (M-fastest). cycles:
// each CTA's issue time of its tiles. VEC = 4: our kernel's edir epilogue (gemm_sm90.cu epilogue_direct), from the
// wgmma accumulator layout, 4 bytes a thread a store (a warp's store: 8 rows x 16 bytes). VEC = 16: a layout-converted
// epilogue (Triton's pointer matmul: the accumulators go through shared memory, then st.global.v4.b32), 16 bytes a
// thread a store, a warp's store two whole 256-byte rows of the block (four 128-byte lines), 16 stores a warpgroup.
template <int VEC>
__global__ void direct_store_kernel(void* D, int N, int tiles, int tiles_m, int tiles_n, unsigned long long* cycles) {
  const int wg = (int)threadIdx.x / 128, tid = (int)threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
  const int tile_rows = (int)blockDim.x;           // 128 rows a warpgroup
  uint32_t v = hash32(threadIdx.x + 7u * blockIdx.x);
  __syncthreads();
  const long long t0 = clk();
  for (int j = 0; j < tiles; ++j) {
    const int t = (int)((blockIdx.x + gridDim.x * (uint32_t)j) % (uint32_t)(tiles_m * tiles_n));
    const int m_base = (t % tiles_m) * tile_rows + wg * 128, n_base = (t / tiles_m) * 128;
    if constexpr (VEC == 4) {
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll 4
        for (int i = 0; i < 16; ++i)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = m_base + mi * 64 + warp * 16 + lane / 4 + 8 * h;
            const int col = n_base + i * 8 + (lane % 4) * 2;
            static_cast<uint32_t*>(D)[((size_t)row * N + col) / 2] = v;
            v = v * 1664525u + 1013904223u;
          }
    } else {
#pragma unroll 4
      for (int i = 0; i < 16; ++i) {
        const int row = m_base + i * 8 + tid / 16, col = n_base + (tid % 16) * 8;
        static_cast<uint4*>(D)[((size_t)row * N + col) / 8] = make_uint4(v, v ^ 1u, v ^ 2u, v ^ 3u);
        v = v * 1664525u + 1013904223u;
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clk() - t0;
}

// The SM a CTA runs on (%smid), after holding it `spin` cycles so that the grid's CTAs are resident together.
__global__ void smid_kernel(int* out, long long spin) {
  if (threadIdx.x == 0) {
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    out[blockIdx.x] = (int)sm;
    const long long t0 = clk();
    while (clk() - t0 < spin) {}
  }
}

// Cluster of 2: issue cost and latency, plain versus multicast. out[rep*5 + k]:
// k=0 plain issue cycles per box, 1 multicast issue cycles per box, 2 plain latency (burst),
// 3 multicast latency at the issuer, 4 multicast latency until the peer has it too (+ a remote arrive).
__global__ void __cluster_dims__(2, 1, 1) tma_cluster_issue_kernel(const __grid_constant__ CUtensorMap m, int burst,
                                                                   int reps, int box_bytes, double* out) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = aligned_base(raw), bar = base + burst * box_bytes, done = bar + 8;
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) { mbar_init(bar, 1); mbar_init(done, 1); fence_mbar_init(); prefetch_map(&m); }
  cluster_sync();
  uint32_t ph = 0, phd = 0;
  const uint32_t bytes = burst * box_bytes;
  for (int rep = -2; rep < reps; ++rep) {
    for (int mc = 0; mc < 2; ++mc) {
      if (threadIdx.x == 0 && rank == 1 && mc) mbar_arrive_expect_tx(bar, bytes);
      cluster_sync();
      if (threadIdx.x == 0 && rank == 0) {
        mbar_arrive_expect_tx(bar, bytes);
        long long t0 = clk();
        for (int j = 0; j < burst; ++j) {
          if (mc) tma_load_mc(base + j * box_bytes, &m, 0, 0, bar, (uint16_t)3);
          else tma_load(base + j * box_bytes, &m, 0, 0, bar);
        }
        long long t1 = clk();
        mbar_wait(bar, ph);
        long long t2 = clk(), t3 = t2;
        ph ^= 1;
        if (mc) { mbar_wait(done, phd); t3 = clk(); phd ^= 1; }
        if (rep >= 0) {
          out[rep * 5 + mc] = (double)(t1 - t0) / burst;
          out[rep * 5 + 2 + mc] = (double)(t2 - t0);
          if (mc) out[rep * 5 + 4] = (double)(t3 - t0);
        }
      }
      if (threadIdx.x == 0 && rank == 1 && mc) { mbar_wait(bar, ph); ph ^= 1; mbar_arrive_cluster(done, 0); }
      cluster_sync();
    }
  }
}

// A cluster-of-2 stage ring: thread 0 of each CTA sets up the stages' full barriers (one arrival + the bytes)
// and empty barriers (released by `releasers` consumers: both CTAs' by default) and prefetches the maps; then the
// cluster syncs.
__device__ __forceinline__ void mc_ring_init(uint32_t full, uint32_t empty, int stages, const CUtensorMap* m,
                                             const CUtensorMap* m2 = nullptr, int releasers = 2) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) { mbar_init(full + 8 * s, 1); mbar_init(empty + 8 * s, releasers); }
    fence_mbar_init();
    prefetch_map(m);
    if (m2) prefetch_map(m2);
  }
  cluster_sync();
}

// Cluster of 2 needing the same tile (2 boxes) per stage. mc=0: each CTA loads both boxes itself;
// mc=1: CTA r loads box r multicast to both. Stage reuse waits on an `empty` barrier that both
// CTAs arrive on (as a real multicast pipeline must), in both modes so they compare fairly.
__global__ void __cluster_dims__(2, 1, 1) tma_mc_stream_kernel(const __grid_constant__ CUtensorMap m, int stages,
                                                               int box_bytes, int iters, int inner, int outer,
                                                               int nbx_log2, int ntiles, int mode, int mc,
                                                               unsigned long long* cycles) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = aligned_base(raw), full = base + stages * 2 * box_bytes, empty = full + 8 * stages;
  const uint32_t rank = cluster_rank();
  mc_ring_init(full, empty, stages, &m);
  const uint32_t cid = blockIdx.x / 2, ncl = gridDim.x / 2;
  long long t0 = clk();
  if (threadIdx.x == 0) {
    BoxWalk w{mode == 0 ? cid * 13u : cid, mode == 0 ? 7u : ncl, (uint32_t)ntiles - 1, (1u << nbx_log2) - 1,
              (uint32_t)nbx_log2};
    w.b &= w.mask;
    Ring prod(stages);
    int cs = 0;          // consumer: stage and the parity of its current round (round r: r & 1)
    uint32_t cpar = 0;
    for (int it = 0; it < iters + stages - 1; ++it) {
      if (it < iters) {
        const int s = prod.s;
        if (prod.wrapped) mbar_wait(empty + 8 * s, prod.parity);
        mbar_arrive_expect_tx(full + 8 * s, 2 * box_bytes);
        int c0, c1;
        w.coords(inner, 2 * outer, c0, c1);  // a tile is two boxes stacked in the outer dimension
        const uint32_t dst = base + s * 2 * box_bytes;
        if (mc) {
          tma_load_mc(dst + rank * box_bytes, &m, c0, c1 + (int)rank * outer, full + 8 * s, (uint16_t)3);
        } else {
          tma_load(dst, &m, c0, c1, full + 8 * s);
          tma_load(dst + box_bytes, &m, c0, c1 + outer, full + 8 * s);
        }
        prod.next();
        w.next();
      }
      if (it >= stages - 1) {  // consume the stage issued stages-1 iterations ago; release it in both CTAs
        mbar_wait(full + 8 * cs, cpar);
        mbar_arrive_cluster(empty + 8 * cs, 0);
        mbar_arrive_cluster(empty + 8 * cs, 1);
        if (++cs == stages) { cs = 0; cpar ^= 1; }
      }
    }
    cycles[blockIdx.x] = clk() - t0;
  }
  cluster_sync();
}

// The same cluster-of-2 stream with the producer (warp 0) and the consumer (warp 1, which releases each stage
// in both CTAs) on separate warps, so that the release's cross-CTA latency overlaps the loads: at 32 KB stages
// every SM asks more of L2 than it can give, and delivered bytes plain vs multicast measure what a multicast
// copy costs the L2 (tma_multicast_l2). cycles[] as above.
__global__ void __cluster_dims__(2, 1, 1) tma_mc_split_kernel(const __grid_constant__ CUtensorMap m, int stages,
                                                              int box_bytes, int iters, int outer, int nbx_log2,
                                                              int ntiles, int mc, unsigned long long* cycles) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = aligned_base(raw), full = base + stages * 2 * box_bytes, empty = full + 8 * stages;
  const uint32_t rank = cluster_rank();
  mc_ring_init(full, empty, stages, &m);
  const uint32_t cid = blockIdx.x / 2;
  const int inner = 64;
  long long t0 = clk();
  if (threadIdx.x == 0) {            // producer
    BoxWalk w{cid * 13u, 7u, (uint32_t)ntiles - 1, (1u << nbx_log2) - 1, (uint32_t)nbx_log2};
    w.b &= w.mask;
    Ring prod(stages);
    for (int it = 0; it < iters; ++it, prod.next(), w.next()) {
      const int s = prod.s;
      if (prod.wrapped) mbar_wait(empty + 8 * s, prod.parity);
      mbar_arrive_expect_tx(full + 8 * s, 2 * box_bytes);
      int c0, c1;
      w.coords(inner, 2 * outer, c0, c1);
      const uint32_t dst = base + s * 2 * box_bytes;
      if (mc) {
        tma_load_mc(dst + rank * box_bytes, &m, c0, c1 + (int)rank * outer, full + 8 * s, (uint16_t)3);
      } else {
        tma_load(dst, &m, c0, c1, full + 8 * s);
        tma_load(dst + box_bytes, &m, c0, c1 + outer, full + 8 * s);
      }
    }
  } else if (threadIdx.x == 32) {    // consumer: wait full, release the stage in both CTAs
    int cs = 0;
    uint32_t cpar = 0;
    for (int it = 0; it < iters; ++it) {
      mbar_wait(full + 8 * cs, cpar);
      mbar_arrive_cluster(empty + 8 * cs, 0);
      mbar_arrive_cluster(empty + 8 * cs, 1);
      if (++cs == stages) { cs = 0; cpar ^= 1; }
    }
    cycles[blockIdx.x] = clk() - t0;
  }
  cluster_sync();
}

// ---------------------------------------------------------------- host benchmarks
struct Ctx {
  int sms;
  Tensor2D small, big;  // 2 MiB (L2-resident) and 1 GiB (HBM)
  uint4* flush_buf;
  size_t flush_n;
  uint32_t* sink;
  ClockProbe* probe;
  unsigned long long* cycles;
  void flush() {
    flush_kernel<<<sms * 4, 512>>>(flush_buf, flush_n, sink);
    CK_LAUNCH();
  }
};

static int smem_request(int bytes) { return std::max(bytes + 2048, 120 * 1024); }  // 1 CTA per SM

static int log2_exact(uint64_t x, const char* what) {
  if (x == 0 || (x & (x - 1))) die("%s = %llu is not a power of two", what, (unsigned long long)x);
  int k = 0;
  while ((1ull << k) < x) ++k;
  return k;
}

static void set_smem(const void* f, int bytes) {
  CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

static void bench_latency(Ctx& c) {
  const int iters = g_quick ? 32 : 256;
  long long* d;
  CK(cudaMalloc(&d, iters * sizeof(long long)));
  struct Box { int swz; uint32_t outer; };
  const Box boxes[] = {{32, 64}, {64, 64}, {128, 64}, {128, 128}, {128, 256}, {0, 64}};
  for (const Box& bx : boxes) {
    const uint32_t inner = inner_for(bx.swz);
    const int bytes = (int)(inner * bx.outer * 2);
    for (int mode = 0; mode < 2; ++mode) {
      const Tensor2D& t = mode == 0 ? c.small : c.big;
      CUtensorMap m = make_map(t, inner, bx.outer, bx.swz);
      const int nby = (int)(t.rows / bx.outer);
      if (mode == 1 && iters > nby) die("tma latency: %d iterations exceed %d row blocks", iters, nby);
      set_smem((const void*)tma_latency_kernel, smem_request(bytes));
      if (mode == 1) c.flush();
      tma_latency_kernel<<<1, 32, smem_request(bytes)>>>(m, iters, bytes, inner, bx.outer, nby, mode, d);
      CK_LAUNCH();
      std::vector<long long> h(iters);
      CK(cudaMemcpy(h.data(), d, iters * sizeof(long long), cudaMemcpyDeviceToHost));
      std::vector<double> v(h.begin(), h.end());
      Rec("tma_latency").str("source", mode == 0 ? "l2" : "hbm").num("swizzle", bx.swz).num("box_inner", inner)
          .num("box_outer", bx.outer).num("box_bytes", bytes).num("iters", iters).num("cycles", median(v))
          .num("min_cycles", *std::min_element(v.begin(), v.end())).emit();
    }
  }
  CK(cudaFree(d));
}

// Issue cost by box size: a 256 B box shows the instruction's own cost, larger ones where the
// TMA unit's data rate starts to hold the issuing thread back.
static void bench_issue(Ctx& c) {
  const int reps = g_quick ? 8 : 64;
  double* d;
  CK(cudaMalloc(&d, reps * 5 * sizeof(double)));
  struct Box { int swz; uint32_t inner, outer; };
  const Box boxes[] = {{32, 16, 8}, {32, 16, 64}, {128, 64, 64}, {128, 64, 256}};
  for (const Box& bx : boxes) {
    const int box_bytes = (int)(bx.inner * bx.outer * 2);
    CUtensorMap m = make_map(c.small, bx.inner, bx.outer, bx.swz);
    for (int burst : {1, 4, 16}) {
      const int bytes = box_bytes * burst;
      if (bytes > 128 * 1024) continue;
      set_smem((const void*)tma_cluster_issue_kernel, smem_request(bytes));
      tma_cluster_issue_kernel<<<2, 32, smem_request(bytes)>>>(m, burst, reps, box_bytes, d);
      CK_LAUNCH();
      std::vector<double> h(reps * 5), k[5];
      CK(cudaMemcpy(h.data(), d, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
      for (int r = 0; r < reps; ++r)
        for (int j = 0; j < 5; ++j) k[j].push_back(h[r * 5 + j]);
      Rec("tma_issue").num("burst", burst).num("box_bytes", box_bytes).num("box_inner", bx.inner)
          .num("box_outer", bx.outer).num("swizzle", bx.swz)
          .num("plain_issue_cycles", median(k[0])).num("multicast_issue_cycles", median(k[1]))
          .num("plain_latency_cycles", median(k[2])).num("multicast_latency_cycles", median(k[3]))
          .num("multicast_both_latency_cycles", median(k[4])).emit();
    }
  }
  CK(cudaFree(d));
}

// One timed run of tma_stream_kernel on `grid` CTAs: wall time (median of `reps` launches) and, from the last
// launch, each CTA's bytes per clock (median, minimum and 10th percentile) and the SM clock.
struct StreamRun {
  double ms, bpc, min_bpc, hz, p10_bpc;
};
static StreamRun run_stream(Ctx& c, const CUtensorMap& m, int grid, int smem, int stages, int bytes, int iters,
                            uint32_t inner, uint32_t outer, int nbx_log2, int nb, int mode, int reps) {
  const double ms = time_ms(reps, [&] {
    tma_stream_kernel<<<grid, 32, smem>>>(m, stages, bytes, iters, inner, outer, nbx_log2, nb, mode, c.probe, c.cycles);
  });
  std::vector<double> bpc = per_cta_rates(c.cycles, grid, (double)iters * bytes);
  std::sort(bpc.begin(), bpc.end());
  return {ms, median(bpc), bpc.front(), read_probe_hz(c.probe), bpc[bpc.size() / 10]};
}

// HBM streaming with part of the chip: 1..all SMs, ring depth 2 / 4 / the default (issue 8: skinny GEMMs keep
// few SMs busy; mb_stream measured the same with 1D bulk copies). Records "tma_hbm_sms".
static void bench_hbm_partial(Ctx& c, const CUtensorMap& m, int bytes, int def_stages, uint32_t inner, uint32_t outer,
                              int nbx_log2, int nb, int swz) {
  std::vector<int> depths = {2, 4};
  if (def_stages > 4) depths.push_back(def_stages);
  for (int stages : depths) {
    if (stages > def_stages) continue;
    const int smem = smem_request(stages * bytes + 8 * stages);
    set_smem((const void*)tma_stream_kernel, smem);
    for (int grid : {1, 4, 8, 16, 28, 32, 64, 96}) {
      if (grid >= c.sms) continue;
      const int iters = (int)std::min<size_t>(((size_t)256 << 20) / grid / bytes, 4096);
      const StreamRun r = run_stream(c, m, grid, smem, stages, bytes, iters, inner, outer, nbx_log2, nb, 1, 3);
      Rec("tma_hbm_sms").num("swizzle", swz).num("box_inner", inner).num("box_outer", outer).num("box_bytes", bytes)
          .num("stages", stages).num("ctas", grid).num("iters", iters).num("bytes_per_clock_per_sm", r.bpc)
          .num("cycles_per_box", bytes / r.bpc).num("chip_bytes_per_s", (double)iters * bytes * grid / (r.ms * 1e-3))
          .num("sm_clock_hz", r.hz).emit();
    }
  }
}

// The same HBM stream in a GEMM's pattern (mode 2): each CTA walks its own panel of `outer` rows along a row of
// `pitch_elems` bf16 (pitch = K x 2 bytes of a K-major operand), 128-byte box rows (128B swizzle), with 32..all
// SMs and ring depth 2..6. Against tma_hbm_sms (consecutive CTAs read adjacent boxes of one row band) this shows
// what the panel pattern costs HBM. Records "tma_hbm_panel".
static void bench_hbm_panel(Ctx& c) {
  const uint32_t inner = 64;
  for (uint64_t pitch : {4096ull, 8192ull, 28672ull}) {
    const uint64_t rows = ((uint64_t)c.big.rows * c.big.cols) / pitch;   // the same 1 GiB, another row pitch
    const Tensor2D t = {c.big.base, rows, pitch};
    const int nb = (int)(pitch / inner);
    for (uint32_t outer : {128u, 256u}) {
      CUtensorMap m = make_map(t, inner, outer, 128);
      const int bytes = (int)(inner * outer * 2);
      const int panels = (int)(rows / outer);
      for (int stages : {2, 4, 6}) {
        if (stages * bytes > 200 * 1024) continue;
        const int smem = smem_request(stages * bytes + 8 * stages);
        set_smem((const void*)tma_stream_kernel, smem);
        for (int grid : {32, 64, 128, c.sms}) {
          if (grid > c.sms || grid > panels) continue;
          const int per_cta = panels / grid;                 // whole panels per CTA, each byte read once per launch
          const int iters = (int)std::min<int64_t>((int64_t)per_cta * nb, ((int64_t)256 << 20) / grid / bytes);
          if (iters < stages) continue;
          c.flush();
          const StreamRun r = run_stream(c, m, grid, smem, stages, bytes, iters, inner, outer, 0, nb, 2, 3);
          Rec("tma_hbm_panel").num("pitch_bytes", (double)pitch * 2).num("box_inner", inner).num("box_outer", outer)
              .num("box_bytes", bytes).num("stages", stages).num("ctas", grid).num("iters", iters)
              .num("bytes_per_clock_per_sm", r.bpc).num("cycles_per_box", bytes / r.bpc)
              .num("chip_bytes_per_s", (double)iters * bytes * grid / (r.ms * 1e-3)).num("sm_clock_hz", r.hz)
              .emit();
        }
      }
    }
  }
}

// L2 streaming in a GEMM's geometry (issue 8): a 16 MiB tensor of 16 KB rows (K = 8192 bf16), 8 or 4 panels of
// 128 / 256 rows that every SM walks along K, each starting at its own panel, ring of 4 (the GEMM's default):
// what the L2 gives 128/64/32-byte box rows at a GEMM's pitch and sharing, against tma_stream's small tensor.
// Records "tma_stream" with source "l2_panel".
static void bench_l2_panel(Ctx& c) {
  const Tensor2D t = {c.big.base, 1024, 8192};   // the first 16 MiB of the big buffer
  for (int swz : {128, 64, 32}) {
    for (uint32_t outer : {128u, 256u}) {
      const uint32_t inner = inner_for(swz);
      const int bytes = (int)(inner * outer * 2);
      const int stages = std::max(2, std::min(8, (4 * 16384) / bytes));   // 64 KB in flight, as a 4-stage ring
      CUtensorMap m = make_map(t, inner, outer, swz);
      const int nb = (int)(t.cols / inner), panels = (int)(t.rows / outer);
      const int iters = (int)(((size_t)(g_quick ? 4 : 32) << 20) / bytes);
      const int smem = smem_request(stages * bytes + 8 * stages);
      set_smem((const void*)tma_stream_kernel, smem);
      const int grid = c.sms;
      const StreamRun r = run_stream(c, m, grid, smem, stages, bytes, iters, inner, outer, panels, nb, 4,
                                     g_quick ? 2 : 5);
      Rec("tma_stream").str("source", "l2_panel").num("swizzle", swz).num("box_inner", inner).num("box_outer", outer)
          .num("box_bytes", bytes).num("stages", stages).num("ctas", grid).num("iters", iters)
          .num("pitch_bytes", (double)t.cols * 2).num("panels", panels)
          .num("bytes_per_clock_per_sm", r.bpc).num("min_bytes_per_clock_per_sm", r.min_bpc)
          .num("chip_bytes_per_s", (double)iters * bytes * grid / (r.ms * 1e-3)).num("ms", r.ms).num("sm_clock_hz", r.hz)
          .emit();
    }
  }
}

// L2 residency of TMA-loaded panels (issue 8, the fourteenth session: the GEMM's ncu HBM reads say only ~0.4 of the L2
// keeps a wave's panels, while plain loads from every SM keep 48 MiB, mb_memory l2_partition_bw): a tensor of 16 KB
// rows (K = 8192 bf16) of 8-48 MiB, 128-row panels that all SMs walk along K in step, each CTA starting at its own
// panel and moving to the next one after a whole row (tma_stream_kernel mode 4), so every panel is read by other SMs
// on the next pass; two passes a launch, timed over warm launches: a tensor the L2 keeps streams at L2 speed, one it
// does not at HBM speed. Records "tma_l2_residency".
static void bench_l2_residency(Ctx& c) {
  const uint32_t inner = 64, outer = 128;
  const int bytes = (int)(inner * outer * 2), stages = 4;
  const int smem = smem_request(stages * bytes + 8 * stages);
  set_smem((const void*)tma_stream_kernel, smem);
  // even sizes only (whole 128-row panels); 2 MiB steps between 20 and 32 MiB, where the H100 keeps it or not
  for (int mib : {8, 12, 16, 20, 22, 24, 26, 28, 30, 32, 36, 40, 48}) {
    const uint64_t rows = ((uint64_t)mib << 20) / (8192 * 2);
    const Tensor2D t = {c.big.base, rows, 8192};
    CUtensorMap m = make_map(t, inner, outer, 128);
    const int nb = (int)(t.cols / inner), panels = (int)(rows / outer);
    const int iters = 2 * nb;   // two panels a CTA: every panel read twice a launch, by other SMs the second time
    const StreamRun r = run_stream(c, m, c.sms, smem, stages, bytes, iters, inner, outer, panels, nb, 4,
                                   g_quick ? 2 : 7);
    Rec("tma_l2_residency").num("working_set_bytes", (double)((uint64_t)mib << 20)).num("panels", panels)
        .num("box_bytes", bytes).num("stages", stages).num("ctas", c.sms).num("iters", iters)
        .num("bytes_per_clock_per_sm", r.bpc).num("chip_bytes_per_s", (double)iters * bytes * c.sms / (r.ms * 1e-3))
        .num("ms", r.ms).num("sm_clock_hz", r.hz).emit();
  }
}

// tma_l2_residency_pitch (issue 8, the twenty-eighth session: the L2-paced whole-grid walk of 8192x8192 over rows
// pitched 10240-11264 bf16 re-reads ~2x the HBM bytes of other pitches at 6 stages, data/ncu/walk_pitch_paced_h100):
// bench_l2_residency's in-step panel walk over the first 8192 columns of rows pitched 8192..24576 bf16: the same bytes
// read and the same order, other addresses. Does the L2 keep less of a tensor at those pitches? Records
// "tma_l2_residency_pitch".
static void bench_l2_residency_pitch(Ctx& c) {
  const uint32_t inner = 64, outer = 128;
  const int bytes = (int)(inner * outer * 2), stages = 4, nb = 8192 / (int)inner;
  const int smem = smem_request(stages * bytes + 8 * stages);
  set_smem((const void*)tma_stream_kernel, smem);
  for (uint64_t pitch : {8192, 9216, 10240, 11008, 11264, 12288, 16384, 24576}) {
    for (int mib : {12, 16, 20, 24, 28, 32, 40, 48}) {
      const uint64_t rows = ((uint64_t)mib << 20) / (8192 * 2);
      if (rows * pitch > c.big.rows * c.big.cols) die("l2-residency-pitch: %d MiB at pitch %llu does not fit", mib,
                                                      (unsigned long long)pitch);
      const Tensor2D t = {c.big.base, rows, pitch};
      CUtensorMap m = make_map(t, inner, outer, 128);
      const int panels = (int)(rows / outer), iters = 2 * nb;
      // --ncu: one warm-up and one profiled launch each (ncu's HBM bytes of the second say what the L2 kept)
      const StreamRun r = run_stream(c, m, c.sms, smem, stages, bytes, iters, inner, outer, panels, nb, 4,
                                     g_ncu ? 1 : g_quick ? 2 : 7);
      Rec("tma_l2_residency_pitch").num("pitch_elems", (double)pitch).num("pitch_bytes", (double)pitch * 2)
          .num("working_set_bytes", (double)((uint64_t)mib << 20)).num("panels", panels).num("box_bytes", bytes)
          .num("stages", stages).num("ctas", c.sms).num("iters", iters).num("bytes_per_clock_per_sm", r.bpc)
          .num("chip_bytes_per_s", (double)iters * bytes * c.sms / (r.ms * 1e-3)).num("ms", r.ms)
          .num("sm_clock_hz", r.hz).emit();
    }
  }
}

// tma_hbm_pitch (issue 8, the twenty-eighth session: the pitches whose deep L2-paced walks re-read twice the bytes keep
// as much in the L2 as the others, tma_l2_residency_pitch): every SM streams its own 128-row panel from HBM box by box
// along the row (tma_stream_kernel mode 2, as a GEMM operand's panel walk), over the first 8192 columns of rows pitched
// 8192..24576 bf16, after an L2 flush: is HBM slower for 128-byte row pieces at those pitches? Records "tma_hbm_pitch".
// --fine: every pitch from 8192 to 24576 bf16 in steps of 64 (128 bytes), rings of 4 only.
static void bench_hbm_pitch(Ctx& c) {
  const uint32_t inner = 64, outer = 128;
  const int bytes = (int)(inner * outer * 2), nb = 8192 / (int)inner;
  std::vector<uint64_t> pitches = {8192, 9216, 10240, 11008, 11264, 12288, 16384, 24576};
  if (g_fine) {
    pitches.clear();
    for (uint64_t p = 8192; p <= 24576; p += 64) pitches.push_back(p);
  }
  for (int stages : {4, 8}) {
    if (g_fine && stages != 4) continue;
    const int smem = smem_request(stages * bytes + 8 * stages);
    set_smem((const void*)tma_stream_kernel, smem);
    for (uint64_t pitch : pitches) {
      const uint64_t rows = std::min<uint64_t>(c.big.rows * c.big.cols / pitch, 20480) / outer * outer;
      if (rows / outer < (uint64_t)c.sms)
        die("hbm-pitch: %llu panels at pitch %llu", (unsigned long long)(rows / outer), (unsigned long long)pitch);
      const Tensor2D t = {c.big.base, rows, pitch};
      CUtensorMap m = make_map(t, inner, outer, 128);
      std::vector<double> ms_v;
      for (int rep = 0; rep < (g_fine ? 3 : 5); ++rep) {
        c.flush();
        ms_v.push_back(event_ms([&] {
          tma_stream_kernel<<<c.sms, 32, smem>>>(m, stages, bytes, nb, inner, outer, 0, nb, 2, c.probe, c.cycles);
        }));
      }
      const double ms = median(ms_v);
      Rec("tma_hbm_pitch").num("pitch_elems", (double)pitch).num("pitch_bytes", (double)pitch * 2).num("stages", stages)
          .num("box_bytes", bytes).num("ctas", c.sms).num("boxes_per_cta", nb)
          .num("chip_bytes_per_s", (double)nb * bytes * c.sms / (ms * 1e-3)).num("ms", ms).emit();
    }
  }
}

// tma_box_spread_pitch (issue 8, the twenty-ninth session: the H100's deep paced walks fall out of step at jagged row
// pitches, data/ncu/walk_pitch_fine_h100; drift needs CTAs that run at different rates): every SM reads its own
// 128-row panel's first 8 boxes (64 bf16 x 128 rows, 128B swizzle) over and over from the L2 (132 x 2 MiB), rows
// pitched 8192..32768 bf16 in steps of 256, ring of 4. The spread of the CTAs' rates at each pitch: do a box's rows
// sit in the L2 so that some CTAs' boxes are slower than others' at the walks' bad pitches? Records
// "tma_box_spread_pitch" (the CTAs' bytes a cycle: median, p10, min; the chip's rate).
static void bench_box_spread_pitch(Ctx& c) {
  const uint32_t inner = 64, outer = 128;
  const int bytes = (int)(inner * outer * 2), stages = 4, nb = 8, iters = nb * 64;
  const int smem = smem_request(stages * bytes + 8 * stages);
  set_smem((const void*)tma_stream_kernel, smem);
  for (uint64_t pitch = 8192; pitch <= 32768; pitch += 256) {
    const uint64_t rows = (uint64_t)c.sms * outer;
    if (rows * pitch > c.big.rows * c.big.cols) die("box-spread-pitch: pitch %llu does not fit",
                                                    (unsigned long long)pitch);
    const Tensor2D t = {c.big.base, rows, pitch};
    const StreamRun r = run_stream(c, make_map(t, inner, outer, 128), c.sms, smem, stages, bytes, iters, inner, outer,
                                   0, nb, 7, g_quick ? 2 : 5);
    Rec("tma_box_spread_pitch").num("pitch_elems", (double)pitch).num("pitch_bytes", (double)pitch * 2)
        .num("stages", stages).num("box_bytes", bytes).num("boxes_per_cta", iters).num("ctas", c.sms)
        .num("cta_bpc_median", r.bpc).num("cta_bpc_p10", r.p10_bpc).num("cta_bpc_min", r.min_bpc)
        .num("chip_bytes_per_s", (double)iters * bytes * c.sms / (r.ms * 1e-3)).num("ms", r.ms)
        .num("sm_clock_hz", r.hz).emit();
  }
}

// tma_box_pitch_rate (issue 8, the twenty-ninth session: tma_box_spread_pitch found every CTA's L2-resident boxes
// 6-10% slower at the H100's bad pitches, the CTAs alike): the same in-step walk (every SM its own panel's first boxes,
// over and over, 128B swizzle, ring of 4, ~16.5 MiB L2-resident) as a table over the row pitch: boxes of 64 / 128 /
// 256 rows (16 / 8 / 4 boxes a panel), every pitch of 1..128 KB in 128-byte steps (from 2 KB for 64-row boxes, whose
// 16 boxes span 2 KB of a row), and for 128-row boxes every 16-byte step of 1..32 KB (rows that start mid-line). Its
// own 4.6 GB tensor (256-row panels of 132 SMs at 128 KB). Records "tma_box_pitch_rate" (the CTAs' median bytes a
// cycle, the chip's bytes a second).
static void bench_box_pitch_table(Ctx& c) {
  const uint32_t inner = 64;
  const uint64_t max_pitch_bytes = 131072, rows_max = (uint64_t)c.sms * 256;
  void* buf;
  CK(cudaMalloc(&buf, rows_max * max_pitch_bytes));
  CK(cudaMemset(buf, 0x3c, rows_max * max_pitch_bytes));
  const int stages = 4;
  struct Sweep { uint32_t outer; uint64_t from, to, step; };
  const Sweep sweeps[] = {{128, 1024, 32768, 16}, {128, 32768 + 128, max_pitch_bytes, 128},
                          {64, 1024, max_pitch_bytes, 128}, {256, 1024, max_pitch_bytes, 128}};
  for (const Sweep& sw : sweeps) {
    const int bytes = (int)(inner * sw.outer * 2), nb = (int)(1024 / sw.outer), iters = nb * 64;
    const int smem = smem_request(stages * bytes + 8 * stages);
    set_smem((const void*)tma_stream_kernel, smem);
    for (uint64_t pitch = std::max<uint64_t>(sw.from, nb * 128); pitch <= sw.to; pitch += sw.step) {  // boxes in rows
      const Tensor2D t = {buf, (uint64_t)c.sms * sw.outer, pitch / 2};
      const StreamRun r = run_stream(c, make_map(t, inner, sw.outer, 128), c.sms, smem, stages, bytes, iters, inner,
                                     sw.outer, 0, nb, 7, g_quick ? 1 : 3);
      Rec("tma_box_pitch_rate").num("pitch_bytes", (double)pitch).num("box_rows", sw.outer).num("box_bytes", bytes)
          .num("boxes_per_panel", nb).num("stages", stages).num("ctas", c.sms).num("cta_bpc_median", r.bpc)
          .num("chip_bytes_per_s", (double)iters * bytes * c.sms / (r.ms * 1e-3)).num("ms", r.ms).emit();
    }
  }
  CK(cudaFree(buf));
}

// L2 throughput with a share of misses (issue 8, the fifteenth session: do the L2's fills from HBM take L2 bandwidth?
// the GEMM's L2-bound rows run slower than the model the more of their bytes miss): every SM streams 16 KB boxes (128
// rows of 128 bytes, 128B swizzle) of the 1 GiB tensor (16 KB rows), `mix` of every `period` from HBM (each read once)
// and the rest from 4 L2-resident panels (8 MiB), rings of 4 and 8; with fills free the chip moves the L2's bytes a
// cycle until HBM (3.07 TB/s) binds at a miss share near 0.33, with a fill costing c of a hit byte's L2 time it moves
// that / (1 + c x share). Records "tma_miss_mix" (miss_share: mix / period).
static void bench_miss_mix(Ctx& c) {
  const uint32_t inner = 64, outer = 128;
  const int bytes = (int)(inner * outer * 2);
  const Tensor2D& t = c.big;
  CUtensorMap m = make_map(t, inner, outer, 128);
  const int nb = (int)(t.cols / inner), panels = (int)(t.rows / outer);
  const std::pair<int, int> mixes[] = {{0, 8}, {1, 16}, {1, 8}, {3, 16}, {2, 8}, {5, 16}, {3, 8}, {4, 8}, {6, 8},
                                       {8, 8}};
  for (int stages : {4, 8}) {
    const int smem = smem_request(stages * bytes + 8 * stages);
    set_smem((const void*)tma_stream_kernel, smem);
    for (const auto& mp : mixes) {
      const int iters = g_quick ? 512 : 2048;
      const double ms = time_ms(g_quick ? 2 : 7, [&] {
        tma_stream_kernel<<<c.sms, 32, smem>>>(m, stages, bytes, iters, inner, outer, mp.second, nb, 6, c.probe,
                                               c.cycles, mp.first, panels);
      });
      const std::vector<double> bpc = per_cta_rates(c.cycles, c.sms, (double)iters * bytes);
      const double chip = (double)iters * bytes * c.sms / (ms * 1e-3);
      Rec("tma_miss_mix").num("miss_share", (double)mp.first / mp.second).num("mix", mp.first)
          .num("period", mp.second).num("box_bytes", bytes).num("stages", stages).num("ctas", c.sms)
          .num("iters", iters).num("bytes_per_clock_per_sm", median(bpc))
          .num("min_bytes_per_clock_per_sm", *std::min_element(bpc.begin(), bpc.end()))
          .num("chip_bytes_per_s", chip).num("hbm_bytes_per_s", chip * mp.first / mp.second).num("ms", ms)
          .num("sm_clock_hz", read_probe_hz(c.probe)).emit();
    }
  }
}

// L2 request coalescing (issue 8): 128-byte rows, 16 KB boxes, ring of 4, every SM walking one of `panels` shared
// panels of a small L2-resident tensor (2 KB rows, 128 rows a panel: at most 8.4 MiB), in step (mode 4) or out of
// phase (mode 5), for 1..33 panels (132..4 SMs per panel). Records "tma_l2_sharing".
static void bench_l2_sharing(Ctx& c) {
  const uint32_t inner = 64, outer = 128;
  const int bytes = (int)(inner * outer * 2), stages = 4;
  for (int panels : {1, 2, 4, 8, 16, 33}) {
    const Tensor2D t = {c.big.base, (uint64_t)outer * panels, 1024};
    CUtensorMap m = make_map(t, inner, outer, 128);
    const int nb = (int)(t.cols / inner);
    const int iters = (int)(((size_t)(g_quick ? 4 : 32) << 20) / bytes);
    const int smem = smem_request(stages * bytes + 8 * stages);
    set_smem((const void*)tma_stream_kernel, smem);
    for (int mode : {4, 5}) {
      const StreamRun r = run_stream(c, m, c.sms, smem, stages, bytes, iters, inner, outer, panels, nb, mode,
                                     g_quick ? 2 : 5);
      Rec("tma_l2_sharing").num("panels", panels).num("sms_per_panel", (double)c.sms / panels)
          .str("phase", mode == 4 ? "in_step" : "out_of_phase").num("box_bytes", bytes).num("stages", stages)
          .num("ctas", c.sms).num("iters", iters).num("bytes_per_clock_per_sm", r.bpc)
          .num("chip_bytes_per_s", (double)iters * bytes * c.sms / (r.ms * 1e-3)).num("sm_clock_hz", r.hz).emit();
    }
  }
}

// The LRC sweep (tma_share_kernel): sharers per panel 1..132, consecutive or strided CTAs, in step or 1/4 boxes
// apart per rank, ring of 4 or 8, L2-resident or first-touch panels. Records "tma_lrc" (received bytes; ncu adds
// the L2-served side: lrc__lts2lrc_sectors_op_read).
static void bench_lrc(Ctx& c) {
  const uint32_t inner = 64, outer = 128;
  const int bytes = (int)(inner * outer * 2);
  const Tensor2D small = {c.big.base, (uint64_t)outer * 132, 512};     // 132 panels of 8 boxes, 17.3 MB
  CUtensorMap ms = make_map(small, inner, outer, 128), mb = make_map(c.big, inner, outer, 128);
  const int big_panels = (int)(c.big.rows / outer), big_nb = (int)(c.big.cols / inner);
  for (int fresh : {0, 1}) {
    for (int stages : {4, 8}) {
      const int smem = smem_request(stages * bytes + 8 * stages);
      set_smem((const void*)tma_share_kernel, smem);
      for (int group : {1, 2, 4, 8, 16, 33, 132}) {
        for (int consecutive : {1, 0}) {
          if (group == 1 && !consecutive) continue;
          for (int offset : {0, 1, 4}) {
            if (group == 1 && offset) continue;
            const int panels = (c.sms + group - 1) / group;
            const int nb = fresh ? big_nb : (int)(small.cols / inner), total = fresh ? big_panels : (int)(small.rows / outer);
            // fresh: each group reads panels p, p + panels, ... once (at most the whole tensor); resident: 8 MB a CTA
            const int iters = fresh ? std::min(big_nb * (big_panels / panels), g_ncu ? 256 : 1024) : (g_ncu ? 128 : 512);
            std::vector<double> ms_v;
            const int reps = g_ncu ? 1 : 3;
            for (int rep = 0; rep < reps; ++rep) {
              if (fresh) c.flush();
              ms_v.push_back(event_ms([&] {
                tma_share_kernel<<<c.sms, 32, smem>>>(fresh ? mb : ms, stages, bytes, iters, outer, inner, nb, panels,
                                                      total, group, consecutive, offset, c.cycles);
              }));
            }
            const double msec = median(ms_v);
            const std::vector<double> bpc = per_cta_rates(c.cycles, c.sms, (double)iters * bytes);
            Rec("tma_lrc").str("source", fresh ? "hbm_first_touch" : "l2").num("stages", stages).num("group", group)
                .num("consecutive", consecutive).num("offset_boxes", offset).num("panels", panels)
                .num("box_bytes", bytes).num("iters", iters).num("ctas", c.sms).num("reps", reps)
                .num("bytes_per_clock_per_sm", median(bpc))
                .num("chip_bytes_per_s", (double)iters * bytes * c.sms / (msec * 1e-3)).num("ms", msec).emit();
          }
        }
      }
    }
  }
}

// tma_lrc_gemm: tma_gemm_walk_kernel over the tiles of an 8192^3 bf16 GEMM (4 tiles a CTA), tile shapes 128x256,
// 128x128 and 64x256, tile orders pm8 / pn8 / pm1, ring depth 2..6, consumer work 0 / 0.5 / 1 x the tile's
// tensor-core time at 4096 FLOP/clk/SM. Records "tma_lrc_gemm" (received bytes; ncu adds the coalescer's side).
static void bench_lrc_gemm(Ctx& c) {
  struct Tile { int rows_a, rows_b; std::vector<int> depths; };
  const Tile tile_shapes[] = {{128, 256, {2, 3, 4}}, {128, 128, {2, 4, 6}}, {64, 256, {2, 4, 5}}};
  const struct { int raster_n, group; const char* name; } orders[] = {{0, 8, "pm8"}, {1, 8, "pn8"}, {0, 1, "pm1"}};
  const int K = 8192, k_iters = K / 64, tiles_per_cta = 4;
  for (const Tile& t : tile_shapes) {
    const Tensor2D A = {c.big.base, 8192, (uint64_t)K}, B = {c.big.base, 16384, (uint64_t)K};
    CUtensorMap ma = make_map(A, 64, t.rows_a, 128), mb = make_map(B, 64, t.rows_b, 128);
    const int a_bytes = t.rows_a * 128, b_bytes = t.rows_b * 128;
    const int tiles_m = 8192 / t.rows_a, tiles_n = 8192 / t.rows_b;
    const int mma_cycles = 2 * t.rows_a * t.rows_b * 64 / 4096;
    for (int stages : t.depths) {
      const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
      set_smem((const void*)tma_gemm_walk_kernel, smem);
      for (const auto& o : orders) {
        for (int frac2 : {0, 1, 2}) {
          const int work = mma_cycles * frac2 / 2;
          const int reps = g_ncu ? 1 : 3;
          std::vector<double> ms_v;
          for (int rep = 0; rep < reps; ++rep) {
            ms_v.push_back(event_ms([&] {
              tma_gemm_walk_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, tiles_per_cta, k_iters,
                                                        tiles_m, tiles_n, o.raster_n, o.group, t.rows_a, t.rows_b,
                                                        8192, work, c.cycles);
            }));
          }
          const double msec = median(ms_v);
          const double bytes = (double)tiles_per_cta * k_iters * (a_bytes + b_bytes);
          const std::vector<double> bpc = per_cta_rates(c.cycles, c.sms, bytes);
          Rec("tma_lrc_gemm").num("tile_m", t.rows_a).num("tile_n", t.rows_b).num("stages", stages)
              .str("order", o.name).num("work_cycles", work).num("mma_cycles", mma_cycles)
              .num("tiles_per_cta", tiles_per_cta).num("k_iters", k_iters).num("ctas", c.sms)
              .num("bytes_per_clock_per_sm", median(bpc))
              .num("chip_bytes_per_s", bytes * c.sms / (msec * 1e-3)).num("ms", msec).emit();
        }
      }
    }
  }
}

// The median CTA's mean issue-to-landing cycles of a stage, from the walk kernel's `land` output of its last launch.
static double median_land_cycles(const unsigned long long* land, int ctas) {
  std::vector<unsigned long long> h(ctas);
  CK(cudaMemcpy(h.data(), land, ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  return median(std::vector<double>(h.begin(), h.end()));
}

// A GEMM walk timed as the skinny and pair rings time it: `reps` launches, each after an L2 flush (unless `flush` is
// false: the whole-grid walks of --walk-drift run back to back); the median launch time and, from the last launch, the
// median and the slowest CTA's cycles a k-block (each CTA's clock64 in c.cycles; k_iters: a CTA's k-blocks).
struct WalkTiming { double ms, cycles_per_kblock, max_cycles_per_kblock; };
template <class Launch>
static WalkTiming time_walk(Ctx& c, int ctas, int k_iters, int reps, Launch launch, bool flush = true) {
  std::vector<double> ms_v;
  for (int rep = 0; rep < reps; ++rep) {
    if (flush) c.flush();
    ms_v.push_back(event_ms(launch));
  }
  const std::vector<double> r = per_cta_rates(c.cycles, ctas, (double)k_iters);
  return {median(ms_v), 1.0 / median(r), 1.0 / *std::min_element(r.begin(), r.end())};
}

// tma_walk_drift (issue 8, the eighteenth session: the H200's L2-bound GEMMs lose 10-28% against the model at 5-9
// stages, the H100's do not): tma_gemm_walk_kernel over the WHOLE tile grid of 8192^3 and 4096x4096x32768 bf16 (every
// CTA as many tiles as our persistent kernel gives it, in its tile order pm8), a consumer thread holding each stage the
// tile's tensor-core time at 4096 FLOP/clk/SM, 128x128 at 4 / 6 stages and 64x256 at 4 / 5. The short tma_lrc_gemm walk
// (4 tiles a CTA) shows no depth loss on either GPU; a run as long as the GEMM's lets its CTAs drift apart as the
// GEMM's do. Records "tma_walk_drift": the chip's received rate, the CTAs' median and slowest cycles (their end-time
// spread); ncu of the same binary adds the HBM bytes.
// The timing fields every whole-grid walk records (--walk-drift, its smem walk, --walk-drift-paced), then emits the
// record: a CTA's k-blocks (tiles x k_iters) and a stage's bytes give the totals.
static void emit_grid_timing(const Ctx& c, Rec& rec, const WalkTiming& t, int tiles_per_cta, int k_iters,
                             int stage_bytes) {
  const double kblocks = (double)tiles_per_cta * k_iters;
  rec.num("tiles_per_cta", tiles_per_cta).num("k_iters", k_iters).num("ctas", c.sms)
      .num("median_cta_cycles", t.cycles_per_kblock * kblocks).num("max_cta_cycles", t.max_cycles_per_kblock * kblocks)
      .num("cycles_per_kblock", t.cycles_per_kblock)
      .num("chip_bytes_per_s", kblocks * stage_bytes * c.sms / (t.ms * 1e-3)).num("ms", t.ms).emit();
}

static void bench_walk_drift(Ctx& c) {
  const int reps = g_ncu ? 1 : 3;
  struct Tile { int rows_a, rows_b; std::vector<int> depths; };
  const Tile tile_shapes[] = {{128, 128, {4, 6}}, {64, 256, {4, 5}}};
  const struct { int m, n, k; } shapes[] = {{8192, 8192, 8192}, {4096, 4096, 32768}};
  for (const auto& sh : shapes) {
    const uint64_t K = (uint64_t)sh.k;
    // A's rows then B's rows of one tensor of K-wide rows in the 1 GiB buffer (bf16)
    const Tensor2D t = {c.big.base, (uint64_t)(sh.m + sh.n), K};
    for (const Tile& tl : tile_shapes) {
      CUtensorMap ma = make_map(t, 64, tl.rows_a, 128), mb = make_map(t, 64, tl.rows_b, 128);
      const int a_bytes = tl.rows_a * 128, b_bytes = tl.rows_b * 128;
      const int tiles_m = sh.m / tl.rows_a, tiles_n = sh.n / tl.rows_b, k_iters = sh.k / 64;
      const int tiles_per_cta = (tiles_m * tiles_n + c.sms - 1) / c.sms;
      const int mma_cycles = 2 * tl.rows_a * tl.rows_b * 64 / 4096;
      for (int stages : tl.depths) {
        const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
        set_smem((const void*)tma_gemm_walk_kernel, smem);
        const WalkTiming w = time_walk(c, c.sms, tiles_per_cta * k_iters, reps, [&] {
          tma_gemm_walk_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, tiles_per_cta, k_iters,
                                                    tiles_m, tiles_n, 0, 8, tl.rows_a, tl.rows_b, sh.m,
                                                    mma_cycles, c.cycles);
        }, false);
        emit_grid_timing(c, Rec("tma_walk_drift").num("m", sh.m).num("n", sh.n).num("k", sh.k).num("tile_m", tl.rows_a)
                             .num("tile_n", tl.rows_b).num("stages", stages).str("order", "pm8")
                             .num("work_cycles", mma_cycles),
                         w, tiles_per_cta, k_iters, a_bytes + b_bytes);
      }
    }
  }
  // the same 8192^3 walk of 128x128 tiles with the consumer as two warpgroups that read the stage's 48 KB from shared
  // memory (as the tile's wgmma reads its operands) and then spin 256 cycles (tma_walk_smem_kernel): do consumers that
  // contend with the TMA's writes for shared memory let the CTAs fall out of step (the GEMM's HBM re-reads grow with
  // ring depth on the H200, data/ncu/depth8192_h200, not in the waiting walk)? Records "tma_walk_drift_smem".
  {
    // A: the buffer's first 8192 rows of 8192 bf16; B: the next 8192 (a tensor of its own, as a GEMM's B)
    const Tensor2D ta = {c.big.base, 8192, 8192}, tb = {(uint16_t*)c.big.base + (size_t)8192 * 8192, 8192, 8192};
    CUtensorMap ma = make_map(ta, 64, 128, 128), mb = make_map(tb, 64, 128, 128);
    const int a_bytes = 128 * 128, b_bytes = 128 * 128, tiles_m = 64, tiles_n = 64, k_iters = 128;
    const int tiles_per_cta = (tiles_m * tiles_n + c.sms - 1) / c.sms, read_bytes = 48 * 1024, work = 256;
    for (int stages : {4, 5, 6}) {
      const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
      set_smem((const void*)tma_walk_smem_kernel, smem);
      const WalkTiming w = time_walk(c, c.sms, tiles_per_cta * k_iters, reps, [&] {
        tma_walk_smem_kernel<<<c.sms, 32 + 256, smem>>>(ma, mb, stages, a_bytes, b_bytes, k_iters, tiles_m, tiles_n,
                                                         read_bytes, work, c.cycles, c.sink, tiles_per_cta);
      }, false);
      emit_grid_timing(c, Rec("tma_walk_drift_smem").num("m", 8192).num("n", 8192).num("k", 8192).num("tile_m", 128)
                           .num("tile_n", 128).num("stages", stages).str("order", "pm8").num("read_bytes", read_bytes)
                           .num("work_cycles", work),
                       w, tiles_per_cta, k_iters, a_bytes + b_bytes);
    }
  }
}

// One wave of a GEMM's tiles for the one-wave walks (--walk-partial, --walk-variants, --walk-place): an m x n x k bf16
// problem of rows_a x rows_b tiles whose A rows and then B rows are one tensor of K-wide rows in the big buffer.
struct WaveCase { int m, n, k, rows_a, rows_b; };
struct WaveGrid {
  Tensor2D t;
  int a_bytes, b_bytes, tiles_m, tiles_n, k_iters, ctas, mma_cycles;   // mma_cycles: the tile's MMAs at 4096 FLOP/clk
};
static WaveGrid wave_grid(Ctx& c, const WaveCase& cs, const char* bench) {
  if ((uint64_t)(cs.m + cs.n) * cs.k > c.big.rows * c.big.cols)
    die("%s: %dx%dx%d does not fit the buffer", bench, cs.m, cs.n, cs.k);
  const int tiles_m = cs.m / cs.rows_a, tiles_n = cs.n / cs.rows_b;
  return {{c.big.base, (uint64_t)(cs.m + cs.n), (uint64_t)cs.k}, cs.rows_a * 128, cs.rows_b * 128, tiles_m, tiles_n,
          cs.k / 64, std::min(tiles_m * tiles_n, c.sms), 2 * cs.rows_a * cs.rows_b * 64 / 4096};
}

// The timing fields every one-wave walk's record carries, from time_walk and the kernel's `land` output.
static Rec& wave_timing(Rec& rec, const WaveGrid& g, const WalkTiming& w, const unsigned long long* land) {
  return rec.num("k_iters", g.k_iters).num("ms", w.ms).num("cycles_per_kblock", w.cycles_per_kblock)
      .num("max_cycles_per_kblock", w.max_cycles_per_kblock).num("land_cycles", median_land_cycles(land, g.ctas));
}

// tma_walk_partial (issue 8, the twenty-sixth session: one-wave grids of the one-consumer 64x256 tile at M = 128..256
// run 10-28% below the model, and faster the deeper the ring (250 / 313 / 336 TFLOP/s at 3 / 4 / 5 stages on
// 256x4096x14336, data/ncu/partial_ncu), where the same tile at M = 1024 or 64 is right): tma_gemm_walk_kernel over one
// wave of a GEMM's tiles (one tile a CTA, pm8 order, A's rows then B's rows of one tensor of K-wide bf16 rows), a
// consumer holding each stage the tile's tensor-core time at 4096 FLOP/clk/SM, that less the walk's own cycles a stage
// (paced as the GEMM's MMAs), or 0 (as fast as the loads land), 2 to 6 stages as shared memory allows; the median
// CTA's mean issue-to-landing cycles of a stage (seen when the consumer takes it). Records "tma_walk_partial"; with
// --ncu one launch each (after an L2 flush), for ncu's counters.
static constexpr int kWalkStageCycles = 208;   // the walk's own cycles a stage (its consumer's wait and release)
static void bench_walk_partial(Ctx& c) {
  unsigned long long* land = nullptr;
  CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
  const WaveCase cases[] = {{256, 4096, 14336, 64, 256}, {1024, 1024, 32768, 64, 256}, {128, 8192, 3072, 64, 256},
                            {64, 16384, 28672, 64, 256}, {256, 4096, 14336, 128, 128}, {1024, 1024, 32768, 128, 128}};
  for (const WaveCase& cs : cases) {
    const WaveGrid g = wave_grid(c, cs, "walk-partial");
    const int a_bytes = g.a_bytes, b_bytes = g.b_bytes, tiles_m = g.tiles_m, tiles_n = g.tiles_n, k_iters = g.k_iters;
    const int ctas = g.ctas, mma_cycles = g.mma_cycles;
    CUtensorMap ma = make_map(g.t, 64, cs.rows_a, 128), mb = make_map(g.t, 64, cs.rows_b, 128);
    // paced: the MMAs' time less the walk's own ~208 cycles a stage (its floor at work = mma_cycles: 720-730 cycles a
    // k-block, the first run of this mode), so that a stage is held about as long as the GEMM's consumer holds it
    const int paced = mma_cycles - kWalkStageCycles;
    for (int work : {mma_cycles, paced, 0}) {
      for (int stages = 2; stages <= 6; ++stages) {
        const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
        if (smem > 227 * 1024) continue;
        set_smem((const void*)tma_gemm_walk_kernel, smem);
        const WalkTiming w = time_walk(c, ctas, k_iters, g_ncu ? 1 : 3, [&] {
          tma_gemm_walk_kernel<<<ctas, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, 1, k_iters, tiles_m, tiles_n, 0, 8,
                                                   cs.rows_a, cs.rows_b, cs.m, work, c.cycles, 0, 0, 0, nullptr, 0,
                                                   land);
        });
        Rec rec("tma_walk_partial");
        rec.num("m", cs.m).num("n", cs.n).num("k", cs.k).num("tile_m", cs.rows_a).num("tile_n", cs.rows_b)
            .num("ctas", ctas).num("stages", stages).str("order", "pm8").num("work_cycles", work);
        wave_timing(rec, g, w, land)
            .num("chip_bytes_per_s", (double)k_iters * (a_bytes + b_bytes) * ctas / (w.ms * 1e-3)).emit();
      }
    }
  }
  CK(cudaFree(land));
}

constexpr int kWideM = 8192, kWideN = 8192, kWideK = 8192;   // the wide-k walks' GEMM, bf16

// The wide-k walks' A and B maps over one tensor of the big buffer (A's kWideM rows, then B's kWideN; 16 KB row
// pitch): 64-column 128-byte-swizzle boxes of 128 rows (A) and tn rows (B).
struct WideKMaps { CUtensorMap a, b; };
static WideKMaps wide_k_maps(const Ctx& c, int tn) {
  const Tensor2D one = {c.big.base, (uint64_t)(kWideM + kWideN), (uint64_t)kWideK};
  return {make_map(one, 64, 128, 128), make_map(one, 64, (uint32_t)tn, 128)};
}

// tma_wide_k (the thirty-first session): is the 2-stage ring of 256-byte k-block rows slow without MMAs?
// tma_wide_k_kernel on every SM over the whole tile grid of an 8192^3 bf16 GEMM (A's rows then B's rows of one tensor
// of 8192-wide rows in the big buffer, 16 KB row pitch), 128x256 and 128x128 tiles, kb = 1 / 2 boxes per operand a
// stage (tile_k 64 / 128), 2-4 stages as 227 KB allows, the consumer releasing after its hold (lag 0) or as the GEMM
// (lag 1), holding each stage the tile's tensor-core time at 4096 FLOP/clk/SM or 0. Records "tma_wide_k": cycles a
// stage and a 64-column k-block (the median CTA), the median CTA's mean stage issue-to-landing cycles, the chip's
// received bytes/s. Whole-grid walks run back to back, unflushed, as --walk-drift's.
static void bench_wide_k(Ctx& c) {
  unsigned long long* land = nullptr;
  CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
  const int M = kWideM, N = kWideN, K = kWideK, reps = g_ncu ? 1 : 3;
  for (int tile_n : {256, 128}) {
    const WideKMaps maps = wide_k_maps(c, tile_n);
    const CUtensorMap &ma = maps.a, &mb = maps.b;
    const int tiles_m = M / 128, tiles_n = N / tile_n;
    const int tiles_per_cta = (tiles_m * tiles_n + c.sms - 1) / c.sms;
    for (int kb : {1, 2}) {
      const int stage_bytes = kb * (128 + tile_n) * 128, k_iters = K / (64 * kb);
      const int mma_cycles = 2 * 128 * tile_n * 64 * kb / 4096;
      for (int stages = 2; stages <= 4; ++stages) {
        const int smem = smem_request(stages * stage_bytes + 24 * stages);
        if (smem > 227 * 1024) continue;
        set_smem((const void*)tma_wide_k_kernel, smem);
        for (int lag : {1, 0}) {
          for (int work : {mma_cycles, 0}) {
            const WalkTiming w = time_walk(c, c.sms, tiles_per_cta * k_iters, reps, [&] {
              tma_wide_k_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, kb, tile_n, tiles_per_cta, k_iters, tiles_m,
                                                     tiles_n, M, work, lag, c.cycles, land);
            }, false);
            const double stages_total = (double)tiles_per_cta * k_iters;
            Rec("tma_wide_k").num("m", M).num("n", N).num("k", K).num("tile_m", 128).num("tile_n", tile_n)
                .num("tile_k", 64 * kb).num("kb", kb).num("stages", stages).num("lag", lag).str("order", "pm8")
                .num("work_cycles", work).num("mma_cycles", mma_cycles).num("stage_bytes", stage_bytes)
                .num("k_iters", k_iters).num("tiles_per_cta", tiles_per_cta).num("ctas", c.sms)
                .num("cycles_per_stage", w.cycles_per_kblock).num("max_cycles_per_stage", w.max_cycles_per_kblock)
                .num("cycles_per_kblock", w.cycles_per_kblock / kb)
                .num("land_cycles", median_land_cycles(land, c.sms))
                .num("bytes_per_clock_per_sm", stage_bytes / w.cycles_per_kblock)
                .num("chip_bytes_per_s", stages_total * stage_bytes * c.sms / (w.ms * 1e-3)).num("ms", w.ms).emit();
          }
        }
      }
    }
  }
  CK(cudaFree(land));
}

// tma_wide_k_mma (the thirty-first session): which part of the MMAs slows the 2-stage rings of 256-byte k-block rows?
// tma_wide_k_mma_kernel<tile_n, kb> on every SM over the 8192^3 tile grid as bench_wide_k walks it (the GEMM's lag-1
// protocol only), 128x256 and 128x128 tiles, kb = 1 / 2, 2-3 stages as 227 KB allows, the TMA loads on or off (the
// wgmma batches alone on the first round's data). Records "tma_wide_k_mma": cycles a stage and a 64-column k-block
// (the median CTA), the median CTA's mean stage issue-to-landing cycles and wgmma.wait_group 1 cycles a stage, the
// tensor-core time of a stage at 4096 FLOP/clk/SM.
// One walk of tma_wide_k_mma_kernel over that grid: A's and B's maps (B's tile rows from b_row0 of its tensor), D's
// (kGapOut), the ring's depth, loads on or off, --wide-k-gap's bits, and a launch as our harness launches the GEMM
// (cudaLaunchKernelEx with a cluster dimension of 1) or a plain one.
struct WideKWalk {
  CUtensorMap ma, mb, md;
  int b_row0, stages, load, gap;
  bool cluster;
  const int* cta_of_smid = nullptr;   // --wide-k-place: the remap (device, kSmidSlots ints) and each CTA's %smid
  unsigned* smid_out = nullptr;
};

struct WideKShape {   // a tile's figures on that grid
  int tiles_m, tiles_n, tiles_per_cta, k_iters, stage_bytes, mma_cycles;
  WideKShape(const Ctx& c, int tn, int kb)
      : tiles_m(kWideM / 128), tiles_n(kWideN / tn), tiles_per_cta((tiles_m * tiles_n + c.sms - 1) / c.sms),
        k_iters(kWideK / (64 * kb)), stage_bytes(kb * (128 + tn) * 128), mma_cycles(2 * 128 * tn * 64 * kb / 4096) {}
  double stages_total() const { return (double)tiles_per_cta * k_iters; }
};

static int wide_k_smem(const WideKShape& sh, const WideKWalk& wk) {
  return smem_request(wk.stages * sh.stage_bytes + ((wk.gap & kGapOut) ? 2 * kWideKEpiBytes : 0) + 24 * wk.stages);
}

// `reps` timed launches back to back (unflushed, as --walk-drift's), after one untimed launch when `warm`.
template <int TN, int KB, bool REGS>
static WalkTiming wide_k_mma_time(Ctx& c, const WideKWalk& wk, int reps, bool warm, unsigned long long* land,
                                  unsigned long long* waited) {
  const WideKShape sh(c, TN, KB);
  const int smem = wide_k_smem(sh, wk);
  auto kernel = tma_wide_k_mma_kernel<TN, KB, REGS>;
  set_smem((const void*)kernel, smem);
  auto launch = [&] {
    if (wk.cluster) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = cluster_launch_config(c.sms, 384, smem, 1, &attr, true);
      CK(cudaLaunchKernelEx(&cfg, kernel, wk.ma, wk.mb, wk.md, wk.stages, sh.tiles_per_cta, sh.k_iters, sh.tiles_m,
                            sh.tiles_n, wk.b_row0, wk.load, wk.gap, c.cycles, land, waited, (float*)c.sink,
                            wk.cta_of_smid, wk.smid_out));
    } else {
      kernel<<<c.sms, 384, smem>>>(wk.ma, wk.mb, wk.md, wk.stages, sh.tiles_per_cta, sh.k_iters, sh.tiles_m,
                                   sh.tiles_n, wk.b_row0, wk.load, wk.gap, c.cycles, land, waited, (float*)c.sink,
                                   wk.cta_of_smid, wk.smid_out);
    }
  };
  if (warm) event_ms(launch);
  return time_walk(c, c.sms, (int)sh.stages_total(), reps, launch, false);
}

// The fields every tma_wide_k_mma / tma_wide_k_gap record carries (the median CTA's cycles, land and wait_group 1
// cycles a stage; the kernel clock from the median launch and the median CTA's cycles).
static Rec& wide_k_timing(Rec& rec, const Ctx& c, const WideKShape& sh, int tn, int kb, int stages, int load,
                          const WalkTiming& w, const unsigned long long* land, const unsigned long long* waited) {
  const double stages_total = sh.stages_total();
  return rec.num("m", kWideM).num("n", kWideN).num("k", kWideK).num("tile_m", 128).num("tile_n", tn)
      .num("tile_k", 64 * kb).num("kb", kb).num("stages", stages).num("load", load).str("order", "pm8")
      .num("mma_cycles", sh.mma_cycles).num("stage_bytes", sh.stage_bytes).num("k_iters", sh.k_iters)
      .num("tiles_per_cta", sh.tiles_per_cta).num("ctas", c.sms)
      .num("cycles_per_stage", w.cycles_per_kblock).num("max_cycles_per_stage", w.max_cycles_per_kblock)
      .num("cycles_per_kblock", w.cycles_per_kblock / kb)
      .num("land_cycles", median_land_cycles(land, c.sms)).num("wait_cycles", median_land_cycles(waited, c.sms))
      .num("bytes_per_clock_per_sm", load ? sh.stage_bytes / w.cycles_per_kblock : 0.0)
      .num("chip_bytes_per_s", load ? stages_total * sh.stage_bytes * c.sms / (w.ms * 1e-3) : 0.0)
      .num("kernel_mhz", stages_total * w.cycles_per_kblock / (w.ms * 1e3))
      .num("ns_per_stage", w.ms * 1e6 / stages_total).num("ms", w.ms);
}

template <int TN, int KB>
static void wide_k_mma_config(Ctx& c, unsigned long long* land, unsigned long long* waited) {
  const WideKMaps maps = wide_k_maps(c, TN);
  const CUtensorMap &ma = maps.a, &mb = maps.b;
  const WideKShape sh(c, TN, KB);
  for (int stages = 2; stages <= 3; ++stages) {
    for (int load : {1, 0}) {
      const WideKWalk wk{ma, mb, ma, kWideM, stages, load, 0, false};   // md unused
      if (wide_k_smem(sh, wk) > 227 * 1024) continue;
      const WalkTiming w = wide_k_mma_time<TN, KB, false>(c, wk, g_ncu ? 1 : 3, false, land, waited);
      Rec rec("tma_wide_k_mma");
      wide_k_timing(rec, c, sh, TN, KB, stages, load, w, land, waited).emit();
    }
  }
}

static void bench_wide_k_mma(Ctx& c) {
  unsigned long long *land = nullptr, *waited = nullptr;
  CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
  CK(cudaMalloc(&waited, c.sms * sizeof(unsigned long long)));
  wide_k_mma_config<256, 1>(c, land, waited);
  wide_k_mma_config<256, 2>(c, land, waited);
  wide_k_mma_config<128, 1>(c, land, waited);
  wide_k_mma_config<128, 2>(c, land, waited);
  CK(cudaFree(land));
  CK(cudaFree(waited));
}

// tma_wide_k_gap (the thirty-second session): our GEMM's 2-stage mainloop of 256-byte k-block rows runs 12-17% slower
// than --wide-k-mma's walk of the same loads, batches and release protocol (3911-3976 against 3340-3481 cycles a stage
// at 128x256x128, 2610-2637 against 2355-2402 at 128x128x128; the 128-byte rows agree): which of the GEMM's
// differences makes it? The walk (2 stages, loads on) with each of them and their combinations (kGapVariants): "out",
// each tile written to a D of its own (M x N bf16) as the GEMM's TMA epilogue does; "ab", A and B in allocations and
// tensor maps of their own (M x K, N x K) as the GEMM's; "layout", the GEMM's shared-memory layout; "regs", its
// setmaxnreg split; "cluster", its launch (cudaLaunchKernelEx, a cluster of 1); "gemm", all of those and the
// accumulators zeroed each tile. 128x256 and 128x128 tiles, kb = 2 and (controls) kb = 1; `rounds` rounds, each of
// every configuration and variant (the variants' order rotated a round), each one untimed launch and `reps` timed ones.
// Records "tma_wide_k_gap": the tma_wide_k_mma fields with the variant, its parts and the round.
struct GapVariant {
  const char* name;
  int gap;            // the kernel's kGap* bits
  bool ab, regs, cluster;
};
static const GapVariant kGapVariants[] = {
    {"base", 0, false, false, false},
    {"out", kGapOut, false, false, false},
    {"ab", 0, true, false, false},
    {"layout", kGapSplit, false, false, false},
    {"out+ab", kGapOut, true, false, false},
    {"out+layout", kGapOut | kGapSplit, false, false, false},
    {"ab+layout", kGapSplit, true, false, false},
    {"all", kGapOut | kGapSplit, true, false, false},
    {"regs", 0, false, true, false},
    {"cluster", 0, false, false, true},
    {"gemm", kGapOut | kGapSplit | kGapZero, true, true, true},
};

struct GapTensors { void *a, *b, *d; };   // the GEMM's A (M x K), B (N x K) and D (M x N), bf16

template <int TN, int KB>
static void wide_k_gap_config(Ctx& c, const GapTensors& g, int round, int reps, unsigned long long* land,
                              unsigned long long* waited) {
  const Tensor2D ta = {g.a, (uint64_t)kWideM, (uint64_t)kWideK}, tb = {g.b, (uint64_t)kWideN, (uint64_t)kWideK};
  const Tensor2D td = {g.d, (uint64_t)kWideM, (uint64_t)kWideN};
  const WideKMaps one = wide_k_maps(c, TN);
  const CUtensorMap &ma1 = one.a, &mb1 = one.b;
  const CUtensorMap ma2 = make_map(ta, 64, 128, 128), mb2 = make_map(tb, 64, (uint32_t)TN, 128);
  const CUtensorMap md = make_map(td, 64, 64, 128);
  const WideKShape sh(c, TN, KB);
  const int n = (int)(sizeof(kGapVariants) / sizeof(kGapVariants[0]));
  for (int i = 0; i < n; ++i) {
    const GapVariant& v = kGapVariants[(i + 3 * round) % n];
    const WideKWalk wk{v.ab ? ma2 : ma1, v.ab ? mb2 : mb1, md, v.ab ? 0 : kWideM, 2, 1, v.gap, v.cluster};
    const WalkTiming w = v.regs ? wide_k_mma_time<TN, KB, true>(c, wk, reps, true, land, waited)
                                : wide_k_mma_time<TN, KB, false>(c, wk, reps, true, land, waited);
    Rec rec("tma_wide_k_gap");
    rec.str("variant", v.name).num("round", round).num("out", (v.gap & kGapOut) != 0).num("ab", v.ab)
        .num("layout_split", (v.gap & kGapSplit) != 0).num("regs", v.regs).num("cluster", v.cluster)
        .num("zero_acc", (v.gap & kGapZero) != 0).num("reps", reps);
    wide_k_timing(rec, c, sh, TN, KB, 2, 1, w, land, waited).emit();
  }
}

static void bench_wide_k_gap(Ctx& c) {
  const int rounds = g_ncu ? 1 : 4, reps = g_ncu ? 1 : 5;
  unsigned long long *land = nullptr, *waited = nullptr;
  CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
  CK(cudaMalloc(&waited, c.sms * sizeof(unsigned long long)));
  GapTensors g{};
  const size_t a_el = (size_t)kWideM * kWideK, b_el = (size_t)kWideN * kWideK, d_el = (size_t)kWideM * kWideN;
  CK(cudaMalloc(&g.a, a_el * 2));
  CK(cudaMalloc(&g.b, b_el * 2));
  CK(cudaMalloc(&g.d, d_el * 2));
  fill_random_u16<<<4096, 256>>>((uint16_t*)g.a, a_el, 3);
  fill_random_u16<<<4096, 256>>>((uint16_t*)g.b, b_el, 4);
  CK(cudaMemset(g.d, 0, d_el * 2));
  CK_LAUNCH();
  for (int round = 0; round < rounds; ++round) {
    wide_k_gap_config<256, 2>(c, g, round, reps, land, waited);
    wide_k_gap_config<128, 2>(c, g, round, reps, land, waited);
    wide_k_gap_config<256, 1>(c, g, round, reps, land, waited);
    wide_k_gap_config<128, 1>(c, g, round, reps, land, waited);
  }
  CK(cudaFree(g.a));
  CK(cudaFree(g.b));
  CK(cudaFree(g.d));
  CK(cudaFree(land));
  CK(cudaFree(waited));
}

// tma_wide_k_place (the thirty-second session): --wide-k-gap's walk (its base: one tensor, the walk's layout, no
// output, no register split) runs 3870 / 2762 cycles a stage at 128x256x128 / 128x128x128 launched with a cluster
// dimension of 1 against 3386 / 2438 launched plainly, all of it in the landing. The cluster launch puts the CTAs on
// other SMs: is it WHERE the CTAs (and so which tiles) sit, or the launch mode? First each launch's placement (every
// CTA's %smid, one launch each); then, `rounds` rounds of six variants (order rotated a round; each one untimed and
// `reps` timed launches): plain, cluster; plain as cluster (plain launch, the CTA on SM s walks the tiles that the
// cluster launch's CTA on s walked), cluster as plain (the converse); plain as plain and cluster as cluster (each
// remapped onto its own placement: the remap's own cost, and a check that a launch's placement repeats). 128x256 and
// 128x128 tiles, kb = 2, and kb = 1 as the controls. Records "tma_wide_k_place_smids" (a launch's CTA -> SM list) and
// "tma_wide_k_place": the tma_wide_k_mma fields with the variant, launch, tiles_as, and over the last launch's CTAs:
// same_sm (on the SM its launch's reference put it) and mapped (its SM found in the remap).
constexpr int kSmidSlots = 1024;   // the remap's entries (%smid < this)
static std::string join_ints(const std::vector<int>& v, char sep);

struct PlaceRef {
  std::vector<int> plain, cluster;               // CTA -> SM of each launch
  int *as_plain = nullptr, *as_cluster = nullptr;   // SM -> that launch's CTA on it (device, kSmidSlots)
};

static std::vector<int> read_smids(const unsigned* d, int n) {
  std::vector<unsigned> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return std::vector<int>(h.begin(), h.end());
}

static int* upload_remap(const std::vector<int>& smid_of_cta) {
  std::vector<int> h(kSmidSlots, -1);
  for (size_t b = 0; b < smid_of_cta.size(); ++b) {
    if (smid_of_cta[b] < 0 || smid_of_cta[b] >= kSmidSlots) die("%%smid %d out of range", smid_of_cta[b]);
    h[smid_of_cta[b]] = (int)b;
  }
  int* d = nullptr;
  CK(cudaMalloc(&d, kSmidSlots * sizeof(int)));
  CK(cudaMemcpy(d, h.data(), kSmidSlots * sizeof(int), cudaMemcpyHostToDevice));
  return d;
}

template <int TN, int KB>
static PlaceRef wide_k_place_ref(Ctx& c, unsigned* smids, unsigned long long* land, unsigned long long* waited) {
  const WideKMaps maps = wide_k_maps(c, TN);
  const CUtensorMap &ma = maps.a, &mb = maps.b;
  PlaceRef ref;
  for (bool cluster : {false, true}) {
    WideKWalk wk{ma, mb, ma, kWideM, 2, 1, 0, cluster};
    wk.smid_out = smids;
    wide_k_mma_time<TN, KB, false>(c, wk, 1, false, land, waited);
    (cluster ? ref.cluster : ref.plain) = read_smids(smids, c.sms);
    Rec("tma_wide_k_place_smids").num("tile_n", TN).num("kb", KB).str("launch", cluster ? "cluster" : "plain")
        .str("smids", join_ints(cluster ? ref.cluster : ref.plain, ',').c_str()).emit();
  }
  ref.as_plain = upload_remap(ref.plain);
  ref.as_cluster = upload_remap(ref.cluster);
  return ref;
}

template <int TN, int KB>
static void wide_k_place_config(Ctx& c, const PlaceRef& ref, unsigned* smids, int round, int reps,
                                unsigned long long* land, unsigned long long* waited) {
  const WideKMaps maps = wide_k_maps(c, TN);
  const CUtensorMap &ma = maps.a, &mb = maps.b;
  const WideKShape sh(c, TN, KB);
  struct Variant { const char* name; bool cluster; const char* tiles_as; };   // tiles_as: "own", "plain", "cluster"
  static const Variant variants[] = {
      {"plain", false, "own"},           {"cluster", true, "own"},
      {"plain as cluster", false, "cluster"}, {"cluster as plain", true, "plain"},
      {"plain as plain", false, "plain"},     {"cluster as cluster", true, "cluster"},
  };
  const int n = (int)(sizeof(variants) / sizeof(variants[0]));
  for (int i = 0; i < n; ++i) {
    const Variant& v = variants[(i + round) % n];
    const bool remap = strcmp(v.tiles_as, "own") != 0, as_cluster = !strcmp(v.tiles_as, "cluster");
    WideKWalk wk{ma, mb, ma, kWideM, 2, 1, 0, v.cluster};
    wk.smid_out = smids;   // every variant reads %smid; only the remapped ones read the map
    if (remap) wk.cta_of_smid = as_cluster ? ref.as_cluster : ref.as_plain;
    const WalkTiming w = wide_k_mma_time<TN, KB, false>(c, wk, reps, true, land, waited);
    const std::vector<int> got = read_smids(smids, c.sms);
    const std::vector<int>& own = v.cluster ? ref.cluster : ref.plain;
    const std::vector<int>& as = as_cluster ? ref.cluster : ref.plain;
    int same = 0, mapped = 0;
    for (int b = 0; b < c.sms; ++b) {
      same += got[b] == own[b];
      mapped += remap && std::find(as.begin(), as.end(), got[b]) != as.end();
    }
    Rec rec("tma_wide_k_place");
    rec.str("variant", v.name).str("launch", v.cluster ? "cluster" : "plain").str("tiles_as", v.tiles_as)
        .num("cluster", v.cluster).num("round", round).num("reps", reps).num("same_sm", same).num("mapped", mapped);
    wide_k_timing(rec, c, sh, TN, KB, 2, 1, w, land, waited).emit();
  }
}

// What --wide-k-place and --wide-k-tpc start from: each CTA's landing and wait cycles and %smid (device), and the plain
// and cluster placements of the four walks (128x256 and 128x128 tiles at kb = 2, then at kb = 1), freed at scope end.
struct WideKPlaceSet {
  unsigned long long *land = nullptr, *waited = nullptr;
  unsigned* smids = nullptr;
  PlaceRef refs[4];
  explicit WideKPlaceSet(Ctx& c) {
    CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
    CK(cudaMalloc(&waited, c.sms * sizeof(unsigned long long)));
    CK(cudaMalloc(&smids, c.sms * sizeof(unsigned)));
    refs[0] = wide_k_place_ref<256, 2>(c, smids, land, waited);
    refs[1] = wide_k_place_ref<128, 2>(c, smids, land, waited);
    refs[2] = wide_k_place_ref<256, 1>(c, smids, land, waited);
    refs[3] = wide_k_place_ref<128, 1>(c, smids, land, waited);
  }
  ~WideKPlaceSet() {
    for (PlaceRef& r : refs) {
      CK(cudaFree(r.as_plain));
      CK(cudaFree(r.as_cluster));
    }
    CK(cudaFree(smids));
    CK(cudaFree(land));
    CK(cudaFree(waited));
  }
};

static void bench_wide_k_place(Ctx& c) {
  const int rounds = g_ncu ? 1 : 4, reps = g_ncu ? 1 : 5;
  WideKPlaceSet w(c);
  for (int round = 0; round < rounds; ++round) {
    wide_k_place_config<256, 2>(c, w.refs[0], w.smids, round, reps, w.land, w.waited);
    wide_k_place_config<128, 2>(c, w.refs[1], w.smids, round, reps, w.land, w.waited);
    wide_k_place_config<256, 1>(c, w.refs[2], w.smids, round, reps, w.land, w.waited);
    wide_k_place_config<128, 1>(c, w.refs[3], w.smids, round, reps, w.land, w.waited);
  }
}

// tma_wide_k_tpc (2026-11-28, after --wide-k-place): which part of the placement slows the 256-byte-row walk? In the
// plain placement the two SMs of a TPC (%smid 2t, 2t + 1) walk consecutive CTAs' tiles, which share the A panel at
// every tile (pm8), and a GPC holds 16-18 consecutive CTAs (~2.7 A panels a tile round); in the cluster launch's, TPC
// mates are CTAs c and c + 7 / 8 / 12 (9% of rounds share A, 36% B) and a GPC holds ~14.4 A panels a round. Plain
// launches only, each CTA walking the tiles of the sequence (another CTA's blockIdx) a host-built SM -> sequence map
// gives its SM (--wide-k-place's cta_of_smid remap), from the plain and cluster references (wide_k_place_ref) and the
// GPC of each SM (wide_k_tpc_gpcs), every permutation within a GPC unless named: kTpcVariants. `rounds` rounds
// (order rotated a round; each one untimed and `reps` timed launches), 128x256 and 128x128 tiles at kb = 2 and kb = 1
// (controls). Records "tma_wide_k_tpc_gpcs" (the GPC map), "tma_wide_k_tpc_map" (each variant's sequence -> SM list
// and its sharing) and "tma_wide_k_tpc": the tma_wide_k_mma fields with the variant, the round, same_sm (CTAs on the
// SM the plain reference put them), mapped (SMs found in the map) and the map's sharing: share_a / share_b (the
// fraction of TPC tile rounds whose two SMs walk the same A / B panel), tpcs_a (TPCs whose SMs share A in some
// round), gpc_a / gpc_b (distinct A / B panels a GPC a round, mean over GPCs and rounds), gpc_a_max.
static std::vector<int> smids_of(int grid, int cluster, int smem);
static cudaLaunchConfig_t smid_launch(int grid, int cluster, int smem, cudaLaunchAttribute* attr);
static std::vector<int> resident_cluster_smids(int cs, int smem);
static int smid_probe_smem();

struct TpcVariant {
  const char* name;
  const char* base;   // "plain", "cluster" (a reference's placement) or "dealt" (plain TPC pairs, cluster TPC order)
  int mode;           // kTpcKeep, or the pairing within each GPC the base is permuted to (TpcPairing)
};
enum TpcPairing { kTpcKeep, kTpcSplit, kTpcSplitB, kTpcPair };   // cost of a TPC's pair: tpc_pair_cost
static const TpcVariant kTpcVariants[] = {
    {"plain", "plain", kTpcKeep},                          // control: fast
    {"as cluster", "cluster", kTpcKeep},                   // control: slow (--wide-k-place's plain as cluster)
    {"plain, TPC split", "plain", kTpcSplit},              // the plain GPCs' sequences, TPC mates share nothing
    {"plain, TPC split B", "plain", kTpcSplitB},           // ... TPC mates share B, as the cluster's mostly do
    {"cluster, TPC paired", "cluster", kTpcPair},          // the cluster GPCs' sequences, TPC mates sharing A at most
    {"TPC pairs, cluster order", "dealt", kTpcKeep},       // plain pairs (CTAs 2i, 2i + 1) on TPCs in cluster order
    {"TPC pairs, cluster order, split", "dealt", kTpcSplit},   // those GPCs' sequences, TPC mates share nothing
};

// mb_tma's tile_mn on the host for the pm8 order (raster m, groups of 8 n).
static void host_tile_mn(int t, int tiles_m, int tiles_n, int& m, int& n) {
  const int g = std::max(1, std::min(8, tiles_n)), strip = t / (g * tiles_m), within = t % (g * tiles_m);
  const int width = std::min(g, tiles_n - strip * g);
  m = within / width;
  n = strip * g + within % width;
}

// The (m, n) of sequence b's tile in every round, as the kernel walks it ((b + sms j) mod tiles).
static std::vector<std::pair<int, int>> tpc_rounds(int b, const WideKShape& sh, int sms) {
  std::vector<std::pair<int, int>> out(sh.tiles_per_cta);
  for (int j = 0; j < sh.tiles_per_cta; ++j)
    host_tile_mn((b + sms * j) % (sh.tiles_m * sh.tiles_n), sh.tiles_m, sh.tiles_n, out[j].first, out[j].second);
  return out;
}

// The GPC of every SM (by %smid; -1 where none): the SMs of one cluster (2..16 CTAs of smid_kernel at the GPC probes'
// shared memory) share a GPC, so the SMs of the clusters of each size are joined; a set of 8 or more SMs is a GPC
// (numbered by its lowest %smid). SMs in smaller sets (TPCs that no cluster of 4 or more used: 120-131 on our H100s)
// take the GPC of the nearest SM before them in the plain launch's CTA order `plain` that has one, or, with none
// before them, the smallest GPC (the plain launch's first 8 CTAs take 124-131, GPC 0's packed TPCs: gpc-probe data).
static std::vector<int> wide_k_tpc_gpcs(const std::vector<int>& plain) {
  const int smem = smid_probe_smem();
  std::vector<int> up(kSmidSlots), gpc(kSmidSlots, -1), size(kSmidSlots, 0);
  for (int s = 0; s < kSmidSlots; ++s) up[s] = s;
  auto root = [&](int s) { while (up[s] != s) s = up[s] = up[up[s]]; return s; };
  std::string sizes;
  for (int cs : {2, 4, 8, 16}) {
    const std::vector<int> sm = resident_cluster_smids(cs, smem);
    if (sm.empty()) continue;
    for (size_t i = 0; i < sm.size(); ++i) up[root(sm[i])] = root(sm[i - i % cs]);
    sizes += (sizes.empty() ? "" : ",") + std::to_string(cs) + "x" + std::to_string(sm.size() / cs);
  }
  for (int s : plain) ++size[root(s)];
  int gpcs = 0;
  for (int s = 0; s < kSmidSlots; ++s)   // GPCs numbered by their lowest %smid
    if (size[root(s)] >= 8 && gpc[root(s)] < 0 && std::find(plain.begin(), plain.end(), s) != plain.end())
      gpc[root(s)] = gpcs++;
  if (!gpcs) die("--wide-k-tpc: no cluster of 8 or more SMs launched; no GPC map");
  std::vector<int> of(kSmidSlots, -1), count(gpcs, 0);
  for (int s : plain)
    if (gpc[root(s)] >= 0) ++count[of[s] = gpc[root(s)]];
  std::vector<int> by_order;
  for (size_t b = 0; b < plain.size(); ++b) {
    if (of[plain[b]] >= 0) continue;
    int g = -1;
    for (int p = (int)b - 1; p >= 0 && g < 0; --p)
      if (size[root(plain[p])] >= 8) g = of[plain[p]];
    if (g < 0) g = (int)(std::min_element(count.begin(), count.end()) - count.begin());
    of[plain[b]] = g;
    by_order.push_back(plain[b]);
  }
  std::vector<int> listed(of.begin(), of.begin() + *std::max_element(plain.begin(), plain.end()) + 1);
  std::fill(count.begin(), count.end(), 0);
  for (int s : plain) ++count[of[s]];
  Rec("tma_wide_k_tpc_gpcs").str("clusters", sizes.c_str()).num("gpcs", gpcs)
      .str("gpc_sms", join_ints(count, ',').c_str()).str("gpc_of_sm", join_ints(listed, ',').c_str())
      .str("by_plain_order", join_ints(by_order, ',').c_str()).emit();
  return of;
}

// How a placement (sequence b -> %smid) shares panels: the fraction of TPC tile rounds whose two SMs walk the same A
// (same m) / B (same n) panel, the TPCs whose SMs share A in some round, and the distinct A / B panels a GPC a round.
struct TpcSharing { double share_a = 0, share_b = 0, gpc_a = 0, gpc_b = 0; int tpcs_a = 0, gpc_a_max = 0; };

// A map's sharing in a record, in the order every tpc / knee record carries it.
static Rec& sharing_fields(Rec& r, const TpcSharing& s) {
  return r.num("share_a", s.share_a).num("share_b", s.share_b).num("tpcs_a", s.tpcs_a).num("gpc_a", s.gpc_a)
      .num("gpc_b", s.gpc_b).num("gpc_a_max", s.gpc_a_max);
}

static TpcSharing tpc_sharing(const std::vector<int>& sm_of_seq, const std::vector<int>& gpc, const WideKShape& sh) {
  const int sms = (int)sm_of_seq.size(), gpcs = *std::max_element(gpc.begin(), gpc.end()) + 1;
  std::vector<std::vector<std::pair<int, int>>> mn(sms);
  std::vector<int> seq_on(kSmidSlots, -1);
  for (int b = 0; b < sms; ++b) {
    mn[b] = tpc_rounds(b, sh, sms);
    seq_on[sm_of_seq[b]] = b;
  }
  TpcSharing r;
  int pairs = 0, samples = 0;
  std::vector<bool> tpc_a(kSmidSlots / 2, false);
  for (int j = 0; j < sh.tiles_per_cta; ++j) {
    for (int s = 0; s + 1 < kSmidSlots; s += 2) {
      const int b1 = seq_on[s], b2 = seq_on[s + 1];
      if (b1 < 0 || b2 < 0) continue;
      const bool a = mn[b1][j].first == mn[b2][j].first;
      r.share_a += a;
      r.share_b += mn[b1][j].second == mn[b2][j].second;
      tpc_a[s / 2] = tpc_a[s / 2] || a;
      ++pairs;
    }
    for (int g = 0; g < gpcs; ++g) {
      std::vector<int> ms, ns;
      for (int b = 0; b < sms; ++b)
        if (gpc[sm_of_seq[b]] == g) { ms.push_back(mn[b][j].first); ns.push_back(mn[b][j].second); }
      if (ms.empty()) continue;
      std::sort(ms.begin(), ms.end());
      std::sort(ns.begin(), ns.end());
      const int da = (int)(std::unique(ms.begin(), ms.end()) - ms.begin());
      r.gpc_a += da;
      r.gpc_b += (int)(std::unique(ns.begin(), ns.end()) - ns.begin());
      r.gpc_a_max = std::max(r.gpc_a_max, da);
      ++samples;
    }
  }
  r.share_a /= std::max(pairs, 1);
  r.share_b /= std::max(pairs, 1);
  r.gpc_a /= std::max(samples, 1);
  r.gpc_b /= std::max(samples, 1);
  r.tpcs_a = (int)std::count(tpc_a.begin(), tpc_a.end(), true);
  return r;
}

// A TPC pair's cost under a pairing (lower is preferred): kTpcSplit, rounds sharing A first, then B; kTpcSplitB, A
// first, then B shared preferred; kTpcPair, A shared preferred, then B not.
static int tpc_pair_cost(int b1, int b2, int mode, const WideKShape& sh, int sms) {
  const std::vector<std::pair<int, int>> r1 = tpc_rounds(b1, sh, sms), r2 = tpc_rounds(b2, sh, sms);
  int a = 0, b = 0;
  for (int j = 0; j < sh.tiles_per_cta; ++j) {
    a += r1[j].first == r2[j].first;
    b += r1[j].second == r2[j].second;
  }
  return mode == kTpcSplit ? 1000 * a + b : mode == kTpcSplitB ? 1000 * a - b : -1000 * a + b;
}

// The placement `base` (sequence -> %smid) with each GPC's sequences re-paired onto its TPCs by the least total
// tpc_pair_cost (exact: a DP over the GPC's subsets), pair i (by its lower sequence) on the GPC's TPC i (by the lower
// sequence `base` put on it), its lower sequence on the even SM.
static std::vector<int> tpc_repair(const std::vector<int>& base, const std::vector<int>& gpc, int mode,
                                   const WideKShape& sh) {
  const int sms = (int)base.size(), gpcs = *std::max_element(gpc.begin(), gpc.end()) + 1;
  std::vector<int> seq_on(kSmidSlots, -1), out(sms, -1);
  for (int b = 0; b < sms; ++b) seq_on[base[b]] = b;
  for (int g = 0; g < gpcs; ++g) {
    std::vector<int> seqs, tpcs;   // tpcs: each TPC's lower sequence under base
    for (int b = 0; b < sms; ++b) {
      if (gpc[base[b]] != g) continue;
      seqs.push_back(b);
      if (seq_on[base[b] ^ 1] < 0) die("--wide-k-tpc: SM %d's TPC mate ran no CTA", base[b]);
      if (b < seq_on[base[b] ^ 1]) tpcs.push_back(b);
    }
    const int n = (int)seqs.size();
    if (n % 2 || n > 22) die("--wide-k-tpc: GPC %d holds %d SMs", g, n);
    std::vector<std::vector<int>> cost(n, std::vector<int>(n));
    for (int i = 0; i < n; ++i)
      for (int k = i + 1; k < n; ++k) cost[i][k] = tpc_pair_cost(seqs[i], seqs[k], mode, sh, sms);
    const int full = (1 << n) - 1;
    std::vector<int> best(full + 1, 0), pick(full + 1, -1);
    for (int mask = full - 1; mask >= 0; --mask) {   // best[mask]: the least cost of pairing the sequences not in mask
      int i = 0;
      while (mask >> i & 1) ++i;
      best[mask] = INT32_MAX;
      for (int k = i + 1; k < n; ++k) {
        const int rest = mask | 1 << i | 1 << k;
        if (mask >> k & 1 || best[rest] == INT32_MAX) continue;
        if (cost[i][k] + best[rest] < best[mask]) { best[mask] = cost[i][k] + best[rest]; pick[mask] = k; }
      }
    }
    std::vector<std::pair<int, int>> pairs;
    for (int mask = 0; mask != full;) {
      int i = 0;
      while (mask >> i & 1) ++i;
      pairs.emplace_back(seqs[i], seqs[pick[mask]]);   // seqs ascending: first < second
      mask |= 1 << i | 1 << pick[mask];
    }
    std::sort(pairs.begin(), pairs.end());
    std::sort(tpcs.begin(), tpcs.end());
    for (size_t t = 0; t < pairs.size(); ++t) {
      const int even = base[tpcs[t]] & ~1;
      out[pairs[t].first] = even;
      out[pairs[t].second] = even + 1;
    }
  }
  return out;
}

// Plain TPC pairs in the cluster launch's TPC order: sequences 2i and 2i + 1 on the TPC the cluster reference reached
// i-th (by its first CTA on it), 2i on the even SM.
static std::vector<int> tpc_dealt(const std::vector<int>& cluster) {
  std::vector<int> order, out(cluster.size(), -1);
  for (int s : cluster)
    if (std::find(order.begin(), order.end(), s / 2) == order.end()) order.push_back(s / 2);
  if (2 * order.size() != cluster.size()) die("--wide-k-tpc: %zu CTAs on %zu TPCs", cluster.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    out[2 * i] = 2 * order[i];
    out[2 * i + 1] = 2 * order[i] + 1;
  }
  return out;
}

// Each variant's placement (sequence -> %smid), its sharing and its remap (device) for one tile shape.
struct TpcMaps {
  std::vector<std::vector<int>> place;
  std::vector<TpcSharing> share;
  std::vector<int*> remap;
};

template <int TN, int KB>
static TpcMaps wide_k_tpc_maps(Ctx& c, const PlaceRef& ref, const std::vector<int>& gpc) {
  const WideKShape sh(c, TN, KB);
  TpcMaps m;
  for (const TpcVariant& v : kTpcVariants) {
    const std::vector<int> base = !strcmp(v.base, "plain")     ? ref.plain
                                  : !strcmp(v.base, "cluster") ? ref.cluster
                                                               : tpc_dealt(ref.cluster);
    m.place.push_back(v.mode == kTpcKeep ? base : tpc_repair(base, gpc, v.mode, sh));
    m.share.push_back(tpc_sharing(m.place.back(), gpc, sh));
    m.remap.push_back(upload_remap(m.place.back()));
    Rec rec("tma_wide_k_tpc_map");
    rec.num("tile_n", TN).num("kb", KB).str("variant", v.name).str("smids", join_ints(m.place.back(), ',').c_str());
    sharing_fields(rec, m.share.back()).emit();
  }
  return m;
}

// One timed plain launch of map i of m (the CTA on each SM walking the sequence the map gives it) and its checks: the
// CTAs on the SM the plain reference put them (same) and the SMs found in the map (mapped).
struct RemappedWalk {
  WalkTiming w;
  int same = 0, mapped = 0;
};
template <int TN, int KB>
static RemappedWalk remapped_walk(Ctx& c, const WideKMaps& maps, const PlaceRef& ref, const TpcMaps& m, int i,
                                  unsigned* smids, int reps, unsigned long long* land, unsigned long long* waited) {
  WideKWalk wk{maps.a, maps.b, maps.a, kWideM, 2, 1, 0, false};
  wk.smid_out = smids;
  wk.cta_of_smid = m.remap[i];
  RemappedWalk r;
  r.w = wide_k_mma_time<TN, KB, false>(c, wk, reps, true, land, waited);
  const std::vector<int> got = read_smids(smids, c.sms);
  for (int b = 0; b < c.sms; ++b) {
    r.same += got[b] == ref.plain[b];
    r.mapped += std::find(m.place[i].begin(), m.place[i].end(), got[b]) != m.place[i].end();
  }
  return r;
}

template <int TN, int KB>
static void wide_k_tpc_config(Ctx& c, const PlaceRef& ref, const TpcMaps& m, unsigned* smids, int round, int reps,
                              unsigned long long* land, unsigned long long* waited) {
  const WideKMaps maps = wide_k_maps(c, TN);
  const WideKShape sh(c, TN, KB);
  const int n = (int)(sizeof(kTpcVariants) / sizeof(kTpcVariants[0]));
  for (int k = 0; k < n; ++k) {
    const int i = (k + round) % n;
    const RemappedWalk r = remapped_walk<TN, KB>(c, maps, ref, m, i, smids, reps, land, waited);
    Rec rec("tma_wide_k_tpc");
    rec.str("variant", kTpcVariants[i].name).str("launch", "plain").num("round", round).num("reps", reps)
        .num("same_sm", r.same).num("mapped", r.mapped);
    wide_k_timing(sharing_fields(rec, m.share[i]), c, sh, TN, KB, 2, 1, r.w, land, waited).emit();
  }
}

static void bench_wide_k_tpc(Ctx& c) {
  const int rounds = g_ncu ? 1 : 4, reps = g_ncu ? 1 : 5;
  WideKPlaceSet w(c);
  const PlaceRef* refs = w.refs;
  const std::vector<int> gpc = wide_k_tpc_gpcs(refs[0].plain);
  TpcMaps maps[4] = {wide_k_tpc_maps<256, 2>(c, refs[0], gpc), wide_k_tpc_maps<128, 2>(c, refs[1], gpc),
                     wide_k_tpc_maps<256, 1>(c, refs[2], gpc), wide_k_tpc_maps<128, 1>(c, refs[3], gpc)};
  for (int round = 0; round < rounds; ++round) {
    wide_k_tpc_config<256, 2>(c, refs[0], maps[0], w.smids, round, reps, w.land, w.waited);
    wide_k_tpc_config<128, 2>(c, refs[1], maps[1], w.smids, round, reps, w.land, w.waited);
    wide_k_tpc_config<256, 1>(c, refs[2], maps[2], w.smids, round, reps, w.land, w.waited);
    wide_k_tpc_config<128, 1>(c, refs[3], maps[3], w.smids, round, reps, w.land, w.waited);
  }
  for (TpcMaps& m : maps)
    for (int* d : m.remap) CK(cudaFree(d));
}

// tma_wide_k_knee (2026-11-28, after --wide-k-tpc): --wide-k-tpc found the GPC's mix of panels, not the TPC pairing,
// behind the slow placement: a GPC walking ~2.6 distinct A panels a round is fast, ~7.8 as slow as the cluster map's
// 14.4 at 128x256x128 but half as slow at 128x128x128. Does the slowdown start at a knee in the distinct bytes a GPC
// draws a stage round (the GPC's pool of in-flight loads, gpu.gpc_inflight_bytes, counting distinct bytes)? Plain
// launches on host-built SM -> sequence maps (the cta_of_smid remap) that move a GPC's distinct A panels in steps: from
// the plain placement, each GPC's sequences in ascending order are cut into 8-SM blocks (two per GPC; the two SMs past
// 16 of an 18-SM GPC stay), and `moved` of each block's slots take the sequence of the same slot in the GPC `d` on
// (a cyclic shift of that slot across the GPCs: every GPC keeps its SMs and the grid its set of sequences): singly
// (slots 0, 2, 4, 6, 1, 3, 5, 7 in turn, d = 1..7: each from another GPC, TPC mates split as they go) or as whole TPCs
// (slots 2i, 2i + 1 with d = 1 + i: mates still share the A panel), with the plain, cluster and "TPC pairs, cluster
// order" maps of --wide-k-tpc as references: kKneeVariants. One round per variant (the order rotated a round, so
// every variant takes every place of a configuration's sequence of launches once: the first run's 4 rounds found the
// kernel clock falling along that sequence, 1716 to 1509 MHz by place at 128x256x128; each round one untimed and
// `reps` timed launches a variant), 128x256 and 128x128 tiles at kb = 2 and at kb = 1 (the 128-byte rows: half the
// bytes of every panel). Records "tma_wide_k_tpc_gpcs" (the GPC map), "tma_wide_k_knee_map" (each map's sequence ->
// SM list and sharing) and "tma_wide_k_knee": the tma_wide_k_tpc fields with place (in the round's order), moved,
// pairs and the distinct bytes a GPC a round (kB = 1000 B, means over GPCs and rounds): a_kb (distinct A panels x 128
// rows x kb 128-byte box rows), b_kb (B panels x tile_n rows x kb x 128 B) and gpc_kb, their sum.
struct KneeVariant {
  const char* name;
  const char* base;   // "plain", "cluster" or "dealt", as kTpcVariants
  int moved;          // slots of each 8-SM block moved to another GPC (base "plain" only)
  bool pairs;         // moved as whole TPCs (slots 2i, 2i + 1 together)
};
static const KneeVariant kKneeVariants[] = {
    {"plain", "plain", 0, false},                       // ~2.6 A panels a GPC a round
    {"as cluster", "cluster", 0, false},                // ~14.4
    {"TPC pairs, cluster order", "dealt", 0, false},    // ~7.8 (--wide-k-tpc's)
    {"move 2, pairs", "plain", 2, true},   {"move 4, pairs", "plain", 4, true}, {"move 8, pairs", "plain", 8, true},
    {"move 1", "plain", 1, false},         {"move 2", "plain", 2, false},       {"move 3", "plain", 3, false},
    {"move 4", "plain", 4, false},         {"move 5", "plain", 5, false},       {"move 6", "plain", 6, false},
    {"move 7", "plain", 7, false},
};

// The placement `plain` (sequence -> %smid) with `moved` slots of each GPC's 8-SM blocks taking the sequence of that
// slot in another GPC (kKneeVariants' comment): slot q of GPC g gets the sequence of slot q of GPC g + d.
static std::vector<int> knee_moved(const std::vector<int>& plain, const std::vector<int>& gpc, int moved, bool pairs) {
  static const int kSingleOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  const int sms = (int)plain.size(), gpcs = *std::max_element(gpc.begin(), gpc.end()) + 1;
  std::vector<std::vector<int>> slots(gpcs);   // each GPC's sequences, ascending
  for (int b = 0; b < sms; ++b) slots[gpc[plain[b]]].push_back(b);
  size_t common = slots[0].size();
  for (const std::vector<int>& s : slots) common = std::min(common, s.size());
  const int blocks = (int)common / 8;
  if (gpcs < 2 || blocks < 1 || moved > 8) die("--wide-k-knee: %d GPCs of %zu SMs or more", gpcs, common);
  std::vector<int> out(plain);
  for (int g = 0; g < gpcs; ++g)
    for (int k = 0; k < blocks; ++k)
      for (int i = 0; i < moved; ++i) {
        const int p = pairs ? i : kSingleOrder[i], d = 1 + (pairs ? i / 2 : i) % (gpcs - 1), q = 8 * k + p;
        out[slots[g][q]] = plain[slots[(g + d) % gpcs][q]];
      }
  return out;
}

// The distinct kB (1000 B) a GPC draws a stage round (means over GPCs and rounds, from tpc_sharing's panels): A, B.
static double knee_a_kb(const TpcSharing& s, int kb) { return s.gpc_a * 128 * kb * 128 / 1e3; }
static double knee_b_kb(const TpcSharing& s, int tn, int kb) { return s.gpc_b * tn * kb * 128 / 1e3; }

template <int TN, int KB>
static TpcMaps wide_k_knee_maps(Ctx& c, const PlaceRef& ref, const std::vector<int>& gpc) {
  const WideKShape sh(c, TN, KB);
  TpcMaps m;
  for (const KneeVariant& v : kKneeVariants) {
    m.place.push_back(!strcmp(v.base, "cluster") ? ref.cluster
                      : !strcmp(v.base, "dealt") ? tpc_dealt(ref.cluster)
                                                 : knee_moved(ref.plain, gpc, v.moved, v.pairs));
    std::vector<int> sorted = m.place.back(), want = ref.plain;
    std::sort(sorted.begin(), sorted.end());
    std::sort(want.begin(), want.end());
    if (sorted != want) die("--wide-k-knee: map %s is no permutation of the plain SMs", v.name);
    m.share.push_back(tpc_sharing(m.place.back(), gpc, sh));
    m.remap.push_back(upload_remap(m.place.back()));
    const TpcSharing& s = m.share.back();
    const double a = knee_a_kb(s, KB), b = knee_b_kb(s, TN, KB);
    Rec rec("tma_wide_k_knee_map");
    rec.num("tile_n", TN).num("kb", KB).str("variant", v.name).num("moved", v.moved).num("pairs", v.pairs)
        .str("smids", join_ints(m.place.back(), ',').c_str());
    sharing_fields(rec, s).num("a_kb", a).num("b_kb", b).num("gpc_kb", a + b).emit();
  }
  return m;
}

template <int TN, int KB>
static void wide_k_knee_config(Ctx& c, const PlaceRef& ref, const TpcMaps& m, unsigned* smids, int round, int reps,
                               unsigned long long* land, unsigned long long* waited) {
  const WideKMaps maps = wide_k_maps(c, TN);
  const WideKShape sh(c, TN, KB);
  const int n = (int)(sizeof(kKneeVariants) / sizeof(kKneeVariants[0]));
  for (int k = 0; k < n; ++k) {
    const int i = (k + round) % n;
    const RemappedWalk r = remapped_walk<TN, KB>(c, maps, ref, m, i, smids, reps, land, waited);
    const TpcSharing& s = m.share[i];
    const double a = knee_a_kb(s, KB), b = knee_b_kb(s, TN, KB);
    Rec rec("tma_wide_k_knee");
    rec.str("variant", kKneeVariants[i].name).str("launch", "plain").num("round", round).num("place", k)
        .num("reps", reps).num("moved", kKneeVariants[i].moved).num("pairs", kKneeVariants[i].pairs)
        .num("same_sm", r.same).num("mapped", r.mapped);
    sharing_fields(rec, s).num("a_kb", a).num("b_kb", b).num("gpc_kb", a + b);
    wide_k_timing(rec, c, sh, TN, KB, 2, 1, r.w, land, waited).emit();
  }
}

static void bench_wide_k_knee(Ctx& c) {
  const int rounds = g_ncu ? 1 : (int)(sizeof(kKneeVariants) / sizeof(kKneeVariants[0])), reps = g_ncu ? 1 : 5;
  WideKPlaceSet w(c);
  const PlaceRef* refs = w.refs;
  const std::vector<int> gpc = wide_k_tpc_gpcs(refs[0].plain);
  TpcMaps maps[4] = {wide_k_knee_maps<256, 2>(c, refs[0], gpc), wide_k_knee_maps<128, 2>(c, refs[1], gpc),
                     wide_k_knee_maps<256, 1>(c, refs[2], gpc), wide_k_knee_maps<128, 1>(c, refs[3], gpc)};
  for (int round = 0; round < rounds; ++round) {
    wide_k_knee_config<256, 2>(c, refs[0], maps[0], w.smids, round, reps, w.land, w.waited);
    wide_k_knee_config<128, 2>(c, refs[1], maps[1], w.smids, round, reps, w.land, w.waited);
    wide_k_knee_config<256, 1>(c, refs[2], maps[2], w.smids, round, reps, w.land, w.waited);
    wide_k_knee_config<128, 1>(c, refs[3], maps[3], w.smids, round, reps, w.land, w.waited);
  }
  for (TpcMaps& m : maps)
    for (int* d : m.remap) CK(cudaFree(d));
}

// tma_walk_drift_paced (issue 8, the twenty-eighth session): --walk-drift held each stage the tile's whole MMA time
// (512 cycles for 128x128) on top of the walk's own ~208 cycles a stage (kWalkStageCycles), so its CTAs ran at their
// consumer's pace (714 cycles a k-block on both GPUs, every CTA alike) and never at the L2's, where our GEMM's deep
// rings drift apart and re-read (the H200 more with depth: data/ncu/depth8192_h200). The same whole-grid walks paced as
// --walk-partial paces them (the MMA time less the walk's own cycles) and unpaced, 128x128 at 4 / 5 / 6 stages, over
// 8192^3, 4096x4096x32768 and 9216x4096x11008 bf16; with --epi the paced walks again with an epilogue stop
// (kEpiWalkCycles after each tile) instead of the unpaced ones. Records "tma_walk_drift_paced" with the fields of
// tma_walk_drift and epi_cycles; ncu of the same binary (--ncu) adds the HBM bytes.
static constexpr int kEpiWalkCycles = 3000;   // our 128x128 tile's epilogue: 32 KB of bf16 at 10.9 B a cycle (H100)
static void bench_walk_drift_paced(Ctx& c) {
  const int reps = g_ncu ? 1 : 3;
  const struct { int m, n, k; } shapes[] = {{8192, 8192, 8192}, {4096, 4096, 32768}, {9216, 4096, 11008}};
  for (const auto& sh : shapes) {
    const Tensor2D t = {c.big.base, (uint64_t)(sh.m + sh.n), (uint64_t)sh.k};
    if ((uint64_t)(sh.m + sh.n) * sh.k > c.big.rows * c.big.cols)
      die("walk-drift-paced: %dx%dx%d does not fit the buffer", sh.m, sh.n, sh.k);
    CUtensorMap ma = make_map(t, 64, 128, 128), mb = make_map(t, 64, 128, 128);
    const int a_bytes = 128 * 128, b_bytes = 128 * 128, tiles_m = sh.m / 128, tiles_n = sh.n / 128, k_iters = sh.k / 64;
    const int tiles_per_cta = (tiles_m * tiles_n + c.sms - 1) / c.sms;
    const int mma_cycles = 2 * 128 * 128 * 64 / 4096;
    // --epi: the paced walk with the consumer stopping kEpiWalkCycles after each tile, as our GEMM's epilogue stops
    // its MMAs while the producer refills the ring, instead of the unpaced walk
    const std::pair<int, int> variants[] = {{mma_cycles - kWalkStageCycles, 0},
                                            g_epi ? std::pair<int, int>{mma_cycles - kWalkStageCycles, kEpiWalkCycles}
                                                  : std::pair<int, int>{0, 0}};
    for (const auto& [work, epi] : variants) {
      for (int stages : {4, 5, 6}) {
        const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
        set_smem((const void*)tma_gemm_walk_kernel, smem);
        const WalkTiming w = time_walk(c, c.sms, tiles_per_cta * k_iters, reps, [&] {
          tma_gemm_walk_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, tiles_per_cta, k_iters,
                                                    tiles_m, tiles_n, 0, 8, 128, 128, sh.m, work, c.cycles, 0, 0, 0,
                                                    nullptr, 0, nullptr, nullptr, 1, 0, epi);
        }, false);
        Rec rec("tma_walk_drift_paced");
        rec.num("m", sh.m).num("n", sh.n).num("k", sh.k).num("tile_m", 128).num("tile_n", 128).num("stages", stages)
            .str("order", "pm8").num("work_cycles", work).num("epi_cycles", epi);
        emit_grid_timing(c, rec, w, tiles_per_cta, k_iters, a_bytes + b_bytes);
      }
    }
  }
}

// The last launch's CTAs' cycles and SMs as comma-separated lists (the first `ctas`; 0: every SM's)
static void cta_lists(Ctx& c, const unsigned* smid, std::string& cycles, std::string& smids, int ctas = 0);
static std::vector<std::vector<int>> gpc_groups(int smem, bool emit);
static int smid_probe_smem();
static std::string join_ints(const std::vector<int>& v, char sep);

// tma_walk_variants (issue 8, the twenty-seventh session): what holds --walk-partial's paced 64x256 walk at
// 256x4096x14336 near 710 cycles a k-block on the H100 (the 128x128 walk of the same grid, the same HBM bytes a step,
// reaches its floor; the H200 reaches 548). The same one-wave walks, each changed in one thing:
//   split2: B's 256-row box issued as two 128-row boxes (the same bytes, sharers and order): is it the box?
//   stagger8: tile row m walks its k-blocks from 8m on (wrapping): a B slab's sharers (the tile rows of its column)
//     read it 8 x their row distance apart instead of in step, an A slab's still together (at 256x4096x14336 the
//     slabs stay in L2 across that distance): is it the in-step bursts of B's misses?
//   wrap_b16 / wrap16: B's (both operands') k-blocks wrap at 16, so after the first 16 their slabs are L2 hits: the
//     same grid, sharers and boxes without the misses: is it the misses at all?
// Each record carries its last launch's CTAs' cycles and SMs (cta_cycles, cta_smids).
// Paced (the MMAs' time less the walk's own 208 cycles a stage) and unpaced, 3 to 5 stages. Records
// "tma_walk_variants" with the fields of tma_walk_partial and the variant.
static void bench_walk_variants(Ctx& c) {
  unsigned long long* land = nullptr;
  CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
  const WaveCase cases[] = {{256, 4096, 14336, 64, 256}, {1024, 1024, 32768, 64, 256}, {256, 4096, 14336, 128, 128}};
  unsigned* smid = nullptr;
  CK(cudaMalloc(&smid, c.sms * sizeof(unsigned)));
  // kwrap W: both operands' (wrap_a false: B's only) k-blocks wrap at W: after the first W k-blocks, all L2 hits
  struct Variant { const char* name; int b_split, k_stagger, kwrap; bool wrap_a; };
  const Variant variants[] = {{"base", 1, 0, 0, false}, {"wrap_b16", 1, 0, 16, false}, {"wrap16", 1, 0, 16, true},
                              {"split2", 2, 0, 0, false}, {"stagger8", 1, 8, 0, false}};   // b_split <= 2
  for (const WaveCase& cs : cases) {
    const WaveGrid g = wave_grid(c, cs, "walk-variants");
    const int a_bytes = g.a_bytes, b_bytes = g.b_bytes, tiles_m = g.tiles_m, tiles_n = g.tiles_n, k_iters = g.k_iters;
    const int ctas = g.ctas, mma_cycles = g.mma_cycles;
    for (const Variant& v : variants) {
      if (v.b_split > 1 && cs.rows_b < 256) continue;
      CUtensorMap ma = make_map(g.t, 64, cs.rows_a, 128), mb = make_map(g.t, 64, cs.rows_b / v.b_split, 128);
      for (int work : {mma_cycles - kWalkStageCycles, 0}) {
        for (int stages = 3; stages <= 5; ++stages) {
          const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
          if (smem > 227 * 1024) continue;
          set_smem((const void*)tma_gemm_walk_kernel, smem);
          const WalkTiming w = time_walk(c, ctas, k_iters, g_ncu ? 1 : 3, [&] {
            tma_gemm_walk_kernel<<<ctas, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, 1, k_iters, tiles_m, tiles_n, 0,
                                                     8, cs.rows_a, cs.rows_b, cs.m, work, c.cycles, 0,
                                                     v.wrap_a ? v.kwrap : 0, 0, nullptr, v.kwrap, land, smid,
                                                     v.b_split, v.k_stagger);
          });
          std::string cyc_s, sm_s;   // the last launch's CTAs: cycles and SM
          cta_lists(c, smid, cyc_s, sm_s, ctas);
          Rec rec("tma_walk_variants");
          rec.str("variant", v.name).num("m", cs.m).num("n", cs.n).num("k", cs.k).num("tile_m", cs.rows_a)
              .num("tile_n", cs.rows_b).num("ctas", ctas).num("stages", stages).num("b_split", v.b_split)
              .num("k_stagger", v.k_stagger).num("kwrap", v.kwrap).num("wrap_a", v.wrap_a).str("order", "pm8")
              .str("cta_cycles", cyc_s.c_str()).str("cta_smids", sm_s.c_str()).num("work_cycles", work);
          wave_timing(rec, g, w, land)
              .num("chip_bytes_per_s", (double)k_iters * (a_bytes + b_bytes) * ctas / (w.ms * 1e-3)).emit();
        }
      }
    }
  }
  CK(cudaFree(land));
  CK(cudaFree(smid));
}

// The device buffers of the walks on chosen SMs (--walk-place, --walk-alone): each CTA's stage landing cycles and SM,
// and the SM -> rank map (1024 SMs at most), freed when the walk is done.
struct PlacedBuffers {
  unsigned long long* land = nullptr;
  unsigned* smid = nullptr;
  int* map = nullptr;
  explicit PlacedBuffers(const Ctx& c) {
    CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
    CK(cudaMalloc(&smid, c.sms * sizeof(unsigned)));
    CK(cudaMalloc(&map, 1024 * sizeof(int)));
  }
  ~PlacedBuffers() {
    cudaFree(land);
    cudaFree(smid);
    cudaFree(map);
  }
  PlacedBuffers(const PlacedBuffers&) = delete;
  PlacedBuffers& operator=(const PlacedBuffers&) = delete;
};

// tma_walk_place (issue 8, the twenty-seventh session): --walk-variants found the 64x256 walk at 256x4096x14336 (one
// wave, 64 CTAs) held by where its CTAs sit: in a plain launch its CTAs on the four TPCs the grid packs two to a TPC,
// and on the first SM of four GPCs, run ~830 cycles a k-block where most run ~630, and B's misses are not why (B kept
// in L2, the same). The same paced and unpaced walks (5 stages) placed on chosen SMs, one CTA a SM (a grid of one CTA
// per SM whose CTAs on other SMs leave at once): "plain" (the launch's own placement), "cluster" (launched through the
// cluster API with a cluster of 1, as our GEMM is: the TPC-row order of sim's busiest_gpc_sms), "pairs_compact" (both
// SMs of each TPC, GPC after GPC: four whole GPCs), "pairs_spread" (both SMs of a TPC, the GPCs in turn), "singles"
// (one SM of each TPC, the GPCs in turn). TPCs: SMs 2t and 2t + 1; GPCs: the groups of 16 of gpc_groups. The
// cluster launch and the four whole GPCs also with B kept in L2 (b_kwrap 16). Records "tma_walk_place" with each
// CTA's cycles and SM.
static void bench_walk_place(Ctx& c) {
  const PlacedBuffers buf(c);
  unsigned long long* land = buf.land;
  unsigned* smid = buf.smid;
  int* d_map = buf.map;
  const std::vector<std::vector<int>> gpcs = gpc_groups(smid_probe_smem(), true);
  const int n = 64;
  // placements as SM lists (rank order)
  std::vector<std::pair<const char*, std::vector<int>>> places;
  {
    std::vector<int> compact, spread, singles;
    for (const auto& g : gpcs)                                   // whole TPCs of each GPC, GPC after GPC
      for (int sm : g) if (sm % 2 == 0 && std::find(g.begin(), g.end(), sm + 1) != g.end()) {
        if ((int)compact.size() < n) { compact.push_back(sm); compact.push_back(sm + 1); }
      }
    std::vector<std::vector<int>> tpcs(gpcs.size());             // each GPC's TPCs (their even SM)
    for (size_t i = 0; i < gpcs.size(); ++i)
      for (int sm : gpcs[i]) if (sm % 2 == 0 && std::find(gpcs[i].begin(), gpcs[i].end(), sm + 1) != gpcs[i].end())
        tpcs[i].push_back(sm);
    for (size_t j = 0; (int)spread.size() < n && j < 16; ++j)   // TPC j of every GPC in turn
      for (size_t i = 0; i < tpcs.size() && (int)spread.size() < n; ++i)
        if (j < tpcs[i].size()) { spread.push_back(tpcs[i][j]); spread.push_back(tpcs[i][j] + 1); }
    for (size_t j = 0; (int)singles.size() < n && j < 16; ++j)
      for (size_t i = 0; i < tpcs.size() && (int)singles.size() < n; ++i)
        if (j < tpcs[i].size()) singles.push_back(tpcs[i][j]);
    places.push_back({"plain", {}});
    places.push_back({"cluster", {}});
    if ((int)compact.size() == n) places.push_back({"pairs_compact", compact});
    if ((int)spread.size() == n) places.push_back({"pairs_spread", spread});
    if ((int)singles.size() == n) places.push_back({"singles", singles});
  }
  const WaveCase cases[] = {{256, 4096, 14336, 64, 256}, {1024, 1024, 32768, 64, 256}, {256, 4096, 14336, 128, 128}};
  const int stages = 5;
  for (const WaveCase& cs : cases) {
    const WaveGrid g = wave_grid(c, cs, "walk-place");
    const int a_bytes = g.a_bytes, b_bytes = g.b_bytes, tiles_m = g.tiles_m, tiles_n = g.tiles_n, k_iters = g.k_iters;
    const int mma_cycles = g.mma_cycles;
    if (tiles_m * tiles_n != n) die("walk-place: %dx%dx%d is not %d tiles", cs.m, cs.n, cs.k, n);
    CUtensorMap ma = make_map(g.t, 64, cs.rows_a, 128), mb = make_map(g.t, 64, cs.rows_b, 128);
    const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
    set_smem((const void*)tma_gemm_walk_kernel, smem);
    for (const auto& [name, on] : places) {
      const bool placed = !on.empty(), cluster = !strcmp(name, "cluster");
      if (placed) {
        std::vector<int> map(1024, -1);
        for (int i = 0; i < n; ++i) map[on[i]] = i;
        CK(cudaMemcpy(d_map, map.data(), map.size() * sizeof(int), cudaMemcpyHostToDevice));
      }
      // b_kwrap 16: B's k-blocks wrap at 16, so B's slabs are L2 hits after the first 16 (the cluster launch and
      // the four whole GPCs only; the wrap's modulo sets that walk's own floor near 605 cycles a k-block)
      for (int b_kwrap : {0, 16}) {
        if (b_kwrap && strcmp(name, "cluster") && strcmp(name, "pairs_compact")) continue;
        for (int work : {mma_cycles - kWalkStageCycles, 0}) {
          const WalkTiming w = time_walk(c, n, k_iters, g_ncu ? 1 : 3, [&] {
            const int grid = placed ? c.sms : n;
            if (cluster) {
              cudaLaunchAttribute attr;
              const cudaLaunchConfig_t cfg = cluster_launch_config(grid, 64, smem, 1, &attr, true);
              CK(cudaLaunchKernelEx(&cfg, tma_gemm_walk_kernel, ma, mb, stages, a_bytes, b_bytes, 1, k_iters, tiles_m,
                                    tiles_n, 0, 8, cs.rows_a, cs.rows_b, cs.m, work, c.cycles, 0, 0, 0,
                                    (const int*)nullptr, b_kwrap, land, smid, 1, 0, 0));
            } else {
              tma_gemm_walk_kernel<<<grid, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, 1, k_iters, tiles_m,
                                                       tiles_n, 0, 8, cs.rows_a, cs.rows_b, cs.m, work, c.cycles, 0,
                                                       0, 0, placed ? d_map : nullptr, b_kwrap, land, smid);
            }
          });
          std::string cyc_s, sm_s;
          cta_lists(c, smid, cyc_s, sm_s, n);
          Rec rec("tma_walk_place");
          rec.str("placement", name).num("m", cs.m).num("n", cs.n).num("k", cs.k).num("tile_m", cs.rows_a)
              .num("tile_n", cs.rows_b).num("ctas", n).num("stages", stages).str("order", "pm8")
              .num("work_cycles", work);
          wave_timing(rec, g, w, land).str("cta_cycles", cyc_s.c_str()).str("cta_smids", sm_s.c_str())
              .num("b_kwrap", b_kwrap).emit();
        }
      }
    }
  }
}

// tma_walk_alone (issue 8, the twenty-eighth session): --walk-place found the cluster launch's busiest GPC, 15 CTAs
// on SMs outside the card's seven 16-SM cluster groups (0/1, 16/17, 32/33, 48/49 and 120-131 on our H100s), running
// the 64x256 walk ~30% slower a k-block than the other GPCs' CTAs, while four whole GPCs of 16 CTAs ran alike; our
// GEMM's per-CTA probe at 1000x1992x1016 (data/ncu/smoke_probe) shows the same SMs slow. Are those SMs slow in
// themselves? The paced and unpaced 64x256 walk of 256x4096x14336 (5 stages; its first 16 tiles: 2 A and 8 B panels)
// on 16 SMs alone, one CTA a SM: each 16-SM cluster group ("gpc0".."gpc6"), and three sets of the SMs outside them
// ("rest_lo": the lowest 16, "rest_hi": the highest 16, "rest_probe": 0/1, 16/17, 32/33, 48/49 and 124-131, the
// smoke probe's slow set); each also with B kept in L2 (b_kwrap 16). Then 64 CTAs (the first 64 tiles): rest_probe
// and three cluster groups ("rest_probe+3") against four cluster groups ("gpc4"), as in --walk-place. Records
// "tma_walk_alone" with each CTA's cycles and SM.
static void bench_walk_alone(Ctx& c) {
  const PlacedBuffers buf(c);
  unsigned long long* land = buf.land;
  unsigned* smid = buf.smid;
  int* d_map = buf.map;
  std::vector<std::vector<int>> gpcs = gpc_groups(smid_probe_smem(), true);
  std::vector<int> in_group(1024, 0), rest;
  for (const auto& g : gpcs)
    for (int sm : g) in_group[sm] = 1;
  for (int sm = 0; sm < c.sms; ++sm)
    if (!in_group[sm]) rest.push_back(sm);
  std::vector<std::pair<std::string, std::vector<int>>> places;
  for (size_t i = 0; i < gpcs.size(); ++i)
    if (gpcs[i].size() == 16) places.push_back({"gpc" + std::to_string(i), gpcs[i]});
  std::vector<int> probe;
  for (int sm : {0, 1, 16, 17, 32, 33, 48, 49, 124, 125, 126, 127, 128, 129, 130, 131})
    if (sm < c.sms && !in_group[sm]) probe.push_back(sm);
  if (rest.size() >= 16) {
    places.push_back({"rest_lo", std::vector<int>(rest.begin(), rest.begin() + 16)});
    places.push_back({"rest_hi", std::vector<int>(rest.end() - 16, rest.end())});
  }
  if (probe.size() == 16) places.push_back({"rest_probe", probe});
  if (probe.size() == 16 && gpcs.size() >= 4) {
    std::vector<int> mix = probe, four;
    for (int i = 0; i < 3; ++i) mix.insert(mix.end(), gpcs[i].begin(), gpcs[i].end());
    for (int i = 0; i < 4; ++i) four.insert(four.end(), gpcs[i].begin(), gpcs[i].end());
    if (mix.size() == 64 && four.size() == 64) {
      places.push_back({"rest_probe+3", mix});
      places.push_back({"gpc4", four});
    }
  }
  const WaveCase cs = {256, 4096, 14336, 64, 256};
  const int stages = 5;
  const WaveGrid g = wave_grid(c, cs, "walk-alone");
  CUtensorMap ma = make_map(g.t, 64, cs.rows_a, 128), mb = make_map(g.t, 64, cs.rows_b, 128);
  const int smem = smem_request(stages * (g.a_bytes + g.b_bytes) + 16 * stages);
  set_smem((const void*)tma_gemm_walk_kernel, smem);
  for (const auto& [name, on] : places) {
    const int n = (int)on.size();
    std::vector<int> map(1024, -1);
    for (int i = 0; i < n; ++i) map[on[i]] = i;
    CK(cudaMemcpy(d_map, map.data(), map.size() * sizeof(int), cudaMemcpyHostToDevice));
    for (int b_kwrap : {0, 16}) {
      for (int work : {g.mma_cycles - kWalkStageCycles, 0}) {
        CK(cudaMemset(c.cycles, 0, c.sms * sizeof(unsigned long long)));
        const WalkTiming w = time_walk(c, n, g.k_iters, 3, [&] {
          tma_gemm_walk_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, g.a_bytes, g.b_bytes, 1, g.k_iters, g.tiles_m,
                                                    g.tiles_n, 0, 8, cs.rows_a, cs.rows_b, cs.m, work, c.cycles, 0, 0,
                                                    0, d_map, b_kwrap, land, smid);
        });
        std::string cyc_s, sm_s;
        cta_lists(c, smid, cyc_s, sm_s, n);
        WaveGrid placed = g;     // land_cycles: the median over this placement's n CTAs
        placed.ctas = n;
        Rec rec("tma_walk_alone");
        rec.str("placement", name.c_str()).str("sms", join_ints(on, ',').c_str()).num("m", cs.m).num("n", cs.n)
            .num("k", cs.k).num("tile_m", cs.rows_a).num("tile_n", cs.rows_b).num("ctas", n).num("stages", stages)
            .str("order", "pm8").num("work_cycles", work);
        wave_timing(rec, placed, w, land).str("cta_cycles", cyc_s.c_str()).str("cta_smids", sm_s.c_str())
            .num("b_kwrap", b_kwrap).emit();
      }
    }
  }
}

// tma_walk_pitch (issue 8, the twenty-fifth session: at ncu's HBM bytes and its own clock, our GEMM at 9216x4096x11008
// and its neighbours ran 10-34% slower than the model, at 8192^3 and 4096x4096x32768 within 8%): the GEMM walk of
// 8192x8192 (128x128 tiles, pm8 order, a consumer holding each stage 512 cycles, as --walk-drift) over the first 8192
// columns of every row, with the rows' pitch 8192..24576 bf16: the same boxes, bytes and reuse, another address
// pattern. Whole grid (32 tiles a CTA) and 4 tiles a CTA, 3 / 4 / 6 stages. Records "tma_walk_pitch"; ncu of the same
// binary (--ncu) adds the HBM bytes and the L2's sectors.
static void bench_walk_pitch(Ctx& c) {
  const int reps = g_ncu ? 1 : 3;
  const int m = 8192, n = 8192, k_iters = 128, rows = 128;
  std::vector<uint64_t> pitches = {8192, 8256, 9216, 10240, 11008, 11264, 12288, 16384, 24576};
  if (g_fine) {   // --fine: every pitch 8192..32768 in steps of 256 (512 bytes), the whole grid at 4 and 6 stages
    pitches.clear();
    for (uint64_t p = 8192; p <= 32768; p += 256) pitches.push_back(p);
  }
  const int tiles_m = m / rows, tiles_n = n / rows, full = (tiles_m * tiles_n + c.sms - 1) / c.sms;
  const int mma_cycles = 2 * rows * rows * 64 / 4096, a_bytes = rows * 128, b_bytes = rows * 128;
  // --paced (the twenty-eighth session): the MMAs' time less the walk's own cycles, so that the L2 paces the walk, not
  // its consumer (as --walk-drift-paced); the walk's own 512 cycles held every pitch at the consumer's 714
  const int work = g_paced ? mma_cycles - kWalkStageCycles : mma_cycles;
  for (uint64_t pitch : pitches) {
    if ((uint64_t)(m + n) * pitch > c.big.rows * c.big.cols)
      die("walk-pitch: pitch %llu does not fit the buffer", (unsigned long long)pitch);
    const Tensor2D t = {c.big.base, (uint64_t)(m + n), pitch};
    CUtensorMap ma = make_map(t, 64, rows, 128), mb = make_map(t, 64, rows, 128);
    for (int tiles : {full, 4})
      for (int stages : {3, 4, 6}) {
        if (g_fine && (tiles != full || stages == 3)) continue;
        const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
        set_smem((const void*)tma_gemm_walk_kernel, smem);
        const WalkTiming w = time_walk(c, c.sms, tiles * k_iters, reps, [&] {
          tma_gemm_walk_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, tiles, k_iters, tiles_m,
                                                    tiles_n, 0, 8, rows, rows, m, work, c.cycles);
        }, false);
        const double kblocks = (double)tiles * k_iters;
        Rec("tma_walk_pitch").num("m", m).num("n", n).num("k_walked", k_iters * 64).num("pitch_elems", (double)pitch)
            .num("pitch_bytes", (double)pitch * 2).num("tile", rows).num("stages", stages).str("order", "pm8")
            .num("work_cycles", work).num("tiles_per_cta", tiles).num("ctas", c.sms)
            .num("cycles_per_kblock", w.cycles_per_kblock).num("max_cycles_per_kblock", w.max_cycles_per_kblock)
            .num("chip_bytes_per_s", kblocks * (a_bytes + b_bytes) * c.sms / (w.ms * 1e-3)).num("ms", w.ms).emit();
      }
  }
}

// Each CTA's cycles (c.cycles) and SM (smid) of the last walk, as comma-separated lists for a record.
static void cta_lists(Ctx& c, const unsigned* smid, std::string& cycles, std::string& smids, int ctas) {
  const int n = ctas > 0 ? ctas : c.sms;
  std::vector<unsigned long long> cyc(n);
  std::vector<unsigned> sm(n);
  CK(cudaMemcpy(cyc.data(), c.cycles, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(sm.data(), smid, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    cycles += (i ? "," : "") + std::to_string(cyc[i]);
    smids += (i ? "," : "") + std::to_string(sm[i]);
  }
}

// tma_sm_share (issue 8, the twenty-fifth session: in our GEMM's deep L2-bound rings the same 24 SMs, two TPCs in six
// GPCs, run 15-26% faster a k-block than the rest, in 4-stage rings none do): every SM streams 128x128 tiles' A and B
// boxes from the L2, one tile a CTA of a 2048x1152 grid (each B panel shared by 16 CTAs, in step), a consumer holding
// each stage 0 or 512 cycles, at 2-7 stages, 2048 k-blocks a CTA. "shared": A as the GEMM's (each panel read by 9
// CTAs), each panel's first 16 k-blocks over and over (6.6 MB); "private": each CTA its own 128 A rows, 8 k-blocks
// over and over (17 MB; no A to merge, B shared as before). Records "tma_sm_share" with each CTA's SM and cycles (the third of three
// back-to-back launches): is the fast class the SMs' share of the L2 path, and from which ring depth on?
static void bench_sm_share(Ctx& c) {
  const int m = 2048, n = 1152, rows = 128, k_iters = 2048;
  const int tiles_m = m / rows, tiles_n = n / rows, a_bytes = rows * 128, b_bytes = rows * 128;
  if (tiles_m * tiles_n < c.sms) die("sm-share: %d tiles for %d SMs", tiles_m * tiles_n, c.sms);
  unsigned* smid = nullptr;
  CK(cudaMalloc(&smid, c.sms * sizeof(unsigned)));
  for (int priv : {0, 1}) {
    // private A: CTA i reads rows 128 i.. of an A tensor of its own (after B's rows)
    const int a_rows_total = priv ? c.sms * rows : m, kwrap = priv ? 8 : 16;
    const Tensor2D ta = {(uint16_t*)c.big.base + (size_t)(priv ? n : 0) * 8192, (uint64_t)a_rows_total, 8192};
    const Tensor2D tb = {c.big.base, (uint64_t)(m + n), 8192};
    CUtensorMap ma = make_map(ta, 64, rows, 128), mb = make_map(tb, 64, rows, 128);
    for (int work : {0, 512})
      for (int stages : {2, 3, 4, 5, 6, 7}) {
        const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
        set_smem((const void*)tma_gemm_walk_kernel, smem);
        const WalkTiming w = time_walk(c, c.sms, k_iters, 3, [&] {
          tma_gemm_walk_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, 1, k_iters, tiles_m, tiles_n,
                                                    0, 8, priv ? 0 : rows, rows, priv ? 0 : m, work, c.cycles,
                                                    priv ? rows : 0, kwrap, 0, nullptr, kwrap, nullptr, smid);
        }, false);
        std::string cs, ss;
        cta_lists(c, smid, cs, ss);
        Rec("tma_sm_share").str("a_panels", priv ? "private" : "shared").num("stages", stages)
            .num("work_cycles", work).num("k_iters", k_iters).num("ctas", c.sms)
            .num("cycles_per_kblock", w.cycles_per_kblock).num("max_cycles_per_kblock", w.max_cycles_per_kblock)
            .num("chip_bytes_per_s", (double)k_iters * (a_bytes + b_bytes) * c.sms / (w.ms * 1e-3)).num("ms", w.ms)
            .str("cta_cycles", cs.c_str()).str("cta_smids", ss.c_str()).emit();
      }
  }
  CK(cudaFree(smid));
}

// tma_sm_share_mix (issue 8, the twenty-fifth session): --sm-share's stream with how many CTAs share each panel
// varied: a grid of tiles_m x tiles_n 128x128 tiles, one a CTA, so each A panel has tiles_n readers and each B panel
// tiles_m, all in step (132x1: A private, B read by all; 1x132: the reverse; 16x9 as --sm-share's shared case; then
// A private to each CTA with each B panel read by 4..132), 8 k-blocks of each panel over and over (L2-resident), a
// consumer holding each stage 512 cycles, 4 and 6 stages. Does
// the fast class appear, and the chip's total fall, as the merge the sharing allows falls? Records "tma_sm_share_mix".
static void bench_sm_share_mix(Ctx& c) {
  const int rows = 128, k_iters = 2048, kwrap = 8, a_bytes = rows * 128, b_bytes = rows * 128;
  // priv 1: A private to each CTA (its own 128 rows after B's), B read by tiles_m CTAs
  const struct { int tm, tn, priv; } grids[] = {{132, 1, 0}, {66, 2, 0}, {33, 4, 0}, {16, 9, 0}, {9, 16, 0},
                                               {4, 33, 0}, {2, 66, 0}, {1, 132, 0}, {4, 33, 1}, {8, 17, 1},
                                               {16, 9, 1}, {33, 4, 1}, {66, 2, 1}, {132, 1, 1}};
  unsigned* smid = nullptr;
  CK(cudaMalloc(&smid, c.sms * sizeof(unsigned)));
  for (const auto& g : grids) {
    const int m = g.tm * rows, n = g.tn * rows;
    const Tensor2D t = {c.big.base, (uint64_t)(m + n), 8192};
    const Tensor2D ta = {(uint16_t*)c.big.base + (size_t)n * 8192, (uint64_t)c.sms * rows, 8192};
    const Tensor2D tb = {c.big.base, (uint64_t)n, 8192};
    CUtensorMap ma = g.priv ? make_map(ta, 64, rows, 128) : make_map(t, 64, rows, 128);
    CUtensorMap mb = g.priv ? make_map(tb, 64, rows, 128) : make_map(t, 64, rows, 128);
    for (int stages : {4, 6}) {
      const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
      set_smem((const void*)tma_gemm_walk_kernel, smem);
      const WalkTiming w = time_walk(c, c.sms, k_iters, 3, [&] {
        tma_gemm_walk_kernel<<<c.sms, 64, smem>>>(ma, mb, stages, a_bytes, b_bytes, 1, k_iters, g.tm, g.tn, 0, 8,
                                                  g.priv ? 0 : rows, rows, g.priv ? 0 : m, 512, c.cycles,
                                                  g.priv ? rows : 0, kwrap, 0, nullptr, kwrap, nullptr, smid);
      }, false);
      std::string cs, ss;
      cta_lists(c, smid, cs, ss);
      Rec("tma_sm_share_mix").num("tiles_m", g.tm).num("tiles_n", g.tn).str("a_panels", g.priv ? "private" : "shared")
          .num("stages", stages).num("work_cycles", 512)
          .num("k_iters", k_iters).num("ctas", c.sms).num("cycles_per_kblock", w.cycles_per_kblock)
          .num("max_cycles_per_kblock", w.max_cycles_per_kblock)
          .num("chip_bytes_per_s", (double)k_iters * (a_bytes + b_bytes) * c.sms / (w.ms * 1e-3)).num("ms", w.ms)
          .str("cta_cycles", cs.c_str()).str("cta_smids", ss.c_str()).emit();
    }
  }
  CK(cudaFree(smid));
}

// One skinny ring (K = 28672 bf16, 128-byte box rows, A of 64 rows: a 128-row box is half out of bounds, zero fill,
// as our kernel's 128-row tiles at M = 64) streamed by `ctas` CTAs, one a SM, B of ctas x rows_b rows; `work` cycles
// of consumer time a k-block. Returns the median ms over `reps` launches after an L2 flush, the B stream it gives, and
// the cycles a k-block of the median and of the slowest CTA (the CTAs of the last launch).
// a_tensor_rows: the rows of A (64: the skinny GEMM's M; as many as rows_a: the A box in bounds); rows_a 0: no A box.
constexpr uint64_t kSkinnyK = 28672;   // the skinny rings' K (bf16): 448 k-blocks of 64
struct SkinnyRing {
  int rows_a, rows_b, stages, work;
  int a_tensor_rows = 64;
  bool a_private = false;
  int a_kwrap = 0;
  bool a_after = false;
  int b_kwrap = 0;   // B's k-blocks wrap every b_kwrap (an L2-resident B stream), 0: B streams from HBM
};

struct SkinnyRun { double ms, b_bytes_per_s, cycles_per_kblock, max_cycles_per_kblock, land_cycles = 0; };
static SkinnyRun skinny_ring(Ctx& c, const SkinnyRing& k, int ctas, int reps, const std::vector<int>* on = nullptr,
                             unsigned long long* land = nullptr) {
  // a_private: CTA i reads A rows [i x rows_a, (i + 1) x rows_a) (no line read by two CTAs), A has ctas x rows_a rows
  // on: the ring runs on these SMs (one CTA each, ranks in that order): a grid of one CTA per SM whose CTAs on other
  // SMs leave at once (--gpc-probe); ctas is then on->size()
  const uint64_t K = kSkinnyK, N = (uint64_t)ctas * k.rows_b;
  const uint64_t a_rows = k.a_private ? (uint64_t)ctas * k.rows_a : (uint64_t)k.a_tensor_rows;
  const Tensor2D A = {c.big.base, a_rows, K};
  const Tensor2D B = {(uint8_t*)c.big.base + a_rows * K * 2, N, K};
  CUtensorMap ma = make_map(A, 64, k.rows_a ? k.rows_a : 64, 128), mb = make_map(B, 64, k.rows_b, 128);
  const int a_bytes = k.rows_a * 128, b_bytes = k.rows_b * 128;
  const int smem = smem_request(k.stages * (a_bytes + b_bytes) + 24 * k.stages);
  set_smem((const void*)tma_gemm_walk_kernel, smem);
  int* d_map = nullptr;
  if (on) {
    std::vector<int> map(1024, -1);
    for (int i = 0; i < ctas; ++i) map[(*on)[i]] = i;
    CK(cudaMalloc(&d_map, map.size() * sizeof(int)));
    CK(cudaMemcpy(d_map, map.data(), map.size() * sizeof(int), cudaMemcpyHostToDevice));
  }
  const int k_iters = (int)(K / 64), grid = on ? c.sms : ctas;
  const WalkTiming t = time_walk(c, ctas, k_iters, reps, [&] {
    tma_gemm_walk_kernel<<<grid, 64, smem>>>(ma, mb, k.stages, a_bytes, b_bytes, 1, k_iters, 1, ctas, 0, 8,
                                            k.rows_a, k.rows_b, 0, k.work, c.cycles, k.a_private ? k.rows_a : 0,
                                            k.a_kwrap, k.a_after ? 1 : 0, d_map, k.b_kwrap, land);
  });
  if (d_map) CK(cudaFree(d_map));
  const double land_med = land ? median_land_cycles(land, ctas) : 0.0;   // of the last repetition
  return {t.ms, (double)N * K * 2 / (t.ms * 1e-3), t.cycles_per_kblock, t.max_cycles_per_kblock, land_med};
}

// The fields every skinny record shares: the ring, the CTAs and what one skinny_ring run measured.
static Rec& skinny_fields(Rec& rec, const SkinnyRing& k, int ctas, const SkinnyRun& run) {
  return rec.num("tile_n", k.rows_b).num("stages", k.stages).num("work_cycles", k.work).num("ctas", ctas)
      .num("k_iters", (double)(kSkinnyK / 64)).num("ms", run.ms).num("b_bytes_per_s", run.b_bytes_per_s)
      .num("cycles_per_kblock", run.cycles_per_kblock).num("max_cycles_per_kblock", run.max_cycles_per_kblock);
}

// tma_skinny_walk: the same walk for a skinny GEMM (M = 64, N = 8192, K = 28672 bf16, one tile a CTA: 64 CTAs of
// 128-wide tiles or 32 of 256-wide ones). Consumer work 0 (pure streaming) and the tile's MMA time as the model has
// it (per k-block: instructions x 70.3 / 133 cycles, model 2026-11-25). Records "tma_skinny_walk".
static void bench_skinny_walk(Ctx& c) {
  const uint64_t N = 8192;
  const SkinnyRing cases[] = {{128, 128, 6, 0}, {128, 128, 6, 562}, {128, 128, 4, 562}, {128, 128, 2, 562},
                              {64, 256, 5, 0}, {64, 256, 5, 532}, {128, 256, 4, 0}, {128, 256, 4, 1064},
                              {64, 128, 8, 0}, {64, 128, 8, 281}};
  for (const SkinnyRing& k : cases) {
    const int tiles_n = (int)(N / k.rows_b);
    Rec rec("tma_skinny_walk");
    skinny_fields(rec.num("tile_m", k.rows_a), k, tiles_n, skinny_ring(c, k, tiles_n, g_ncu ? 1 : 5)).emit();
  }
}

// tma_skinny_ctas: the skinny walk's rings with 8..128 CTAs, one a SM (N = CTAs x the tile's width): whether the
// per-SM stream rate falls with the number of SMs streaming at once (chip load) or with the ring (issue 8's skinny
// miss). Records "tma_skinny_ctas".
static void bench_skinny_ctas(Ctx& c) {
  struct Case { SkinnyRing ring; int max_ctas; };
  const Case cases[] = {{{128, 128, 6, 0}, 128}, {{128, 128, 6, 562}, 128}, {{64, 256, 5, 0}, 64},
                        {{128, 256, 4, 0}, 64}};
  for (const Case& cs : cases) {
    const SkinnyRing& k = cs.ring;
    for (int ctas : {8, 16, 32, 48, 64, 96, 128}) {
      if (ctas > cs.max_ctas || ctas > c.sms) continue;
      const SkinnyRun run = skinny_ring(c, k, ctas, 5);
      Rec rec("tma_skinny_ctas");
      skinny_fields(rec.num("tile_m", k.rows_a), k, ctas, run).num("b_bytes_per_s_per_cta", run.b_bytes_per_s / ctas)
          .emit();
    }
  }
}

// tma_skinny_abox: the 128x128 6-stage skinny ring with and without its A box (issue 8: at 32 CTAs the B boxes alone
// streamed 2.31 TB/s in tma_hbm_panel, the ring with the A box 1.54): no A box, the A box half out of bounds (M = 64,
// as the GEMM), the 128-row A box in bounds, a 64-row A box; consumer work 0 and the tile's MMA time. Records
// "tma_skinny_abox".
static void bench_skinny_abox(Ctx& c) {
  struct Case { const char* a_box; SkinnyRing ring; };
  const Case cases[] = {{"none", {0, 128, 6, 0}}, {"128 rows, 64 out of bounds", {128, 128, 6, 0, 64}},
                        {"128 rows in bounds", {128, 128, 6, 0, 128}}, {"64 rows", {64, 128, 6, 0, 64}},
                        {"none", {0, 128, 6, 562}}, {"128 rows, 64 out of bounds", {128, 128, 6, 562, 64}},
                        {"128 rows in bounds", {128, 128, 6, 562, 128}}};
  for (const Case& cs : cases) {
    const SkinnyRing& k = cs.ring;
    for (int ctas : {8, 16, 32, 48, 64, 96}) {
      if (ctas > c.sms) continue;
      Rec rec("tma_skinny_abox");
      rec.str("a_box", cs.a_box).num("a_box_rows", k.rows_a).num("a_tensor_rows", k.a_tensor_rows);
      skinny_fields(rec, k, ctas, skinny_ring(c, k, ctas, 5)).emit();
    }
  }
}

// tma_skinny_private: whether the A box's cost in the skinny ring comes from every CTA reading the same A lines at
// the same time (hot lines at their L2 slices) or from the A rows themselves (the SM's TMA): the 128x128 6-stage ring
// with a 128-row (or 64-row) in-bounds A box that every CTA shares or that each CTA has to itself. A's k-blocks wrap
// every 8 (an L2-resident A whether shared or private: 64 CTAs x 128 rows x 8 x 128 B = 8 MiB), so both variants read
// A from L2 and only the sharing differs; no A box for reference. 8..64 CTAs (A and B of 64 CTAs fill the 1 GiB buffer).
// Records "tma_skinny_private".
static void bench_skinny_private(Ctx& c) {
  struct Case { const char* a_box; SkinnyRing ring; };
  const Case cases[] = {{"none", {0, 128, 6, 0}},
                        {"128 rows shared", {128, 128, 6, 0, 128, false, 8}},
                        {"128 rows private", {128, 128, 6, 0, 128, true, 8}},
                        {"64 rows shared", {64, 128, 6, 0, 64, false, 8}},
                        {"64 rows private", {64, 128, 6, 0, 64, true, 8}}};
  for (const Case& cs : cases) {
    const SkinnyRing& k = cs.ring;
    for (int ctas : {8, 16, 32, 48, 64}) {
      if (ctas > c.sms) continue;
      Rec rec("tma_skinny_private");
      rec.str("a_box", cs.a_box).num("a_box_rows", k.rows_a).num("a_private", k.a_private ? 1 : 0)
          .num("a_kwrap", k.a_kwrap);
      skinny_fields(rec, k, ctas, skinny_ring(c, k, ctas, 5)).emit();
    }
  }
}

// tma_skinny_order: why an L2-resident A box slows the skinny ring more than a freshly fetched one (--skinny-private:
// ~227 cycles a k-block at 8-16 CTAs whatever its rows). The 128x128 6-stage ring with a 64-row A box that is: L2-resident
// (k-blocks wrapping every 8, or the same k-block every time), issued before or after the stage's B box; freshly
// fetched with B and shared (as --skinny-abox); or each CTA's own rows from HBM (a second miss per stage). Records
// "tma_skinny_order".
static void bench_skinny_order(Ctx& c) {
  struct Case { const char* a_box; SkinnyRing ring; };
  const Case cases[] = {{"none", {0, 128, 6, 0}},
                        {"resident, wrap 8, before B", {64, 128, 6, 0, 64, false, 8, false}},
                        {"resident, wrap 8, after B", {64, 128, 6, 0, 64, false, 8, true}},
                        {"resident, wrap 1, before B", {64, 128, 6, 0, 64, false, 1, false}},
                        {"resident, wrap 1, after B", {64, 128, 6, 0, 64, false, 1, true}},
                        {"fetched with B, shared", {64, 128, 6, 0, 64, false, 0, false}},
                        {"private from HBM, before B", {64, 128, 6, 0, 64, true, 0, false}},
                        {"private from HBM, after B", {64, 128, 6, 0, 64, true, 0, true}}};
  for (const Case& cs : cases) {
    const SkinnyRing& k = cs.ring;
    for (int ctas : {8, 16, 32, 64}) {
      if (ctas > c.sms) continue;
      Rec rec("tma_skinny_order");
      rec.str("a_box", cs.a_box).num("a_box_rows", k.rows_a).num("a_private", k.a_private ? 1 : 0)
          .num("a_kwrap", k.a_kwrap).num("a_after", k.a_after ? 1 : 0);
      skinny_fields(rec, k, ctas, skinny_ring(c, k, ctas, 5)).emit();
    }
  }
}

// --gpc-probe: which SMs a grid of n CTAs lands on, which SMs share a GPC (a cluster's CTAs run in one GPC: clusters
// of 2..16 CTAs, 16 with the non-portable size allowed), and the skinny ring (B-only and with the GEMM's
// half-out-of-bounds A box) on n SMs of one GPC against n SMs spread over the GPCs (issue 8: whether the skinny
// rings' per-SM stream depends on where their CTAs sit). Records "gpc_smid_order", "gpc_clusters", "tma_gpc_ring".
static std::string join_ints(const std::vector<int>& v, char sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? std::string(1, sep) : std::string()) + std::to_string(v[i]);
  return out;
}

// A launch of smid_kernel: `grid` CTAs of one warp with `smem` bytes, in clusters of `cluster` (1: none); `attr`
// holds the cluster attribute the config points at.
static cudaLaunchConfig_t smid_launch(int grid, int cluster, int smem, cudaLaunchAttribute* attr) {
  return cluster_launch_config(grid, 32, smem, cluster, attr);
}

// SM of every CTA of a grid of `grid` CTAs in clusters of `cluster` (1: no cluster); empty if the launch fails.
static std::vector<int> smids_of(int grid, int cluster, int smem) {
  int* d = nullptr;
  CK(cudaMalloc(&d, grid * sizeof(int)));
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = smid_launch(grid, cluster, smem, &attr);
  std::vector<int> out;
  if (cudaLaunchKernelEx(&cfg, smid_kernel, d, (long long)40000) == cudaSuccess &&
      cudaDeviceSynchronize() == cudaSuccess) {
    out.resize(grid);
    CK(cudaMemcpy(out.data(), d, grid * sizeof(int), cudaMemcpyDeviceToHost));
  }
  (void)cudaGetLastError();
  CK(cudaFree(d));
  return out;
}

// The %smid of every CTA of as many clusters of `cs` CTAs as can run at once (cudaOccupancyMaxActiveClusters; 16 needs
// the non-portable size), cluster by cluster; empty where that size cannot launch.
static std::vector<int> resident_cluster_smids(int cs, int smem) {
  if (cs == 16 && cudaFuncSetAttribute((const void*)smid_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)
                      != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = smid_launch(cs * 64, cs, smem, &attr);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, (const void*)smid_kernel, &cfg) != cudaSuccess || clusters < 1) {
    (void)cudaGetLastError();
    return {};
  }
  return smids_of(cs * clusters, cs, smem);
}

// The SM groups of the largest cluster (2..16 CTAs) that launches: a cluster's CTAs run in one GPC, so the groups of
// 16 are GPCs (the SMs of GPCs with fewer than 16 left out). emit: a "gpc_clusters" record for each cluster size.
static std::vector<std::vector<int>> gpc_groups(int smem, bool emit) {
  std::vector<std::vector<int>> gpcs;
  for (int cs : {2, 4, 8, 16}) {
    const std::vector<int> sm = resident_cluster_smids(cs, smem);
    if (sm.empty()) continue;
    const int max_clusters = (int)sm.size() / cs;
    std::vector<std::vector<int>> groups;
    std::string text;
    for (int g = 0; g < max_clusters; ++g) {
      groups.emplace_back(sm.begin() + g * cs, sm.begin() + (g + 1) * cs);
      text += (g ? ";" : "") + join_ints(groups.back(), ',');
    }
    if (emit)
      Rec("gpc_clusters").num("cluster", cs).num("max_active_clusters", max_clusters).str("groups", text.c_str()).emit();
    gpcs = groups;
  }
  return gpcs;
}

// The shared memory of the skinny 128x128 ring (one CTA per SM), set on smid_kernel: the GPC probes launch it so.
static int smid_probe_smem() {
  const int smem = smem_request(6 * (16384 + 16384) + 16 * 6);
  set_smem((const void*)smid_kernel, smem);
  return smem;
}

// n SMs of one GPC (the first group) and n SMs spread over the GPCs (one of each group in turn).
static std::pair<std::vector<int>, std::vector<int>> gpc_placements(const std::vector<std::vector<int>>& gpcs, int n) {
  std::vector<int> one(gpcs[0].begin(), gpcs[0].begin() + n), spread;
  for (int i = 0; (int)spread.size() < n; ++i) spread.push_back(gpcs[i % gpcs.size()][i / gpcs.size()]);
  return {one, spread};
}

// --mc-oob (issue 8, the seventeenth session: our 256x128 tile multicast 1x2 at M <= 128, where one CTA's 128-row
// slice of the A box lies wholly beyond the matrix edge, ran 8% slower than the same tile without multicast, while at
// M = 192 / 256 multicast was as fast or faster; h100_oob_probe). Clusters of 2 along N as our kernel's 1x2 tiles:
// per stage a 256-row A box of two 128-row slices (A has `a_rows` rows: the rest zero fill) and each CTA's own
// 128-row B box; mc 1: CTA r loads A's slice r multicast to both (our kernel's multicast A), mc 0: each CTA loads both
// slices itself (the plain tile). The consumer waits for the stage, spins `work` cycles, and releases it with our
// GEMM's arrive: in both CTAs when multicast (both fill it), locally otherwise. B's k-blocks wrap every `b_kwrap`
// (L2-resident), 0: B streams from HBM. cycles[cta] = the CTA's clock64 span.
__global__ void __cluster_dims__(2, 1, 1) tma_mc_oob_kernel(const __grid_constant__ CUtensorMap ma,
                                                            const __grid_constant__ CUtensorMap mb, int stages,
                                                            int k_iters, int mc, int work, int b_kwrap,
                                                            int slice_rows, unsigned long long* cycles) {
  extern __shared__ uint8_t raw[];
  const int kSlice = slice_rows * 128, kA = 2 * kSlice, kB = 128 * 128, kStage = kA + kB;
  const uint32_t base = aligned_base(raw), full = base + stages * kStage, empty = full + 8 * stages;
  const uint32_t rank = cluster_rank();
  mc_ring_init(full, empty, stages, &ma, &mb, mc ? 2 : 1);
  const long long t0 = clk();
  if (threadIdx.x == 0) {            // producer
    Ring prod(stages);
    for (int kb = 0; kb < k_iters; ++kb, prod.next()) {
      const int s = prod.s;
      if (prod.wrapped) mbar_wait(empty + 8 * s, prod.parity);
      mbar_arrive_expect_tx(full + 8 * s, kStage);
      const uint32_t dst = base + s * kStage;
      const int c0 = kb * 64;
      if (mc) {
        tma_load_mc(dst + rank * kSlice, &ma, c0, (int)rank * slice_rows, full + 8 * s, (uint16_t)3);
      } else {
        tma_load(dst, &ma, c0, 0, full + 8 * s);
        tma_load(dst + kSlice, &ma, c0, slice_rows, full + 8 * s);
      }
      tma_load(dst + kA, &mb, b_kwrap ? (kb & (b_kwrap - 1)) * 64 : c0, (int)blockIdx.x * 128, full + 8 * s);
    }
  } else if (threadIdx.x == 32) {    // consumer
    int cs = 0;
    uint32_t cpar = 0;
    for (int kb = 0; kb < k_iters; ++kb) {
      mbar_wait(full + 8 * cs, cpar);
      const long long w0 = clk();
      while (clk() - w0 < work) {}
      if (mc) {
        mbar_arrive_cluster_cta(empty + 8 * cs, 0);
        mbar_arrive_cluster_cta(empty + 8 * cs, 1);
      } else {
        mbar_arrive(empty + 8 * cs);
      }
      if (++cs == stages) { cs = 0; cpar ^= 1; }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clk() - t0;
  cluster_sync();
}

// tma_mc_oob: the --mc-oob rings (above) at A's rows 256 / 192 / 128 / 64 / 16 (slice 1 in bounds, half, dead, dead,
// dead; slice 0 in bounds down to 128), multicast and plain, B L2-resident (k-blocks wrapping every 8) or from HBM,
// consumer work 0 or the 256x128 tile's MMA time (1025 cycles a k-block), on 112 CTAs (M <= 256 x N = 14336: the
// low-fill probe's grid) and 32. Then, B L2-resident and work 0: A in bounds or with a dead slice on 16..132 CTAs, with
// 128-row slices (our 256x128 tile) and 64-row ones (the 128x128 tile at 1x2: a 128-row box, A's rows 128 or 64).
// Records "tma_mc_oob" (a_tensor_rows, a_box_rows, multicast, b_kwrap, work_cycles, ctas, stages, ms,
// cycles_per_kblock of the median and the slowest CTA).
static void bench_mc_oob(Ctx& c) {
  const uint64_t K = kSkinnyK;
  const int stages = 4, k_iters = (int)(K / 64);
  const int smem = smem_request(stages * (2 * 128 * 128 + 128 * 128) + 16 * stages);
  set_smem((const void*)tma_mc_oob_kernel, smem);
  auto run = [&](int ctas, int b_kwrap, int work, int a_rows, int slice_rows) {
    const Tensor2D A = {c.big.base, (uint64_t)a_rows, K};
    const Tensor2D B = {(uint8_t*)c.big.base + (uint64_t)256 * K * 2, (uint64_t)ctas * 128, K};
    CUtensorMap ma = make_map(A, 64, slice_rows, 128), mb = make_map(B, 64, 128, 128);
    for (int mc : {1, 0}) {
      const WalkTiming t = time_walk(c, ctas, k_iters, 5, [&] {
        tma_mc_oob_kernel<<<ctas, 64, smem>>>(ma, mb, stages, k_iters, mc, work, b_kwrap, slice_rows, c.cycles);
      });
      Rec("tma_mc_oob").num("a_tensor_rows", a_rows).num("a_box_rows", 2 * slice_rows).num("multicast", mc)
          .num("b_kwrap", b_kwrap).num("work_cycles", work).num("ctas", ctas).num("stages", stages)
          .num("k_iters", k_iters).num("ms", t.ms).num("cycles_per_kblock", t.cycles_per_kblock)
          .num("max_cycles_per_kblock", t.max_cycles_per_kblock).emit();
    }
  };
  for (int ctas : {112, 32}) {
    if (ctas > c.sms) continue;
    for (int b_kwrap : {8, 0}) {
      for (int work : {0, 1025}) {
        for (int a_rows : {256, 192, 128, 64, 16}) run(ctas, b_kwrap, work, a_rows, 128);
      }
    }
  }
  for (int slice_rows : {128, 64}) {
    for (int ctas : {16, 48, 64, 80, 96, 132}) {
      if (ctas > c.sms) continue;
      for (int a_rows : {2 * slice_rows, slice_rows}) run(ctas, 8, 0, a_rows, slice_rows);
    }
  }
}

// tma_skinny_oob: A boxes whose rows lie beyond the matrix edge (issue 8, eighth session: our 256x128 tile runs 1.45x
// its GPC pool's rate a k-block at M = 64 / 128, where a 128x256 tile with the same stage bytes and miss-like bytes
// runs at it, data/ncu/skinny256). The walk's ring shaped as our x128 tiles (a 128-wide B box, 4 stages) with a 256- or
// 128-row A box, A in bounds or of fewer rows than the box (the rest zero fill); B from HBM or L2-resident (its
// k-blocks wrap every 8: the zero fill's cost without HBM's); consumer work 0, or the 256x128 tile's MMA time (1025
// cycles a k-block); 8 / 32 / 64 / 112 CTAs (one a SM; 112: the grid of M = 128 x N = 14336). Then, B L2-resident and
// work 0: the 256-row box (half and 1/16 in bounds, and in bounds) at 8..128 CTAs; the 128-row box half out of bounds
// at 2..7 stages on 112 CTAs; and both boxes on n = 4..16 SMs of one GPC against n spread over the GPCs (gpc_groups:
// is the zero fill's cost a GPC's or the chip's?). Records "tma_skinny_oob" (a_tensor_rows: A's rows; oob_rows: the
// box's rows beyond them; placement, sms: where a placed ring ran).
static void bench_skinny_oob(Ctx& c) {
  auto run = [&](int rows_a, int a_rows, int stages, int work, int b_kwrap, int ctas, const std::vector<int>* on,
                 const char* placement) {
    SkinnyRing k{rows_a, 128, stages, work};
    k.a_tensor_rows = a_rows;
    k.b_kwrap = b_kwrap;
    Rec rec("tma_skinny_oob");
    rec.num("a_box_rows", rows_a).num("a_tensor_rows", a_rows).num("oob_rows", rows_a - a_rows).num("b_kwrap", b_kwrap);
    if (on) rec.str("placement", placement).str("sms", join_ints(*on, ',').c_str());
    skinny_fields(rec, k, ctas, skinny_ring(c, k, ctas, 5, on)).emit();
  };
  for (int work : {0, 1025}) {
    for (int b_kwrap : {0, 8}) {
      if (work && b_kwrap) continue;
      for (int rows_a : {256, 128}) {
        for (int a_rows : {256, 128, 64, 16}) {
          if (a_rows > rows_a) continue;
          for (int ctas : {8, 32, 64, 112}) {
            if (ctas <= c.sms) run(rows_a, a_rows, 4, work, b_kwrap, ctas, nullptr, nullptr);
          }
        }
      }
    }
  }
  for (int a_rows : {256, 128, 16}) {
    for (int ctas : {16, 24, 48, 80, 96, 128}) {
      if (ctas <= c.sms) run(256, a_rows, 4, 0, 8, ctas, nullptr, nullptr);
    }
  }
  for (int stages : {2, 3, 6, 7}) {   // 7 x 32 KB: the most the 227 KB of shared memory holds
    for (int a_rows : {128, 64}) {
      if (112 <= c.sms) run(128, a_rows, stages, 0, 8, 112, nullptr, nullptr);
    }
  }
  const std::vector<std::vector<int>> gpcs = gpc_groups(smid_probe_smem(), false);
  if (gpcs.size() < 2) return;
  for (int n : {4, 8, 12, 16}) {
    if ((size_t)n > gpcs[0].size()) continue;
    const auto [one, spread] = gpc_placements(gpcs, n);
    for (const auto& box : {std::pair<int, int>{256, 256}, {256, 128}, {128, 128}, {128, 64}}) {
      run(box.first, box.second, 4, 0, 8, n, &one, "one GPC");
      run(box.first, box.second, 4, 0, 8, n, &spread, "spread over GPCs");
    }
  }
}

// The pair walks' operands (K = kSkinnyK bf16, 128-row boxes of 128 bytes): A of `a_rows` rows from the big buffer's
// start (rows past them zero fill the edge tile's box) and B of `tiles_n` 128-row panels after A's 256 rows.
struct PairMaps { CUtensorMap a, b; };
static PairMaps pair_maps(Ctx& c, int a_rows, int tiles_n) {
  const Tensor2D A = {c.big.base, (uint64_t)a_rows, kSkinnyK};
  const Tensor2D B = {(uint8_t*)c.big.base + (uint64_t)256 * kSkinnyK * 2, (uint64_t)tiles_n * 128, kSkinnyK};
  return {make_map(A, 64, 128, 128), make_map(B, 64, 128, 128)};
}

// --pair-share (issue 8, the fifteenth session: one-wave grids whose B panels two CTAs share, 160x3584x14336, run
// their crowded GPC's k-blocks as if every byte missed L2): the GEMM walk of a one-wave grid of 128x128 tiles without
// MMAs (one tile a CTA, our kernel's tile order: raster along M in groups of 8), a 6-stage ring of 16 KB A and B
// boxes, K = 28672 (448 k-blocks), consumer work 0, 320 or 520 cycles a k-block (the one consumer thread's wait and
// release add some 200: 320 paces the ring near the 128x128x64 tile's MMA time, 512 cycles), grids of
// 28..112 CTAs as the hardware places them: one M tile (each B panel read by one CTA; A's 128 rows shared by all), two
// M tiles of a 256-row A (each B panel read by the two CTAs of its column, in step; each A panel by half the grid), and
// two M tiles of a 160-row A (the second tile's A box 3/4 zero fill, as at M = 160). B streams from HBM. Records
// "tma_pair_share": the median and the slowest CTA's cycles a k-block.
static void bench_pair_share(Ctx& c) {
  const uint64_t K = kSkinnyK;
  const int stages = 6, a_bytes = 128 * 128, b_bytes = 128 * 128, k_iters = (int)(K / 64);
  const int smem = smem_request(stages * (a_bytes + b_bytes) + 24 * stages);
  set_smem((const void*)tma_gemm_walk_kernel, smem);
  for (int work : {0, 320, 520}) {
    for (int ctas : {28, 56, 84, 112}) {
      if (ctas > c.sms) continue;
      for (const auto& mt : {std::pair<int, int>{1, 128}, {2, 256}, {2, 160}}) {
        const int tiles_m = mt.first, tiles_n = ctas / tiles_m;
        const PairMaps m = pair_maps(c, mt.second, tiles_n);
        const WalkTiming t = time_walk(c, ctas, k_iters, 5, [&] {
          tma_gemm_walk_kernel<<<ctas, 64, smem>>>(m.a, m.b, stages, a_bytes, b_bytes, 1, k_iters, tiles_m, tiles_n,
                                                  0, 8, 128, 128, 0, work, c.cycles);
        });
        Rec("tma_pair_share").num("ctas", ctas).num("tiles_m", tiles_m).num("tiles_n", tiles_n)
            .num("a_tensor_rows", mt.second).num("b_sharers", tiles_m).num("stages", stages).num("work_cycles", work)
            .num("k_iters", k_iters).num("ms", t.ms).num("cycles_per_kblock", t.cycles_per_kblock)
            .num("max_cycles_per_kblock", t.max_cycles_per_kblock).emit();
      }
    }
  }
}

// --pair-smem: the --pair-share walks (56 and 84 CTAs, M = 256 and 160, and 28 CTAs) with two consumer warpgroups that
// read 0 or 48 KB of each stage from shared memory (the 128x128x64 tile's wgmma operand reads) and then spin 0 or 200
// cycles. Records "tma_pair_smem".
static void bench_pair_smem(Ctx& c) {
  const uint64_t K = kSkinnyK;
  const int stages = 6, a_bytes = 128 * 128, b_bytes = 128 * 128, k_iters = (int)(K / 64);
  const int smem = smem_request(stages * (a_bytes + b_bytes) + 16 * stages);
  set_smem((const void*)tma_walk_smem_kernel, smem);
  unsigned* sink = nullptr;
  CK(cudaMalloc(&sink, 4));
  for (int work : {0, 200}) {
    for (int read : {0, 48 * 1024}) {
      for (int ctas : {28, 56, 84}) {
        for (const auto& mt : {std::pair<int, int>{2, 256}, {2, 160}}) {
          const int tiles_m = mt.first, tiles_n = ctas / tiles_m;
          const PairMaps m = pair_maps(c, mt.second, tiles_n);
          const WalkTiming t = time_walk(c, ctas, k_iters, 5, [&] {
            tma_walk_smem_kernel<<<ctas, 32 + 256, smem>>>(m.a, m.b, stages, a_bytes, b_bytes, k_iters, tiles_m,
                                                            tiles_n, read, work, c.cycles, sink);
          });
          Rec("tma_pair_smem").num("ctas", ctas).num("tiles_m", tiles_m).num("a_tensor_rows", mt.second)
              .num("stages", stages).num("smem_read_bytes", read).num("work_cycles", work).num("k_iters", k_iters)
              .num("ms", t.ms).num("cycles_per_kblock", t.cycles_per_kblock)
              .num("max_cycles_per_kblock", t.max_cycles_per_kblock).emit();
        }
      }
    }
  }
  CK(cudaFree(sink));
}

// --direct-store (issue 8, the fifteenth session: direct-store epilogues in multi-wave grids run 10-22% slower than the
// model's per-SM store rate says, sync.direct_store_bytes_per_clock_per_sm 4.9 B a cycle, fitted): the epilogue's
// stores alone, 1 or 2 warpgroups a CTA (the 128x128 and 256x128 tiles), output widths N = 1408 / 8064 / 8192 (row
// pitch 2816 / 16128 / 16384 bytes), 16 tiles a CTA on 132 / 66 / 16 CTAs: is the store path an SM's or the chip's?
// Records "direct_store": chip bytes a second (event time of the launch) and the median CTA's issue bytes a cycle. Each
// grid twice: vector_bytes 4 (our kernel's stores from the accumulator fragments: a warp's store 8 rows x 16 bytes) and
// 16 (the sixteenth session: a layout-converted epilogue's coalesced rows, Triton's pointer matmul).
static void bench_direct_store(Ctx& c) {
  for (int vec : {4, 16})             // bytes a thread a store: our kernel's accumulator fragments, or coalesced rows
  for (int wgs : {1, 2}) {
    for (int N : {1408, 8064, 8192}) {
      for (int ctas : {c.sms, c.sms / 2, 16}) {
        const int tiles_n = N / 128, per_cta = 16, tiles = ctas * per_cta;
        const int tiles_m = (tiles + tiles_n - 1) / tiles_n;
        const size_t rows = (size_t)tiles_m * 128 * wgs;
        if (rows * N * 2 > (size_t)c.big.rows * c.big.cols * 2) continue;
        std::vector<double> ms_v;
        for (int rep = 0; rep < 5; ++rep) {
          ms_v.push_back(event_ms([&] {
            if (vec == 4)
              direct_store_kernel<4><<<ctas, 128 * wgs>>>(c.big.base, N, per_cta, tiles_m, tiles_n, c.cycles);
            else
              direct_store_kernel<16><<<ctas, 128 * wgs>>>(c.big.base, N, per_cta, tiles_m, tiles_n, c.cycles);
          }));
        }
        const double bytes = (double)tiles * 128 * wgs * 128 * 2, ms = median(ms_v);
        const std::vector<double> bpc = per_cta_rates(c.cycles, ctas, (double)per_cta * 128 * wgs * 128 * 2);
        Rec("direct_store").num("vector_bytes", vec).num("warpgroups", wgs).num("n", N).num("pitch_bytes", N * 2)
            .num("ctas", ctas).num("tiles_per_cta", per_cta).num("ms", ms).num("chip_bytes_per_s", bytes / (ms * 1e-3))
            .num("issue_bytes_per_clock_per_sm", median(bpc)).num("min_issue_bytes_per_clock_per_sm",
            *std::min_element(bpc.begin(), bpc.end())).emit();
      }
    }
  }
}

// Each ring on n SMs of one GPC, then on n spread over the GPCs (gpc_placements; n <= a GPC's SMs; at n = 1 only the
// one GPC), five repeats: a record `bench` with the placement and SMs, then fields(rec, ring)'s keys, then the ring's.
template <size_t R, class Fields>
static void gpc_placed_rings(Ctx& c, const std::vector<std::vector<int>>& gpcs, std::initializer_list<int> ns,
                             const SkinnyRing (&rings)[R], const char* bench, Fields fields) {
  for (int n : ns) {
    if ((size_t)n > gpcs[0].size()) continue;
    const auto [one, spread] = gpc_placements(gpcs, n);
    for (const SkinnyRing& k : rings) {
      for (int placed = 0; placed < 2; ++placed) {
        if (n == 1 && placed) continue;
        const std::vector<int>& set = placed ? spread : one;
        Rec rec(bench);
        rec.str("placement", placed ? "spread over GPCs" : "one GPC").str("sms", join_ints(set, ',').c_str());
        fields(rec, k);
        skinny_fields(rec, k, n, skinny_ring(c, k, n, 5, &set)).emit();
      }
    }
  }
}

static void bench_gpc_probe(Ctx& c) {
  const int smem = smid_probe_smem();
  for (int cluster : {1, 2, 4}) {          // plain grids, and grids of clusters of 2 and 4 CTAs
    for (int n : {8, 16, 32, 48, 64, 96, 120, 132}) {
      if (n > c.sms || n % cluster || (cluster > 1 && n > 120)) continue;
      const std::vector<int> sm = smids_of(n, cluster, smem);
      if (sm.empty()) continue;
      Rec rec("gpc_smid_order");
      if (cluster > 1) rec.num("cluster", cluster);
      rec.num("ctas", n).str("smids", join_ints(sm, ',').c_str()).emit();
    }
  }
  std::vector<std::vector<int>> gpcs = gpc_groups(smem, true);   // the SM groups of the largest cluster
  if (gpcs.size() < 2) return;
  // B-only from HBM, with the GEMM's A box, and B-only from L2 (B's k-blocks wrapping every 8: 16 KB boxes, 128 KB a CTA)
  SkinnyRing l2ring = {0, 128, 6, 0};
  l2ring.b_kwrap = 8;
  // and (does a GPC's link carry an A box every CTA shares once or once a CTA?) the A box in bounds, shared by
  // every CTA or each CTA's own rows (from HBM, as B)
  const SkinnyRing inbounds = {128, 128, 6, 0, 128}, own = {128, 128, 6, 0, 128, true};
  const SkinnyRing rings[] = {{0, 128, 6, 0}, {128, 128, 6, 0, 64}, l2ring, inbounds, own};
  gpc_placed_rings(c, gpcs, {1, 4, 8, 12, 16}, rings, "tma_gpc_ring", [](Rec& rec, const SkinnyRing& k) {
    rec.str("a_box", !k.rows_a ? "none" : k.a_private ? "128 rows, each CTA its own" :
                     k.a_tensor_rows >= k.rows_a ? "128 rows in bounds, shared" : "128 rows, 64 out of bounds")
        .str("b_source", k.b_kwrap ? "l2" : "hbm");
  });
}

// --gpc-wide: the skinny ring with 64x256 tiles' boxes (a 256-row B box, 32 KB; 5 stages) against the 128-row ring of
// --gpc-probe on 8, 12 and 16 SMs of one GPC and spread over the GPCs: is a GPC's pool of in-flight loads a number of
// bytes (the wide boxes then take as long a k-block per byte) or of boxes / requests (they move more bytes a cycle)?
static void bench_gpc_wide(Ctx& c) {
  const int smem = smid_probe_smem();
  std::vector<std::vector<int>> gpcs = gpc_groups(smem, true);
  if (gpcs.size() < 2) return;
  const SkinnyRing rings[] = {{0, 128, 6, 0}, {0, 256, 5, 0}, {128, 128, 6, 0, 64}, {64, 256, 5, 0, 64},
                              {0, 256, 3, 0}};
  gpc_placed_rings(c, gpcs, {8, 12, 16}, rings, "tma_gpc_wide", [](Rec& rec, const SkinnyRing& k) {
    rec.num("a_box_rows", k.rows_a).num("b_box_rows", k.rows_b).str("b_source", "hbm");
  });
}

// --gpc-load (issue 8, the twenty-second session): is a crowded GPC's pool of in-flight loads held longer while the
// rest of the chip loads the HBM? The model held a pool's miss-like bytes tma.pool_queue_share of the loaded HBM queue
// longer (until the session that added this), which made one-wave skinny grids of private B (all misses) 8-12% slower
// than measured at 32-48 CTAs, while the GEMM's CTA probe finds GPC 0 no slower than the others there. n0 SMs of one
// GPC (12: a crowded GPC; 4: not) stream a skinny ring while `load` SMs spread over the other GPCs stream the same ring
// (each CTA its own B rows, from HBM). Rings: B only (the 64x256 tile's 256-row box, 5 stages), the 64x256 tile's
// boxes (a shared in-bounds 64-row A box), the 128x128 tile's at M = 64 (half the A box beyond the edge) and at M = 16
// (112 of its 128 rows). Records "tma_gpc_load": the GPC's CTAs' and the loading CTAs' median cycles a k-block, the
// chip's B bytes a second.
static void bench_gpc_load(Ctx& c) {
  const int smem = smid_probe_smem();
  std::vector<std::vector<int>> gpcs = gpc_groups(smem, true);
  if (gpcs.size() < 2) return;
  const SkinnyRing rings[] = {{0, 256, 5, 0}, {64, 256, 5, 0, 64}, {128, 128, 6, 0, 64}, {128, 128, 6, 0, 16}};
  const int k_iters = (int)(kSkinnyK / 64);
  for (const SkinnyRing& k : rings) {
    // B of ctas x rows_b rows of K must fit the big tensor: at most 72 CTAs of 256-row B
    const int max_ctas =
        (int)((c.big.rows * c.big.cols - (uint64_t)k.a_tensor_rows * kSkinnyK) / (kSkinnyK * k.rows_b));
    for (int n0 : {12, 4}) {
      for (int load : {0, 12, 24, 36, 48, 60, 72, 84, 96}) {
        std::vector<int> set(gpcs[0].begin(), gpcs[0].begin() + n0);
        for (int i = 0; (int)set.size() < n0 + load; ++i) {
          const size_t g = 1 + i % (gpcs.size() - 1), j = i / (gpcs.size() - 1);
          if (j >= gpcs[g].size()) break;
          set.push_back(gpcs[g][j]);
        }
        if ((int)set.size() < n0 + load || (int)set.size() > max_ctas) continue;
        const SkinnyRun run = skinny_ring(c, k, (int)set.size(), 3, &set);
        const std::vector<double> r = per_cta_rates(c.cycles, (int)set.size(), (double)k_iters);
        const std::vector<double> own(r.begin(), r.begin() + n0), others(r.begin() + n0, r.end());
        Rec rec("tma_gpc_load");
        rec.num("gpc_sms", n0).num("load_sms", load).num("a_box_rows", k.rows_a).num("a_tensor_rows", k.a_tensor_rows)
            .num("gpc_cycles_per_kblock", 1.0 / median(own))
            .num("gpc_max_cycles_per_kblock", 1.0 / *std::min_element(own.begin(), own.end()))
            .num("load_cycles_per_kblock", others.empty() ? 0.0 : 1.0 / median(others))
            .str("sms", join_ints(set, ',').c_str());
        skinny_fields(rec, k, (int)set.size(), run).emit();
      }
    }
  }
}

// --oob-land: how long a stage takes from issue to landing, with and without zero fill, as the CTAs streaming grow:
// the skinny ring (a 128-row B box; a 128-row A box with 0 / 64 / 112 of its rows beyond A's, or a 256-row one with
// 0 / 128 / 192) with no work, B L2-resident (its k-blocks wrap every 8) or from HBM, 2 / 4 / 6 stages, 8..112 CTAs.
// The consumer waits on every stage, so its wait ends when the stage lands: the median CTA's mean issue-to-landing.
static void bench_oob_land(Ctx& c) {
  unsigned long long* land = nullptr;
  CK(cudaMalloc(&land, c.sms * sizeof(unsigned long long)));
  for (int b_kwrap : {8, 0}) {
    for (const auto& box : {std::pair<int, int>{128, 128}, {128, 64}, {128, 16}, {256, 256}, {256, 128}, {256, 64}}) {
      for (int stages : {2, 4, 6}) {
        if (box.first == 256 && stages > 4) continue;              // 6 x 48 KB does not fit
        for (int ctas : {8, 32, 64, 112}) {
          if (ctas > c.sms) continue;
          SkinnyRing k{box.first, 128, stages, 0};
          k.a_tensor_rows = box.second;
          k.b_kwrap = b_kwrap;
          const SkinnyRun run = skinny_ring(c, k, ctas, 3, nullptr, land);
          Rec rec("tma_oob_land");
          rec.num("a_box_rows", box.first).num("a_tensor_rows", box.second).num("oob_rows", box.first - box.second)
              .num("b_kwrap", b_kwrap).num("land_cycles", run.land_cycles);
          skinny_fields(rec, k, ctas, run).emit();
        }
      }
    }
  }
  CK(cudaFree(land));
}

static void bench_stream(Ctx& c) {
  const int swizzles[] = {0, 32, 64, 128};
  for (int swz : swizzles) {
    for (uint32_t outer : {64u, 128u, 256u}) {
      const uint32_t inner = inner_for(swz);
      const int bytes = (int)(inner * outer * 2);
      const int stages = std::max(2, std::min(8, (192 * 1024) / bytes));
      for (int mode : {0, 1, 3}) {
        if (mode == 1 && swz != 128 && swz != 64) continue;  // HBM streaming: the wide and a narrow swizzle
        const Tensor2D& t = mode == 1 ? c.big : c.small;
        CUtensorMap m = make_map(t, inner, outer, swz);
        const int nbx_log2 = log2_exact(t.cols / inner, "boxes per row");
        const int nb = 1 << (nbx_log2 + log2_exact(t.rows / outer, "box rows"));
        const size_t total = mode != 1 ? ((size_t)(g_quick ? 4 : 32) << 20) : ((size_t)1 << 30) / c.sms;
        const int iters = (int)(total / bytes);
        const int smem = smem_request(stages * bytes + 8 * stages);
        set_smem((const void*)tma_stream_kernel, smem);
        for (int grid : {1, c.sms}) {
          if (mode != 0 && grid == 1) continue;
          if (mode == 1 && !g_quick) bench_hbm_partial(c, m, bytes, stages, inner, outer, nbx_log2, nb, swz);
          const StreamRun r = run_stream(c, m, grid, smem, stages, bytes, iters, inner, outer, nbx_log2, nb, mode,
                                         g_quick ? 2 : 5);
          const double ms = r.ms, bps = (double)iters * bytes * grid / (ms * 1e-3);
          Rec("tma_stream").str("source", mode == 0 ? "l2" : mode == 3 ? "l2_row_order" : "hbm").num("swizzle", swz).num("box_inner", inner)
              .num("box_outer", outer).num("box_bytes", bytes).num("stages", stages).num("ctas", grid)
              .num("iters", iters).num("bytes_per_clock_per_sm", r.bpc)
              .num("min_bytes_per_clock_per_sm", r.min_bpc)
              .num("chip_bytes_per_s", bps).num("ms", ms).num("sm_clock_hz", r.hz).emit();
        }
      }
    }
  }
}

// Bytes in flight: one CTA alone, and one CTA on every SM (the loaded L2: latency = bytes in flight / rate),
// 8 KB boxes (128B swizzle) from L2, ring depth 1..16.
static void bench_depth(Ctx& c) {
  const uint32_t inner = 64, outer = 64;
  const int bytes = (int)(inner * outer * 2);
  CUtensorMap m = make_map(c.small, inner, outer, 128);
  const int nbx_log2 = log2_exact(c.small.cols / inner, "boxes per row");
  const int nb = 1 << (nbx_log2 + log2_exact(c.small.rows / outer, "box rows"));
  const int iters = (int)(((size_t)(g_quick ? 4 : 16) << 20) / bytes);
  for (int grid : {1, c.sms}) {
    for (int stages : {1, 2, 3, 4, 8, 16}) {
      if (grid == 1 && stages == 3) continue;   // the one-CTA sweep as before
      const int smem = smem_request(stages * bytes + 8 * stages);
      set_smem((const void*)tma_stream_kernel, smem);
      std::vector<double> bpc;
      for (int rep = 0; rep < 5; ++rep) {
        tma_stream_kernel<<<grid, 32, smem>>>(m, stages, bytes, iters, inner, outer, nbx_log2, nb, 0, c.probe, c.cycles);
        CK_LAUNCH();
        bpc.push_back(median(per_cta_rates(c.cycles, grid, (double)iters * bytes)));
      }
      Rec rec("tma_depth");
      rec.num("stages", stages).num("box_bytes", bytes).num("bytes_in_flight", stages * bytes)
          .num("iters", iters).num("bytes_per_clock_per_sm", median(bpc));
      if (grid > 1) rec.num("ctas", grid).num("loaded_latency_cycles", stages * bytes / median(bpc));
      rec.emit();
    }
  }
}

static void bench_multicast(Ctx& c) {
  const uint32_t inner = 64, outer = 64;
  const int box = (int)(inner * outer * 2), stages = 6;
  const int smem = smem_request(stages * 2 * box + 16 * stages);
  set_smem((const void*)tma_mc_stream_kernel, smem);
  const int grid_all = c.sms / 2 * 2;
  for (int mode = 0; mode < 2; ++mode) {
    const Tensor2D& t = mode == 0 ? c.small : c.big;
    CUtensorMap m = make_map(t, inner, outer, 128);
    const int nbx_log2 = log2_exact(t.cols / inner, "boxes per row");
    const int ntiles = 1 << (nbx_log2 + log2_exact(t.rows / (2 * outer), "tile rows"));
    for (int grid : {2, grid_all}) {
      if (mode == 1 && grid == 2) continue;
      const size_t total = mode == 0 ? ((size_t)(g_quick ? 4 : 32) << 20) : ((size_t)1 << 30) / (grid / 2);
      const int iters = (int)(total / (2 * box));
      for (int mc = 0; mc < 2; ++mc) {
        double ms = time_ms(g_quick ? 2 : 5, [&] {
          tma_mc_stream_kernel<<<grid, 32, smem>>>(m, stages, box, iters, inner, outer, nbx_log2, ntiles, mode, mc,
                                                   c.cycles);
        });
        const std::vector<double> bpc = per_cta_rates(c.cycles, grid, 2.0 * iters * box);
        Rec("tma_multicast_stream").str("source", mode == 0 ? "l2" : "hbm").num("multicast", mc)
            .num("box_bytes", box).num("stages", stages).num("ctas", grid).num("iters", iters)
            .num("delivered_bytes_per_clock_per_sm", median(bpc))
            .num("delivered_chip_bytes_per_s", 2.0 * iters * box * grid / (ms * 1e-3)).num("ms", ms).emit();
      }
    }
  }
}

// What a multicast copy costs the L2 (issue 8): clusters of 2 on every SM, 2 boxes of 64 x `outer` bf16 per
// stage from an L2-resident tensor, plain (each CTA loads both) or multicast (each loads one for both).
static void bench_multicast_l2(Ctx& c) {
  const uint32_t inner = 64;
  const int grid_all = c.sms / 2 * 2;
  for (uint32_t outer : {64u, 128u}) {
    const int box = (int)(inner * outer * 2), stages = outer == 64 ? 8 : 6;
    const int smem = smem_request(stages * 2 * box + 16 * stages);
    set_smem((const void*)tma_mc_split_kernel, smem);
    CUtensorMap m = make_map(c.small, inner, outer, 128);
    const int nbx_log2 = log2_exact(c.small.cols / inner, "boxes per row");
    const int ntiles = 1 << (nbx_log2 + log2_exact(c.small.rows / (2 * outer), "tile rows"));
    const int iters = (int)(((size_t)(g_quick ? 4 : 32) << 20) / (2 * box));
    for (int grid : {2, grid_all}) {
      double rate[2];
      for (int mc = 0; mc < 2; ++mc) {
        double ms = time_ms(g_quick ? 2 : 5, [&] {
          tma_mc_split_kernel<<<grid, 64, smem>>>(m, stages, box, iters, outer, nbx_log2, ntiles, mc, c.cycles);
        });
        rate[mc] = median(per_cta_rates(c.cycles, grid, 2.0 * iters * box));
        Rec("tma_multicast_l2").num("multicast", mc).num("box_bytes", box).num("stages", stages).num("ctas", grid)
            .num("iters", iters).num("delivered_bytes_per_clock_per_sm", rate[mc])
            .num("delivered_chip_bytes_per_s", 2.0 * iters * box * grid / (ms * 1e-3)).num("ms", ms).emit();
      }
      // L2-bound plain: delivered = B; multicast reads half the bytes plus c per extra copy: delivered = 2B/(1 + c)
      Rec("tma_multicast_l2_cost").num("box_bytes", box).num("ctas", grid).num("speedup", rate[1] / rate[0])
          .num("extra_copy_cost", 2.0 * rate[0] / rate[1] - 1.0).emit();
    }
  }
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) g_quick = true;
    else if (!strcmp(argv[i], "--panel-only")) g_panel_only = true;
    else if (!strcmp(argv[i], "--stream-only")) g_stream_only = true;
    else if (!strcmp(argv[i], "--lrc-only")) g_lrc_only = true;
    else if (!strcmp(argv[i], "--walk-drift")) g_walk_drift = true;
    else if (!strcmp(argv[i], "--walk-pitch")) g_walk_pitch = true;
    else if (!strcmp(argv[i], "--walk-partial")) g_walk_partial = true;
    else if (!strcmp(argv[i], "--walk-variants")) g_walk_variants = true;
    else if (!strcmp(argv[i], "--walk-place")) g_walk_place = true;
    else if (!strcmp(argv[i], "--walk-alone")) g_walk_alone = true;
    else if (!strcmp(argv[i], "--walk-drift-paced")) g_walk_drift_paced = true;
    else if (!strcmp(argv[i], "--paced")) g_paced = true;
    else if (!strcmp(argv[i], "--epi")) g_epi = true;
    else if (!strcmp(argv[i], "--fine")) g_fine = true;
    else if (!strcmp(argv[i], "--l2-residency-pitch")) g_l2_residency_pitch = true;
    else if (!strcmp(argv[i], "--hbm-pitch")) g_hbm_pitch = true;
    else if (!strcmp(argv[i], "--box-spread-pitch")) g_box_spread_pitch = true;
    else if (!strcmp(argv[i], "--box-pitch-table")) g_box_pitch_table = true;
    else if (!strcmp(argv[i], "--sm-share")) g_sm_share = true;
    else if (!strcmp(argv[i], "--sm-share-mix")) g_sm_share_mix = true;
    else if (!strcmp(argv[i], "--ncu")) g_ncu = true;
    else if (!strcmp(argv[i], "--skinny-only")) g_skinny_only = true;
    else if (!strcmp(argv[i], "--skinny-ctas")) g_skinny_ctas = true;
    else if (!strcmp(argv[i], "--skinny-abox")) g_skinny_abox = true;
    else if (!strcmp(argv[i], "--skinny-private")) g_skinny_private = true;
    else if (!strcmp(argv[i], "--skinny-order")) g_skinny_order = true;
    else if (!strcmp(argv[i], "--skinny-oob")) g_skinny_oob = true;
    else if (!strcmp(argv[i], "--gpc-probe")) g_gpc_probe = true;
    else if (!strcmp(argv[i], "--gpc-wide")) g_gpc_wide = true;
    else if (!strcmp(argv[i], "--oob-land")) g_oob_land = true;
    else if (!strcmp(argv[i], "--l2-residency")) g_l2_residency = true;
    else if (!strcmp(argv[i], "--miss-mix")) g_miss_mix = true;
    else if (!strcmp(argv[i], "--pair-share")) g_pair_share = true;
    else if (!strcmp(argv[i], "--pair-smem")) g_pair_smem = true;
    else if (!strcmp(argv[i], "--direct-store")) g_direct_store = true;
    else if (!strcmp(argv[i], "--mc-oob")) g_mc_oob = true;
    else if (!strcmp(argv[i], "--gpc-load")) g_gpc_load = true;
    else if (!strcmp(argv[i], "--wide-k")) g_wide_k = true;
    else if (!strcmp(argv[i], "--wide-k-mma")) g_wide_k_mma = true;
    else if (!strcmp(argv[i], "--wide-k-gap")) g_wide_k_gap = true;
    else if (!strcmp(argv[i], "--wide-k-place")) g_wide_k_place = true;
    else if (!strcmp(argv[i], "--wide-k-tpc")) g_wide_k_tpc = true;
    else if (!strcmp(argv[i], "--wide-k-knee")) g_wide_k_knee = true;
    else die("unknown argument %s (usage: mb_tma [--quick] [--panel-only] [--stream-only] [--lrc-only | "
             "--skinny-only [--ncu] | --walk-drift [--ncu] | --walk-pitch [--paced [--fine]] [--ncu] | "
             "--walk-partial | "
             "--walk-variants | --walk-place | --walk-alone | --walk-drift-paced [--epi] [--ncu] | --sm-share "
             "| --sm-share-mix | --skinny-ctas | --skinny-abox | --skinny-private | --skinny-order | "
             "--skinny-oob | --gpc-probe | --gpc-wide | --oob-land | --l2-residency | --l2-residency-pitch | "
             "--hbm-pitch [--fine] | --box-spread-pitch | --box-pitch-table | --miss-mix | --pair-share | "
             "--pair-smem | --direct-store | --mc-oob | "
             "--gpc-load | --wide-k | --wide-k-mma | --wide-k-gap | --wide-k-place | --wide-k-tpc | "
             "--wide-k-knee])",
             argv[i]);
  }
  emit_device_record();
  Ctx c;
  c.sms = sm_count();
  c.small = {nullptr, 4096, 256};
  c.big = {nullptr, 65536, 8192};
  CK(cudaMalloc(&c.small.base, c.small.rows * c.small.cols * 2));
  CK(cudaMalloc(&c.big.base, c.big.rows * c.big.cols * 2));
  fill_random_u16<<<1024, 256>>>((uint16_t*)c.small.base, c.small.rows * c.small.cols, 1);
  fill_random_u16<<<4096, 256>>>((uint16_t*)c.big.base, c.big.rows * c.big.cols, 2);
  CK_LAUNCH();
  c.flush_n = ((size_t)256 << 20) / 16;
  CK(cudaMalloc(&c.flush_buf, c.flush_n * 16));
  CK(cudaMemset(c.flush_buf, 0x3c, c.flush_n * 16));
  CK(cudaMalloc(&c.sink, 4));
  CK(cudaMalloc(&c.probe, sizeof(ClockProbe)));
  CK(cudaMalloc(&c.cycles, c.sms * sizeof(unsigned long long)));
  if (g_panel_only) { bench_hbm_panel(c); return 0; }
  if (g_lrc_only) { bench_lrc(c); bench_lrc_gemm(c); return 0; }
  if (g_walk_drift) { bench_walk_drift(c); return 0; }
  if (g_walk_pitch) { bench_walk_pitch(c); return 0; }
  if (g_walk_partial) { bench_walk_partial(c); return 0; }
  if (g_walk_variants) { bench_walk_variants(c); return 0; }
  if (g_walk_place) { bench_walk_place(c); return 0; }
  if (g_walk_alone) { bench_walk_alone(c); return 0; }
  if (g_walk_drift_paced) { bench_walk_drift_paced(c); return 0; }
  if (g_sm_share) { bench_sm_share(c); return 0; }
  if (g_sm_share_mix) { bench_sm_share_mix(c); return 0; }
  if (g_skinny_only) { bench_skinny_walk(c); return 0; }
  if (g_skinny_ctas) { bench_skinny_ctas(c); return 0; }
  if (g_skinny_abox) { bench_skinny_abox(c); return 0; }
  if (g_skinny_private) { bench_skinny_private(c); return 0; }
  if (g_skinny_order) { bench_skinny_order(c); return 0; }
  if (g_skinny_oob) { bench_skinny_oob(c); return 0; }
  if (g_gpc_probe) { bench_gpc_probe(c); return 0; }
  if (g_gpc_wide) { bench_gpc_wide(c); return 0; }
  if (g_oob_land) { bench_oob_land(c); return 0; }
  if (g_l2_residency) { bench_l2_residency(c); return 0; }
  if (g_l2_residency_pitch) { bench_l2_residency_pitch(c); return 0; }
  if (g_hbm_pitch) { bench_hbm_pitch(c); return 0; }
  if (g_box_spread_pitch) { bench_box_spread_pitch(c); return 0; }
  if (g_box_pitch_table) { bench_box_pitch_table(c); return 0; }
  if (g_miss_mix) { bench_miss_mix(c); return 0; }
  if (g_pair_share) { bench_pair_share(c); return 0; }
  if (g_pair_smem) { bench_pair_smem(c); return 0; }
  if (g_direct_store) { bench_direct_store(c); return 0; }
  if (g_mc_oob) { bench_mc_oob(c); return 0; }
  if (g_gpc_load) { bench_gpc_load(c); return 0; }
  if (g_wide_k) { bench_wide_k(c); return 0; }
  if (g_wide_k_mma) { bench_wide_k_mma(c); return 0; }
  if (g_wide_k_gap) { bench_wide_k_gap(c); return 0; }
  if (g_wide_k_place) { bench_wide_k_place(c); return 0; }
  if (g_wide_k_tpc) { bench_wide_k_tpc(c); return 0; }
  if (g_wide_k_knee) { bench_wide_k_knee(c); return 0; }
  if (g_stream_only) { bench_stream(c); bench_l2_panel(c); bench_l2_sharing(c); return 0; }
  bench_latency(c);
  bench_issue(c);
  bench_stream(c);
  bench_depth(c);
  bench_multicast(c);
  bench_multicast_l2(c);
  bench_hbm_panel(c);
  bench_l2_panel(c);
  bench_l2_sharing(c);
  return 0;
}
