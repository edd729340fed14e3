// TMA row-pitch / address-alignment sweep (issue 8): what a box row costs the L2 when it does not start
// on a 128-byte line or a 32-byte sector.
//  - origin sweep: an aligned pitch (4096 B) and every box origin 0..112 B in 16 B steps, so every row
//    of a box has the same offset inside its 128-byte line (one geometry per measurement);
//  - pitch sweep: the global row pitch K x element bytes 128/64/32/16-byte aligned (bf16 K = 2048, 2016,
//    2000, 2064, 2008; fp8 K = 2048, 2112, 2016, 2000, 2064), box origins on the box grid, so row r starts
//    at r x pitch mod 128 (the mix of geometries a K-major GEMM operand sees);
//  - TMA stores (the epilogue's cp.async.bulk.tensor shared -> global) at the output pitches N x 2 B.
// Loads: chip-wide (one CTA per SM, one thread issuing a ring of boxes) from an L2-resident tensor and
// from HBM (a 1 GiB tensor read once), and one CTA alone from L2 (the TMA unit's own rate). Each record
// gives bytes per SM clock, and the sectors (32 B) and lines (128 B) a box row touches on average.
//  - window (--window, issue 8, the twenty-ninth session): does the L2 keep less of a narrow column window at some
//    row pitches? The GEMM's sharers read a few k-blocks (128 B each) of every row at a time; a deep ring's paced walk
//    re-reads 2-3x the bytes at jagged pitches (data/ncu/walk_pitch_fine_h100), which neither the L2's capacity for
//    whole rows nor the HBM's streaming rate shows. If the L2's set index spreads r x pitch unevenly, a window of W
//    lines of 16384 rows thrashes its crowded sets at a smaller footprint at those pitches. Plain loads (ld.global.cg,
//    8 threads a 128-byte line, row-major over the window) read the window once after an L2 flush (cold), then
//    `passes` more times in the same order (LRU's worst case); records "window_pitch" with both rates, and the same
//    lines packed (contiguous) as the rate without the rows' crowding.
//  - lag (--lag, the same session): the sharers out of step: every row's k-blocks in turn, each followed by the
//    k-block `lag` behind; at which lag do the lagging reads miss, at which pitch? Records "lag_pitch".
//  - slice probe (--slice-probe, the same session): one line a launch, under ncu's per-slice counts: which L2 slice
//    serves which address.
//  - L2 latency map (--l2-latency-map, the same session): which L2 partition holds which address, by latency. One
//    thread on one chosen SM times chains of dependent loads (ld.global.cg) and of dependent atomics (atom.add 0, done
//    where the line lives) on each line of an L2-resident 16 MiB buffer: every line of its first 2 MiB (one page, so
//    bits 7..20 of the offset are the physical address's) and the first 512 lines of each other page, from ten SMs;
//    and the first 512 lines from every SM (which SMs sit by which partition). Records "l2_latency_map".
//  - L2 slice map (--l2-slice-map, the same session): which lines share an L2 slice, by contention. Atomics are done
//    at the line's home slice; warps on every SM hammer a few lines with red.global.add, and a launch takes up to twice
//    as long when two of its lines share a slice. Pairs (a reference, every line of a 2 MiB page), classes of a
//    sample, then every line of the page against chunks of the classes' references (a binary code of its class).
//    Records "l2_slice_*".
//  - L2 slices over many pages (--l2-slice-pages, the thirtieth session): a sample of lines in each of many 2 MiB
//    pages of a buffer allocated as mb_tma --box-pitch-table's, each against chunks of references of the 80 slices
//    the slice map found in one page: how a line's slice moves from page to page. Records "l2_slice_pages_*".
//  - HBM channel map (--hbm-channel-map, the thirtieth session): how evenly a pitched column of rows spreads over the
//    DRAM channels. Every SM streams R rows x W bytes of an 8 GiB buffer (ld.global.cg, each line once a launch, about
//    256 MiB a launch, far beyond the L2) column by column (the lines r x P + k x 128 of all rows for k, then k + 1:
//    the GEMM's in-step reads) or row by row (the same bytes in address order). A column on few channels streams at
//    their rate. Pitches 2^b (b = 7..30: which address bits move the channel) and the box-pitch tables' aligned
//    pitches of 16-64 KB. Records "hbm_map_*".
// Usage: mb_pitch [--quick] [--profile | --window [--fine | --ncu] | --lag [--ncu | --fine] | --slice-probe |
//                  --l2-latency-map | --l2-slice-map | --l2-slice-pages | --hbm-channel-map]
//   (--profile: a few short launches for ncu's L2 counters)
#include "mb_tma_common.cuh"

#include <chrono>
#include <cmath>

static bool g_quick = false;


// A 2-D tensor of `rows` rows of pitch_bytes each (every byte of the pitch is a tensor element, as for a
// K-major operand of K elements), boxes of box_inner x box_outer elements.
static CUtensorMap make_map(void* base, int elem_bytes, uint64_t rows, uint64_t pitch_bytes, uint32_t box_inner,
                            uint32_t box_outer, int swizzle) {
  CUtensorMap m;
  cuuint64_t dims[2] = {pitch_bytes / elem_bytes, rows};
  cuuint64_t strides[1] = {pitch_bytes};
  cuuint32_t box[2] = {box_inner, box_outer};
  cuuint32_t estr[2] = {1, 1};
  CUtensorMapSwizzle sw = swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                          : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                          : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapDataType dt = elem_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  // L2 promotion as in our GEMM kernel (gemm_sm90.cu)
  CUresult r = encode_fn()(&m, dt, 2, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    die("cuTensorMapEncodeTiled failed (%d): pitch %llu B, box %ux%u, swizzle %d", (int)r,
        (unsigned long long)pitch_bytes, box_inner, box_outer, swizzle);
  return m;
}

// ---------------------------------------------------------------- device (tma_store: mb_tma_common.cuh)

// Boxes are numbered b = row_block << nbx_log2 | column; counts are powers of two (no division in the
// issuing thread's loop: see mb_tma.cu).
struct Walk {
  uint32_t b, step, mask, nbx_mask, nbx_log2;
  __device__ __forceinline__ void coords(int inner, int outer, int origin, int& c0, int& c1) const {
    c0 = (int)(b & nbx_mask) * inner + origin;
    c1 = (int)(b >> nbx_log2) * outer;
  }
  __device__ __forceinline__ void next() { b = (b + step) & mask; }
};

// mode 0: boxes of an L2-resident tensor, every CTA walking all of them from its own start;
// mode 1: every box of a large tensor read once across the grid (HBM).
__global__ void pitch_load_kernel(const __grid_constant__ CUtensorMap m, int stages, int box_bytes, int iters,
                                  int inner, int outer, int origin, int nbx_log2, int nb, int mode,
                                  ClockProbe* probe, unsigned long long* cycles) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = aligned_base(raw), bars = base + stages * box_bytes;
  if (threadIdx.x != 0) return;
  init_stage_barriers(bars, stages);
  prefetch_map(&m);
  const bool lead = blockIdx.x == 0;
  if (lead) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
  Walk w{mode == 0 ? blockIdx.x * 13u : blockIdx.x, mode == 0 ? 7u : gridDim.x, (uint32_t)nb - 1,
         (1u << nbx_log2) - 1, (uint32_t)nbx_log2};
  w.b &= w.mask;
  int s = 0;
  uint32_t parity = 0;
  bool wrapped = false;
  const long long t0 = clk();
  for (int it = 0; it < iters; ++it, w.next()) {
    const uint32_t bar = bars + 8 * s;
    if (wrapped) mbar_wait(bar, parity);
    mbar_arrive_expect_tx(bar, box_bytes);
    int c0, c1;
    w.coords(inner, outer, origin, c0, c1);
    tma_load(base + s * box_bytes, &m, c0, c1, bar);
    if (++s == stages) { s = 0; if (wrapped) parity ^= 1; wrapped = true; }
  }
  for (int k = 0; k < stages; ++k) {  // drain (iters >= stages)
    mbar_wait(bars + 8 * s, parity);
    if (++s == stages) { s = 0; parity ^= 1; }
  }
  const long long t1 = clk();
  cycles[blockIdx.x] = t1 - t0;
  if (lead) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
}

// TMA stores of one staged box (filled once) to a walk of output boxes; at most 8 bulk groups in flight
// (wait_group.read 7), all writes complete (wait_group 0) before the clock stops.
__global__ void pitch_store_kernel(const __grid_constant__ CUtensorMap m, int box_bytes, int iters, int inner,
                                   int outer, int origin, int nbx_log2, int nb, int mode, ClockProbe* probe,
                                   unsigned long long* cycles) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = aligned_base(raw);
  uint32_t* words = reinterpret_cast<uint32_t*>(raw + (base - smem_u32(raw)));
  for (int i = threadIdx.x; i < box_bytes / 4; i += blockDim.x) words[i] = hash32(i) & 0x3f7f3f7fu;
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x != 0) return;
  prefetch_map(&m);
  const bool lead = blockIdx.x == 0;
  if (lead) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
  Walk w{mode == 0 ? blockIdx.x * 13u : blockIdx.x, mode == 0 ? 7u : gridDim.x, (uint32_t)nb - 1,
         (1u << nbx_log2) - 1, (uint32_t)nbx_log2};
  w.b &= w.mask;
  const long long t0 = clk();
  for (int it = 0; it < iters; ++it, w.next()) {
    int c0, c1;
    w.coords(inner, outer, origin, c0, c1);
    tma_store(&m, base, c0, c1);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 7;" ::: "memory");
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  const long long t1 = clk();
  cycles[blockIdx.x] = t1 - t0;
  if (lead) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
}

// window_kernel: `passes` reads of a window of w_lines 128-byte lines at the start of each of `rows` rows pitched
// pitch_bytes, in row-major order: thread g reads the 16-byte piece g mod (8 w_lines) of rows g / (8 w_lines) + j x
// band (band = threads / (8 w_lines), which the launch makes whole), four loads in flight, no division in the loop.
__device__ __forceinline__ uint4 ldcg(const void* a) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(a));
  return v;
}

__global__ void __launch_bounds__(512) window_kernel(const uint8_t* __restrict__ base, uint64_t pitch_bytes,
                                                     uint32_t rows, uint32_t w_lines, int passes, uint32_t* sink) {
  const uint32_t per_row = w_lines * 8, g = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t band = gridDim.x * blockDim.x / per_row, r0 = g / per_row;
  const uint8_t* first = base + (uint64_t)r0 * pitch_bytes + (g - r0 * per_row) * 16;
  const uint64_t step = (uint64_t)band * pitch_bytes;
  const uint32_t n = r0 < rows ? (rows - r0 + band - 1) / band : 0;   // rows this thread reads a pass
  uint32_t x = 0;
  for (int ps = 0; ps < passes; ++ps) {
    const uint8_t* a = first;
    uint32_t j = 0;
    for (; j + 4 <= n; j += 4, a += 4 * step) {
      const uint4 v0 = ldcg(a), v1 = ldcg(a + step), v2 = ldcg(a + 2 * step), v3 = ldcg(a + 3 * step);
      x ^= v0.x ^ v1.y ^ v2.z ^ v3.w;
    }
    for (; j < n; ++j, a += step) x ^= ldcg(a).x;
  }
  if (x == 0x9e3779b9u) sink[0] = x;
}

