// mb_stream: what a GEMM that keeps only a few SMs busy, or runs for only microseconds, pays (issue 8).
//
//  - hbm_sms: bulk copies (cp.async.bulk, the TMA engine) of a cold buffer (> 3 x L2, each byte read once
//    per launch) into a ring of `stages` shared-memory slots by one thread per CTA, one CTA per SM, with
//    `ctas` = 1..all SMs active: bytes per clock per SM and chip-wide bytes/s. Few active SMs cannot reach
//    the chip's HBM bandwidth: each SM has its bytes in flight / loaded latency (Little's law) at most.
//  - launch_gap: what one launch costs in the timing method of our harness (a CUDA event pair around every
//    launch, back to back on one stream): an empty kernel of the GEMM's launch shape (one CTA per SM, 384
//    threads, ~200 KB of dynamic shared memory), with and without a cluster of 2, and the same kernel where
//    each CTA waits for one 32 KB bulk copy from HBM (the GEMM prologue's first load), and kernels that spin for
//    0..100 us of clock64 cycles (event time minus spin time: what a launch adds to a kernel of that length).
//  - launch_clusters (--launch-clusters alone; the sixteenth session): the spinning kernel launched as our harness
//    launches the GEMM (cudaLaunchKernelEx with a cluster dimension of 1, 2 or 4 along x), 64 or 128 CTAs of 384
//    threads with ~200 KB of shared memory, spinning 0, 10 or 20 us, with or without a cluster barrier before exit
//    (our kernel's clusters sync so that no CTA leaves while a peer may still write it): what a cluster launch adds.
#include <cuda.h>
#include <cmath>
#include "mb_common.cuh"

static bool g_quick = false;

__device__ __forceinline__ void bulk_load(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

// CTA b streams chunks b, b + grid, b + 2 grid, ... of `buf` (chunk bytes each), `iters` of them.
__global__ void hbm_stream_kernel(const uint8_t* buf, int stages, int chunk, int iters, ClockProbe* probe,
                                  unsigned long long* cycles) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = (smem_u32(raw) + 127u) & ~127u, bars = base + stages * chunk;
  if (threadIdx.x != 0) return;
  init_stage_barriers(bars, stages);
  if (blockIdx.x == 0) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
  long long t0 = clk();
  for (int it = 0; it < iters; ++it) {
    const int slot = it % stages;
    const uint32_t bar = bars + 8 * slot;
    if (it >= stages) mbar_wait(bar, (uint32_t)(((it - stages) / stages) & 1));   // the slot's previous copy
    mbar_arrive_expect_tx(bar, chunk);
    bulk_load(base + slot * chunk, buf + ((size_t)it * gridDim.x + blockIdx.x) * chunk, chunk, bar);
  }
  for (int it = iters < stages ? 0 : iters - stages; it < iters; ++it)   // drain: the last copy of every slot
    mbar_wait(bars + 8 * (it % stages), (uint32_t)((it / stages) & 1));
  cycles[blockIdx.x] = clk() - t0;
  if (blockIdx.x == 0) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
}

__global__ void empty_kernel(int* sink) {
  if (sink && threadIdx.x == 0 && blockIdx.x == 0x7fffffff) *sink = 1;
}

__global__ void __cluster_dims__(2, 1, 1) empty_cluster_kernel(int* sink) {
  if (sink && threadIdx.x == 0 && blockIdx.x == 0x7fffffff) *sink = 1;
}

// One 32 KB bulk copy per CTA from a cold region, waited for: the GEMM's first k-block.
__global__ void first_load_kernel(const uint8_t* buf, size_t offset) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = (smem_u32(raw) + 127u) & ~127u, bar = base + 32768;
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    fence_mbar_init();
    mbar_arrive_expect_tx(bar, 32768);
    bulk_load(base, buf + offset + (size_t)blockIdx.x * 32768, 32768, bar);
    mbar_wait(bar, 0);
  }
  __syncthreads();
}

