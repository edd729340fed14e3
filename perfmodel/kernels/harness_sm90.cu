// Host harness for gemm_sm90.cu: check against cuBLAS, time with CUDA events, print ONE JSON object.
//
//   gemm_<config> M N K [--seed S] [--warmup-ms W] [--min-ms T] [--min-reps R] [--max-reps X]
//                       [--cublas 0|1] [--cublas-only] [--check 0|1] [--rotate-bytes B] [--cta-probe L]
//
// Inputs are filled on the device from a hash of (seed, index), never zeros; D is poisoned with NaN
// before the checked run. bf16: reference is cublasGemmEx (TN, fp32 compute). fp8 e4m3: A and B are
// converted to bf16 (exact) and multiplied by the same cuBLAS call. Error = ||D - ref||_F / ||ref||_F.
// Timing: warm-up, then R..X launches with one event pair each over >= T ms, inputs rotated over
// enough buffer sets to exceed --rotate-bytes (default 3 x L2). SM clock and power are sampled with
// NVML (dlopen, no link dependency) on a host thread during each timed loop.
// cuBLAS and NVML are loaded with dlopen (PM_CUBLAS_LIB overrides the library path), so the harness
// links against cudart only. Exit status: 0 ok, 2 runtime/usage error, 3 wrong result.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <library_types.h>
#include <dlfcn.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include "pm_gemm.cuh"

namespace {

[[noreturn]] void die(int code, const char* stage, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char* c = msg; *c; ++c) if (*c == '"' || *c == '\\' || *c == '\n') *c = ' ';
  printf("{\"ok\": false, \"stage\": \"%s\", \"error\": \"%s\"}\n", stage, msg);
  fflush(stdout);
  fprintf(stderr, "harness: %s: %s\n", stage, msg);
  exit(code);
}

#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) die(2, "runtime", "%s failed: %s (line %d)", #call, cudaGetErrorString(e_), __LINE__); \
  } while (0)

// ------------------------------------------------------------------------------ cuBLAS via dlopen
using cublasHandle_t = void*;
using FnCreate = int (*)(cublasHandle_t*);
using FnSetStream = int (*)(cublasHandle_t, cudaStream_t);
using FnGetVersion = int (*)(cublasHandle_t, int*);
using FnGemmEx = int (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*, cudaDataType, int,
                         const void*, cudaDataType, int, const void*, void*, cudaDataType, int, int, int);
constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_COMPUTE_32F = 68, CUBLAS_GEMM_DEFAULT = -1;

struct Cublas {
  cublasHandle_t h = nullptr;
  FnGemmEx gemm = nullptr;
  int version = 0;
  std::string lib;
};

Cublas load_cublas(cudaStream_t stream) {
  std::vector<std::string> names;
  if (const char* env = getenv("PM_CUBLAS_LIB")) names.push_back(env);
  for (const char* n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) names.push_back(n);
  void* so = nullptr;
  Cublas c;
  for (const auto& n : names) {
    so = dlopen(n.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (so) { c.lib = n; break; }
  }
  if (!so) die(2, "runtime", "cannot dlopen cuBLAS (set PM_CUBLAS_LIB): %s", dlerror());
  auto create = reinterpret_cast<FnCreate>(dlsym(so, "cublasCreate_v2"));
  auto set_stream = reinterpret_cast<FnSetStream>(dlsym(so, "cublasSetStream_v2"));
  auto get_version = reinterpret_cast<FnGetVersion>(dlsym(so, "cublasGetVersion_v2"));
  c.gemm = reinterpret_cast<FnGemmEx>(dlsym(so, "cublasGemmEx"));
  if (!create || !set_stream || !c.gemm) die(2, "runtime", "cuBLAS symbols missing in %s", c.lib.c_str());
  if (create(&c.h) != 0) die(2, "runtime", "cublasCreate failed");
  if (set_stream(c.h, stream) != 0) die(2, "runtime", "cublasSetStream failed");
  if (get_version) get_version(c.h, &c.version);
  return c;
}

// D (M x N row-major) = A (M x K row-major) * B (N x K row-major)^T, all bf16, fp32 compute.
// Column-major view: D^T (N x M) = op_T(B as K x N) * op_N(A as K x M).
void cublas_gemm(const Cublas& c, const void* a, const void* b, void* d, int m, int n, int k) {
  const float one = 1.f, zero = 0.f;
  int st = c.gemm(c.h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, k, a, CUDA_R_16BF, k, &zero, d,
                  CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != 0) die(2, "runtime", "cublasGemmEx returned status %d", st);
}

// ------------------------------------------------------------------------------ NVML via dlopen
struct Nvml {
  void* dev = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*power)(void*, unsigned*) = nullptr;
  char driver[96] = "unknown";
  bool ok() const { return dev && clock && power; }
};