// lag_kernel: the GEMM's sharers out of step, in plain loads: every row's k-blocks (128 bytes each) in turn, and
// after k-block j that of a sharer `lag` k-blocks behind (j - lag). Thread g reads the 16-byte piece g mod 8 of row
// g / 8 (grid x 512 / 8 >= rows). Whether the lagging read hits depends on the L2 keeping `lag` k-blocks of every row.
// Each block's first thread records the global timer at its start and after the block's last read (block_ns: 2 per
// block), so the spread of the blocks' (64 rows') finishing times says how unevenly the rows' lines arrive.
__global__ void __launch_bounds__(512) lag_kernel(const uint8_t* __restrict__ base, uint64_t pitch_bytes,
                                                  uint32_t rows, int kblocks, int lag, uint32_t* sink,
                                                  unsigned long long* block_ns) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, row = g / 8;
  if (threadIdx.x == 0) block_ns[2 * blockIdx.x] = gtimer_ns();
  if (row >= rows) return;
  const uint8_t* a = base + (uint64_t)row * pitch_bytes + (g % 8) * 16;
  uint32_t x = 0;
  int j = 0;
  for (; j + 2 <= kblocks; j += 2) {
    const uint4 v0 = ldcg(a + j * 128), v1 = ldcg(a + (j + 1) * 128);
    x ^= v0.x ^ v1.y;
    if (j >= lag) {
      const uint4 u0 = ldcg(a + (j - lag) * 128), u1 = ldcg(a + (j + 1 - lag) * 128);
      x ^= u0.z ^ u1.w;
    }
  }
  if (x == 0x9e3779b9u) sink[0] = x;
  __syncthreads();
  if (threadIdx.x == 0) block_ns[2 * blockIdx.x + 1] = gtimer_ns();
}

// slice_probe_kernel: one warp reads one 128-byte line (8 threads, 16 bytes each) `reps` times from the L2, so ncu's
// per-slice counts (--print-metric-instances values) show which L2 slice serves that address.
__global__ void slice_probe_kernel(const uint8_t* __restrict__ line, int reps, uint32_t* sink) {
  uint32_t x = 0;
  const uint8_t* a = line + (threadIdx.x % 8) * 16;
  for (int i = 0; i < reps; ++i) x ^= ldcg(a).x + (uint32_t)i;
  if (x == 0x9e3779b9u) sink[0] = x;
}

// l2_latency_kernel (--l2-latency-map): on the SM whose %smid is `target` (one block per SM, held there by its shared
// memory; every other block leaves at once), one thread times each of n lines (line indices into buf, whose words are
// all 0, so every loaded value is the next offset: each load waits for the one before and none can merge): one load
// (the SM's first touch since the warm-up), then kReps chains of kChain dependent ld.global.cg (L2, not L1) and kReps
// chains of kChain dependent atom.global.add 0 (performed at the line's home slice). The clock is read after a shared
// store of the chain's last value, which waits for it. out: 5 floats a line (first, load min, load median, atomic
// min, atomic median; cycles a link, the timing's own overhead included); info: found, the overhead (the least of 8
// empty timings), and clock64 / %globaltimer at the start and the end (the SM clock).
static const int kChain = 8, kReps = 3;

__device__ __forceinline__ uint32_t ldcg_u32(const uint8_t* p) {
  uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ uint32_t atom_add0(uint8_t* p) {
  uint32_t v;
  asm volatile("atom.global.add.u32 %0, [%1], 0;" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ float med3(float a, float b, float c) { return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c)); }

__global__ void __launch_bounds__(32) l2_latency_kernel(uint8_t* buf, const uint32_t* lines, int n, int target,
                                                        float* out, unsigned long long* info) {
  uint32_t sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (sm != (uint32_t)target || threadIdx.x != 0) return;
  if (atomicCAS(reinterpret_cast<unsigned long long*>(info), 0ull, 1ull) != 0ull) return;   // one block measures
  __shared__ volatile uint32_t dep;   // a store of a value waits for it: the clock read after it waits too
  info[2] = clk();
  info[3] = gtimer_ns();
  long long over = 1ll << 40;
  for (int k = 0; k < 8; ++k) {
    const long long t0 = clk();
    dep = (uint32_t)k;
    over = min(over, clk() - t0);
  }
  info[1] = (unsigned long long)over;
  for (int i = 0; i < n; ++i) {
    uint8_t* line = buf + (size_t)lines[i] * 128;
    dep = (uint32_t)(size_t)line;   // the line's address is known before the clock starts
    long long t0 = clk();
    uint32_t v = ldcg_u32(line);
    dep = v;
    const float first = (float)(clk() - t0);
    float ld[kReps], at[kReps];
    for (int r = 0; r < kReps; ++r) {
      t0 = clk();
#pragma unroll
      for (int k = 0; k < kChain; ++k) v = ldcg_u32(line + v);
      dep = v;
      ld[r] = (float)(clk() - t0) / kChain;
    }
    for (int r = 0; r < kReps; ++r) {
      t0 = clk();
#pragma unroll
      for (int k = 0; k < kChain; ++k) v = atom_add0(line + v);
      dep = v;
      at[r] = (float)(clk() - t0) / kChain;
    }
    float* o = out + 5 * (size_t)i;
    o[0] = first;
    o[1] = fminf(ld[0], fminf(ld[1], ld[2]));
    o[2] = med3(ld[0], ld[1], ld[2]);
    o[3] = fminf(at[0], fminf(at[1], at[2]));
    o[4] = med3(at[0], at[1], at[2]);
  }
  info[4] = clk();
  info[5] = gtimer_ns();
}

// Every line of the buffer read twice (ld.global.cg) by every SM: L2-resident before each measurement.
__global__ void l2_warm_kernel(const uint8_t* buf, size_t bytes, uint32_t* sink) {
  uint32_t x = 0;
  const size_t step = (size_t)gridDim.x * blockDim.x * 16;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 16; i < bytes; i += step) x ^= ldcg(buf + i).x;
  if (x == 0x9e3779b9u) sink[0] = x;
}

