// wgmma microbenchmarks (sm_90a), A and B from shared memory (SS), K-major, 128-byte swizzle,
// random (non-zero) operands, fp32 accumulators:
//  - latency: one warpgroup, issue -> commit -> wait_group 0 for a single wgmma, and for a chain of
//    8 dependent wgmmas on one accumulator (cycles per wgmma), by N and type;
//  - throughput: W warpgroups per SM (one CTA per SM on every SM), each a chain on its own
//    accumulator, commit every 8 with wait_group 1; FLOP per clock per SM from clock64 and
//    TFLOP/s from cudaEvents;
//  - burn: the N=256 bf16 throughput kernel for a given number of seconds (sustained clock);
//  - swizzle (--swizzle): the throughput kernel with A and B descriptors in 128B, 64B and 32B swizzle modes
//    (SBO = 8 rows x the swizzle span), 2 warpgroups, N = 64/128/256, bf16 and e4m3: whether the tensor
//    core's operand reads slow down with narrower swizzles (bank conflicts);
//  - gap (--gap SECONDS): the burn kernel made 5 us .. 5 ms long, launched back to back with a CUDA event pair
//    around every launch (as our GEMM harness times kernels) for SECONDS per length after a warm-up of SECONDS/3:
//    the start-to-start period, the event time, block 0's in-kernel time and clock (clock64 / %globaltimer of the
//    last launches), so the SM idle time between launches and the clock a short kernel runs at under the power cap;
//  - transient (--transient): after 0.3 / 1 / 3 s of idle GPU, ~1 ms burn launches back to back (event pair around
//    each) for 0.6 s at two loads (2 and 1 warpgroups per SM): each launch's start (ms after the first) and its block
//    0 in-kernel clock, i.e. how fast the power limiter pulls the clock down from boost in a short timing loop;
//  - burn with zero rows (--burn-rows SECONDS ROWS [BROWS]): the burn with A's rows from ROWS on (of 64) zero, as the
//    tile rows beyond M of a skinny GEMM are (TMA zero-fills them), and B's rows from BROWS on (of 256; default 256,
//    none), as a tile's columns beyond N: whether the tensor core's power, so the clock under the cap, depends on
//    the operands; --burn-rows S 64 is the plain burn;
//  - issue (--wgmma-issue): how long a warpgroup's wgmma issue takes to return (clock64 before the batch and after
//    its commit) against its completion (after wait_group 0), by shape (bf16 m64n64/128/256k16 with one or two
//    m-subtiles, e4m3 m64n256k32), batch (1-16 instructions) and warpgroups (1-3) on an idle or busy tensor pipe:
//    how many instructions are still queued when the issue returns.
// Usage: mb_wgmma [--quick] | mb_wgmma --burn SECONDS | mb_wgmma --burn-rows SECONDS ROWS [BROWS] | mb_wgmma --swizzle |
//        mb_wgmma --gap SECONDS | mb_wgmma --transient | mb_wgmma --wgmma-issue
#include "mb_common.cuh"
#include "mb_wgmma_ops.cuh"

#include <chrono>
#include <thread>

constexpr int kABytes = 64 * 128;    // A: 64 rows x 128 B (64 bf16 / 128 e4m3 of K)
constexpr int kBBytes = 256 * 128;   // B: up to 256 rows x 128 B
constexpr int kSmem = kABytes + kBBytes + 1024;
constexpr int kChainUnroll = 8;

// desc_sw128 (mb_common.cuh, the 128B-swizzle wgmma descriptor) in swizzle mode SW (1: 128B, 2: 64B, 3: 32B;
// PTX ISA 9.7.15.5.1.2.2 bits 62-63), SBO = 8 rows x span.
template <int SW>
__device__ __forceinline__ uint64_t desc_sw(uint32_t addr) {
  constexpr uint32_t span = SW == 1 ? 128 : SW == 2 ? 64 : 32;
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)((8 * span) >> 4) << 32) |
         ((uint64_t)SW << 62);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int K>
__device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(K) : "memory"); }

// A's rows from this one on are zero (64: none), and B's from g_b_rows on (256: none); set by --burn-rows.
__device__ int g_a_rows = 64;
__device__ int g_b_rows = 256;

