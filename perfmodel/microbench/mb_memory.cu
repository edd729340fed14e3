// Memory-system microbenchmarks: shared-memory read bandwidth and latency, L2 latency and
// bandwidth, HBM latency and bandwidth. Usage: mb_memory [--quick]
#include "mb_common.cuh"

#include <random>
#include <unordered_set>

static bool g_quick = false;

// ---------------------------------------------------------------- shared memory
constexpr int kSmemBwThreads = 1024;
constexpr int kSmemBwBytes = 128 * 1024;  // 8 loads of 1024 threads never share an address

// Every thread loads W bytes (ld.shared.u32 / v2 / v4); a warp reads 32*W contiguous bytes: no conflicts.
template <int W>
__global__ void __launch_bounds__(kSmemBwThreads) smem_bw_kernel(int iters, uint32_t* sink,
                                                                 unsigned long long* cycles) {
  extern __shared__ __align__(16) uint4 sbuf[];
  for (int i = threadIdx.x; i < kSmemBwBytes / 16; i += blockDim.x)
    sbuf[i] = make_uint4(hash32(4 * i), hash32(4 * i + 1), hash32(4 * i + 2), hash32(4 * i + 3));
  __syncthreads();
  const uint32_t base = smem_u32(sbuf);
  const uint32_t off = threadIdx.x * W;
  uint32_t x0 = 0, x1 = 0, x2 = 0, x3 = 0;
  long long c0 = clk();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint32_t a = base + ((off + (j * kSmemBwThreads + (it & 7) * 32) * W) & (kSmemBwBytes - 1));
      uint32_t v0 = 0, v1 = 0, v2 = 0, v3 = 0;
      if constexpr (W == 16) {
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a));
      } else if constexpr (W == 8) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a));
      } else {
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v0) : "r"(a));
      }
      x0 ^= v0; x1 += v1; x2 ^= v2; x3 += v3;
    }
  }
  __syncthreads();
  long long c1 = clk();
  if (threadIdx.x == 0) cycles[blockIdx.x] = (unsigned long long)(c1 - c0);
  if ((x0 ^ x1 ^ x2 ^ x3) == 0x9e3779b9u) sink[blockIdx.x] = x0;
}

