// Shared helpers for the perfmodel microbenchmarks (sm_90a).
// Every CUDA call is checked; results are printed as one line per measurement:
//   MB {"bench": "...", "key": value, ...}
// which perfmodel/microbench/runner.py parses. Latencies are clock64 cycles measured inside the
// kernel; throughputs are cudaEvent times, and each kernel also reports its own SM clock
// (clock64 cycles / %globaltimer nanoseconds of block 0) so bytes/s convert to bytes/clock.
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__,          \
              __LINE__, cudaGetErrorString(e_));                                              \
      exit(3);                                                                                \
    }                                                                                         \
  } while (0)

// After every launch: the launch error, then the execution error.
#define CK_LAUNCH()                    \
  do {                                 \
    CK(cudaGetLastError());            \
    CK(cudaDeviceSynchronize());       \
  } while (0)

static inline void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "microbench: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(3);
}

// ---------------------------------------------------------------- result records
struct Rec {
  std::string s;
  explicit Rec(const char* bench) { s = std::string("{\"bench\": \"") + bench + "\""; }
  Rec& str(const char* k, const char* v) {
    s += std::string(", \"") + k + "\": \"" + v + "\"";
    return *this;
  }
  Rec& num(const char* k, double v) {
    char b[64];
    snprintf(b, sizeof b, "%.10g", v);
    s += std::string(", \"") + k + "\": " + b;
    return *this;
  }
  void emit() {
    printf("MB %s}\n", s.c_str());
    fflush(stdout);
  }
};

static inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline void emit_device_record() {
  int dev = 0, sms = 0, l2 = 0, clk_khz = 0, smem_optin = 0, cc_major = 0, cc_minor = 0, drv = 0, rt = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, dev));
  CK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  CK(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev));
  CK(cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  if (cc_major != 9) die("needs a Hopper GPU (compute capability 9.x), found %d.%d", cc_major, cc_minor);
  Rec("device").str("name", p.name).num("sm_count", sms).num("l2_bytes", l2)
      .num("max_clock_hz", clk_khz * 1e3).num("smem_optin_bytes", smem_optin)
      .num("global_mem_bytes", (double)p.totalGlobalMem).num("cc", cc_major * 10 + cc_minor)
      .num("cuda_driver_version", drv).num("cuda_runtime_version", rt).emit();
}