// Fill A and B with random operands (A's rows from g_a_rows on and B's from g_b_rows on zero); returns the 1024-aligned
// base address.
template <int T>
__device__ uint32_t fill_operands(uint8_t* raw) {
  const uint32_t base = (smem_u32(raw) + 1023u) & ~1023u;
  uint8_t* p = raw + (base - smem_u32(raw));
  for (int i = threadIdx.x; i < (kABytes + kBBytes) / 2; i += blockDim.x) {
    uint16_t v;
    if (T == 0) v = rand_bf16(i + 7919u * blockIdx.x);
    else v = (uint16_t)rand_e4m3(2 * i) | ((uint16_t)rand_e4m3(2 * i + 1) << 8);
    if (i < kABytes / 2 && (2 * i) / 128 >= g_a_rows) v = 0;   // A row = byte / 128 (swizzle stays within a row)
    if (i >= kABytes / 2 && (2 * i - kABytes) / 128 >= g_b_rows) v = 0;   // B row, the same way
    reinterpret_cast<uint16_t*>(p)[i] = v;
  }
  fence_proxy_async();  // generic-proxy writes -> async-proxy (wgmma) reads
  __syncthreads();
  return base;
}

template <int N>
__device__ __forceinline__ float sum_acc(float (&d)[N / 2]) {
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  return s;
}

// out[0] = cycles issue->wait_group 0 for one wgmma; out[1] = cycles per wgmma for a dependent chain
// of 8 on one accumulator, issue -> wait_group 0 (pipeline drained every 8).
template <int N, int T>
__global__ void __launch_bounds__(128, 1) wgmma_latency_kernel(int iters, float* sink, double* out) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = fill_operands<T>(raw);
  const uint64_t da = desc_sw128(base), db = desc_sw128(base + kABytes);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  for (int i = 0; i < 4; ++i) { wg_fence(); Wgmma<N, T>::run(d, da, db, 1); wg_commit(); wg_wait<0>(); }
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) { wg_fence(); Wgmma<N, T>::run(d, da, db, 1); wg_commit(); wg_wait<0>(); }
  long long t1 = clk();
  for (int i = 0; i < iters; ++i) {
    wg_fence();
#pragma unroll
    for (int j = 0; j < kChainUnroll; ++j) Wgmma<N, T>::run(d, da, db, 1);
    wg_commit();
    wg_wait<0>();
  }
  long long t2 = clk();
  if (threadIdx.x == 0) {
    out[0] = (double)(t1 - t0) / iters;
    out[1] = (double)(t2 - t1) / ((double)iters * kChainUnroll);
  }
  sink[threadIdx.x] = sum_acc<N>(d);
}

// W warpgroups, each a chain of wgmmas on its own accumulator; commit every 8, keep 2 groups in flight.
template <int N, int T, int W, int SW = 1>
__global__ void __launch_bounds__(128 * W, 1) wgmma_throughput_kernel(int iters, float* sink,
                                                                      unsigned long long* cycles,
                                                                      ClockProbe* probe) {
  extern __shared__ uint8_t raw[];
  const uint32_t base = fill_operands<T>(raw);
  const uint64_t da = desc_sw<SW>(base), db = desc_sw<SW>(base + kABytes);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
  if (lead) { probe->c0 = clk(); probe->t0 = gtimer_ns(); }
  long long t0 = clk();
  wg_fence();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kChainUnroll; ++j) Wgmma<N, T>::run(d, da, db, 1);
    wg_commit();
    wg_wait<1>();
  }
  wg_wait<0>();
  __syncthreads();
  long long t1 = clk();
  if (threadIdx.x == 0) cycles[blockIdx.x] = (unsigned long long)(t1 - t0);
  if (lead) { probe->c1 = clk(); probe->t1 = gtimer_ns(); }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum_acc<N>(d);
}

struct Bufs {
  float* sink;
  double* out;
  unsigned long long* cycles;
  ClockProbe* probe;
  int sms;
};

