// mb_power: board power of memory traffic, for the HBM term of the power-limited clock (sim/power.py).
//
// Phases, each one kernel that runs for SECONDS on every SM (persistent blocks, %globaltimer deadline):
//   resident  blocks resident on every SM, sleeping (__nanosleep): clocks up, no memory traffic
//   l2        ld.global.cg (16-byte) reads of a 16 MiB buffer (L2-resident): SM load path + L2 power
//   hbm       ld.global.cg reads of a 4 GiB buffer (every byte from HBM): SM load path + L2 + HBM power
//   resident  again (drift check)
//   bulk_l2   the same 16 MiB buffer read by bulk copies (cp.async.bulk, the TMA unit, PTX ISA 9.7.9.25) into a ring
//             of shared-memory stages, one CTA per SM and one thread issuing: a GEMM's load path, no LSU work
//   bulk_hbm  the 4 GiB buffer the same way: the TMA's HBM power per byte
//   resident3 again (drift check)
// The buffers hold hashed (incompressible) words: a regular pattern let the bulk copies read the 4 GiB buffer at
// 4.2 TB/s on an H100 whose HBM peaks at 3.35 (2026-11-27), which only compression or hits can give.
// Each phase prints "phase_start_<name>" when it begins and "<name>" with the bytes read, the kernel's
// time (cudaEvents), bytes/s and the in-kernel SM clock (clock64 / %globaltimer of block 0) when it ends.
// The Python driver (perfmodel/microbench/power.py) samples nvidia-smi power and clocks meanwhile and
// takes the HBM power per byte as (P_hbm - P_resident) - (P_l2 - P_resident) x bytes/s_hbm / bytes/s_l2.
// The bulk phases give the same derivation for the TMA's path: (P_bulk_hbm - P_resident) - (P_bulk_l2 - P_resident) x
// bytes/s_bulk_hbm / bytes/s_bulk_l2.
// Usage: mb_power [--seconds S] [--hbm-mib N]
#include "mb_common.cuh"
#include <chrono>
#include <thread>

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct Probe {
  unsigned long long c0, c1, t0, t1;
};

__global__ void resident_kernel(unsigned long long dur_ns, Probe* probe) {
  unsigned long long t0 = gtimer(), c0 = clock64();
  while (gtimer() - t0 < dur_ns) __nanosleep(2000);
  if (blockIdx.x == 0 && threadIdx.x == 0) *probe = Probe{c0, (unsigned long long)clock64(), t0, gtimer()};
}

__global__ void __launch_bounds__(512) read_kernel(const int4* __restrict__ buf, size_t n, unsigned long long dur_ns,
                                                   unsigned long long* bytes, Probe* probe, int* sink) {
  const unsigned long long t0 = gtimer(), c0 = clock64();
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  unsigned long long loads = 0;
  do {
    size_t i = tid;
    for (; i + 3 * stride < n; i += 4 * stride) {   // four independent 16-byte loads in flight
      int4 a = __ldcg(buf + i), b = __ldcg(buf + i + stride), c = __ldcg(buf + i + 2 * stride),
           d = __ldcg(buf + i + 3 * stride);
      acc ^= a.x ^ b.y ^ c.z ^ d.w;
      loads += 4;
    }
    for (; i < n; i += stride) {
      int4 a = __ldcg(buf + i);
      acc ^= a.x;
      loads += 1;
    }
  } while (gtimer() - t0 < dur_ns);
  atomicAdd(bytes, loads * 16ull);
  if (acc == 0x7fffffff) sink[tid & 1023] = acc;   // keeps the loads (a store in the rare case it is true)
  if (blockIdx.x == 0 && threadIdx.x == 0) *probe = Probe{c0, (unsigned long long)clock64(), t0, gtimer()};
}

// Bulk-copy ring: kBulkStages stages of kBulkChunk bytes; one CTA per SM (its dynamic shared memory is over half an
// SM's), one thread issues a chunk into a free stage and waits for the oldest. Each CTA walks its own slice of the
// buffer: with chunks strided over the grid, CTAs a pass apart read the same chunks (ncu on an H200, 2026-11-27:
// 1.30 TB from DRAM where the kernel counted 1.79 in 0.3 s, and in 6 s the count reached 4x the DRAM's rate).
constexpr int kBulkStages = 7;
constexpr uint32_t kBulkChunk = 16384;
constexpr int kBulkSmem = 120 * 1024;