template <int W>
static void smem_bw_width(int sms, int iters, uint32_t* sink, unsigned long long* cyc) {
  CK(cudaFuncSetAttribute(smem_bw_kernel<W>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBwBytes));
  for (int grid : {1, sms}) {
    std::vector<double> bpc;
    for (int rep = 0; rep < 5; ++rep) {
      smem_bw_kernel<W><<<grid, kSmemBwThreads, kSmemBwBytes>>>(iters, sink, cyc);
      CK_LAUNCH();
      std::vector<unsigned long long> h(grid);
      CK(cudaMemcpy(h.data(), cyc, grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      for (auto c : h) bpc.push_back((double)kSmemBwThreads * W * 8.0 * iters / (double)c);
    }
    Rec("smem_read_bw").num("load_bytes", W).num("ctas", grid).num("threads", kSmemBwThreads).num("iters", iters)
        .num("bytes_per_clock_per_sm", median(bpc))
        .num("min_bytes_per_clock_per_sm", *std::min_element(bpc.begin(), bpc.end())).emit();
  }
}

__global__ void smem_latency_kernel(int hops, long long* cycles, uint32_t* sink) {
  __shared__ uint32_t s[4096];
  // A chain through all 4096 words with a stride of 97 words (coprime with 4096).
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = smem_u32(&s[(i + 97) & 4095]);
  __syncthreads();
  if (threadIdx.x != 0) return;
  uint32_t p = smem_u32(&s[0]);
  for (int h = 0; h < 64; ++h) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
  long long c0 = clk();
  for (int h = 0; h < hops; h += 16) {
#pragma unroll
    for (int j = 0; j < 16; ++j) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
  }
  long long c1 = clk();
  *cycles = c1 - c0;
  *sink = p;
}

static void bench_smem() {
  const int sms = sm_count();
  const int iters = g_quick ? 256 : 4096;
  uint32_t* sink;
  unsigned long long* cyc;
  CK(cudaMalloc(&sink, sms * sizeof(uint32_t)));
  CK(cudaMalloc(&cyc, sms * sizeof(unsigned long long)));
  smem_bw_width<4>(sms, iters, sink, cyc);
  smem_bw_width<8>(sms, iters, sink, cyc);
  smem_bw_width<16>(sms, iters, sink, cyc);
  long long* lc;
  CK(cudaMalloc(&lc, sizeof(long long)));
  const int hops = 4096;
  std::vector<double> lat;
  for (int rep = 0; rep < 5; ++rep) {
    smem_latency_kernel<<<1, 128>>>(hops, lc, sink);
    CK_LAUNCH();
    long long h = 0;
    CK(cudaMemcpy(&h, lc, sizeof h, cudaMemcpyDeviceToHost));
    lat.push_back((double)h / hops);
  }
  Rec("smem_latency").num("hops", hops).num("cycles", median(lat)).emit();
  CK(cudaFree(sink));
  CK(cudaFree(cyc));
  CK(cudaFree(lc));
}

// ---------------------------------------------------------------- pointer chase (L2 / HBM)
// Node i lives at byte offset off[i] of `base` and holds the address of node i+1 (cyclic).
__global__ void link_kernel(char* base, const unsigned long long* off, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    *reinterpret_cast<unsigned long long*>(base + off[i]) =
        reinterpret_cast<unsigned long long>(base + off[(i + 1) % n]);
}

__global__ void chase_kernel(const char* start, int warm_hops, int hops, long long* cycles,
                             unsigned long long* sink) {
  unsigned long long p = reinterpret_cast<unsigned long long>(start);
  for (int h = 0; h < warm_hops; ++h) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  long long c0 = clk();
  for (int h = 0; h < hops; h += 8) {
#pragma unroll
    for (int j = 0; j < 8; ++j) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
  }
  long long c1 = clk();
  *cycles = c1 - c0;
  *sink = p;
}

struct Flusher {
  uint4* buf = nullptr;
  size_t n = 0;
  uint32_t* sink = nullptr;
  explicit Flusher(size_t bytes) : n(bytes / 16) {
    CK(cudaMalloc(&buf, bytes));
    CK(cudaMalloc(&sink, 4));
    fill_random_u16<<<1024, 256>>>((uint16_t*)buf, bytes / 2, 99);
    CK_LAUNCH();
  }
  void run() {
    flush_kernel<<<sm_count() * 4, 512>>>(buf, n, sink);
    CK_LAUNCH();
  }
  ~Flusher() {
    cudaFree(buf);
    cudaFree(sink);
  }
};

// Chase `hops` loads through `nodes` random 128-byte lines of a region of `region` bytes.
// cold=true: flush L2 first and time the first pass (every load misses L2: DRAM latency).
// cold=false: one untimed pass warms L2, then time the second pass.
static double chase_cycles_per_hop(char* base, size_t region, int nodes, int hops, bool cold,
                                   Flusher& fl, uint32_t seed) {
  std::mt19937_64 rng(seed);
  const size_t lines = region / 128;
  std::vector<unsigned long long> off;
  if ((size_t)nodes == lines) {
    off.resize(lines);
    for (size_t i = 0; i < lines; ++i) off[i] = i * 128;
  } else {
    std::unordered_set<unsigned long long> seen;
    while ((int)off.size() < nodes) {
      unsigned long long l = rng() % lines;
      if (seen.insert(l).second) off.push_back(l * 128);
    }
  }
  std::shuffle(off.begin(), off.end(), rng);
  unsigned long long* doff;
  CK(cudaMalloc(&doff, off.size() * sizeof(unsigned long long)));
  CK(cudaMemcpy(doff, off.data(), off.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
  link_kernel<<<256, 256>>>(base, doff, nodes);
  CK_LAUNCH();
  long long* dc;
  unsigned long long* sink;
  CK(cudaMalloc(&dc, sizeof(long long)));
  CK(cudaMalloc(&sink, sizeof(unsigned long long)));
  fl.run();
  chase_kernel<<<1, 1>>>(base + off[0], cold ? 0 : nodes, hops, dc, sink);
  CK_LAUNCH();
  long long c = 0;
  CK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
  CK(cudaFree(doff));
  CK(cudaFree(dc));
  CK(cudaFree(sink));
  return (double)c / hops;
}

static void bench_latency() {
  const size_t big = (size_t)2 << 30;  // 2 GiB
  char* base;
  CK(cudaMalloc(&base, big));
  CK(cudaMemset(base, 0x5a, big));
  Flusher fl((size_t)256 << 20);
  // L2-resident: every line of the region in one random cycle, second pass timed.
  for (size_t mib : {1, 4, 16, 32}) {
    if (g_quick && mib > 4) continue;
    size_t region = mib << 20;
    int nodes = (int)(region / 128);
    int hops = std::min(nodes, 32768) / 8 * 8;
    std::vector<double> v;
    for (uint32_t s = 0; s < 3; ++s) v.push_back(chase_cycles_per_hop(base, region, nodes, hops, false, fl, 11 + s));
    Rec("l2_latency").num("region_bytes", (double)region).num("hops", hops).num("cycles", median(v)).emit();
  }
  // DRAM: first touch of random lines after a flush; 64 MiB keeps the TLB warm, 2 GiB does not.
  for (size_t mib : {64, 2048}) {
    size_t region = mib << 20;
    int nodes = g_quick ? 1024 : 4096;
    std::vector<double> v;
    for (uint32_t s = 0; s < 3; ++s) v.push_back(chase_cycles_per_hop(base, region, nodes, nodes, true, fl, 101 + s));
    Rec("hbm_latency").num("region_bytes", (double)region).num("hops", nodes).num("cycles", median(v)).emit();
  }
  CK(cudaFree(base));
}

// ---------------------------------------------------------------- bandwidth (L2 / HBM)
// 16-byte load cached in L2 only (.cg): repeated passes never hit in L1.
__device__ __forceinline__ uint4 ldcg(const uint4* a) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(a));
  return v;
}

__global__ void __launch_bounds__(512) read_kernel(const uint4* __restrict__ p, size_t n, int passes,
                                                   uint32_t* sink, ClockProbe* probe) {
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  if (lead) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  uint32_t x = 0;
  for (int ps = 0; ps < passes; ++ps) {
    size_t i = tid;
    for (; i + 3 * stride < n; i += 4 * stride) {
      uint4 v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = ldcg(p + i + j * stride);
#pragma unroll
      for (int j = 0; j < 4; ++j) x ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
    }
    for (; i < n; i += stride) x ^= ldcg(p + i).w;
  }
  if (x == 0x9e3779b9u) sink[0] = x;
  if (lead) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
}

// The L2's partitions (each caches what the SMs of its own GPCs read, the A100/H100 whitepapers): pass ps reads line i
// with block (b + ps * rot) mod grid instead of b, so over the passes every line is read by SMs all over the chip, as
// a GEMM's shared panels are; rot = 0 is read_kernel's pattern (each line by one SM)
__global__ void __launch_bounds__(512) read_rotating_kernel(const uint4* __restrict__ p, size_t n, int passes,
                                                            int rot, uint32_t* sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  uint32_t x = 0;
  for (int ps = 0; ps < passes; ++ps) {
    const size_t b = (blockIdx.x + (size_t)ps * rot) % gridDim.x;
    for (size_t i = b * blockDim.x + threadIdx.x; i < n; i += stride) x ^= ldcg(p + i).w;
  }
  if (x == 0x9e3779b9u) sink[0] = x;
}

__global__ void __launch_bounds__(512) copy_kernel(const uint4* __restrict__ s, uint4* __restrict__ d, size_t n,
                                                   ClockProbe* probe) {
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  if (lead) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    d[i] = s[i];
  if (lead) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
}

static void bench_bandwidth() {
  const int sms = sm_count();
  const size_t big = (size_t)2 << 30;
  uint4 *a, *b;
  uint32_t* sink;
  ClockProbe* probe;
  CK(cudaMalloc(&a, big));
  CK(cudaMalloc(&b, big / 2));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMalloc(&probe, sizeof(ClockProbe)));
  fill_random_u16<<<4096, 256>>>((uint16_t*)a, big / 2, 7);
  CK_LAUNCH();
  auto probe_now = [&]() {
    ClockProbe h;
    CK(cudaMemcpy(&h, probe, sizeof h, cudaMemcpyDeviceToHost));
    return probe_hz(h);
  };
  // L2: every SM reads a working set well inside the 50 MB L2, many passes.
  for (size_t mib : {8, 16, 32}) {
    size_t bytes = mib << 20, n = bytes / 16;
    int passes = g_quick ? 8 : (int)(4096 / mib);  // ~4 GiB read per run
    double ms = time_ms(g_quick ? 3 : 9, [&] { read_kernel<<<sms * 4, 512>>>(a, n, passes, sink, probe); });
    double hz = probe_now();
    double bps = (double)bytes * passes / (ms * 1e-3);
    Rec("l2_read_bw").num("working_set_bytes", (double)bytes).num("passes", passes).num("ms", ms)
        .num("bytes_per_s", bps).num("sm_clock_hz", hz).num("bytes_per_clock", bps / hz).emit();
  }
  // The L2's partitions: working sets of 16-64 MiB read by one SM a line (rot 0) and by SMs all over the chip
  // (rot: half the grid plus a few blocks, so a line's readers change SM and side every pass). If each partition holds
  // its own copy of what both sides read, the shared reads fall to HBM speed past half the L2; the private ones hold.
  // 56 and 64 MiB (2026-11-27): past the H100's 50 MB, within and past the H200's 60 MB.
  for (int rot : {0, sms * 2 + 5}) {
    for (size_t mib : {16, 24, 32, 40, 48, 56, 64}) {
      size_t bytes = mib << 20, n = bytes / 16;
      int passes = g_quick ? 8 : 64;
      double ms = time_ms(g_quick ? 3 : 7, [&] { read_rotating_kernel<<<sms * 4, 512>>>(a, n, passes, rot, sink); });
      double bps = (double)bytes * passes / (ms * 1e-3);
      Rec("l2_partition_bw").num("working_set_bytes", (double)bytes).num("rotation_blocks", rot)
          .num("passes", passes).num("ms", ms).num("bytes_per_s", bps).emit();
    }
  }
  // HBM: read 2 GiB once; copy 1 GiB -> 1 GiB (bytes counted = read + write).
  {
    size_t n = big / 16;
    double ms = time_ms(g_quick ? 3 : 9, [&] { read_kernel<<<sms * 4, 512>>>(a, n, 1, sink, probe); });
    double hz = probe_now();
    double bps = (double)big / (ms * 1e-3);
    Rec("hbm_read_bw").num("bytes", (double)big).num("ms", ms).num("bytes_per_s", bps).num("sm_clock_hz", hz).emit();
    size_t half = big / 2;
    ms = time_ms(g_quick ? 3 : 9, [&] { copy_kernel<<<sms * 4, 512>>>(a, b, half / 16, probe); });
    hz = probe_now();
    Rec("hbm_copy_bw").num("bytes_moved", 2.0 * half).num("ms", ms).num("bytes_per_s", 2.0 * half / (ms * 1e-3))
        .num("sm_clock_hz", hz).emit();
    ms = time_ms(g_quick ? 3 : 9, [&] { CK(cudaMemcpyAsync(b, a, half, cudaMemcpyDeviceToDevice)); });
    Rec("hbm_memcpy_bw").num("bytes_moved", 2.0 * half).num("ms", ms).num("bytes_per_s", 2.0 * half / (ms * 1e-3)).emit();
  }
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(sink));
  CK(cudaFree(probe));
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) g_quick = true;
    else die("unknown argument %s (usage: mb_memory [--quick])", argv[i]);
  }
  emit_device_record();
  bench_smem();
  bench_latency();
  bench_bandwidth();
  return 0;
}