constexpr double flops_per_wgmma(int n, int t) { return 2.0 * 64 * n * (t == 0 ? 16 : 32); }
static const char* type_name(int t) { return t == 0 ? "bf16" : "e4m3"; }

template <int N, int T>
static void run_latency(Bufs& b, bool quick) {
  auto k = wgmma_latency_kernel<N, T>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  const int iters = quick ? 64 : 1024;
  std::vector<double> single, chain;
  for (int r = 0; r < 5; ++r) {
    k<<<1, 128, kSmem>>>(iters, b.sink, b.out);
    CK_LAUNCH();
    double h[2];
    CK(cudaMemcpy(h, b.out, sizeof h, cudaMemcpyDeviceToHost));
    single.push_back(h[0]);
    chain.push_back(h[1]);
  }
  Rec("wgmma_latency").str("dtype", type_name(T)).num("n", N).num("k", T == 0 ? 16 : 32)
      .num("issue_to_wait_cycles", median(single)).num("chain_cycles_per_wgmma", median(chain))
      .num("chain_flops_per_clock", flops_per_wgmma(N, T) / median(chain)).emit();
}

// Returns {ms, FLOP/clk/SM (median over CTAs), probe clock}.
template <int N, int T, int W, int SW = 1>
static void time_throughput(Bufs& b, int iters, int reps, double* ms, double* fpc, double* hz) {
  auto k = wgmma_throughput_kernel<N, T, W, SW>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  *ms = time_ms(reps, [&] { k<<<b.sms, 128 * W, kSmem>>>(iters, b.sink, b.cycles, b.probe); });
  std::vector<unsigned long long> cyc(b.sms);
  CK(cudaMemcpy(cyc.data(), b.cycles, b.sms * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<double> f;
  for (auto c : cyc) f.push_back(flops_per_wgmma(N, T) * kChainUnroll * iters * W / (double)c);
  *fpc = median(f);
  ClockProbe p;
  CK(cudaMemcpy(&p, b.probe, sizeof p, cudaMemcpyDeviceToHost));
  *hz = probe_hz(p);
}

template <int N, int T, int W>
static void run_throughput(Bufs& b, bool quick) {
  // ~2 ms per launch at peak rate: iters * 8 wgmmas * W per SM.
  const double target_flops_per_sm = quick ? 2e8 : 2e9;
  const int iters = std::max(16, (int)(target_flops_per_sm / (flops_per_wgmma(N, T) * kChainUnroll * W)));
  double ms, fpc, hz;
  time_throughput<N, T, W>(b, iters, quick ? 3 : 7, &ms, &fpc, &hz);
  const double tflops = flops_per_wgmma(N, T) * kChainUnroll * iters * W * b.sms / (ms * 1e-3) / 1e12;
  Rec("wgmma_throughput").str("dtype", type_name(T)).num("n", N).num("k", T == 0 ? 16 : 32).num("warpgroups", W)
      .num("iters", iters).num("flops_per_clock_per_sm", fpc).num("tflops", tflops).num("ms", ms)
      .num("sm_clock_hz", hz).emit();
}

template <int N, int T>
static void run_shape(Bufs& b, bool quick) {
  run_latency<N, T>(b, quick);
  run_throughput<N, T, 1>(b, quick);
  run_throughput<N, T, 2>(b, quick);
  if constexpr (N <= 128) run_throughput<N, T, 4>(b, quick);  // 64 accumulator registers or fewer
  else run_throughput<N, T, 3>(b, quick);                     // 128 accumulators: 3 fit in 64K registers
}

template <int T>
static void run_type(Bufs& b, bool quick) {
  run_shape<8, T>(b, quick);
#ifndef MB_CI_SUBSET  // the CI compile check builds the extreme shapes only (all six take ~12 s of ptxas)
  run_shape<16, T>(b, quick);
  run_shape<32, T>(b, quick);
  run_shape<64, T>(b, quick);
  run_shape<128, T>(b, quick);
#endif
  run_shape<256, T>(b, quick);
}

template <int N, int T, int SW>
static void run_swizzle_one(Bufs& b) {
  const int iters = std::max(16, (int)(2e9 / (flops_per_wgmma(N, T) * kChainUnroll * 2)));
  double ms, fpc, hz;
  time_throughput<N, T, 2, SW>(b, iters, 5, &ms, &fpc, &hz);
  Rec("wgmma_swizzle").str("dtype", type_name(T)).num("n", N).num("k", T == 0 ? 16 : 32).num("warpgroups", 2)
      .num("swizzle_bytes", SW == 1 ? 128 : SW == 2 ? 64 : 32).num("iters", iters).num("flops_per_clock_per_sm", fpc)
      .num("ms", ms).num("sm_clock_hz", hz).emit();
}

template <int N, int T>
static void run_swizzle_n(Bufs& b) {
  run_swizzle_one<N, T, 1>(b);
  run_swizzle_one<N, T, 2>(b);
  run_swizzle_one<N, T, 3>(b);
}

static void run_swizzle(Bufs& b) {
  run_swizzle_n<64, 0>(b);
  run_swizzle_n<128, 0>(b);
  run_swizzle_n<256, 0>(b);
  run_swizzle_n<128, 1>(b);
  run_swizzle_n<256, 1>(b);
}

// Sustained tensor load: back-to-back ~50 ms launches of the N=256 bf16 kernel for `seconds` (A's rows from
// `a_rows` on and B's from `b_rows` on zero); the clock median over all launches and over the last 40% of the time
// (the limiter settled).
static void burn(Bufs& b, double seconds, int a_rows = 64, int b_rows = 256) {
  CK(cudaMemcpyToSymbol(g_a_rows, &a_rows, sizeof a_rows));
  CK(cudaMemcpyToSymbol(g_b_rows, &b_rows, sizeof b_rows));
  const int iters = 50000;  // ~50 ms per launch at ~4000 FLOP/clk/SM and ~1.7 GHz
  double ms, fpc, hz;
  time_throughput<256, 0, 2>(b, 1000, 1, &ms, &fpc, &hz);  // warm-up
  Rec("burn_start").num("seconds", seconds).num("a_rows_nonzero", a_rows).num("b_rows_nonzero", b_rows).emit();
  std::vector<double> tf, clocks, fpcs, late;
  auto t_start = std::chrono::steady_clock::now();
  double t = 0;
  while ((t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count()) < seconds) {
    time_throughput<256, 0, 2>(b, iters, 1, &ms, &fpc, &hz);
    tf.push_back(flops_per_wgmma(256, 0) * kChainUnroll * iters * 2 * b.sms / (ms * 1e-3) / 1e12);
    clocks.push_back(hz);
    fpcs.push_back(fpc);
    if (t >= 0.6 * seconds) late.push_back(hz);
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  Rec("burn").str("kernel", "wgmma m64n256k16 bf16, 2 warpgroups/SM").num("a_rows_nonzero", a_rows)
      .num("b_rows_nonzero", b_rows)
      .num("seconds", elapsed).num("launches", (double)tf.size()).num("median_tflops", median(tf))
      .num("median_kernel_clock_hz", median(clocks)).num("min_kernel_clock_hz", *std::min_element(clocks.begin(), clocks.end()))
      .num("late_median_kernel_clock_hz", late.empty() ? 0.0 : median(late))
      .num("median_flops_per_clock_per_sm", median(fpcs)).emit();
  const int all = 64, all_b = 256;
  CK(cudaMemcpyToSymbol(g_a_rows, &all, sizeof all));
  CK(cudaMemcpyToSymbol(g_b_rows, &all_b, sizeof all_b));
}

// Short burn kernels back to back, timed as the GEMM harness times (perfmodel/kernels/harness_sm90.cu): how long
// the SMs idle between launches and which clock a kernel of each length runs at once the power limiter holds.
static void gap(Bufs& b, double seconds) {
  auto k = wgmma_throughput_kernel<256, 0, 2>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  const double us_per_iter = 8 * flops_per_wgmma(256, 0) * 2 / 4096.0 / 1.8e3;   // ~1.1 us at peak rate, ~1.8 GHz
  const double lengths_us[] = {5, 10, 20, 40, 80, 160, 400, 1000, 5000};
  auto now_s = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  const int batch = 64;   // event pairs recorded per synchronisation (the harness records all, then synchronises)
  std::vector<cudaEvent_t> ev(2 * batch);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (double len_us : lengths_us) {
    const int iters = std::max(1, (int)(len_us / us_per_iter));
    auto loop = [&](double dur, std::vector<double>* ev_ms, std::vector<double>* in_ns, std::vector<double>* hz,
                    double* period_us) {
      long launches = 0;
      const double t0 = now_s();
      double t1 = t0;
      while (t1 - t0 < dur) {
        for (int r = 0; r < batch; ++r) {
          CK(cudaEventRecord(ev[2 * r]));
          k<<<b.sms, 256, kSmem>>>(iters, b.sink, b.cycles, b.probe);
          CK(cudaEventRecord(ev[2 * r + 1]));
        }
        CK(cudaEventSynchronize(ev[2 * batch - 1]));
        CK(cudaGetLastError());
        launches += batch;
        t1 = now_s();
        if (ev_ms) {
          for (int r = 0; r < batch; r += 8) {
            float x;
            CK(cudaEventElapsedTime(&x, ev[2 * r], ev[2 * r + 1]));
            ev_ms->push_back(x);
          }
          ClockProbe p;
          CK(cudaMemcpy(&p, b.probe, sizeof p, cudaMemcpyDeviceToHost));
          in_ns->push_back((double)(p.t1 - p.t0));
          hz->push_back(probe_hz(p));
        }
      }
      if (period_us) {   // start-to-start over the batches' event chain, GPU time
        float x;
        CK(cudaEventElapsedTime(&x, ev[0], ev[2 * batch - 1]));
        *period_us = x * 1e3 / batch;
      }
      return launches;
    };
    loop(seconds / 3, nullptr, nullptr, nullptr, nullptr);
    std::vector<double> ev_ms, in_ns, hz;
    double period_us = 0;
    const long n = loop(seconds, &ev_ms, &in_ns, &hz, &period_us);
    Rec("gap").str("kernel", "wgmma m64n256k16 bf16, 2 warpgroups/SM, one CTA per SM").num("iters", iters)
        .num("launches", (double)n).num("seconds", seconds).num("period_us", period_us)
        .num("event_us", median(ev_ms) * 1e3).num("in_kernel_us", median(in_ns) * 1e-3)
        .num("idle_us", period_us - median(in_ns) * 1e-3).num("kernel_clock_hz", median(hz))
        .num("min_kernel_clock_hz", *std::min_element(hz.begin(), hz.end()))
        .num("tflops", flops_per_wgmma(256, 0) * kChainUnroll * iters * 2 * b.sms / (median(ev_ms) * 1e-3) / 1e12)
        .emit();
  }
  for (auto& e : ev) CK(cudaEventDestroy(e));
}

// The clock of each launch of a short timing loop started after the GPU idled: the power limiter's response.
template <int W>
static void transient_one(Bufs& b, double idle_s, ClockProbe* probes, int max_launches) {
  auto k = wgmma_throughput_kernel<256, 0, W>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  const int iters = W == 2 ? 900 : 1800;   // ~1 ms per launch near 1.8 GHz (one warpgroup: half the rate per SM)
  std::vector<cudaEvent_t> ev(2 * max_launches);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  CK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_s));
  for (int r = 0; r < max_launches; ++r) {
    CK(cudaEventRecord(ev[2 * r]));
    k<<<b.sms, 128 * W, kSmem>>>(iters, b.sink, b.cycles, probes + r);
    CK(cudaEventRecord(ev[2 * r + 1]));
  }
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  std::vector<ClockProbe> h(max_launches);
  CK(cudaMemcpy(h.data(), probes, max_launches * sizeof(ClockProbe), cudaMemcpyDeviceToHost));
  for (int r = 0; r < max_launches; ++r) {
    float t0 = 0, dt = 0;
    CK(cudaEventElapsedTime(&t0, ev[0], ev[2 * r]));
    CK(cudaEventElapsedTime(&dt, ev[2 * r], ev[2 * r + 1]));
    Rec("transient").num("idle_s", idle_s).num("warpgroups", W).num("launch", r).num("start_ms", t0)
        .num("event_ms", dt).num("kernel_clock_hz", probe_hz(h[r])).emit();
  }
  for (auto& e : ev) CK(cudaEventDestroy(e));
}

static void transient(Bufs& b) {
  const int n = 600;   // ~0.6 s of ~1 ms launches
  ClockProbe* probes;
  CK(cudaMalloc(&probes, n * sizeof(ClockProbe)));
  for (double idle : {3.0, 1.0, 0.3}) {
    transient_one<2>(b, idle, probes, n);
    transient_one<1>(b, idle, probes, n);
  }
  CK(cudaFree(probes));
}

// ---------------------------------------------------------------- --wgmma-issue
// How long a warpgroup's wgmma ISSUE takes to return (not the MMA's completion): one CTA per SM, W = 1..3 warpgroups,
// each round: wgmma.fence; t0 = clock64; B wgmma m64nNk16 bf16 (or m64nNk32 e4m3) SS; commit_group; t1 = clock64
// (the issue returned); wait_group 0 ("idle": the next round starts on an empty tensor pipe, all W warpgroups released
// together by a CTA barrier, as consumers are when a stage lands) or wait_group 1 ("busy": the previous batch still
// executes when the next is issued, as in a GEMM mainloop); t2 = clock64. S = 2 m-subtiles: each k-step issues two
// wgmma on two 64-row A blocks into two accumulators with the same B (a 256x128 tile's warpgroup), B counting
// instructions. A: two 64-row blocks of 128 B of K, B: 256 rows of 128 B, 128B swizzle, random operands; the k-step
// walks the 128-byte row (4 k-steps) and wraps.
constexpr int kIssueRounds = 64, kIssueWarm = 4, kIssueMaxW = 3;
constexpr int kIssueABytes = 2 * kABytes;
constexpr int kIssueSmem = kIssueABytes + kBBytes + 1024;

template <int N, int T, int S, int B>
__global__ void __launch_bounds__(128 * kIssueMaxW, 1) wgmma_issue_kernel(int busy, float* sink, long long* stamps) {
  static_assert(S == 1 || S == 2, "one or two m-subtiles");
  static_assert(B % S == 0, "B counts instructions: a whole number of k-steps");
  extern __shared__ uint8_t raw[];
  const uint32_t base = (smem_u32(raw) + 1023u) & ~1023u;
  uint16_t* p = reinterpret_cast<uint16_t*>(raw + (base - smem_u32(raw)));
  for (int i = threadIdx.x; i < (kIssueABytes + kBBytes) / 2; i += blockDim.x)
    p[i] = T == 0 ? rand_bf16(i + 7919u * blockIdx.x) : (uint16_t)(rand_e4m3(2 * i) | (rand_e4m3(2 * i + 1) << 8));
  fence_proxy_async();
  __syncthreads();
  const int wg = threadIdx.x / 128, nwg = blockDim.x / 128;
  float d0[N / 2], d1[S == 2 ? N / 2 : 1];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d0[i] = 0.f;
#pragma unroll
  for (int i = 0; i < (S == 2 ? N / 2 : 1); ++i) d1[i] = 0.f;
  long long* out = stamps + 3 * kIssueRounds * (blockIdx.x * nwg + wg);
  for (int r = 0; r < kIssueWarm + kIssueRounds; ++r) {
    if (!busy) __syncthreads();   // every warpgroup drained (wait_group 0): they issue together into an empty pipe
    wg_fence();
    const long long t0 = clk();
#pragma unroll
    for (int kk = 0; kk < B / S; ++kk) {
      const uint32_t kbyte = (kk % 4) * 32;   // 16 bf16 / 32 e4m3 of K a k-step
      const uint64_t db = desc_sw128(base + kIssueABytes + kbyte);
      Wgmma<N, T>::run(d0, desc_sw128(base + kbyte), db, 1);
      if constexpr (S == 2) Wgmma<N, T>::run(d1, desc_sw128(base + kABytes + kbyte), db, 1);
    }
    wg_commit();
    const long long t1 = clk();
    if (busy) wg_wait<1>();
    else wg_wait<0>();
    const long long t2 = clk();
    if (r >= kIssueWarm && threadIdx.x % 128 == 0) {
      long long* o = out + 3 * (r - kIssueWarm);
      o[0] = t0;
      o[1] = t1;
      o[2] = t2;
    }
  }
  wg_wait<0>();
  float s = sum_acc<N>(d0);
  if constexpr (S == 2) s += sum_acc<N>(d1);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// One launch of B instructions per warpgroup, W warpgroups; medians over CTAs, warpgroups and rounds. queued_at_return
// = (t2 - t1) / (W x the instruction's tensor cycles at 4096 bf16 / 8192 e4m3 FLOP/clk/SM): the instructions still
// queued when the issue returned, if the W warpgroups share the tensor core evenly (idle only).
template <int N, int T, int S, int B>
static void run_issue_one(Bufs& b, long long* stamps, int W, int busy) {
  auto k = wgmma_issue_kernel<N, T, S, B>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kIssueSmem));
  k<<<b.sms, 128 * W, kIssueSmem>>>(busy, b.sink, stamps);
  CK_LAUNCH();
  const size_t n = (size_t)b.sms * W * kIssueRounds * 3;
  std::vector<long long> h(n);
  CK(cudaMemcpy(h.data(), stamps, n * sizeof(long long), cudaMemcpyDeviceToHost));
  auto at = [&](int cta, int w, int r, int i) { return h[((size_t)(cta * W + w) * kIssueRounds + r) * 3 + i]; };
  std::vector<double> issue, after, complete, period, r_issue, r_complete, spread;
  std::vector<std::vector<double>> issue_wg(W), complete_wg(W);
  for (int c = 0; c < b.sms; ++c) {
    for (int r = 0; r < kIssueRounds; ++r) {
      long long t0_min = at(c, 0, r, 0), t0_max = t0_min, t1_max = at(c, 0, r, 1), t2_max = at(c, 0, r, 2);
      for (int w = 0; w < W; ++w) {
        const long long t0 = at(c, w, r, 0), t1 = at(c, w, r, 1), t2 = at(c, w, r, 2);
        issue.push_back((double)(t1 - t0));
        after.push_back((double)(t2 - t1));
        complete.push_back((double)(t2 - t0));
        issue_wg[w].push_back((double)(t1 - t0));
        complete_wg[w].push_back((double)(t2 - t0));
        if (r + 1 < kIssueRounds) period.push_back((double)(at(c, w, r + 1, 0) - t0));
        t0_min = std::min(t0_min, t0);
        t0_max = std::max(t0_max, t0);
        t1_max = std::max(t1_max, t1);
        t2_max = std::max(t2_max, t2);
      }
      r_issue.push_back((double)(t1_max - t0_min));
      r_complete.push_back((double)(t2_max - t0_min));
      spread.push_back((double)(t0_max - t0_min));
    }
  }
  const double tau = flops_per_wgmma(N, T) / (T == 0 ? 4096.0 : 8192.0);
  Rec rec("wgmma_issue");
  rec.str("dtype", type_name(T)).num("n", N).num("k", T == 0 ? 16 : 32).num("subtiles", S).num("warpgroups", W)
      .num("batch", B).str("pipe", busy ? "busy" : "idle").num("rounds", kIssueRounds).num("ctas", b.sms)
      .num("tensor_cycles_per_wgmma", tau).num("issue_cycles", median(issue)).num("after_issue_cycles", median(after))
      .num("complete_cycles", median(complete)).num("period_cycles", median(period))
      .num("round_issue_cycles", median(r_issue)).num("round_complete_cycles", median(r_complete))
      .num("start_spread_cycles", median(spread)).num("queued_at_return", median(after) / (W * tau));
  for (int w = 0; w < W; ++w) {
    const std::string i = "issue_cycles_wg" + std::to_string(w), c = "complete_cycles_wg" + std::to_string(w);
    rec.num(i.c_str(), median(issue_wg[w])).num(c.c_str(), median(complete_wg[w]));
  }
  rec.emit();
}