Nvml load_nvml(int cuda_dev) {
  Nvml n;
  void* so = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!so) return n;
  auto init = reinterpret_cast<int (*)()>(dlsym(so, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(dlsym(so, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto drv = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(so, "nvmlSystemGetDriverVersion"));
  n.clock = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(so, "nvmlDeviceGetClockInfo"));
  n.power = reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(so, "nvmlDeviceGetPowerUsage"));
  if (!init || !by_bus || init() != 0) return Nvml{};
  char bus[64];
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_dev) != cudaSuccess || by_bus(bus, &n.dev) != 0) n.dev = nullptr;
  if (drv) drv(n.driver, sizeof n.driver);
  return n;
}

// Samples SM clock (MHz) and board power (W) every 10 ms until stopped.
class Sampler {
 public:
  explicit Sampler(const Nvml& n) : nvml_(n) {
    if (nvml_.ok()) th_ = std::thread([this] { loop(); });
  }
  void stop(std::vector<double>& sm, std::vector<double>& pw) {
    run_ = false;
    if (th_.joinable()) th_.join();
    sm = sm_;
    pw = pw_;
  }
 private:
  void loop() {
    while (run_) {
      unsigned mhz = 0, mw = 0;
      if (nvml_.clock(nvml_.dev, 1 /*NVML_CLOCK_SM*/, &mhz) == 0 && nvml_.power(nvml_.dev, &mw) == 0) {
        sm_.push_back(mhz); pw_.push_back(mw / 1000.0);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  const Nvml& nvml_;
  std::atomic<bool> run_{true};
  std::thread th_;
  std::vector<double> sm_, pw_;
};

// ------------------------------------------------------------------------------ device helpers
__device__ __forceinline__ float hash_unit(uint64_t seed, uint64_t i) {   // uniform in [-1, 1)
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (seed * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31; x *= 0x94D049BB133111EBull; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
  return (float)(x >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = __float2bfloat16_rn(hash_unit(seed, i));
}

__global__ void fill_e4m3(__nv_fp8_e4m3* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = __nv_fp8_e4m3(hash_unit(seed, i));
}

__global__ void e4m3_to_bf16(const __nv_fp8_e4m3* s, __nv_bfloat16* d, size_t n) {   // exact
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    d[i] = __float2bfloat16_rn(float(s[i]));
}

__global__ void fill_nan(__nv_bfloat16* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = __float2bfloat16_rn(nanf(""));
}

// acc[0] += (d - r)^2, acc[1] += r^2, acc[2] += count(non-finite d)
__global__ void compare(const __nv_bfloat16* d, const __nv_bfloat16* r, size_t n, double* acc) {
  double e = 0, s = 0, bad = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const double x = __bfloat162float(d[i]), y = __bfloat162float(r[i]);
    if (!isfinite(x)) { bad += 1; continue; }
    e += (x - y) * (x - y); s += y * y;
  }
  for (int o = 16; o > 0; o >>= 1) {
    e += __shfl_down_sync(0xffffffffu, e, o);
    s += __shfl_down_sync(0xffffffffu, s, o);
    bad += __shfl_down_sync(0xffffffffu, bad, o);
  }
  if ((threadIdx.x & 31) == 0) { atomicAdd(&acc[0], e); atomicAdd(&acc[1], s); atomicAdd(&acc[2], bad); }
}

// ------------------------------------------------------------------------------ options
struct Opts {
  int m = 0, n = 0, k = 0;
  uint64_t seed = 1;
  double warmup_ms = 30, min_ms = 100;
  int min_reps = 20, max_reps = 2000;
  bool cublas = true, cublas_only = false, check = true;
  double rotate_bytes = -1;   // default 3 x L2
  int rounds = 1;             // kernel and cuBLAS timed alternately in this many rounds
  int cta_probe = 0;          // launches after the timed loop whose CTAs record their SM and times (a study)
};

Opts parse(int argc, char** argv) {
  Opts o;
  if (argc < 4) die(2, "usage", "usage: %s M N K [--seed S] [--warmup-ms W] [--min-ms T] [--min-reps R] "
                                 "[--max-reps X] [--cublas 0|1] [--cublas-only] [--check 0|1] [--rotate-bytes B] [--rounds R] [--cta-probe L]", argv[0]);
  o.m = atoi(argv[1]); o.n = atoi(argv[2]); o.k = atoi(argv[3]);
  if (o.m <= 0 || o.n <= 0 || o.k <= 0) die(2, "usage", "M, N and K must be positive integers");
  for (int i = 4; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { if (i + 1 >= argc) die(2, "usage", "%s needs a value", a.c_str()); return argv[++i]; };
    if (a == "--seed") o.seed = strtoull(next(), nullptr, 10);
    else if (a == "--warmup-ms") o.warmup_ms = atof(next());
    else if (a == "--min-ms") o.min_ms = atof(next());
    else if (a == "--min-reps") o.min_reps = atoi(next());
    else if (a == "--max-reps") o.max_reps = atoi(next());
    else if (a == "--cublas") o.cublas = atoi(next()) != 0;
    else if (a == "--cublas-only") o.cublas_only = true;
    else if (a == "--check") o.check = atoi(next()) != 0;
    else if (a == "--rotate-bytes") o.rotate_bytes = atof(next());
    else if (a == "--rounds") o.rounds = std::max(1, atoi(next()));
    else if (a == "--cta-probe") o.cta_probe = std::max(0, atoi(next()));
    else die(2, "usage", "unknown option %s", a.c_str());
  }
  o.max_reps = std::max(o.max_reps, o.min_reps);
  return o;
}

struct Timing {
  std::vector<double> ms, sm_mhz, power_w;   // per launch; NVML samples
  std::vector<double> kernel_mhz;            // in-kernel clock of sampled launches (block 0's clock64 / globaltimer)
  void add(const Timing& o) {
    ms.insert(ms.end(), o.ms.begin(), o.ms.end());
    kernel_mhz.insert(kernel_mhz.end(), o.kernel_mhz.begin(), o.kernel_mhz.end());
    sm_mhz.insert(sm_mhz.end(), o.sm_mhz.begin(), o.sm_mhz.end());
    power_w.insert(power_w.end(), o.power_w.begin(), o.power_w.end());
  }
};

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t lo = (size_t)pos, hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Times launch(i) (i = running index, used to rotate buffers): warm-up for warmup_ms of wall time,
// estimate one launch with events over >= 3 launches, then per-launch event pairs covering min_ms.
// In-kernel clock probes of the timed loop: launch r of R writes slot r * kProbeSlots / R (the last launch of each
// slot wins), so the slots sample the loop evenly.
constexpr int kProbeSlots = 32;

template <class F>
Timing time_it(F launch, double warmup_ms, double min_ms, const Opts& o, const Nvml& nvml, cudaStream_t st, int& it,
               unsigned long long* probes) {
  int batch = 1;
  const double t0 = wall_ms();
  do {
    for (int j = 0; j < batch; ++j) launch(it++, nullptr);
    CK(cudaStreamSynchronize(st));
    batch = std::min(batch * 2, 64);
  } while (wall_ms() - t0 < warmup_ms);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int n_est = 0;
  float est_total = 0;
  do {   // >= 3 launches and >= 1 ms, so that the estimate is not one launch's noise
    CK(cudaEventRecord(e0, st));
    for (int j = 0; j < 3; ++j) launch(it++, nullptr);
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    float x;
    CK(cudaEventElapsedTime(&x, e0, e1));
    est_total += x;
    n_est += 3;
  } while (est_total < 1.0f && n_est < 3000);
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  const double est_ms = std::max((double)est_total / n_est, 1e-4);
  const int reps = std::clamp((int)std::ceil(min_ms / est_ms), o.min_reps, o.max_reps);
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  if (probes) CK(cudaMemsetAsync(probes, 0, 4 * kProbeSlots * sizeof(unsigned long long), st));
  Sampler sampler(nvml);
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(ev[2 * r], st));
    launch(it++, probes ? probes + 4 * ((long long)r * kProbeSlots / reps) : nullptr);
    CK(cudaEventRecord(ev[2 * r + 1], st));
  }
  CK(cudaStreamSynchronize(st));
  Timing t;
  sampler.stop(t.sm_mhz, t.power_w);
  if (probes) {
    unsigned long long h[4 * kProbeSlots];
    CK(cudaMemcpy(h, probes, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kProbeSlots; ++i) {
      const unsigned long long* q = h + 4 * i;
      // globaltimer ticks in steps of up to 1 us: launches shorter than 20 us are not sampled
      if (q[3] > q[1] + 20000 && q[2] > q[0]) t.kernel_mhz.push_back((double)(q[2] - q[0]) / (double)(q[3] - q[1]) * 1e3);
    }
  }
  t.ms.resize(reps);
  for (int r = 0; r < reps; ++r) { float x; CK(cudaEventElapsedTime(&x, ev[2 * r], ev[2 * r + 1])); t.ms[r] = x; }
  for (auto& e : ev) CK(cudaEventDestroy(e));
  return t;
}

void print_timing(const char* key, const Timing& t, double flops, int rounds) {
  const double med = quantile(t.ms, 0.5);
  double sm = 0, pw = 0;
  for (double x : t.sm_mhz) sm += x;
  for (double x : t.power_w) pw += x;
  const size_t ns = t.sm_mhz.size(), nk = t.kernel_mhz.size();
  printf(", \"%s\": {\"reps\": %zu, \"rounds\": %d, \"median_ms\": %.6f, \"p20_ms\": %.6f, \"p80_ms\": %.6f, "
         "\"min_ms\": %.6f, \"tflops\": %.3f, \"clock_samples\": %zu, \"sm_mhz_mean\": %.1f, \"sm_mhz_min\": %.1f, "
         "\"power_w_mean\": %.1f, \"power_w_max\": %.1f",
         key, t.ms.size(), rounds, med, quantile(t.ms, 0.2), quantile(t.ms, 0.8), quantile(t.ms, 0.0),
         flops / (med * 1e-3) / 1e12, ns, ns ? sm / ns : 0.0, ns ? quantile(t.sm_mhz, 0.0) : 0.0,
         ns ? pw / ns : 0.0, ns ? quantile(t.power_w, 1.0) : 0.0);
  if (nk) printf(", \"kernel_clock_samples\": %zu, \"kernel_mhz_median\": %.1f, \"kernel_mhz_min\": %.1f", nk,
                 quantile(t.kernel_mhz, 0.5), quantile(t.kernel_mhz, 0.0));
  printf("}");
}

struct BufSet { void* a; void* b; __nv_bfloat16* d; void* plan; };

void fill_inputs(void* p, size_t n, bool fp8, uint64_t seed) {
  if (fp8) fill_e4m3<<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed);
  else fill_bf16<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), n, seed);
  CK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  const Opts o = parse(argc, argv);
  PmKernelInfo ki;
  pm_kernel_info(&ki);
  const bool fp8 = ki.fp8 != 0;
  const int elem = fp8 ? 1 : 2;
  int dev = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int rt = 0, drv = 0;
  CK(cudaRuntimeGetVersion(&rt));
  CK(cudaDriverGetVersion(&drv));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const Nvml nvml = load_nvml(dev);
  const Cublas cb = (o.cublas || o.check || o.cublas_only) ? load_cublas(st) : Cublas{};

