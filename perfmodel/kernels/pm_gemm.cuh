// Interface between the per-configuration kernel translation unit (gemm_sm90.cu, compiled once per
// KernelConfig with -D macros) and the configuration-independent host harness (harness_sm90.cu).
#pragma once
#include <cuda_runtime.h>

extern "C" {

struct PmKernelInfo {
  int bm, bn, bk, mma_n, stages, consumers, cluster_m, cluster_n, multicast;
  int swizzle_a, swizzle_b, persistent, raster_n, group_size, epilogue_tma, fp8;
  int threads;          // per CTA: (1 producer + consumers) warpgroups x 128
  int smem_bytes;       // dynamic shared memory requested at launch
  int producer_regs, consumer_regs;   // setmaxnreg targets
};

struct PmLaunchInfo {
  int grid_ctas;        // CTAs launched (a multiple of the cluster size)
  int tiles;            // output tiles of BM x BN
  int clusters_resident;  // cudaOccupancyMaxActiveClusters (persistent grid size / cluster size)
};

// Fills *info. Always succeeds.
void pm_kernel_info(PmKernelInfo* info);

// Builds the tensor maps for one set of buffers (A: M x K, B: N x K, both K-major; D: M x N row-major
// bf16) and sizes the grid. Returns 0 on success, else writes a one-line message to err.
int pm_make_plan(void** plan, const void* a, const void* b, void* d, int m, int n, int k,
                 PmLaunchInfo* launch, char* err, int err_len);

// Launches the kernel for a plan on a stream; returns the cudaError_t of the launch. clock_probe: null, or 4
// words the launch's block 0 fills with {clock64, %globaltimer ns} at its start and at its consumers' end (the
// in-kernel SM clock of that launch, which NVML's sampled clock is not). cta_probe: null, or 4 words a CTA for
// each CTA of the grid (PmLaunchInfo.grid_ctas): {%smid, %globaltimer ns at its start, at its first consumer
// warpgroup's end, at its producer's last load issued} (a study of how the CTAs of one launch spread), then
// PM_CTA_SAMPLES words of its progress in a kernel built with -DPM_PROGRESS_SAMPLES=1 (Builder(progress_samples=True)):
// the %globaltimer ns at which its producer issued k-block i x interval of its run (all its tiles' k-blocks counted in
// order; interval = ceil(its k-blocks / PM_PRODUCER_SAMPLES), written to word 4, samples from word 5 on), then from word
// 5 + PM_PRODUCER_SAMPLES, for its first and then its second consumer warpgroup, for each of the warpgroup's first
// PM_TILE_SAMPLES tiles, 4 words: the ns at which the warpgroup was ready to wait for the tile's first stage (its
// accumulators zeroed), at which that stage's data were in, at which its mainloop ended (its last wgmma complete) and at
// which its epilogue had issued its stores (0 in other builds): PM_CTA_WORDS words a CTA in all.
#define PM_CTA_SAMPLES 192
#define PM_TILE_SAMPLES 8
#define PM_PRODUCER_SAMPLES (PM_CTA_SAMPLES - 8 * PM_TILE_SAMPLES)
#define PM_CTA_WORDS (5 + PM_CTA_SAMPLES)
int pm_launch(void* plan, cudaStream_t stream, unsigned long long* clock_probe,
              unsigned long long* cta_probe);

void pm_free_plan(void* plan);
}