// Every CTA spins for `cycles` SM clocks (clock64): a kernel of known length at a known clock.
__global__ void spin_kernel(long long cycles, ClockProbe* probe) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
    const long long t0 = clk();
    while (clk() - t0 < cycles) {
    }
    if (blockIdx.x == 0) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
  }
  __syncthreads();
}

struct Ctx {
  uint8_t* buf = nullptr;
  size_t bytes = 0;
  int sms = 0;
  ClockProbe* probe = nullptr;
  unsigned long long* cycles = nullptr;
};

static void set_smem(const void* f, int bytes) {
  CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

static void bench_hbm_sms(Ctx& c) {
  std::vector<int> grids = {1, 2, 4, 8, 16, 24, 28, 32, 48, 64, 96, c.sms};
  if (g_quick) grids = {1, 16, c.sms};
  for (int chunk : {16384, 32768}) {
    for (int stages : {2, 4, 6}) {
      const int smem = stages * chunk + 8 * stages + 128;
      set_smem((const void*)hbm_stream_kernel, smem);
      for (int grid : grids) {
        // every byte read once per launch, and each launch reads another region of the 4 GB buffer
        const size_t per_cta = std::min(c.bytes / 4 / grid, (size_t)64 << 20);
        const int iters = (int)std::min<size_t>(per_cta / chunk, g_quick ? 512 : 4096);
        const size_t span = (size_t)iters * chunk * grid, slots = c.bytes / span;
        size_t launch_no = 0;
        double ms = time_ms(g_quick ? 2 : 4, [&] {
          hbm_stream_kernel<<<grid, 32, smem>>>(c.buf + (launch_no++ % slots) * span, stages, chunk, iters, c.probe,
                                                c.cycles);
        });
        const std::vector<double> bpc = per_cta_rates(c.cycles, grid, (double)iters * chunk);
        Rec("hbm_sms").num("chunk_bytes", chunk).num("stages", stages).num("bytes_in_flight", stages * chunk)
            .num("ctas", grid).num("iters", iters).num("bytes_per_clock_per_sm", median(bpc))
            .num("min_bytes_per_clock_per_sm", *std::min_element(bpc.begin(), bpc.end()))
            .num("chip_bytes_per_s", (double)iters * chunk * grid / (ms * 1e-3)).num("ms", ms)
            .num("sm_clock_hz", read_probe_hz(c.probe)).emit();
      }
    }
  }
}

// Every CTA spins for `cycles` SM clocks, then (sync) the CTAs of its cluster meet at a cluster barrier.
__global__ void spin_cluster_kernel(long long cycles, int sync) {
  if (threadIdx.x == 0) {
    const long long t0 = clk();
    while (clk() - t0 < cycles) {
    }
  }
  __syncthreads();
  if (sync) cluster_sync();
}

// Median time (us) of one launch between an event pair, launches back to back on one stream (as our harness).
template <class F>
static double per_launch_us(int reps, F launch) {
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < 20; ++i) launch(i);
  CK_LAUNCH();
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(ev[2 * r]));
    launch(r);
    CK(cudaEventRecord(ev[2 * r + 1]));
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> t(reps);
  for (int r = 0; r < reps; ++r) {
    float x;
    CK(cudaEventElapsedTime(&x, ev[2 * r], ev[2 * r + 1]));
    t[r] = 1e3 * x;
  }
  for (auto& e : ev) CK(cudaEventDestroy(e));
  return median(t);
}