  const size_t m = o.m, n = o.n, k = o.k;
  const size_t a_el = m * k, b_el = n * k, d_el = m * n;
  const size_t set_bytes = (a_el + b_el) * elem + d_el * 2;
  const double rot = o.rotate_bytes >= 0 ? o.rotate_bytes : 3.0 * prop.l2CacheSize;
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  int sets = std::max(1, (int)std::ceil(rot / (double)set_bytes));
  sets = std::min<int>(sets, std::max<size_t>(1, (free_b / 3) / set_bytes));
  const double flops = 2.0 * m * n * k;

  std::vector<BufSet> bufs(sets);
  PmLaunchInfo li{};
  for (int s = 0; s < sets; ++s) {
    CK(cudaMalloc(&bufs[s].a, a_el * elem));
    CK(cudaMalloc(&bufs[s].b, b_el * elem));
    CK(cudaMalloc(&bufs[s].d, d_el * 2));
    fill_inputs(bufs[s].a, a_el, fp8, o.seed * 1000003ull + 2 * s);
    fill_inputs(bufs[s].b, b_el, fp8, o.seed * 1000003ull + 2 * s + 1);
    bufs[s].plan = nullptr;
    if (!o.cublas_only) {
      char err[512];
      if (pm_make_plan(&bufs[s].plan, bufs[s].a, bufs[s].b, bufs[s].d, o.m, o.n, o.k, &li, err, sizeof err))
        die(2, "runtime", "%s", err);
    }
  }
  // bf16 views of the inputs for cuBLAS (the fp8 inputs converted exactly); for bf16, the inputs.
  std::vector<std::pair<void*, void*>> bf(sets);
  for (int s = 0; s < sets; ++s) {
    if (!fp8) { bf[s] = {bufs[s].a, bufs[s].b}; continue; }
    if (s > 0 && !o.cublas && !o.cublas_only) { bf[s] = bf[0]; continue; }   // only the check needs them
    void *a16, *b16;
    CK(cudaMalloc(&a16, a_el * 2));
    CK(cudaMalloc(&b16, b_el * 2));
    e4m3_to_bf16<<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(bufs[s].a), static_cast<__nv_bfloat16*>(a16), a_el);
    e4m3_to_bf16<<<1024, 256>>>(static_cast<__nv_fp8_e4m3*>(bufs[s].b), static_cast<__nv_bfloat16*>(b16), b_el);
    CK(cudaGetLastError());
    bf[s] = {a16, b16};
  }
  CK(cudaDeviceSynchronize());

  printf("{\"ok\": true, \"m\": %d, \"n\": %d, \"k\": %d, \"dtype\": \"%s\", \"seed\": %llu", o.m, o.n, o.k,
         fp8 ? "e4m3" : "bf16", (unsigned long long)o.seed);
  printf(", \"gpu\": {\"name\": \"%s\", \"sms\": %d, \"l2_bytes\": %d, \"cc\": \"%d.%d\", \"driver\": \"%s\", "
         "\"cuda_driver_api\": %d, \"cuda_runtime\": %d, \"cublas_version\": %d, \"nvml\": %s}",
         prop.name, prop.multiProcessorCount, prop.l2CacheSize, prop.major, prop.minor, nvml.driver, drv, rt,
         cb.version, nvml.ok() ? "true" : "false");
  printf(", \"buffer_sets\": %d, \"set_bytes\": %zu", sets, set_bytes);
  if (!o.cublas_only) {
    printf(", \"kernel\": {\"bm\": %d, \"bn\": %d, \"bk\": %d, \"mma_n\": %d, \"stages\": %d, \"consumers\": %d, "
           "\"cluster\": [%d, %d], \"multicast\": %d, \"swizzle\": [%d, %d], \"persistent\": %d, \"raster_n\": %d, "
           "\"group\": %d, \"epilogue_tma\": %d, \"threads\": %d, \"smem_bytes\": %d, \"regs\": [%d, %d], "
           "\"grid_ctas\": %d, \"tiles\": %d, \"clusters_resident\": %d}",
           ki.bm, ki.bn, ki.bk, ki.mma_n, ki.stages, ki.consumers, ki.cluster_m, ki.cluster_n, ki.multicast,
           ki.swizzle_a, ki.swizzle_b, ki.persistent, ki.raster_n, ki.group_size, ki.epilogue_tma, ki.threads,
           ki.smem_bytes, ki.producer_regs, ki.consumer_regs, li.grid_ctas, li.tiles, li.clusters_resident);
  }
  bool correct = true;
  if (o.check && !o.cublas_only) {
    __nv_bfloat16* ref;
    double* acc;
    CK(cudaMalloc(&ref, d_el * 2));
    CK(cudaMalloc(&acc, 3 * sizeof(double)));
    CK(cudaMemset(acc, 0, 3 * sizeof(double)));
    fill_nan<<<1024, 256>>>(bufs[0].d, d_el);
    fill_nan<<<1024, 256>>>(ref, d_el);
    CK(cudaGetLastError());
    CK((cudaError_t)pm_launch(bufs[0].plan, st, nullptr, nullptr));
    CK(cudaGetLastError());
    cublas_gemm(cb, bf[0].first, bf[0].second, ref, o.m, o.n, o.k);
    compare<<<1024, 256, 0, st>>>(bufs[0].d, ref, d_el, acc);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(st));
    double h[3];
    CK(cudaMemcpy(h, acc, sizeof h, cudaMemcpyDeviceToHost));
    const double rel = h[1] > 0 ? std::sqrt(h[0] / h[1]) : (h[0] > 0 ? INFINITY : 0.0);
    const double bound = fp8 ? 5e-2 : 1e-2;
    correct = h[2] == 0 && std::isfinite(rel) && rel <= bound;
    printf(", \"check\": {\"rel_err\": %.3e, \"bound\": %.1e, \"nonfinite\": %.0f, \"correct\": %s}",
           std::isfinite(rel) ? rel : -1.0, bound, h[2], correct ? "true" : "false");
    CK(cudaFree(ref));
    CK(cudaFree(acc));
  }
  if (correct) {
    auto kernel = [&](int i, unsigned long long* probe) {
      const cudaError_t e = (cudaError_t)pm_launch(bufs[i % sets].plan, st, probe, nullptr);
      if (e != cudaSuccess) die(2, "runtime", "launch: %s", cudaGetErrorString(e));
    };
    auto cublas = [&](int i, unsigned long long*) {
      cublas_gemm(cb, bf[i % sets].first, bf[i % sets].second, bufs[i % sets].d, o.m, o.n, o.k);
    };
    const bool do_kernel = !o.cublas_only, do_cublas = o.cublas || o.cublas_only;
    Timing tk, tc;
    int ik = 0, ic = 0;
    unsigned long long* probes = nullptr;
    CK(cudaMalloc(&probes, 4 * kProbeSlots * sizeof(unsigned long long)));
    for (int r = 0; r < o.rounds; ++r) {   // alternate, so that both see the same thermal state
      const double warm = r == 0 ? o.warmup_ms : std::min(o.warmup_ms, 10.0);
      if (do_kernel) tk.add(time_it(kernel, warm, o.min_ms / o.rounds, o, nvml, st, ik, probes));
      if (do_cublas) tc.add(time_it(cublas, warm, o.min_ms / o.rounds, o, nvml, st, ic, nullptr));
    }
    CK(cudaGetLastError());
    if (do_kernel) print_timing("time", tk, flops, o.rounds);
    if (do_kernel && o.cta_probe > 0) {   // a study: L more launches right after the timed loop, each CTA's times
      const int g = li.grid_ctas;
      unsigned long long* cp = nullptr;
      const int w = PM_CTA_WORDS;
      std::vector<unsigned long long> h(w * (size_t)g);
      std::string samples;   // the first probed launch's progress samples, printed after the probe
      CK(cudaMalloc(&cp, h.size() * sizeof(unsigned long long)));
      printf(", \"cta_probe\": [");
      for (int l = 0; l < o.cta_probe; ++l) {
        CK(cudaMemsetAsync(cp, 0, h.size() * sizeof(unsigned long long), st));
        const cudaError_t e = (cudaError_t)pm_launch(bufs[ik++ % sets].plan, st, nullptr, cp);
        if (e != cudaSuccess) die(2, "runtime", "launch: %s", cudaGetErrorString(e));
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(h.data(), cp, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        unsigned long long t0 = ~0ull;
        for (int c = 0; c < g; ++c) t0 = std::min(t0, h[w * c + 1]);
        printf("%s[", l ? ", " : "");
        for (int c = 0; c < g; ++c)   // [smid, start, consumer end, producer end] in ns from the launch's first start
          printf("%s[%llu, %lld, %lld, %lld]", c ? ", " : "", h[w * c], (long long)(h[w * c + 1] - t0),
                 (long long)(h[w * c + 2] - t0), (long long)(h[w * c + 3] - t0));
        printf("]");
        if (l == 0 && h[w * 0 + 4] > 0) {   // progress samples (a PM_PROGRESS_SAMPLES=1 build): [interval, ns at
                                            // k-block 0, interval, 2 x interval, ...] of each CTA (unwritten: -1)
          char buf[64];
          for (int c = 0; c < g; ++c) {
            samples += c ? ", [" : "[";
            snprintf(buf, sizeof buf, "%llu", h[w * c + 4]);
            samples += buf;
            for (int i = 0; i < PM_CTA_SAMPLES; ++i) {
              const unsigned long long v = h[w * c + 5 + i];
              snprintf(buf, sizeof buf, ", %lld", v ? (long long)(v - t0) : -1ll);
              samples += buf;
            }
            samples += "]";
          }
        }
      }
      printf("], \"cta_samples\": [%s]", samples.c_str());
      CK(cudaFree(cp));
    }
    if (do_cublas) print_timing("cublas", tc, flops, o.rounds);
    CK(cudaFree(probes));
  }
  CK(cudaDeviceSynchronize());
  printf("}\n");
  fflush(stdout);
  for (auto& b : bufs) if (b.plan) pm_free_plan(b.plan);
  return correct ? 0 : 3;
}