// l2_hammer_kernel (--l2-slice-map): atomic traffic on n lines of buf, to find the lines that share an L2 slice by its
// throughput. Warp w of the grid (w < n x per_line, per_line = the grid's warps / n) works on line lines[w mod n]: its
// lanes 0..words-1 each perform `iters` red.global.add.u32 1 on one word of that line, back to back (one request a
// warp and iteration; no return value, so a warp keeps many in flight). Atomics are done at the line's home slice
// (see l2_latency_kernel): two lines on one slice give it twice the requests of a slice holding one, and the launch
// takes up to twice as long. The warps of a line rotate through its 32 words (lane + rank x words).
__global__ void __launch_bounds__(512) l2_hammer_kernel(uint32_t* buf, const uint32_t* lines, int n, int words,
                                                        int iters) {
  const uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  const uint32_t per_line = gridDim.x * blockDim.x / 32 / n;
  if (w >= per_line * n || lane >= (uint32_t)words) return;
  uint32_t* p = buf + (size_t)lines[w % n] * 32 + ((lane + w / n * words) & 31);
#pragma unroll 8
  for (int i = 0; i < iters; ++i) asm volatile("red.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}

// hbm_stream_kernel (--hbm-channel-map): reads rows x width bytes at row pitch `pitch` once, 16 bytes a thread and
// load, 8 threads a 128-byte line. Line L of the order: column-major (col = 1) is row L mod rows, k-block L / rows;
// row-major (col = 0) is row L / kpr, k-block L mod kpr (kpr = width / 128). Two loads in flight a thread.
__global__ void __launch_bounds__(512) hbm_stream_kernel(const uint8_t* __restrict__ base, uint64_t pitch,
                                                         uint32_t rows, uint32_t kpr, int col, uint32_t* sink) {
  const uint64_t n = (uint64_t)rows * kpr * 8, step = (uint64_t)gridDim.x * blockDim.x;
  uint32_t x = 0;
  auto addr = [&](uint64_t q) {
    const uint32_t L = (uint32_t)(q >> 3), d = col ? L / rows : L / kpr, m = L - d * (col ? rows : kpr);
    return base + (uint64_t)(col ? m : d) * pitch + (uint64_t)(col ? d : m) * 128 + (q & 7) * 16;
  };
  uint64_t q = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  for (; q + step < n; q += 2 * step) {
    const uint4 a = ldcg(addr(q)), b = ldcg(addr(q + step));
    x ^= a.x ^ b.y;
  }
  if (q < n) x ^= ldcg(addr(q)).z;
  if (x == 0x9e3779b9u) sink[0] = x;
}

// ---------------------------------------------------------------- host
struct Ctx {
  int sms;
  uint8_t *small, *big;      // L2-resident (<= 9 MiB) and HBM (>= 1 GiB) tensors, pitch up to kMaxPitch
  ClockProbe* probe;
  unsigned long long* cycles;
};

static const uint64_t kMaxPitch = 4224;
static const uint64_t kSmallRows = 2048, kBigRows = 262144;
static const int kBoxBytes = 16384;      // 128 B x 128 rows or 64 B x 256 rows (an A/B box of our GEMM)
static const int kSpanBytes = 1024;      // box columns cover the first 1 KB of every row (+ the origin)

struct Case {
  const char* op;       // "load" or "store"
  const char* sweep;    // "origin" or "pitch"
  int elem_bytes;
  int swizzle;
  int row_bytes;        // box row (inner extent x element bytes)
  uint64_t pitch;       // bytes
  int origin;           // bytes added to every box's inner coordinate
  int mode;             // 0 L2, 1 HBM
  int grid;             // CTAs
};

static int pow2_align(uint64_t x) {
  int a = 1;
  while (a < 128 && x % (2 * a) == 0) a *= 2;
  return a;
}

// Average 32-byte sectors and 128-byte lines one box row touches, over every row of every box walked.
static void geometry(const Case& c, uint64_t rows, double& sectors, double& lines, double& frac_aligned) {
  const int nbx = kSpanBytes / c.row_bytes;
  double s = 0, l = 0, a = 0;
  for (uint64_t r = 0; r < rows; ++r)
    for (int j = 0; j < nbx; ++j) {
      const uint64_t start = r * c.pitch + (uint64_t)j * c.row_bytes + c.origin, end = start + c.row_bytes - 1;
      s += (double)(end / 32 - start / 32 + 1);
      l += (double)(end / 128 - start / 128 + 1);
      a += (start % 128 == 0) ? 1.0 : 0.0;
    }
  const double n = (double)rows * nbx;
  sectors = s / n;
  lines = l / n;
  frac_aligned = a / n;
}

static void run_case(Ctx& ctx, const Case& c, int reps) {
  const uint64_t rows = c.mode == 0 ? kSmallRows : kBigRows;
  uint8_t* base = c.mode == 0 ? ctx.small : ctx.big;
  const uint32_t inner = c.row_bytes / c.elem_bytes;
  const bool store = !strcmp(c.op, "store");
  const uint32_t outer = store ? 64 : kBoxBytes / c.row_bytes;   // the TMA-store epilogue stores 64-row boxes
  const int box_bytes = (int)(inner * outer * c.elem_bytes);
  const int nbx = kSpanBytes / c.row_bytes;
  int nbx_log2 = 0, nb_log2 = 0;
  while ((1 << nbx_log2) < nbx) ++nbx_log2;
  while ((1ull << nb_log2) < (uint64_t)nbx * (rows / outer)) ++nb_log2;
  const int nb = 1 << nb_log2;
  CUtensorMap m = make_map(base, c.elem_bytes, rows, c.pitch, inner, outer, c.swizzle);
  const int stages = std::max(2, std::min(8, (160 * 1024) / box_bytes));
  const size_t per_cta = c.mode == 0 ? ((size_t)(g_quick ? 4 : 32) << 20) : (size_t)nb * box_bytes / c.grid;
  const int iters = std::max(stages, (int)(per_cta / box_bytes));
  const int smem = std::max(stages * box_bytes + 8 * stages + 2048, 120 * 1024);   // 1 CTA per SM
  if (store) {
    CK(cudaFuncSetAttribute((const void*)pitch_store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  } else {
    CK(cudaFuncSetAttribute((const void*)pitch_load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  }
  const int origin_elems = c.origin / c.elem_bytes;
  auto launch = [&] {
    if (store)
      pitch_store_kernel<<<c.grid, 128, smem>>>(m, box_bytes, iters, inner, outer, origin_elems, nbx_log2, nb,
                                                c.mode, ctx.probe, ctx.cycles);
    else
      pitch_load_kernel<<<c.grid, 32, smem>>>(m, stages, box_bytes, iters, inner, outer, origin_elems, nbx_log2,
                                              nb, c.mode, ctx.probe, ctx.cycles);
  };
  double sectors, lines, aligned;
  geometry(c, rows, sectors, lines, aligned);
  if (reps == 0) {   // --profile: one launch, for ncu's counters (matched to this record by order)
    launch();
    CK_LAUNCH();
    Rec("tma_pitch_profile").str("op", c.op).str("sweep", c.sweep).num("row_bytes", c.row_bytes)
        .num("swizzle", c.swizzle).num("pitch_bytes", (double)c.pitch).num("origin_bytes", c.origin)
        .num("ctas", c.grid).num("iters", iters).num("box_bytes", box_bytes)
        .num("box_rows_loaded", (double)iters * c.grid * outer).num("bytes_loaded", (double)iters * c.grid * box_bytes)
        .num("sectors_per_row", sectors).num("lines_per_row", lines).emit();
    return;
  }
  double ms = time_ms(reps, launch);
  std::vector<unsigned long long> cyc(c.grid);
  CK(cudaMemcpy(cyc.data(), ctx.cycles, c.grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  ClockProbe p;
  CK(cudaMemcpy(&p, ctx.probe, sizeof p, cudaMemcpyDeviceToHost));
  std::vector<double> bpc;
  for (auto x : cyc) bpc.push_back((double)iters * box_bytes / (double)x);
  const double bytes = (double)iters * box_bytes * c.grid, hz = probe_hz(p);
  Rec("tma_pitch").str("op", c.op).str("sweep", c.sweep).str("source", c.mode == 0 ? "l2" : "hbm")
      .str("dtype", c.elem_bytes == 2 ? "bf16" : "fp8").num("elem_bytes", c.elem_bytes).num("swizzle", c.swizzle)
      .num("row_bytes", c.row_bytes).num("box_inner", inner).num("box_outer", outer).num("box_bytes", box_bytes)
      .num("pitch_bytes", (double)c.pitch).num("k_elems", (double)(c.pitch / c.elem_bytes))
      .num("pitch_align", pow2_align(c.pitch)).num("origin_bytes", c.origin).num("ctas", c.grid)
      .num("stages", store ? 8 : stages).num("iters", iters).num("rows", (double)rows)
      .num("sectors_per_row", sectors).num("lines_per_row", lines).num("row_line_aligned_fraction", aligned)
      .num("bytes_per_clock_per_sm", median(bpc))
      .num("min_bytes_per_clock_per_sm", *std::min_element(bpc.begin(), bpc.end()))
      .num("chip_bytes_per_s", bytes / (ms * 1e-3)).num("chip_bytes_per_clock", hz > 0 ? bytes / (ms * 1e-3) / hz : 0)
      .num("ms", ms).num("sm_clock_hz", hz).num("reps", reps).emit();
}

static std::vector<Case> cases() {
  std::vector<Case> out;
  struct Row { int row, swz; };
  const Row rows[] = {{128, 128}, {64, 64}};
  // origin sweep: bf16, aligned pitch, L2, all SMs
  for (const Row& r : rows)
    for (int o = 0; o < 128; o += 16) out.push_back({"load", "origin", 2, r.swz, r.row, 4096, o, 0, 0});
  // pitch sweep: bf16 and fp8, K from the issue's controlled pairs
  const uint64_t k_bf16[] = {2048, 2016, 2000, 2064, 2008}, k_fp8[] = {2048, 2112, 2016, 2000, 2064};
  for (int mode = 0; mode < 2; ++mode)
    for (int eb : {2, 1})
      for (const Row& r : rows)
        for (int i = 0; i < 5; ++i)
          out.push_back({"load", "pitch", eb, r.swz, r.row, (eb == 2 ? k_bf16[i] : k_fp8[i]) * eb, 0, mode, 0});
  // one CTA alone (the TMA unit's own rate), 128-byte rows, L2
  for (int eb : {2, 1})
    for (int i = 0; i < 5; ++i)
      out.push_back({"load", "pitch", eb, 128, 128, (eb == 2 ? k_bf16[i] : k_fp8[i]) * eb, 0, 0, 1});
  // TMA stores of the epilogue's 64 x 64 bf16 boxes (128B swizzle) at output pitches N x 2 B
  const uint64_t n_out[] = {2048, 2016, 2000, 2064, 2008};
  for (int mode = 0; mode < 2; ++mode)
    for (uint64_t n : n_out) out.push_back({"store", "pitch", 2, 128, 128, n * 2, 0, mode, 0});
  return out;
}

// ncu: a few short chip-wide L2 loads (same kernel), in this order; profile with
//   ncu --clock-control none --metrics lts__t_sectors_srcunit_tex.sum,lts__t_requests_srcunit_tex.sum ...
static std::vector<Case> profile_cases() {
  std::vector<Case> out;
  for (int o : {0, 16, 32, 64}) out.push_back({"load", "origin", 2, 128, 128, 4096, o, 0, 0});
  for (uint64_t k : {2016ull, 2000ull, 2008ull}) out.push_back({"load", "pitch", 2, 128, 128, k * 2, 0, 0, 0});
  for (int o : {0, 16, 80, 96}) out.push_back({"load", "origin", 2, 64, 64, 4096, o, 0, 0});
  return out;
}

// The --window and --lag sweeps' shared set-up: a 256 MiB buffer whose read evicts the L2, and their pitches (--ncu:
// ten, the walks' good and bad among them; --fine: 128-byte steps from `fine_from` to `fine_to`; else 512-byte steps
// over 16..64 KB).
struct Flusher {
  uint4* buf = nullptr;
  size_t n = ((size_t)256 << 20) / 16;
  uint32_t* sink = nullptr;
  Flusher() {
    CK(cudaMalloc(&buf, n * 16));
    CK(cudaMemset(buf, 0x3c, n * 16));
    CK(cudaMalloc(&sink, 4));
  }
  ~Flusher() {
    cudaFree(buf);
    cudaFree(sink);
  }
  void flush(int sms) const { flush_kernel<<<sms * 4, 512>>>(buf, n, sink); }
};

static std::vector<uint64_t> sweep_pitches(bool ncu, bool fine, uint64_t fine_from, uint64_t fine_to) {
  std::vector<uint64_t> pitches;
  if (ncu) pitches = {16384, 18432, 22016, 31744, 32768, 33792, 44032, 49152, 65024, 65536};
  else if (fine) for (uint64_t p = fine_from; p <= fine_to; p += 128) pitches.push_back(p);
  else for (uint64_t p = 16384; p <= 65536; p += 512) pitches.push_back(p);
  return pitches;
}

// --window: every pitch of 16384..65536 bytes in 512-byte steps (bf16 K = 8192..32768 in steps of 256, the paced
// walks' sweep; --fine: 128-byte steps from 16384 to 32768), windows of 2..24 lines (4..48 MiB over 16384 rows), 64
// warm passes; each window size also packed (pitch = the window's bytes: the same lines, contiguous), the rate of the
// same bytes without row crowding. --ncu: a few pitches, 8 warm passes, one launch each, for ncu's L2 hit rate.
static void bench_window(Ctx& ctx, bool fine, bool ncu) {
  const uint32_t rows = 16384;
  const int passes = ncu ? 8 : 64, reps = ncu || g_quick ? 1 : 3;
  const Flusher fl;
  uint32_t* sink = fl.sink;
  std::vector<uint64_t> pitches = sweep_pitches(ncu, fine, 16384, 32768);
  pitches.push_back(0);   // 0: packed
  const std::vector<uint32_t> windows = ncu ? std::vector<uint32_t>{8, 16, 24}
                                            : std::vector<uint32_t>{2, 4, 6, 8, 12, 16, 24};
  const int grid = ctx.sms * 4;   // 512 x grid threads: a whole number of rows' pieces for every window below
  for (uint64_t pitch0 : pitches) {
    for (uint32_t w : windows) {
      const uint64_t pitch = pitch0 ? pitch0 : (uint64_t)w * 128;
      if ((uint64_t)(rows - 1) * pitch + w * 128 > kBigRows * kMaxPitch)
        die("window: pitch %llu does not fit", (unsigned long long)pitch);
      if ((uint64_t)grid * 512 % (w * 8)) die("window: %d threads do not cover whole rows of %u lines", grid * 512, w);
      const double bytes = (double)rows * w * 128;
      std::vector<double> cold, warm;
      for (int r = 0; r < reps; ++r) {
        fl.flush(ctx.sms);
        cold.push_back(event_ms([&] { window_kernel<<<grid, 512>>>(ctx.big, pitch, rows, w, 1, sink); }));
        warm.push_back(event_ms([&] { window_kernel<<<grid, 512>>>(ctx.big, pitch, rows, w, passes, sink); }));
      }
      Rec("window_pitch").num("pitch_bytes", (double)pitch).num("pitch_bf16", (double)pitch / 2)
          .num("packed", pitch0 ? 0 : 1).num("rows", rows).num("window_lines", w).num("window_bytes", bytes)
          .num("passes", passes).num("cold_bytes_per_s", bytes / (median(cold) * 1e-3))
          .num("warm_bytes_per_s", bytes * passes / (median(warm) * 1e-3)).num("warm_ms", median(warm)).emit();
    }
  }
}

// --lag: 16384 rows (an 8192x8192 GEMM's A and B), 96 k-blocks, the lagging sharer 0..24 k-blocks behind (up to 48 MiB
// of k-blocks between a line's two reads), every pitch of 16384..65536 bytes in 512-byte steps, and packed rows (pitch
// 96 x 128 bytes: the same lines back to back), after an L2 flush; --ncu: ten pitches, one launch each, for ncu's HBM
// bytes (over the 192 MiB read once: what the lagging reads missed). Records "lag_pitch".
// --lag --fine: lags 0 and 12 only, every pitch of 4096..65536 bytes in 128-byte steps (k-blocks: 96, or as many as
// a row holds).
static void bench_lag(Ctx& ctx, bool ncu, bool fine) {
  const uint32_t rows = 16384;
  const int reps = ncu || g_quick ? 1 : 3;
  const Flusher fl;
  uint32_t* sink = fl.sink;
  std::vector<uint64_t> pitches = sweep_pitches(ncu, fine, 4096, 65536);
  pitches.push_back(96 * 128);   // packed
  const std::vector<int> lags = fine ? std::vector<int>{0, 12} : std::vector<int>{0, 4, 8, 12, 16, 20, 24};
  const int grid = (int)((rows * 8 + 511) / 512);
  unsigned long long* block_ns;
  CK(cudaMalloc(&block_ns, 2 * grid * sizeof(unsigned long long)));
  std::vector<unsigned long long> h(2 * grid);
  for (size_t pi = 0; pi < pitches.size(); ++pi) {
    const uint64_t pitch = pitches[pi];
    const bool packed = pi + 1 == pitches.size();
    const int kblocks = (int)std::min<uint64_t>(96, pitch / 128) & ~1;   // the kernel reads them in pairs
    if ((uint64_t)(rows - 1) * pitch + kblocks * 128 > kBigRows * kMaxPitch)
      die("lag: pitch %llu does not fit", (unsigned long long)pitch);
    for (int lag : lags) {
      std::vector<double> ms;
      for (int r = 0; r < reps; ++r) {
        fl.flush(ctx.sms);
        ms.push_back(event_ms([&] { lag_kernel<<<grid, 512>>>(ctx.big, pitch, rows, kblocks, lag, sink,
                                                              block_ns); }));
      }
      // the last launch's blocks: finishing times after the first block's start, as fractions of the last
      CK(cudaMemcpy(h.data(), block_ns, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      unsigned long long t0 = h[0];
      for (int b = 0; b < grid; ++b) t0 = std::min(t0, h[2 * b]);
      std::vector<double> end(grid);
      for (int b = 0; b < grid; ++b) end[b] = (double)(h[2 * b + 1] - t0);
      std::sort(end.begin(), end.end());
      const double last = end.back();
      const double once = (double)rows * kblocks * 128, read = once + (double)rows * (kblocks - lag) * 128;
      Rec("lag_pitch").num("pitch_bytes", (double)pitch).num("pitch_bf16", (double)pitch / 2)
          .num("packed", packed ? 1 : 0).num("rows", rows).num("kblocks", kblocks)
          .num("lag_kblocks", lag).num("lag_bytes", (double)lag * rows * 128).num("bytes_once", once)
          .num("bytes_read", read).num("ms", median(ms)).num("bytes_per_s", read / (median(ms) * 1e-3))
          .num("blocks", grid).num("block_end_p10", end[grid / 10] / last).num("block_end_p50", end[grid / 2] / last)
          .num("block_end_first", end[0] / last).num("last_block_ns", last).emit();
    }
  }
  CK(cudaFree(block_ns));
}

// --slice-probe (issue 8, the twenty-ninth session: the H100's bad row pitches follow the address mapping of the lines
// in flight, and no simple rule gives it): one launch a line, each reading the line at byte offset off of the big
// tensor 1000 times from one warp, for the first 64 lines and for single address bits 13..30 (off = 2^b); under ncu
// with --print-metric-instances values, the L2 slice that serves each line. Records "slice_probe" (the offsets, in
// launch order).
static void bench_slice_probe(Ctx& ctx) {
  uint32_t* sink;
  CK(cudaMalloc(&sink, 4));
  std::vector<uint64_t> offs;
  for (uint64_t j = 0; j < 64; ++j) offs.push_back(j * 128);
  for (int b = 13; b <= 30; ++b) offs.push_back((uint64_t)1 << b);
  for (uint64_t off : offs) {
    if (off + 128 > kBigRows * kMaxPitch) die("slice-probe: offset %llu beyond the tensor", (unsigned long long)off);
    slice_probe_kernel<<<1, 32>>>(ctx.big + off, 1000, sink);
    CK_LAUNCH();
    Rec("slice_probe").num("offset_bytes", (double)off).num("reps", 1000).emit();
  }
  CK(cudaFree(sink));
}

// A device buffer of `bytes` whose base lies on a 2 MiB boundary (within one such page the virtual offset's bits 0..20
// are the physical address's); *raw is what to cudaFree.
static const size_t kPage = (size_t)2 << 20;
static uint8_t* alloc_page_aligned(size_t bytes, uint8_t** raw) {
  CK(cudaMalloc(raw, bytes + kPage));
  return *raw + ((kPage - (size_t)(uintptr_t)*raw % kPage) % kPage);
}

// Appends "key": [v(0), v(1), ..., v(n - 1)] to a record, each value printed by fmt (a format for one double).
template <class F>
static void put_array(Rec& r, const char* key, size_t n, const char* fmt, F v) {
  r.s += std::string(", \"") + key + "\": [";
  for (size_t i = 0; i < n; ++i) {
    char b[48];
    snprintf(b, sizeof b, fmt, (double)v(i));
    r.s += (i ? ", " : "") + std::string(b);
  }
  r.s += "]";
}

// ", key: [[a, b, ...], [...], ...]": a record's list of integer lists (the slice probes' slots).
static void put_nested(Rec& r, const char* key, const std::vector<std::vector<int>>& v) {
  r.s += std::string(", \"") + key + "\": [";
  for (size_t i = 0; i < v.size(); ++i) {
    r.s += i ? ", [" : "[";
    for (size_t j = 0; j < v[i].size(); ++j) r.s += (j ? ", " : "") + std::to_string(v[i][j]);
    r.s += "]";
  }
  r.s += "]";
}

// --l2-latency-map (the twenty-ninth session: the H100's bad row pitches follow the address mapping of the lines in
// flight; the ncu slice probe gave no per-slice counts): l2_latency_kernel over a 16 MiB buffer (zeroed, its base on a
// 2 MiB boundary), warmed before every launch. "main": from each of ten SMs (smid 0, 1, 16, 30, 50, 66, 80, 100, 115,
// 131, those below the SM count), every line of the first 2 MiB page and the first 512 lines of each of the 7 other
// pages; "survey": from every smid below the SM count + 12 (one past the ids in use finds no block), the first 512
// lines. One record a launch "l2_latency_info" (sm, found, the SM clock, the timing overhead) and records
// "l2_latency_map" of up to 256 lines each (sm, set, the lines' byte offsets, and the cycles a link: first, ld_min,
// ld_med, atom_min, atom_med).
static void bench_l2_latency_map(int sms) {
  const size_t page = kPage, bytes = (size_t)16 << 20;
  uint8_t* raw;
  uint8_t* buf = alloc_page_aligned(bytes, &raw);
  CK(cudaMemset(buf, 0, bytes));
  uint32_t* sink;
  CK(cudaMalloc(&sink, 4));
  std::vector<uint32_t> main_set, survey;
  const uint32_t page_lines = (uint32_t)(page / 128);
  for (uint32_t l = 0; l < page_lines; ++l) main_set.push_back(l);
  for (uint32_t pg = 1; pg < bytes / page; ++pg)
    for (uint32_t l = 0; l < 512; ++l) main_set.push_back(pg * page_lines + l);
  for (uint32_t l = 0; l < 512; ++l) survey.push_back(l);
  if (g_quick) main_set.resize(2048);
  uint32_t* d_lines;
  float* d_out;
  unsigned long long* d_info;
  CK(cudaMalloc(&d_lines, main_set.size() * 4));
  CK(cudaMalloc(&d_out, main_set.size() * 5 * sizeof(float)));
  CK(cudaMalloc(&d_info, 6 * sizeof(unsigned long long)));
  const int smem = 120 * 1024;   // over half an SM's shared memory: one block on every SM
  CK(cudaFuncSetAttribute((const void*)l2_latency_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  Rec("l2_latency_buffer").num("bytes", (double)bytes).num("base_mod_2mib", (double)((uintptr_t)buf % page))
      .num("chain", kChain).num("reps", kReps).num("main_lines", (double)main_set.size())
      .num("survey_lines", (double)survey.size()).emit();
  auto run = [&](const char* set, const std::vector<uint32_t>& lines, int sm) {
    const int n = (int)lines.size();
    CK(cudaMemcpy(d_lines, lines.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_info, 0, 6 * sizeof(unsigned long long)));
    l2_warm_kernel<<<sms * 4, 512>>>(buf, bytes, sink);
    l2_latency_kernel<<<sms, 32, smem>>>(buf, d_lines, n, sm, d_out, d_info);
    CK_LAUNCH();
    unsigned long long info[6];
    CK(cudaMemcpy(info, d_info, sizeof info, cudaMemcpyDeviceToHost));
    const double ns = (double)(info[5] - info[3]);
    Rec("l2_latency_info").str("set", set).num("sm", sm).num("found", (double)info[0])
        .num("overhead_cycles", (double)info[1])
        .num("sm_clock_hz", info[0] && ns > 0 ? (double)(info[4] - info[2]) / ns * 1e9 : 0).num("lines", n).emit();
    if (!info[0]) return;
    std::vector<float> h((size_t)n * 5);
    CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const char* names[5] = {"first", "ld_min", "ld_med", "atom_min", "atom_med"};
    for (int c0 = 0; c0 < n; c0 += 256) {
      const int c1 = std::min(n, c0 + 256);
      Rec r("l2_latency_map");
      r.str("set", set).num("sm", sm);
      put_array(r, "offsets", c1 - c0, "%.0f", [&](size_t i) { return (double)lines[c0 + i] * 128; });
      for (int f = 0; f < 5; ++f)
        put_array(r, names[f], c1 - c0, "%.1f", [&](size_t i) { return (double)h[(c0 + i) * 5 + f]; });
      r.emit();
    }
  };
  for (int sm : {0, 1, 16, 30, 50, 66, 80, 100, 115, 131})
    if (sm < sms) run("main", main_set, sm);
  for (int sm = 0; sm < sms + 12; ++sm) run("survey", survey, sm);
  CK(cudaFree(raw));
  CK(cudaFree(sink));
  CK(cudaFree(d_lines));
  CK(cudaFree(d_out));
  CK(cudaFree(d_info));
}

// --l2-slice-map (the twenty-ninth session: the home L2 partition, the parity of address bits 12, 13, 16, 17, 19, is
// balanced at every box-pitch-table pitch; which lines share a slice?): l2_hammer_kernel on lines of one 2 MiB page
// (zeroed, warmed; line indices 0..16383 below, every launch one CTA of 16 warps on every SM), each launch timed by
// events around it, in batches. A time is scaled to q requests a line (`us`: the event microseconds x q / the
// requests each line got; whole microseconds in phases 2, 3 and 5). Phases, each with its records:
//  1. "l2_slice_cal": requests of 1, 8 or 32 words (each variant at q = 65536): a reference R (lines 0 and 34) alone,
//     then with R ^ d (d = 0..31: R itself and its aligned 4 KB; and d = 2^5..2^13) and 24 scattered lines, 3 times;
//     "l2_slice_cal_split": Otsu's split of the pairs' times (logs). The variant whose slow class (two pairs at least)
//     stands furthest above the fast one is kept, q is set so that a fast pair takes about 80 us, and the calibration
//     is repeated once at it. "l2_slice_setup": the choice, the pair times of another slice (t_other, the fast
//     class), of one slice (t_same, the slow class), of the same line, of R alone, and the cut between the classes.
//  2. "l2_slice_pair": for 8 references (lines 0, 2, 10001, 15000 in one partition, 34, 296, 48, 40 in the other),
//     the pair (R, X) for every line X of the page, once (records of 1024 consecutive lines X).
//  3. "l2_slice_greedy": classes of a sample (one scattered line in each aligned 16 lines: 1024). The first line not
//     yet in a class is a new class's reference; every line not yet in a class is timed with it; those over the cut
//     join the class.
//  4. "l2_slice_load": the first m classes' references together (m = 1, 2, 4, ... and all, 3 times): how many lines of
//     distinct slices the chip hammers at the rate of one. chunk: the most lines whose time stays under the quarter
//     point t_other x (cut / t_other)^0.5, less one for X.
//  5. "l2_slice_group_plan", "l2_slice_group": every line X of the page with chunks of references (slots). Class k
//     has the code (37 k + 11) mod 128; for each code bit b, the references whose bit is 1 (side 1) and those whose
//     bit is 0 (side 0), in chunks. X's slot is slow where it holds X's class, so X's code is read off the slots (the
//     program's own decode: "l2_slice_group_summary"). With a chunk of 1, a slot for each reference (bit -1).
// Phases stop at a deadline 150 s after the start (records say how far they got).
static std::chrono::steady_clock::time_point g_deadline;
static bool past_deadline() { return std::chrono::steady_clock::now() > g_deadline; }

static uint32_t mix32(uint32_t x) {   // host twin of hash32
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

struct SliceHammer {
  uint32_t* buf;
  int sms, words = 32;
  double q = 65536;                     // requests a line each time is scaled to
  uint32_t* d_lines = nullptr;
  size_t cap = 0;
  std::vector<cudaEvent_t> ev;
  static const int kBatch = 512;
  static const int kSmem = 120 * 1024;  // one block on every SM
  SliceHammer(uint32_t* b, int s) : buf(b), sms(s), ev(kBatch + 1) {
    for (auto& e : ev) CK(cudaEventCreate(&e));
    CK(cudaFuncSetAttribute((const void*)l2_hammer_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  }
  ~SliceHammer() {
    for (auto& e : ev) cudaEventDestroy(e);
    cudaFree(d_lines);
  }
  // Microseconds of each launch (one a set of lines), scaled to q requests a line.
  std::vector<double> time_us(const std::vector<std::vector<uint32_t>>& sets) {
    std::vector<double> out;
    const int warps = sms * 16;
    for (size_t b0 = 0; b0 < sets.size(); b0 += kBatch) {
      const size_t b1 = std::min(sets.size(), b0 + kBatch);
      std::vector<uint32_t> flat;
      std::vector<size_t> at;
      for (size_t i = b0; i < b1; ++i) {
        if (sets[i].empty() || (int)sets[i].size() > warps) die("l2-slice-map: a launch of %zu lines", sets[i].size());
        at.push_back(flat.size());
        flat.insert(flat.end(), sets[i].begin(), sets[i].end());
      }
      if (flat.size() > cap) {
        CK(cudaFree(d_lines));
        cap = flat.size() * 2;
        CK(cudaMalloc(&d_lines, cap * 4));
      }
      CK(cudaMemcpy(d_lines, flat.data(), flat.size() * 4, cudaMemcpyHostToDevice));
      std::vector<double> reqs;
      CK(cudaEventRecord(ev[0]));
      for (size_t i = b0; i < b1; ++i) {
        const int n = (int)sets[i].size(), per_line = warps / n;
        const int iters = std::max(1, (int)std::lround(q / per_line));
        l2_hammer_kernel<<<sms, 512, kSmem>>>(buf, d_lines + at[i - b0], n, words, iters);
        CK(cudaEventRecord(ev[i - b0 + 1]));
        reqs.push_back((double)per_line * iters);
      }
      CK(cudaGetLastError());
      CK(cudaEventSynchronize(ev[b1 - b0]));
      for (size_t i = 0; i < b1 - b0; ++i) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
        out.push_back(ms * 1e3 * q / reqs[i]);
      }
    }
    return out;
  }
};

// Otsu's two-class split of the logs of positive times: the cut (geometric mean of the two values around it), the
// classes' geometric means and the high class's count.
struct TwoClass { double cut, lo, hi; int n_hi; };
static TwoClass two_class(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  TwoClass best{v.empty() ? 0 : v.back() * 2, 1, 1, 0};
  double best_between = -1, total = 0;
  for (double x : v) total += std::log(x);
  double lo_sum = 0;
  for (size_t i = 1; i < n; ++i) {
    lo_sum += std::log(v[i - 1]);
    if (v[i] == v[i - 1]) continue;
    const double m_lo = lo_sum / i, m_hi = (total - lo_sum) / (n - i);
    const double between = (double)i * (n - i) * (m_hi - m_lo) * (m_hi - m_lo);
    if (between > best_between) {
      best_between = between;
      best = {std::sqrt(v[i - 1] * v[i]), std::exp(m_lo), std::exp(m_hi), (int)(n - i)};
    }
  }
  return best;
}

static double median_of(const std::vector<double>& v, size_t from, size_t step, size_t n) {
  std::vector<double> x;
  for (size_t i = 0; i < n; ++i) x.push_back(v[from + i * step]);
  return median(x);
}

static void bench_l2_slice_map(int sms) {
  g_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  const uint32_t page_lines = (uint32_t)(kPage / 128), n_lines = g_quick ? 1024 : page_lines;
  uint8_t* raw;
  uint8_t* buf = alloc_page_aligned(kPage, &raw);
  CK(cudaMemset(buf, 0, kPage));
  uint32_t* sink;
  CK(cudaMalloc(&sink, 4));
  l2_warm_kernel<<<sms * 4, 512>>>(buf, kPage, sink);
  CK_LAUNCH();
  SliceHammer h(reinterpret_cast<uint32_t*>(buf), sms);
  Rec("l2_slice_buffer").num("bytes", (double)kPage).num("base_mod_2mib", (double)((uintptr_t)buf % kPage))
      .num("ctas", sms).num("warps", sms * 16).num("lines", n_lines).emit();
  auto offsets = [](const std::vector<uint32_t>& l) { return [&l](size_t i) { return (double)l[i] * 128; }; };

  // 1. calibration: per variant, for refs 0 and 34: R alone, then (R, x) for the candidates, 3 rounds
  const uint32_t cal_refs[2] = {0, 34};
  std::vector<uint32_t> cand_d;
  for (uint32_t d = 0; d < 32; ++d) cand_d.push_back(d);
  for (int k = 5; k < 14; ++k) cand_d.push_back(1u << k);
  auto cal_sets = [&](uint32_t r) {
    std::vector<uint32_t> xs;
    for (uint32_t d : cand_d) xs.push_back(r ^ d);
    for (uint32_t j = 0; j < 24; ++j) xs.push_back(mix32(j * 7919u + r + 1u) % n_lines);
    return xs;
  };
  // the split of all the pairs' times (the same line's among them): the slow class is the pairs sharing a slice
  struct CalResult { int words; double q, t_single, t_same_line; TwoClass split; };
  auto calibrate = [&](int reps, const char* stage) {
    std::vector<std::vector<uint32_t>> sets;
    std::vector<std::vector<uint32_t>> xs_of;
    for (uint32_t r : cal_refs) {
      xs_of.push_back(cal_sets(r));
      sets.push_back({r});
      for (uint32_t x : xs_of.back()) sets.push_back({r, x});
    }
    const size_t per_round = sets.size();
    std::vector<std::vector<uint32_t>> all;
    for (int k = 0; k < reps; ++k) all.insert(all.end(), sets.begin(), sets.end());
    const std::vector<double> t = h.time_us(all);
    std::vector<double> pairs, same_line, single;
    size_t at = 0;
    for (int ri = 0; ri < 2; ++ri) {
      const std::vector<uint32_t>& xs = xs_of[ri];
      std::vector<double> med(xs.size()), lo(xs.size()), hi(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        std::vector<double> v;
        for (int k = 0; k < reps; ++k) v.push_back(t[k * per_round + at + 1 + i]);
        med[i] = median(v);
        lo[i] = *std::min_element(v.begin(), v.end());
        hi[i] = *std::max_element(v.begin(), v.end());
        pairs.push_back(med[i]);
        if (xs[i] == cal_refs[ri]) same_line.push_back(med[i]);
      }
      single.push_back(median_of(t, at, per_round, reps));
      Rec r("l2_slice_cal");
      r.str("stage", stage).num("words", h.words).num("q", h.q).num("reps", reps)
          .num("ref", (double)cal_refs[ri] * 128).num("alone_us", single.back());
      put_array(r, "offsets", xs.size(), "%.0f", offsets(xs));
      put_array(r, "us", xs.size(), "%.2f", [&](size_t i) { return med[i]; });
      put_array(r, "us_lo", xs.size(), "%.2f", [&](size_t i) { return lo[i]; });
      put_array(r, "us_hi", xs.size(), "%.2f", [&](size_t i) { return hi[i]; });
      r.emit();
      at += 1 + xs.size();
    }
    const CalResult c{h.words, h.q, median(single), median(same_line), two_class(pairs)};
    Rec("l2_slice_cal_split").str("stage", stage).num("words", h.words).num("q", h.q).num("single_us", c.t_single)
        .num("same_line_us", c.t_same_line).num("cut_us", c.split.cut).num("lo_us", c.split.lo)
        .num("hi_us", c.split.hi).num("n_hi", c.split.n_hi).num("n", (double)pairs.size()).emit();
    return c;
  };
  // the variant whose slow pairs (two at least) stand furthest above the others
  auto score = [](const CalResult& c) { return c.split.n_hi >= 2 ? c.split.hi / c.split.lo : 1.0; };
  CalResult best{0, 0, 0, 0, {0, 1, 1, 0}};
  for (int w : {1, 8, 32}) {
    h.words = w;
    h.q = 65536;
    const CalResult c = calibrate(3, "variant");
    if (best.words == 0 || score(c) > score(best)) best = c;
  }
  h.words = best.words;
  h.q = std::min(4194304.0, std::max(4096.0, std::round(65536 * 80.0 / best.split.lo)));
  const CalResult c = calibrate(1, "chosen");
  const double t_other = c.split.lo, t_same = c.split.hi, cut = c.split.cut;
  const bool contrast = score(c) >= 1.2;
  Rec("l2_slice_setup").num("words", h.words).num("q", h.q).num("t_same_us", t_same).num("t_other_us", t_other)
      .num("t_single_us", c.t_single).num("t_same_line_us", c.t_same_line).num("cut_us", cut)
      .num("contrast", score(c)).num("variant_contrast", score(best)).num("usable", contrast ? 1 : 0).emit();

  // 2. every line against 8 references
  const uint32_t pair_refs[8] = {0, 2, 10001, 15000, 34, 296, 48, 40};
  for (uint32_t r : pair_refs) {
    for (uint32_t x0 = 0; x0 < n_lines && !past_deadline(); x0 += 1024) {
      std::vector<std::vector<uint32_t>> sets;
      for (uint32_t x = x0; x < std::min(n_lines, x0 + 1024); ++x) sets.push_back({r % n_lines, x});
      const std::vector<double> t = h.time_us(sets);
      Rec rec("l2_slice_pair");
      rec.num("ref", (double)(r % n_lines) * 128).num("first_offset", (double)x0 * 128).num("step", 128)
          .num("n", (double)t.size());
      put_array(rec, "us", t.size(), "%.0f", [&](size_t i) { return t[i]; });
      rec.emit();
    }
  }
  if (!contrast || past_deadline()) {
    Rec("l2_slice_stop").str("after", "pairs").num("contrast", t_same / t_other).num("past_deadline", past_deadline())
        .emit();
    CK(cudaFree(raw));
    CK(cudaFree(sink));
    return;
  }

  // 3. classes of a sample, greedily
  std::vector<uint32_t> left;
  for (uint32_t i = 0; i < n_lines / 16; ++i) left.push_back(16 * i + mix32(i + 99u) % 16);
  std::vector<uint32_t> refs;
  std::vector<int> class_of(n_lines, -1);
  while (!left.empty() && refs.size() < 128 && !past_deadline()) {
    const uint32_t r = left[0];
    const int k = (int)refs.size();
    refs.push_back(r);
    class_of[r] = k;
    std::vector<uint32_t> xs(left.begin() + 1, left.end()), rest;
    std::vector<std::vector<uint32_t>> sets;
    for (uint32_t x : xs) sets.push_back({r, x});
    const std::vector<double> t = h.time_us(sets);
    for (size_t i = 0; i < xs.size(); ++i) {
      if (t[i] > cut) class_of[xs[i]] = k;
      else rest.push_back(xs[i]);
    }
    Rec rec("l2_slice_greedy");
    rec.num("class", k).num("ref", (double)r * 128).num("members", (double)(xs.size() - rest.size() + 1));
    put_array(rec, "offsets", xs.size(), "%.0f", offsets(xs));
    put_array(rec, "us", xs.size(), "%.0f", [&](size_t i) { return t[i]; });
    rec.emit();
    left.swap(rest);
  }
  const int K = (int)refs.size();
  if (K < 2 || past_deadline()) {
    Rec("l2_slice_stop").str("after", "greedy").num("classes", K).num("past_deadline", past_deadline()).emit();
    CK(cudaFree(raw));
    CK(cudaFree(sink));
    return;
  }

  // 4. how many lines of distinct slices the chip hammers at one slice's rate
  std::vector<int> ms;
  for (int m = 1; m < K; m *= 2) ms.push_back(m);
  ms.push_back(K);
  std::vector<std::vector<uint32_t>> load_sets;
  for (int rep = 0; rep < 3; ++rep)
    for (int m : ms) load_sets.push_back(std::vector<uint32_t>(refs.begin(), refs.begin() + m));
  const std::vector<double> tl = h.time_us(load_sets);
  const double quarter = t_other * std::sqrt(cut / t_other);
  int chunk = 1;
  bool fits = true;
  std::vector<double> load_us;
  for (size_t i = 0; i < ms.size(); ++i) {
    load_us.push_back(median_of(tl, i, ms.size(), 3));
    fits = fits && load_us.back() <= quarter;
    if (fits) chunk = std::max(chunk, ms[i] - 1);
  }
  {
    Rec rec("l2_slice_load");
    rec.num("classes", K).num("left", (double)left.size()).num("quarter_us", quarter).num("chunk", chunk);
    put_array(rec, "lines", ms.size(), "%.0f", [&](size_t i) { return (double)ms[i]; });
    put_array(rec, "us", ms.size(), "%.2f", [&](size_t i) { return load_us[i]; });
    rec.emit();
  }

  // 5. every line's class by its slots
  std::vector<int> code(K);
  for (int k = 0; k < K; ++k) code[k] = (37 * k + 11) & 127;
  std::vector<std::vector<int>> slots;   // the classes of each slot
  std::vector<int> slot_bit, slot_side;
  for (int k = 0; k < K && chunk == 1; ++k) {   // one reference at a time: a slot for each
    slots.push_back({k});
    slot_bit.push_back(-1);
    slot_side.push_back(1);
  }
  for (int b = 0; b < 7 && chunk > 1; ++b) {
    std::vector<int> side[2];
    for (int k = 0; k < K; ++k) side[code[k] >> b & 1].push_back(k);
    if (side[0].empty() || side[1].empty()) continue;
    for (int s = 1; s >= 0; --s)
      for (size_t c0 = 0; c0 < side[s].size(); c0 += chunk) {
        slots.push_back(std::vector<int>(side[s].begin() + c0,
                                         side[s].begin() + std::min(side[s].size(), c0 + (size_t)chunk)));
        slot_bit.push_back(b);
        slot_side.push_back(s);
      }
  }
  const size_t S = slots.size();
  std::vector<char> holds(S * K, 0);   // holds[s K + k]: slot s holds class k
  for (size_t sl = 0; sl < S; ++sl)
    for (int k : slots[sl]) holds[sl * K + k] = 1;
  // about t_other + 3 us a launch: a stride over the page if every line does not fit the time left
  const double left_s = std::chrono::duration<double>(g_deadline - std::chrono::steady_clock::now()).count();
  const double need_s = (double)n_lines * S * (t_other + 3) * 1e-6;
  const uint32_t stride = need_s < left_s ? 1 : (uint32_t)std::ceil(need_s / std::max(1.0, left_s));
  {
    Rec rec("l2_slice_group_plan");
    rec.num("classes", K).num("slots", (double)S).num("chunk", chunk).num("stride", stride).num("cut_us", cut);
    put_array(rec, "refs", K, "%.0f", offsets(refs));
    put_array(rec, "codes", K, "%.0f", [&](size_t i) { return (double)code[i]; });
    put_array(rec, "slot_bit", S, "%.0f", [&](size_t i) { return (double)slot_bit[i]; });
    put_array(rec, "slot_side", S, "%.0f", [&](size_t i) { return (double)slot_side[i]; });
    put_nested(rec, "slot_classes", slots);
    rec.emit();
  }
  int decoded = 0, unknown = 0, sample_same = 0, sample_n = 0, done = 0;
  std::vector<int> sizes(K, 0);
  for (uint32_t x0 = 0; x0 < n_lines && !past_deadline(); x0 += 256 * stride) {
    std::vector<uint32_t> xs;
    for (uint32_t x = x0; x < std::min(n_lines, x0 + 256 * stride); x += stride) xs.push_back(x);
    std::vector<std::vector<uint32_t>> sets;
    for (uint32_t x : xs)
      for (size_t s = 0; s < S; ++s) {
        std::vector<uint32_t> l{x};
        for (int k : slots[s]) l.push_back(refs[k]);
        sets.push_back(l);
      }
    const std::vector<double> t = h.time_us(sets);
    Rec rec("l2_slice_group");
    rec.num("first_offset", (double)x0 * 128).num("step", 128.0 * stride).num("n", (double)xs.size())
        .num("slots", (double)S);
    put_array(rec, "us", t.size(), "%.0f", [&](size_t i) { return t[i]; });
    rec.emit();
    for (size_t i = 0; i < xs.size(); ++i) {   // the class whose slots are exactly the slow ones
      int found = -1;
      for (int k = 0; k < K && found < 0; ++k) {
        bool ok = true;
        for (size_t s = 0; s < S && ok; ++s) ok = (t[i * S + s] > cut) == (holds[s * K + k] != 0);
        if (ok) found = k;
      }
      ++done;
      if (found < 0) { ++unknown; continue; }
      ++decoded;
      ++sizes[found];
      if (class_of[xs[i]] >= 0) { ++sample_n; sample_same += class_of[xs[i]] == found; }
    }
  }
  Rec rec("l2_slice_group_summary");
  rec.num("lines", done).num("decoded", decoded).num("unknown", unknown).num("sample_lines", sample_n)
      .num("sample_agree", sample_same).num("past_deadline", past_deadline());
  put_array(rec, "class_sizes", K, "%.0f", [&](size_t i) { return (double)sizes[i]; });
  rec.emit();
  CK(cudaFree(raw));
  CK(cudaFree(sink));
}

// --l2-slice-pages (the thirtieth session: --l2-slice-map mapped the slices over one 2 MiB page, and the box-pitch
// tables' in-step lines spread evenly over them if every page maps like that one; how do the physical bits from 21 up
// move a line's slice?): l2_hammer_kernel (8 words a request) on lines of a buffer allocated as mb_tma
// --box-pitch-table allocates its own (the same sizes after the same allocations: 2 MiB, 1 GiB, 256 MiB, three small
// ones, then ctas x 256 rows x 128 KB), so that its pages lie as that table's did, as far as the driver repeats itself.
// References: a line of each of the 80 slices of data/microbench/l2_slice_map_h100 (kPageRefs[s], slice s = 4 quad +
// 2 kind + partition in benchmarks/l2_slice_map.py's decode), at the same offsets of the buffer's first whole page.
// Records, each phase stopping at a deadline 110 s after the start:
//  1. "l2_slice_pages_cal" (q = 65536, 3 times each): reference 0 alone, with each of references 1..24 (mostly other
//     slices: their median is the fast level) and references 0..3 each with its line ^ 1 (address bit 7: one slice); q
//     is then set so that a fast pair takes about 45 us.
//  2. "l2_slice_pages_refs": every pair of references once (and each alone), a record a reference; "_refcheck": Otsu's
//     split of the pairs, each reference's slow partners, and the families the slots use (no two of a family contend).
//     If the slow pairs form 20 disjoint 4-cycles (the quads, whatever the labels: a page need not keep the measured
//     page's), design "quads": family 0 two opposite corners of every cycle (cycle i: from its lowest label v0 to its
//     lower neighbour v1, then v2, v3; family 0 holds v0, v2 as 2 i, 2 i + 1), family 1 the v1 and family 2 the v3.
//     Else design "colours": a greedy colouring of the graph in label order (at most 4 families).
//  3. "l2_slice_pages_load": the first m references of family 0 together, and the first 20 of each other family (3
//     times); chunk 20 if all of 20 stay under the quarter point between fast and slow, else 10.
//  4. "l2_slice_pages_plan", "l2_slice_pages_page", "_raw": the sample lines X (kPageSample: one line of each slice
//     and 3 more of each of its 16 linear classes, 128 offsets of a page) at the same offsets of each page, each X with
//     every slot. "quads": family 0 by the 7-bit code kPageCodes of each reference, bit b = side (b < 7, both sides,
//     in chunks), then twice family 1 and family 2 (bits 7, 8). "colours": each family by the code (37 i + 11) mod 128
//     of its i-th reference. A line's slow slots name its slice's reference and those contending with it (the decode:
//     benchmarks/l2_slice_pages.py). Pages: 0..127, the powers of two from 128, 24 scattered pages, then 128, 129, ...
//     "_page": Otsu's split of the page's times, the times within 10% of its cut, and each X's slow slots (a bit
//     mask); "_raw": the times.
static const uint32_t kPageRefs[80] = {
    113, 61, 14379, 2971, 5, 787, 257, 10683, 949, 475, 5928, 7825, 105, 32, 1368, 6123, 143, 1265, 10617, 5753, 1075,
    75, 13712, 13258, 731, 3445, 11334, 15040, 1491, 212, 12158, 2938, 287, 338, 14396, 10717, 22, 90, 1314, 5038, 1231,
    463, 2422, 16123, 271, 868, 12009, 14613, 838, 1123, 4762, 10039, 158, 1252, 9856, 12084, 4264, 529, 1901, 8525,
    566, 1854, 10394, 13763, 244, 185, 10367, 7337, 1200, 204, 7864, 5205, 494, 1427, 2639, 4365, 236, 164, 2046, 3349};
static const int kPageCodes[40] = {   // family 0's reference 2 i + c (design "quads"): each bit 20 ones
    53, 51, 26, 126, 77, 125, 49, 83, 98, 122, 65, 106, 88, 1, 96, 68, 15, 45, 119, 85, 43, 103, 0, 44, 16, 82, 63, 21,
    95, 123, 28, 100, 30, 25, 6, 34, 9, 40, 110, 70};
static const uint32_t kPageSample[128] = {
    14419, 8985, 1350, 7204, 4523, 10908, 13714, 52, 7841, 7603, 16342, 5653, 2759, 3225, 7775, 9786, 5394, 7343, 10790,
    4916, 15922, 3466, 15460, 14334, 15775, 13132, 8587, 9899, 3413, 5650, 7677, 15810, 13203, 9499, 9845, 7227, 6453,
    14599, 106, 5319, 6617, 11377, 6564, 5162, 1634, 4507, 1891, 11399, 6942, 4020, 9034, 7782, 7567, 9706, 10225, 2937,
    2782, 11998, 15724, 9070, 7438, 10056, 822, 6262, 6312, 7098, 12051, 7823, 13885, 8180, 934, 10853, 13157, 9365,
    15085, 6879, 13076, 160, 690, 12889, 8317, 4993, 1552, 1336, 4569, 5817, 9361, 9905, 6829, 14473, 15536, 9933, 978,
    680, 4725, 8139, 1227, 1469, 8044, 9085, 9787, 14885, 3056, 3561, 10675, 1578, 10977, 4241, 13002, 9598, 10237,
    2156, 6599, 9979, 9975, 13859, 10850, 9607, 5420, 4121, 5461, 436, 3974, 15477, 8546, 5844, 12479, 5512};

static void bench_l2_slice_pages(int sms) {
  const auto t0 = std::chrono::steady_clock::now();
  g_deadline = t0 + std::chrono::seconds(g_quick ? 20 : 110);
  void *small, *big, *flush, *sink, *probe, *cyc;   // mb_tma's Ctx, in its order
  CK(cudaMalloc(&small, (size_t)4096 * 256 * 2));
  CK(cudaMalloc(&big, (size_t)65536 * 8192 * 2));
  CK(cudaMalloc(&flush, (size_t)256 << 20));
  CK(cudaMemset(flush, 0x3c, (size_t)256 << 20));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMalloc(&probe, sizeof(ClockProbe)));
  CK(cudaMalloc(&cyc, sms * sizeof(unsigned long long)));
  const size_t bytes = (size_t)sms * 256 * 131072;
  uint8_t* buf;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 0x3c, bytes));
  const size_t first = (kPage - (uintptr_t)buf % kPage) % kPage;   // the first whole 2 MiB page
  const uint32_t page_lines = (uint32_t)(kPage / 128), npages = (uint32_t)((bytes - first) / kPage);
  const uint32_t line0 = (uint32_t)(first / 128);
  if (npages <= 128) die("l2-slice-pages: %u pages", npages);
  Rec("l2_slice_pages_buffer").num("bytes", (double)bytes).num("base_mod_2mib", (double)((uintptr_t)buf % kPage))
      .num("first_page_offset", (double)first).num("pages", npages).num("ctas", sms)
      .num("small_mod_2mib", (double)((uintptr_t)small % kPage)).num("big_mod_2mib", (double)((uintptr_t)big % kPage))
      .num("flush_mod_2mib", (double)((uintptr_t)flush % kPage))
      .num("buf_minus_big_mib", ((double)(uintptr_t)buf - (double)(uintptr_t)big) / (1 << 20)).emit();
  SliceHammer h(reinterpret_cast<uint32_t*>(buf), sms);
  h.words = 8;
  auto ref = [&](int s) { return line0 + kPageRefs[s]; };
  auto release = [&] {
    for (void* p : {small, big, flush, sink, probe, cyc, (void*)buf}) CK(cudaFree(p));
  };

  // 1. calibration
  std::vector<std::vector<uint32_t>> cal;
  for (int k = 0; k < 3; ++k) {
    cal.push_back({ref(0)});
    for (int j = 1; j <= 24; ++j) cal.push_back({ref(0), ref(j)});
    for (int j = 0; j < 4; ++j) cal.push_back({ref(j), line0 + (kPageRefs[j] ^ 1)});
  }
  const std::vector<double> tc = h.time_us(cal);
  std::vector<double> alone, others, same;
  for (int k = 0; k < 3; ++k) {
    alone.push_back(tc[k * 29]);
    for (int j = 1; j <= 24; ++j) others.push_back(tc[k * 29 + j]);
    for (int j = 0; j < 4; ++j) same.push_back(tc[k * 29 + 25 + j]);
  }
  const double t_single = median(alone), t_other = median(others), t_same = median(same);
  const double q65 = h.q;
  h.q = std::min(4194304.0, std::max(4096.0, std::round(65536 * 45.0 / t_other)));
  Rec("l2_slice_pages_cal").num("words", h.words).num("q_cal", q65).num("single_us", t_single)
      .num("other_us", t_other).num("same_us", t_same)
      .num("others_max_us", *std::max_element(others.begin(), others.end())).num("q", h.q).emit();
  if (t_same / t_other < 1.4) {
    Rec("l2_slice_pages_stop").str("after", "cal").num("contrast", t_same / t_other).emit();
    release();
    return;
  }

  // 2. every pair of references, and the families
  std::vector<std::vector<uint32_t>> sets;
  for (int a = 0; a < 80; ++a) {
    sets.push_back({ref(a)});
    for (int b = a + 1; b < 80; ++b) sets.push_back({ref(a), ref(b)});
  }
  const std::vector<double> tr = h.time_us(sets);
  std::vector<double> mat(80 * 80), pair_t;
  for (int a = 0, i = 0; a < 80; ++a) {
    mat[a * 80 + a] = tr[i++];
    for (int b = a + 1; b < 80; ++b, ++i) {
      mat[a * 80 + b] = mat[b * 80 + a] = tr[i];
      pair_t.push_back(tr[i]);
    }
  }
  for (int a = 0; a < 80; ++a) {
    Rec r("l2_slice_pages_refs");
    r.num("slice", a).num("offset", (double)kPageRefs[a] * 128).num("alone_us", mat[a * 80 + a]);
    put_array(r, "us", 80, "%.1f", [&](size_t b) { return mat[a * 80 + b]; });
    r.emit();
  }
  const TwoClass rs = two_class(pair_t);
  std::vector<std::vector<int>> adj(80);
  for (int a = 0; a < 80; ++a)
    for (int b = 0; b < 80; ++b)
      if (a != b && mat[a * 80 + b] > rs.cut) adj[a].push_back(b);
  auto slow = [&](int a, int b) { return std::find(adj[a].begin(), adj[a].end(), b) != adj[a].end(); };
  std::vector<std::vector<int>> fam(3);
  bool quads = true;
  for (int a = 0; a < 80; ++a) quads = quads && adj[a].size() == 2;
  std::vector<char> used(80, 0);
  for (int v0 = 0; v0 < 80 && quads; ++v0) {
    if (used[v0]) continue;
    const int v1 = std::min(adj[v0][0], adj[v0][1]), v3 = std::max(adj[v0][0], adj[v0][1]);
    const int v2 = adj[v1][0] == v0 ? adj[v1][1] : adj[v1][0];
    quads = v2 != v0 && v2 != v3 && slow(v3, v2) && !slow(v0, v2) && !slow(v1, v3) && !used[v1] && !used[v2] &&
            !used[v3];
    used[v0] = used[v1] = used[v2] = used[v3] = 1;
    fam[0].insert(fam[0].end(), {v0, v2});
    fam[1].push_back(v1);
    fam[2].push_back(v3);
  }
  if (!quads) {   // greedy colouring in label order
    fam.clear();
    std::vector<int> colour(80, -1);
    for (int a = 0; a < 80; ++a) {
      int c = 0;
      while (std::any_of(adj[a].begin(), adj[a].end(), [&](int b) { return colour[b] == c; })) ++c;
      colour[a] = c;
      if ((int)fam.size() <= c) fam.resize(c + 1);
      fam[c].push_back(a);
    }
  }
  {
    Rec r("l2_slice_pages_refcheck");
    r.num("cut_us", rs.cut).num("lo_us", rs.lo).num("hi_us", rs.hi).num("n_hi", rs.n_hi)
        .str("design", quads ? "quads" : "colours").num("families", (double)fam.size());
    put_array(r, "n_slow", 80, "%.0f", [&](size_t a) { return (double)adj[a].size(); });
    r.s += ", \"family_slices\": [";
    for (size_t i = 0; i < fam.size(); ++i) {
      r.s += i ? ", [" : "[";
      for (size_t j = 0; j < fam[i].size(); ++j) r.s += (j ? ", " : "") + std::to_string(fam[i][j]);
      r.s += "]";
    }
    r.s += "]";
    r.emit();
  }
  if (fam.size() > 4) {
    Rec("l2_slice_pages_stop").str("after", "refs").num("families", (double)fam.size()).emit();
    release();
    return;
  }

  // 3. load: how many references a slot may hold
  const int ms[] = {1, 2, 4, 8, 16, 20, 24, 32, 40};
  const int nm = (int)(sizeof ms / sizeof ms[0]), nl = nm + (int)fam.size() - 1;
  auto refs_of = [&](const std::vector<int>& v, size_t from, size_t n) {
    std::vector<uint32_t> l;
    for (size_t i = from; i < std::min(v.size(), from + n); ++i) l.push_back(ref(v[i]));
    return l;
  };
  sets.clear();
  for (int rep = 0; rep < 3; ++rep) {
    for (int m : ms) sets.push_back(refs_of(fam[0], 0, m));
    for (size_t f = 1; f < fam.size(); ++f) sets.push_back(refs_of(fam[f], 0, 20));
  }
  const std::vector<double> tl = h.time_us(sets);
  const double quarter = rs.lo * std::sqrt(rs.cut / rs.lo);
  std::vector<double> load_us;
  for (int i = 0; i < nl; ++i) load_us.push_back(median_of(tl, i, nl, 3));
  bool fits20 = load_us[5] <= quarter;   // 20 of family 0, and of each other family
  for (int i = nm; i < nl; ++i) fits20 = fits20 && load_us[i] <= quarter;
  const int chunk = fits20 ? 20 : 10;
  {
    Rec r("l2_slice_pages_load");
    r.num("quarter_us", quarter).num("chunk", chunk);
    put_array(r, "family0_lines", nm, "%.0f", [&](size_t i) { return (double)ms[i]; });
    put_array(r, "family0_us", nm, "%.2f", [&](size_t i) { return load_us[i]; });
    put_array(r, "other_families_20_us", nl - nm, "%.2f", [&](size_t i) { return load_us[nm + i]; });
    r.emit();
  }
  if (past_deadline()) {
    Rec("l2_slice_pages_stop").str("after", "load").emit();
    release();
    return;
  }

  // 4. the sample of every page against the slots
  std::vector<std::vector<int>> slots;
  std::vector<int> slot_bit, slot_side, slot_family;
  auto add_slots = [&](const std::vector<int>& side, int f, int b, int s) {
    for (size_t c0 = 0; c0 < side.size(); c0 += chunk) {
      slots.push_back(std::vector<int>(side.begin() + c0, side.begin() + std::min(side.size(), c0 + (size_t)chunk)));
      slot_family.push_back(f);
      slot_bit.push_back(b);
      slot_side.push_back(s);
    }
  };
  for (size_t f = 0; f < (quads ? 1 : fam.size()); ++f)
    for (int b = 0; b < 7; ++b) {
      std::vector<int> side[2];
      for (size_t i = 0; i < fam[f].size(); ++i) {
        const int code = quads ? kPageCodes[i] : (int)((37 * i + 11) & 127);
        side[code >> b & 1].push_back(fam[f][i]);
      }
      if (side[0].empty() || side[1].empty()) continue;
      for (int s = 1; s >= 0; --s) add_slots(side[s], (int)f, b, s);
    }
  for (int rep = 0; rep < 2 && quads; ++rep)
    for (int f = 1; f < 3; ++f) add_slots(fam[f], f, 6 + f, rep);
  if (slots.size() > 63) die("l2-slice-pages: %zu slots", slots.size());
  const size_t S = slots.size(), nx = g_quick ? 16 : 128;
  std::vector<uint32_t> order;
  std::vector<char> seen(npages, 0);
  auto add_page = [&](uint32_t p) {
    if (p < npages && !seen[p]) { seen[p] = 1; order.push_back(p); }
  };
  for (uint32_t p = 0; p < (g_quick ? 4u : 128u); ++p) add_page(p);
  for (uint32_t p = 128; p < npages; p *= 2) add_page(p);
  for (uint32_t j = 0; j < 24; ++j) add_page(128 + mix32(j + 4242u) % (npages - 128));
  for (uint32_t p = 128; p < npages; ++p) add_page(p);
  {
    Rec r("l2_slice_pages_plan");
    r.str("design", quads ? "quads" : "colours").num("q", h.q).num("words", h.words).num("chunk", chunk)
        .num("slots", (double)S).num("lines", (double)nx).num("pages", npages).num("page_lines", page_lines);
    put_array(r, "refs", 80, "%.0f", [&](size_t s) { return (double)kPageRefs[s] * 128; });
    put_array(r, "codes", 40, "%.0f", [&](size_t a) { return (double)kPageCodes[a]; });
    put_array(r, "sample", nx, "%.0f", [&](size_t i) { return (double)kPageSample[i] * 128; });
    put_array(r, "slot_family", S, "%.0f", [&](size_t i) { return (double)slot_family[i]; });
    put_array(r, "slot_bit", S, "%.0f", [&](size_t i) { return (double)slot_bit[i]; });
    put_array(r, "slot_side", S, "%.0f", [&](size_t i) { return (double)slot_side[i]; });
    put_nested(r, "slot_slices", slots);
    r.emit();
  }
  size_t done = 0;
  double near_total = 0;
  for (size_t i = 0; i < order.size() && !past_deadline(); ++i, ++done) {
    const uint32_t p = order[i];
    sets.clear();
    for (size_t k = 0; k < nx; ++k)
      for (size_t s = 0; s < S; ++s) {
        std::vector<uint32_t> l{line0 + p * page_lines + kPageSample[k]};
        for (int sl : slots[s]) l.push_back(ref(sl));
        sets.push_back(l);
      }
    const std::vector<double> t = h.time_us(sets);
    const TwoClass c = two_class(t);
    int near = 0;
    for (double v : t) near += std::fabs(std::log(v / c.cut)) < std::log(1.1);
    near_total += near;
    Rec r("l2_slice_pages_page");
    r.num("page", p).num("cut_us", c.cut).num("lo_us", c.lo).num("hi_us", c.hi).num("n_hi", c.n_hi).num("near", near);
    put_array(r, "masks", nx, "%.0f", [&](size_t k) {
      uint64_t m = 0;
      for (size_t s = 0; s < S; ++s) m |= (uint64_t)(t[k * S + s] > c.cut) << s;
      return (double)m;
    });
    r.emit();
    Rec raw("l2_slice_pages_raw");
    raw.num("page", p);
    put_array(raw, "us", t.size(), "%.0f", [&](size_t k) { return t[k]; });
    raw.emit();
  }
  Rec("l2_slice_pages_summary").num("pages_done", (double)done).num("pages_planned", (double)order.size())
      .num("near_per_page", done ? near_total / done : 0)
      .num("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()).emit();
  release();
}

// --hbm-channel-map (the thirtieth session: the H100's L2 partitions and slices are even at its bad pitches; are its
// HBM channels?): hbm_stream_kernel over an 8 GiB buffer (2 MiB-aligned, random), sms x 4 blocks of 512 threads. For
// pitch P: rows R = min(max(16896, 256 MiB / P), 8 GiB / P) (16896 = 132 x 128, the box-pitch tables' rows), width
// W = min(P, 256 MiB / R) in 128 B. Each measurement: one untimed launch, then 5 timed by events; "hbm_map_rate"
// gives the median (lo, hi) GB/s. Every launch reads W x R bytes (256 MiB for P >= 16 KB) once, so all but the L2's
// last 50 MB of the previous launch come from HBM. Per-bit strides P = 2^b (b = 7..30) both orders, then every aligned
// pitch of 16-64 KB in 3 rounds (column order; row order for the first). Stops at a deadline 100 s after the start.
static void bench_hbm_channel_map(int sms) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t bytes = (size_t)8 << 30, vol = (size_t)256 << 20;
  uint8_t* raw;
  uint8_t* buf = alloc_page_aligned(bytes, &raw);
  fill_random_u16<<<8192, 256>>>((uint16_t*)buf, bytes / 2, 21);
  uint32_t* sink;
  CK(cudaMalloc(&sink, 4));
  CK_LAUNCH();
  const int grid = sms * 4, block = 512, reps = 5;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  Rec("hbm_map_setup").num("buffer_bytes", (double)bytes).num("base_mod_2m", (double)((uintptr_t)buf % kPage))
      .num("grid", grid).num("block", block).num("reps", reps).num("volume", (double)vol).emit();
  auto measure = [&](const char* kind, int round, uint64_t P, int col) {
    const uint32_t rows = (uint32_t)std::min<uint64_t>(std::max<uint64_t>(16896, vol / P), bytes / P);
    const uint64_t w = std::max<uint64_t>(128, std::min<uint64_t>(P, vol / rows) / 128 * 128);
    const uint32_t kpr = (uint32_t)(w / 128);
    std::vector<double> gbps;
    for (int i = 0; i <= reps; ++i) {
      CK(cudaEventRecord(e0));
      hbm_stream_kernel<<<grid, block>>>(buf, P, rows, kpr, col, sink);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK_LAUNCH();
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i) gbps.push_back((double)rows * w / (ms * 1e6));
    }
    std::sort(gbps.begin(), gbps.end());
    Rec("hbm_map_rate").str("kind", kind).num("round", round).num("pitch", (double)P).num("rows", rows)
        .num("width", (double)w).num("col", col).num("gbps", median(gbps)).num("gbps_lo", gbps.front())
        .num("gbps_hi", gbps.back()).emit();
  };
  const auto deadline = t0 + std::chrono::seconds(100);
  bool stopped = false;
  for (int col = 1; col >= 0; --col)
    for (int b = 7; b <= 30; ++b) measure("bit", 0, (uint64_t)1 << b, col);
  for (int round = 0; round < 3 && !stopped; ++round)
    for (uint64_t P = 16384; P <= 65536 && !stopped; P += 128) {
      measure("pitch", round, P, 1);
      if (round == 0) measure("pitch", round, P, 0);
      stopped = std::chrono::steady_clock::now() > deadline;
    }
  Rec("hbm_map_stop").num("stopped_at_deadline", stopped)
      .num("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()).emit();
  cudaFree(raw);
  cudaFree(sink);
}

int main(int argc, char** argv) {
  bool profile = false, window = false, fine = false, ncu = false, lag = false, slice = false, l2map = false,
       slicemap = false, slicepages = false, hbmmap = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) g_quick = true;
    else if (!strcmp(argv[i], "--profile")) profile = true;
    else if (!strcmp(argv[i], "--window")) window = true;
    else if (!strcmp(argv[i], "--fine")) fine = true;
    else if (!strcmp(argv[i], "--ncu")) ncu = true;
    else if (!strcmp(argv[i], "--lag")) lag = true;
    else if (!strcmp(argv[i], "--slice-probe")) slice = true;
    else if (!strcmp(argv[i], "--l2-latency-map")) l2map = true;
    else if (!strcmp(argv[i], "--l2-slice-map")) slicemap = true;
    else if (!strcmp(argv[i], "--l2-slice-pages")) slicepages = true;
    else if (!strcmp(argv[i], "--hbm-channel-map")) hbmmap = true;
    else die("unknown argument %s (usage: mb_pitch [--quick] [--profile | --window [--fine | --ncu] | "
             "--lag [--ncu | --fine] | --slice-probe | --l2-latency-map | --l2-slice-map | --l2-slice-pages | "
             "--hbm-channel-map])",
             argv[i]);
  }
  emit_device_record();
  if (l2map) {
    bench_l2_latency_map(sm_count());
    return 0;
  }
  if (slicemap) {
    bench_l2_slice_map(sm_count());
    return 0;
  }
  if (slicepages) {
    bench_l2_slice_pages(sm_count());
    return 0;
  }
  if (hbmmap) {
    bench_hbm_channel_map(sm_count());
    return 0;
  }
  Ctx ctx;
  ctx.sms = sm_count();
  const size_t small_bytes = kSmallRows * kMaxPitch, big_bytes = kBigRows * kMaxPitch;
  CK(cudaMalloc(&ctx.small, small_bytes));
  CK(cudaMalloc(&ctx.big, big_bytes));
  fill_random_u16<<<1024, 256>>>((uint16_t*)ctx.small, small_bytes / 2, 11);
  fill_random_u16<<<4096, 256>>>((uint16_t*)ctx.big, big_bytes / 2, 12);
  CK_LAUNCH();
  CK(cudaMalloc(&ctx.probe, sizeof(ClockProbe)));
  CK(cudaMalloc(&ctx.cycles, ctx.sms * sizeof(unsigned long long)));
  if (slice) {
    bench_slice_probe(ctx);
    return 0;
  }
  if (lag) {
    bench_lag(ctx, ncu, fine);
    return 0;
  }
  if (window) {
    bench_window(ctx, fine, ncu);
    return 0;
  }
  if (profile) {
    g_quick = true;
    for (Case c : profile_cases()) {
      c.grid = ctx.sms;
      run_case(ctx, c, 0);
    }
    return 0;
  }
  const int reps = g_quick ? 3 : 9;
  for (Case c : cases()) {
    if (c.grid == 0) c.grid = ctx.sms;
    run_case(ctx, c, reps);
  }
  return 0;
}