static inline int sm_count() {
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// Event time (ms) of one launch of launch(), no warm-up (under ncu every launch is one profiled kernel).
template <class F>
static double event_ms(F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  launch();
  CK(cudaGetLastError());
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms;
}

// Median event time (ms) of `reps` runs of launch(); one warm-up run first.
template <class F>
static double time_ms(int reps, F launch) {
  launch();
  CK_LAUNCH();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(event_ms(launch));
  CK(cudaDeviceSynchronize());
  return median(t);
}

// ---------------------------------------------------------------- device helpers
// Per-kernel clock probe: block 0 thread 0 writes {clock64, globaltimer} at start and end.
struct ClockProbe {
  unsigned long long c0, c1, t0, t1;
};

__device__ __forceinline__ unsigned long long gtimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ long long clk() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

static inline double probe_hz(const ClockProbe& p) {
  double ns = (double)(p.t1 - p.t0);
  return ns > 0 ? (double)(p.c1 - p.c0) / ns * 1e9 : 0.0;
}

// The SM clock a kernel's probe (on the device) measured.
static inline double read_probe_hz(const ClockProbe* d_probe) {
  ClockProbe p;
  CK(cudaMemcpy(&p, d_probe, sizeof p, cudaMemcpyDeviceToHost));
  return probe_hz(p);
}

// Each CTA's bytes per clock: the cycles CTA i wrote to d_cycles[i] while it moved bytes_per_cta.
static inline std::vector<double> per_cta_rates(const unsigned long long* d_cycles, int grid, double bytes_per_cta) {
  std::vector<unsigned long long> cyc(grid);
  CK(cudaMemcpy(cyc.data(), d_cycles, grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<double> rates;
  for (auto x : cyc) rates.push_back(bytes_per_cta / (double)x);
  return rates;
}

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

// wgmma smem descriptor (PTX ISA 9.7.15.5.1.2.2): K-major, 128B swizzle, SBO = 1024 B (8 rows of
// 128 B), LBO unused (1), base offset 0 (the tile starts on a 1024 B boundary). mb_wgmma and mb_tma's wgmma walks.
__device__ __forceinline__ uint64_t desc_sw128(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
         ((uint64_t)1 << 62);
}
__device__ __forceinline__ uint32_t hash32(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

// Random (never zero) bf16 in roughly [-1, 1]: sign + exponent 121..126 + mantissa bits.
__device__ __forceinline__ uint16_t rand_bf16(uint32_t i) {
  uint32_t h = hash32(i * 2654435761U + 12345U);
  return (uint16_t)(((h >> 16) & 0x8000u) | ((121u + (h % 6u)) << 7) | (h & 0x7fu));
}

// Random e4m3 byte: sign, exponent 4..9 (never the NaN pattern 0x7f/0xff), mantissa.
__device__ __forceinline__ uint8_t rand_e4m3(uint32_t i) {
  uint32_t h = hash32(i * 2246822519U + 777U);
  return (uint8_t)(((h >> 24) & 0x80u) | ((4u + (h % 6u)) << 3) | (h & 0x7u));
}

__global__ void fill_random_u16(uint16_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = rand_bf16((uint32_t)i ^ seed);
}

// Read a scratch buffer far larger than L2, evicting what was there.
__global__ void flush_kernel(const uint4* p, size_t n, uint32_t* sink) {
  uint32_t x = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x ^= p[i].x;
  if (x == 0x12345u) sink[0] = x;
}

// --- mbarrier (PTX ISA 9.7.13.15)
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// A ring's full barriers, one per stage 8 bytes apart from `bars`, each expecting one arrival; made visible.
__device__ __forceinline__ void init_stage_barriers(uint32_t bars, int stages) {
  for (int s = 0; s < stages; ++s) mbar_init(bars + 8 * s, 1);
  fence_mbar_init();
}
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ uint64_t mbar_arrive_state(uint32_t bar) {
  uint64_t st;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
  return st;
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ uint32_t mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}" : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok;
}
__device__ __forceinline__ uint32_t mbar_test_wait(uint32_t bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}" : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok;
}
// Spin on try_wait; a wait that lasts over 2^33 cycles (~4 s) traps, so a broken benchmark fails
// with a launch error instead of hanging the GPU machine.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  if (mbar_try_wait(bar, parity)) return;
  const long long t0 = clock64();
  while (!mbar_try_wait(bar, parity)) {
    if (clock64() - t0 > (1ll << 33)) __trap();
  }
}
// Arrive on the mbarrier at the same offset in cluster CTA `cta` (may be this CTA).
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  asm volatile(
      "{\n .reg .b32 ra;\n mapa.shared::cluster.u32 ra, %0, %1;\n"
      " mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n}" ::"r"(bar), "r"(cta) : "memory");
}
// The same arrive as our GEMM's consumers release a multicast stage with (gemm_sm90.cu mbar_arrive_cluster, as
// CUTLASS's ClusterBarrier::arrive): the default semantics of mbarrier.arrive, .release at .cta scope.
__device__ __forceinline__ void mbar_arrive_cluster_cta(uint32_t bar, uint32_t cta) {
  asm volatile(
      "{\n .reg .b32 ra;\n mapa.shared::cluster.u32 ra, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [ra];\n}" ::"r"(bar), "r"(cta) : "memory");
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// Not .aligned: every thread of the cluster arrives, each on its own (divergence is fine).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// A cudaLaunchKernelEx config of `grid` CTAs of `threads` with `smem` bytes, in clusters of `cluster` along x; `attr`
// holds the cluster attribute the config points at. `api_always`: pass the attribute even for clusters of 1 (our
// harness launches the GEMM so); else only for clusters of more than one CTA.
static inline cudaLaunchConfig_t cluster_launch_config(int grid, int threads, int smem, int cluster,
                                                       cudaLaunchAttribute* attr, bool api_always = false) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)grid);
  cfg.blockDim = dim3((unsigned)threads);
  cfg.dynamicSmemBytes = smem;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = (unsigned)cluster;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = (api_always || cluster > 1) ? 1 : 0;
  return cfg;
}