template <int N, int T, int S, int B>
static void run_issue_batch(Bufs& b, long long* stamps) {
  for (int busy = 0; busy < 2; ++busy)
    for (int w = 1; w <= kIssueMaxW; ++w) run_issue_one<N, T, S, B>(b, stamps, w, busy);
}

template <int N, int T, int S>
static void run_issue_shape(Bufs& b, long long* stamps) {
  if constexpr (S == 1) {
    run_issue_batch<N, T, S, 1>(b, stamps);
    run_issue_batch<N, T, S, 3>(b, stamps);
  }
  run_issue_batch<N, T, S, 2>(b, stamps);
  run_issue_batch<N, T, S, 4>(b, stamps);
  run_issue_batch<N, T, S, 6>(b, stamps);
  run_issue_batch<N, T, S, 8>(b, stamps);
  run_issue_batch<N, T, S, 12>(b, stamps);
  run_issue_batch<N, T, S, 16>(b, stamps);
}

// Two m-subtiles of n256 (256 accumulator registers a thread) do not fit; e4m3 only at n256, one subtile.
static void run_issue(Bufs& b) {
  long long* stamps;
  CK(cudaMalloc(&stamps, (size_t)b.sms * kIssueMaxW * kIssueRounds * 3 * sizeof(long long)));
  run_issue_shape<256, 0, 1>(b, stamps);
  run_issue_shape<64, 0, 2>(b, stamps);
#ifndef MB_CI_SUBSET   // the CI compile check builds the largest and the two-subtile kernels only
  run_issue_shape<64, 0, 1>(b, stamps);
  run_issue_shape<128, 0, 1>(b, stamps);
  run_issue_shape<128, 0, 2>(b, stamps);
  run_issue_shape<256, 1, 1>(b, stamps);
#endif
  CK(cudaFree(stamps));
}

