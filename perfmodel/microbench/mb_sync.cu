// mbarrier microbenchmarks (PTX ISA 9.7.13.15), all timed with clock64 inside the kernel:
//  - local arrive + try_wait.parity round trip by one thread (each arrive completes a phase);
//  - try_wait.parity on an already-completed phase (latency chain) and arrive alone;
//  - arrive -> wait across two warps of one CTA (ping-pong), with try_wait and test_wait;
//  - arrive -> wait across the two CTAs of a cluster (remote arrive, ping-pong): mbarrier.arrive.release.cluster, and
//    the arrive our GEMM releases a multicast stage with (mbarrier.arrive.shared::cluster, .release.cta).
// Usage: mb_sync [--quick]
#include "mb_common.cuh"

constexpr int kSlots = 8;  // result slots (cycles per operation)

__global__ void local_kernel(int n, uint32_t zero, double* out) {
  __shared__ __align__(8) uint64_t bars[4];
  const uint32_t b1 = smem_u32(&bars[0]), bdone = smem_u32(&bars[1]), bmany = smem_u32(&bars[2]);
  const uint32_t bdep = smem_u32(&bars[3]);
  if (threadIdx.x != 0) return;
  mbar_init(b1, 1);
  mbar_init(bdone, 1);
  mbar_init(bmany, (1u << 20) - 1);
  mbar_init(bdep, (1u << 20) - 1);
  fence_mbar_init();
  mbar_arrive(bdone);  // phase 0 of bdone completes: waits on parity 0 succeed at once
  // (0) arrive + try_wait round trip: each arrive completes a phase of b1.
  uint32_t ph = 0;
  for (int i = 0; i < 16; ++i) { mbar_arrive(b1); mbar_wait(b1, ph); ph ^= 1; }
  long long c0 = clk();
  for (int i = 0; i < n; ++i) { mbar_arrive(b1); mbar_wait(b1, ph); ph ^= 1; }
  long long c1 = clk();
  out[0] = (double)(c1 - c0) / n;
  // (1) try_wait on a completed phase, dependent chain through the address.
  uint32_t a = bdone, ok = 0;
  c0 = clk();
  for (int i = 0; i < n; ++i) { ok = mbar_try_wait(a, 0); a = bdone + (ok ? 0 : 8); }
  c1 = clk();
  out[1] = (double)(c1 - c0) / n;
  // (2) test_wait on a completed phase, dependent chain.
  c0 = clk();
  for (int i = 0; i < n; ++i) { ok = mbar_test_wait(a, 0); a = bdone + (ok ? 0 : 8); }
  c1 = clk();
  out[2] = (double)(c1 - c0) / n;
  // (3) arrive without completing a phase: independent (issue rate) ...
  c0 = clk();
  for (int i = 0; i < n; ++i) mbar_arrive(bmany);
  c1 = clk();
  out[3] = (double)(c1 - c0) / n;
  // (4) ... and dependent: the next arrive's address depends on the previous one's state.
  a = bdep;
  c0 = clk();
  for (int i = 0; i < n; ++i) a = bdep + (uint32_t)mbar_arrive_state(a) * zero;
  c1 = clk();
  out[4] = (double)(c1 - c0) / n;
  out[5] = (double)a;  // keeps the chain alive
}

// Ping-pong between warp 0 and warp 1 (lane 0 of each). out = cycles per round trip.
template <bool kTest>
__global__ void pingpong_kernel(int n, double* out) {
  __shared__ __align__(8) uint64_t bars[2];
  const uint32_t ba = smem_u32(&bars[0]), bb = smem_u32(&bars[1]);
  if (threadIdx.x == 0) { mbar_init(ba, 1); mbar_init(bb, 1); fence_mbar_init(); }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane != 0 || warp > 1) return;
  uint32_t ph = 0;
  auto wait = [&](uint32_t bar, uint32_t p) {
    if (kTest) { while (!mbar_test_wait(bar, p)) {} } else { mbar_wait(bar, p); }
  };
  long long c0 = 0;
  for (int i = -16; i < n; ++i) {
    if (i == 0) c0 = clk();
    if (warp == 0) { mbar_arrive(ba); wait(bb, ph); }
    else { wait(ba, ph); mbar_arrive(bb); }
    ph ^= 1;
  }
  long long c1 = clk();
  if (warp == 0) out[0] = (double)(c1 - c0) / n;
}

// Ping-pong between the two CTAs of a cluster: CTA r arrives on the peer's barrier remotely, with
// mbarrier.arrive.release.cluster (kGemmArrive false) or with the arrive our GEMM releases a multicast stage with,
// mbarrier.arrive.shared::cluster at its default .release.cta semantics (kGemmArrive true).
template <bool kGemmArrive>
__global__ void __cluster_dims__(2, 1, 1) cluster_pingpong_kernel(int n, double* out) {
  __shared__ __align__(8) uint64_t bar;
  const uint32_t b = smem_u32(&bar);
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) { mbar_init(b, 1); fence_mbar_init(); }
  cluster_sync();
  if (threadIdx.x == 0) {
    uint32_t ph = 0;
    long long c0 = 0;
    for (int i = -16; i < n; ++i) {
      if (i == 0) c0 = clk();
      if (rank == 0) {
        if (kGemmArrive) mbar_arrive_cluster_cta(b, 1); else mbar_arrive_cluster(b, 1);
        mbar_wait(b, ph);
      } else {
        mbar_wait(b, ph);
        if (kGemmArrive) mbar_arrive_cluster_cta(b, 0); else mbar_arrive_cluster(b, 0);
      }
      ph ^= 1;
    }
    long long c1 = clk();
    if (rank == 0) out[0] = (double)(c1 - c0) / n;
  }
  cluster_sync();
}

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else die("unknown argument %s (usage: mb_sync [--quick])", argv[i]);
  }
  emit_device_record();
  const int n = quick ? 1000 : 20000, reps = 5;
  double* d;
  CK(cudaMalloc(&d, kSlots * sizeof(double)));
  std::vector<double> v[kSlots];
  for (int r = 0; r < reps; ++r) {
    local_kernel<<<1, 32>>>(n, 0u, d);
    CK_LAUNCH();
    double h[kSlots];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 5; ++i) v[i].push_back(h[i]);
  }
  Rec("mbarrier_local").num("iters", n).num("arrive_wait_roundtrip_cycles", median(v[0]))
      .num("try_wait_completed_cycles", median(v[1])).num("test_wait_completed_cycles", median(v[2]))
      .num("arrive_issue_cycles", median(v[3])).num("arrive_dependent_cycles", median(v[4])).emit();
  for (int k = 0; k < 4; ++k) {
    std::vector<double> rt;
    for (int r = 0; r < reps; ++r) {
      if (k == 0) pingpong_kernel<false><<<1, 64>>>(n, d);
      else if (k == 1) pingpong_kernel<true><<<1, 64>>>(n, d);
      else if (k == 2) cluster_pingpong_kernel<false><<<2, 32>>>(n, d);
      else cluster_pingpong_kernel<true><<<2, 32>>>(n, d);
      CK_LAUNCH();
      double h;
      CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
      rt.push_back(h);
    }
    const char* mode = k == 0 ? "cross_warp_try_wait" : k == 1 ? "cross_warp_test_wait"
                       : k == 2 ? "cross_cta_cluster2" : "cross_cta_cluster2_gemm_arrive";
    Rec("mbarrier_pingpong").str("mode", mode).num("iters", n).num("roundtrip_cycles", median(rt))
        .num("one_way_cycles", median(rt) / 2).emit();
  }
  CK(cudaFree(d));
  return 0;
}