static void bench_launch(Ctx& c) {
  const int reps = g_quick ? 200 : 2000;
  const int smem = 200 * 1024;
  set_smem((const void*)empty_kernel, smem);
  set_smem((const void*)empty_cluster_kernel, smem);
  set_smem((const void*)first_load_kernel, 32768 + 256);
  for (int threads : {128, 384}) {
    for (int dyn : {0, smem}) {
      double us = per_launch_us(reps, [&](int) { empty_kernel<<<c.sms, threads, dyn>>>(nullptr); });
      Rec("launch_gap").str("kernel", "empty").num("ctas", c.sms).num("threads", threads).num("smem_bytes", dyn)
          .num("cluster", 1).num("us_per_launch", us).emit();
    }
    double us = per_launch_us(reps, [&](int) { empty_cluster_kernel<<<c.sms / 2 * 2, threads, smem>>>(nullptr); });
    Rec("launch_gap").str("kernel", "empty").num("ctas", c.sms / 2 * 2).num("threads", threads).num("smem_bytes", smem)
        .num("cluster", 2).num("us_per_launch", us).emit();
  }
  // kernels of known length: what a launch adds to a kernel that runs `ns` (event time - ns)
  set_smem((const void*)spin_kernel, smem);
  for (double us_spin : {0.0, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0}) {
    const long long cycles = (long long)(us_spin * 1980.0);   // at the 1980 MHz boost clock; the probe reads the clock
    double us = per_launch_us(g_quick ? 100 : 500, [&](int) { spin_kernel<<<c.sms, 384, smem>>>(cycles, c.probe); });
    const double hz0 = read_probe_hz(c.probe), hz = std::isfinite(hz0) && hz0 > 1e8 ? hz0 : 1.98e9, spin = cycles / hz * 1e6;
    Rec("launch_gap").str("kernel", "spin").num("spin_cycles", (double)cycles).num("spin_us", spin)
        .num("sm_clock_hz", hz).num("ctas", c.sms).num("threads", 384).num("smem_bytes", smem).num("cluster", 1)
        .num("us_per_launch", us).num("added_us", us - spin).emit();
  }
  // first load: each launch reads a fresh 32 KB per CTA (offsets walk the cold buffer)
  const size_t span = (size_t)c.sms * 32768;
  const size_t slots = c.bytes / span;
  double us = per_launch_us(reps, [&](int r) {
    first_load_kernel<<<c.sms, 384, 32768 + 256>>>(c.buf, (size_t)(r % slots) * span);
  });
  Rec("launch_gap").str("kernel", "first_load").num("ctas", c.sms).num("threads", 384).num("smem_bytes", 32768 + 256)
      .num("cluster", 1).num("us_per_launch", us).emit();
}

static void bench_launch_clusters(Ctx& c) {
  const int reps = g_quick ? 200 : 1000, smem = 200 * 1024;
  set_smem((const void*)spin_cluster_kernel, smem);
  for (int ctas : {64, 128})
    for (double us_spin : {0.0, 10.0, 20.0})
      for (int cluster : {1, 2, 4})
        for (int sync : {0, 1}) {
          if (cluster == 1 && sync) continue;
          const long long cycles = (long long)(us_spin * 1980.0);
          cudaLaunchAttribute attr;
          // always the cluster API, as our harness launches (a dimension of 1 included)
          const cudaLaunchConfig_t cfg = cluster_launch_config(ctas, 384, smem, cluster, &attr, true);
          const double us = per_launch_us(reps, [&](int) {
            CK(cudaLaunchKernelEx(&cfg, spin_cluster_kernel, cycles, sync));
          });
          Rec("launch_clusters").num("ctas", ctas).num("cluster", cluster).num("cluster_sync", sync)
              .num("spin_cycles", (double)cycles).num("spin_us_at_1980mhz", us_spin).num("threads", 384)
              .num("smem_bytes", smem).num("us_per_launch", us).emit();
        }
}

int main(int argc, char** argv) {
  bool clusters_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) g_quick = true;
    else if (!strcmp(argv[i], "--launch-clusters")) clusters_only = true;
    else die("unknown argument %s (usage: mb_stream [--quick] [--launch-clusters])", argv[i]);
  }
  emit_device_record();
  Ctx c;
  c.sms = sm_count();
  c.bytes = (size_t)(g_quick ? 1 : 4) << 30;
  CK(cudaMalloc(&c.buf, c.bytes));
  CK(cudaMemset(c.buf, 1, c.bytes));
  CK(cudaMalloc(&c.probe, sizeof(ClockProbe)));
  CK(cudaMalloc(&c.cycles, sizeof(unsigned long long) * 1024));
  if (clusters_only) {
    bench_launch_clusters(c);
    return 0;
  }
  bench_launch(c);
  bench_hbm_sms(c);
  return 0;
}