int main(int argc, char** argv) {
  bool quick = false, trans = false, issue = false;
  double burn_s = 0, gap_s = 0;
  int a_rows = 64, b_rows = 256;
  bool swizzle = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--swizzle")) swizzle = true;
    else if (!strcmp(argv[i], "--burn") && i + 1 < argc) burn_s = atof(argv[++i]);
    else if (!strcmp(argv[i], "--burn-rows") && i + 2 < argc) {
      burn_s = atof(argv[++i]);
      a_rows = atoi(argv[++i]);
      if (i + 1 < argc && argv[i + 1][0] != '-') b_rows = atoi(argv[++i]);
    }
    else if (!strcmp(argv[i], "--gap") && i + 1 < argc) gap_s = atof(argv[++i]);
    else if (!strcmp(argv[i], "--transient")) trans = true;
    else if (!strcmp(argv[i], "--wgmma-issue")) issue = true;
    else die("unknown argument %s (usage: mb_wgmma [--quick] | mb_wgmma --burn SECONDS | mb_wgmma --burn-rows SECONDS "
             "ROWS [BROWS] | mb_wgmma --swizzle | mb_wgmma --gap SECONDS | mb_wgmma --transient | "
             "mb_wgmma --wgmma-issue)", argv[i]);
  }
  emit_device_record();
  Bufs b;
  b.sms = sm_count();
  CK(cudaMalloc(&b.sink, (size_t)b.sms * 512 * sizeof(float)));
  CK(cudaMalloc(&b.out, 8 * sizeof(double)));
  CK(cudaMalloc(&b.cycles, b.sms * sizeof(unsigned long long)));
  CK(cudaMalloc(&b.probe, sizeof(ClockProbe)));
  if (issue) {
    run_issue(b);
  } else if (trans) {
    transient(b);
  } else if (gap_s > 0) {
    gap(b, gap_s);
  } else if (burn_s > 0) {
    if (a_rows < 0 || a_rows > 64) die("--burn-rows: ROWS must be 0..64, got %d", a_rows);
    if (b_rows < 0 || b_rows > 256) die("--burn-rows: BROWS must be 0..256, got %d", b_rows);
    burn(b, burn_s, a_rows, b_rows);
  } else if (swizzle) {
    run_swizzle(b);
  } else {
    run_type<0>(b, quick);
    run_type<1>(b, quick);
  }
  return 0;
}
