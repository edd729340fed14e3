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
// Usage: mb_pitch [--quick] [--profile | --window [--fine | --ncu] | --lag [--ncu | --fine] | --slice-probe |
//                  --l2-latency-map]
//   (--profile: a few short launches for ncu's L2 counters)
#include "mb_tma_common.cuh"

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

// ---------------------------------------------------------------- device
__device__ __forceinline__ void tma_store(const CUtensorMap* m, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               ::"l"(reinterpret_cast<uint64_t>(m)), "r"(src), "r"(c0), "r"(c1) : "memory");
}

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

// --l2-latency-map (the twenty-ninth session: the H100's bad row pitches follow the address mapping of the lines in
// flight; the ncu slice probe gave no per-slice counts): l2_latency_kernel over a 16 MiB buffer (zeroed, its base on a
// 2 MiB boundary), warmed before every launch. "main": from each of ten SMs (smid 0, 1, 16, 30, 50, 66, 80, 100, 115,
// 131, those below the SM count), every line of the first 2 MiB page and the first 512 lines of each of the 7 other
// pages; "survey": from every smid below the SM count + 12 (one past the ids in use finds no block), the first 512
// lines. One record a launch "l2_latency_info" (sm, found, the SM clock, the timing overhead) and records
// "l2_latency_map" of up to 256 lines each (sm, set, the lines' byte offsets, and the cycles a link: first, ld_min,
// ld_med, atom_min, atom_med).
static void bench_l2_latency_map(int sms) {
  const size_t page = (size_t)2 << 20, bytes = (size_t)16 << 20;
  uint8_t* raw;
  CK(cudaMalloc(&raw, bytes + page));
  uint8_t* buf = raw + ((page - (size_t)(uintptr_t)raw % page) % page);
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
      r.s += ", \"offsets\": [";
      for (int i = c0; i < c1; ++i) r.s += (i > c0 ? ", " : "") + std::to_string((uint64_t)lines[i] * 128);
      r.s += "]";
      for (int f = 0; f < 5; ++f) {
        r.s += std::string(", \"") + names[f] + "\": [";
        for (int i = c0; i < c1; ++i) {
          char b[32];
          snprintf(b, sizeof b, "%s%.1f", i > c0 ? ", " : "", h[(size_t)i * 5 + f]);
          r.s += b;
        }
        r.s += "]";
      }
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

int main(int argc, char** argv) {
  bool profile = false, window = false, fine = false, ncu = false, lag = false, slice = false, l2map = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) g_quick = true;
    else if (!strcmp(argv[i], "--profile")) profile = true;
    else if (!strcmp(argv[i], "--window")) window = true;
    else if (!strcmp(argv[i], "--fine")) fine = true;
    else if (!strcmp(argv[i], "--ncu")) ncu = true;
    else if (!strcmp(argv[i], "--lag")) lag = true;
    else if (!strcmp(argv[i], "--slice-probe")) slice = true;
    else if (!strcmp(argv[i], "--l2-latency-map")) l2map = true;
    else die("unknown argument %s (usage: mb_pitch [--quick] [--profile | --window [--fine | --ncu] | "
             "--lag [--ncu | --fine] | --slice-probe | --l2-latency-map])", argv[i]);
  }
  emit_device_record();
  if (l2map) {
    bench_l2_latency_map(sm_count());
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