__global__ void __launch_bounds__(32) bulk_kernel(const char* __restrict__ buf, size_t n_bytes, unsigned long long dur_ns,
                                                  unsigned long long* bytes, Probe* probe) {
  extern __shared__ __align__(1024) unsigned char ring[];
  __shared__ __align__(8) uint64_t bars[kBulkStages];
  if (threadIdx.x != 0) return;
  const unsigned long long t0 = gtimer(), c0 = clock64();
  const uint32_t bar0 = smem_u32(bars), dst0 = smem_u32(ring);
  init_stage_barriers(bar0, kBulkStages);
  const size_t slice = n_bytes / kBulkChunk / gridDim.x, first = blockIdx.x * slice;   // this CTA's chunks
  size_t next = first;
  auto issue = [&](int s) {
    mbar_arrive_expect_tx(bar0 + 8 * s, kBulkChunk);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst0 + s * kBulkChunk), "l"(buf + next * kBulkChunk), "r"(kBulkChunk), "r"(bar0 + 8 * s)
                 : "memory");
    if (++next == first + slice) next = first;
  };
  for (int s = 0; s < kBulkStages; ++s) issue(s);
  unsigned long long done = 0;
  uint32_t parity = 0;
  int s = 0;
  bool more = true;
  while (true) {
    mbar_wait(bar0 + 8 * s, parity);
    ++done;
    if (more && gtimer() - t0 >= dur_ns) more = false;
    if (more) issue(s);
    if (++s == kBulkStages) { s = 0; parity ^= 1; }
    if (!more) {
      for (int k = 0; k < kBulkStages - 1; ++k) {   // the copies still in flight land before the CTA exits
        mbar_wait(bar0 + 8 * s, parity);
        ++done;
        if (++s == kBulkStages) { s = 0; parity ^= 1; }
      }
      break;
    }
  }
  atomicAdd(bytes, done * kBulkChunk);
  if (blockIdx.x == 0) *probe = Probe{c0, (unsigned long long)clock64(), t0, gtimer()};
}

__global__ void fill_kernel(int4* buf, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = make_int4((int)hash32((uint32_t)(4 * i)), (int)hash32((uint32_t)(4 * i + 1)),
                       (int)hash32((uint32_t)(4 * i + 2)), (int)(hash32((uint32_t)(4 * i + 3)) | 1));
}

static double probe_clock(const Probe& p) {
  return p.t1 > p.t0 ? (double)(p.c1 - p.c0) / ((double)(p.t1 - p.t0) * 1e-9) : 0.0;
}

static void phase(const char* name, int sms, double seconds, const int4* buf, size_t n, unsigned long long* bytes,
                  Probe* probe, int* sink, bool bulk = false) {
  const unsigned long long dur = (unsigned long long)(seconds * 1e9);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaMemset(bytes, 0, sizeof(unsigned long long)));
  std::string start = std::string("phase_start_") + name;
  Rec(start.c_str()).num("seconds", seconds).emit();
  CK(cudaEventRecord(e0));
  if (buf == nullptr) resident_kernel<<<sms * 2, 256>>>(dur, probe);
  else if (bulk) bulk_kernel<<<sms, 32, kBulkSmem>>>(reinterpret_cast<const char*>(buf), n * 16, dur, bytes, probe);
  else read_kernel<<<sms * 4, 512>>>(buf, n, dur, bytes, probe, sink);
  CK(cudaEventRecord(e1));
  CK_LAUNCH();
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  unsigned long long b = 0;
  Probe p;
  CK(cudaMemcpy(&b, bytes, sizeof b, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&p, probe, sizeof p, cudaMemcpyDeviceToHost));
  Rec(name).num("seconds", ms * 1e-3).num("bytes", (double)b).num("bytes_per_s", b / (ms * 1e-3))
      .num("buffer_bytes", (double)n * 16).num("sm_clock_hz", probe_clock(p)).emit();
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

int main(int argc, char** argv) {
  double seconds = 6.0;
  size_t hbm_mib = 4096;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--hbm-mib") && i + 1 < argc) hbm_mib = (size_t)atoll(argv[++i]);
    else die("unknown argument %s (usage: mb_power [--seconds S] [--hbm-mib N])", argv[i]);
  }
  emit_device_record();
  const int sms = sm_count();
  const size_t l2_n = (16ull << 20) / 16, hbm_n = (hbm_mib << 20) / 16;
  int4 *l2buf, *hbmbuf;
  unsigned long long* bytes;
  Probe* probe;
  int* sink;
  CK(cudaMalloc(&l2buf, l2_n * 16));
  CK(cudaMalloc(&hbmbuf, hbm_n * 16));
  CK(cudaMalloc(&bytes, sizeof(unsigned long long)));
  CK(cudaMalloc(&probe, sizeof(Probe)));
  CK(cudaMalloc(&sink, 1024 * sizeof(int)));
  fill_kernel<<<sms * 8, 256>>>(l2buf, l2_n);
  fill_kernel<<<sms * 8, 256>>>(hbmbuf, hbm_n);
  CK_LAUNCH();
  Rec("phase_start_idle").num("seconds", seconds).emit();   // nothing on the GPU
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  Rec("idle").num("seconds", seconds).emit();
  phase("resident", sms, seconds, nullptr, 0, bytes, probe, sink);
  phase("l2", sms, seconds, l2buf, l2_n, bytes, probe, sink);
  phase("hbm", sms, seconds, hbmbuf, hbm_n, bytes, probe, sink);
  phase("resident2", sms, seconds, nullptr, 0, bytes, probe, sink);
  CK(cudaFuncSetAttribute(bulk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBulkSmem));
  phase("bulk_l2", sms, seconds, l2buf, l2_n, bytes, probe, sink, true);
  phase("bulk_hbm", sms, seconds, hbmbuf, hbm_n, bytes, probe, sink, true);
  phase("resident3", sms, seconds, nullptr, 0, bytes, probe, sink);
  return 0;
}
