// cuBLASLt algorithm enumeration + verification + timing for one GEMM problem; one JSON object per line.
//
//   cublaslt_bench M N K [--dtype bf16|e4m3] [--budget B] [--seed S] [--warmup-ms W] [--min-ms T]
//                  [--min-reps R] [--max-reps X] [--workspace-mb MB] [--fast-accum 0|1] [--from I]
//                  [--only I,J,..] [--time-limit-s S] [--enum-limit-s S] [--names] [--info]
//
// Problem (our kernel's "TN" layout): D (M x N row-major, bf16) = A (M x K row-major) * B (N x K row-major)^T,
// operands bf16 or e4m3 (then bf16 output, fast accumulation as --fast-accum), fp32 compute, alpha 1, beta 0.
// cuBLASLt is column-major, so it computes D^T (N x M, ld N) = op_T(B as K x N, ld K) * op_N(A as K x M, ld K):
// its m' = N, n' = M. Its tile "RxC" and cluster "XxYx1" are in D^T's rows x cols: R and X run along OUR N,
// C and Y along OUR M (the rows print both: tile/cluster as cuBLASLt names them, tile_m/tile_n ours).
//
// Enumeration: cublasLtMatmulAlgoGetIds for the types; per algo id its capabilities; every
// tile x stages x cluster (x inner shape 0 and those the heuristic used) with split-K 1, swizzle 0 goes
// through cublasLtMatmulAlgoCheck (accepted = status ok and workspace <= --workspace-mb). --budget of them
// are measured: ~60% base configurations, round-robin over (algo, tile) groups in a seeded order, the rest
// variants: split-K {1,2,3,4} (reduction scheme round-robin over the supported ones) x CTA swizzle {0,1} x
// custom option {0..min(max,7)} (for the nvjet algo it selects cooperative/ping-pong and raster order).
// cublasLtMatmulAlgoGetHeuristic's top 8 are measured too, as returned (idx 0..7, source "heuristic");
// same_as links a heuristic entry and the enumerated configuration with identical attributes.
// Check: D poisoned with NaN, one launch, ||D - R||_F / ||R||_F against an fp32 CUDA-core reference R
// (bound 1e-2 bf16, 5e-2 e4m3; non-finite outputs fail). Timing: warm-up for W ms, then R..X launches with
// one event pair each covering >= T ms, inputs rotated over buffer sets exceeding 3 x L2; median, p20, p80.
// Lines: {"kind":"problem"} (GPU, versions, counts), {"kind":"algo"} per algo id (capabilities),
// {"kind":"begin","idx":i} before each configuration, {"kind":"config",...} after it, then {"kind":"done"}
// or {"kind":"stopped","next_idx":i} when --time-limit-s ran out. Exit 0 ok, 2 usage/CUDA error.
// --names: launch each configuration once after a marker kernel whose grid is (idx+1) blocks (for ncu).
// Build: the runner (perfmodel.measure.cublaslt_runner) generates cublaslt_enums.inc from the cublasLt.h it
// compiles against and builds with: nvcc -O3 -std=c++17 -arch=sm_90 -I<gen> -I<cublas include> ... -lcublasLt
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>
#include "cublaslt_enums.inc"   // kTiles {id,r,c}, kStages {id,k,n (0=AUTO)}, kClusters {id,x,y,z}, kInner {id,name}

namespace {
[[noreturn]] void die(int code, const char* stage, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt); vsnprintf(msg, sizeof msg, fmt, ap); va_end(ap);
  for (char* c = msg; *c; ++c) if (*c == '"' || *c == '\\' || *c == '\n') *c = ' ';
  printf("{\"kind\": \"error\", \"stage\": \"%s\", \"error\": \"%s\"}\n", stage, msg);
  fflush(stdout); fprintf(stderr, "cublaslt_bench: %s: %s\n", stage, msg); exit(code);
}
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) \
  die(2, "cuda", "%s failed: %s (line %d)", #call, cudaGetErrorString(e_), __LINE__); } while (0)
#define LT(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) \
  die(2, "cublaslt", "%s failed: %s (line %d)", #call, cublasLtGetStatusString(s_), __LINE__); } while (0)

double wall_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// ------------------------------------------------------------------ device helpers (as harness_sm90.cu)
__device__ __forceinline__ float hash_unit(uint64_t seed, uint64_t i) {   // uniform in [-1, 1)
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (seed * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31; x *= 0x94D049BB133111EBull; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
  return (float)(x >> 40) * (2.0f / 16777216.0f) - 1.0f;
}
template <class T> __global__ void fill(T* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = T(hash_unit(seed, i));
}
__global__ void fill_nan(__nv_bfloat16* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = __float2bfloat16_rn(nanf(""));
}
__global__ void pm_marker(int* sink) { if (threadIdx.x == 0 && sink) sink[blockIdx.x & 7] = blockIdx.x; }

// R (M x N fp32) = A (M x K) * B (N x K)^T: 64x64 block tile, 16-deep K slices, 4x4 outputs per thread.
template <class T> __global__ void __launch_bounds__(256) ref_gemm(const T* A, const T* B, float* R, int M, int N, int K) {
  __shared__ float as[16][65], bs[16][65];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16, m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int e = threadIdx.x; e < 64 * 16; e += 256) {
      const int r = e / 16, c = e % 16, k = k0 + c;
      as[c][r] = (m0 + r < M && k < K) ? float(A[(size_t)(m0 + r) * K + k]) : 0.f;
      bs[c][r] = (n0 + r < N && k < K) ? float(B[(size_t)(n0 + r) * K + k]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int c = 0; c < 16; ++c) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) { a[i] = as[c][ty + 16 * i]; b[i] = bs[c][tx + 16 * i]; }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < M && n < N) R[(size_t)m * N + n] = acc[i][j];
    }
}
// acc[0] += (d - r)^2, acc[1] += r^2, acc[2] += count(non-finite d)
__global__ void compare(const __nv_bfloat16* d, const float* r, size_t n, double* acc) {
  double e = 0, s = 0, bad = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const double x = __bfloat162float(d[i]), y = r[i];
    if (!isfinite(x)) { bad += 1; continue; }
    e += (x - y) * (x - y); s += y * y;
  }
  for (int o = 16; o > 0; o >>= 1) {
    e += __shfl_down_sync(0xffffffffu, e, o); s += __shfl_down_sync(0xffffffffu, s, o);
    bad += __shfl_down_sync(0xffffffffu, bad, o);
  }
  if ((threadIdx.x & 31) == 0) { atomicAdd(&acc[0], e); atomicAdd(&acc[1], s); atomicAdd(&acc[2], bad); }
}

// ------------------------------------------------------------------ options
struct Opts {
  int m = 0, n = 0, k = 0, budget = 96, min_reps = 20, max_reps = 1000, from = 0, fast_accum = 1;
  bool fp8 = false, names = false, info = false;
  uint64_t seed = 1;
  double warmup_ms = 10, min_ms = 50, ws_mb = 64, time_limit_s = 1e9, enum_limit_s = 20;
  std::vector<int> only;
};

Opts parse(int argc, char** argv) {
  Opts o;
  int pos = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { if (i + 1 >= argc) die(2, "usage", "%s needs a value", a.c_str()); return argv[++i]; };
    if (a == "--dtype") { std::string d = next(); if (d != "bf16" && d != "e4m3") die(2, "usage", "dtype bf16 or e4m3"); o.fp8 = d == "e4m3"; }
    else if (a == "--budget") o.budget = atoi(next()); else if (a == "--seed") o.seed = strtoull(next(), nullptr, 10);
    else if (a == "--warmup-ms") o.warmup_ms = atof(next()); else if (a == "--min-ms") o.min_ms = atof(next());
    else if (a == "--min-reps") o.min_reps = atoi(next()); else if (a == "--max-reps") o.max_reps = atoi(next());
    else if (a == "--workspace-mb") o.ws_mb = atof(next()); else if (a == "--fast-accum") o.fast_accum = atoi(next());
    else if (a == "--from") o.from = atoi(next()); else if (a == "--time-limit-s") o.time_limit_s = atof(next());
    else if (a == "--enum-limit-s") o.enum_limit_s = atof(next());
    else if (a == "--names") o.names = true; else if (a == "--info") o.info = true;
    else if (a == "--only") { for (char* t = strtok((char*)next(), ","); t; t = strtok(nullptr, ",")) o.only.push_back(atoi(t)); }
    else if (!a.empty() && a[0] != '-' && pos < 3) (pos == 0 ? o.m : pos == 1 ? o.n : o.k) = atoi(a.c_str()), ++pos;
    else die(2, "usage", "unknown argument %s", a.c_str());
  }
  if (!o.info && (o.m <= 0 || o.n <= 0 || o.k <= 0)) die(2, "usage", "usage: %s M N K [--dtype bf16|e4m3] [options]", argv[0]);
  o.max_reps = std::max(o.max_reps, o.min_reps);
  return o;
}

// ------------------------------------------------------------------ configurations
struct Cfg {
  int algo_id = 0; uint32_t tile = 0, stages = 0, red = 0, swz = 0, custom = 0; int32_t splitk = 1;
  uint16_t inner = 0, cluster = 0;
  size_t ws = 0; float waves = 0; bool heur = false; int hrank = -1, same_as = -1;
  cublasLtMatmulAlgo_t algo{};
  auto key() const { return std::make_tuple(algo_id, tile, stages, splitk, red, swz, custom, inner, cluster); }
};

struct Lt {
  cublasLtHandle_t h; cublasLtMatmulDesc_t op; cublasLtMatrixLayout_t a, b, c;
  cudaDataType_t in; size_t ws_cap;
  cublasStatus_t init(Cfg& c) const {
    cublasStatus_t s = cublasLtMatmulAlgoInit(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, CUDA_R_16BF, CUDA_R_16BF, c.algo_id, &c.algo);
    auto set = [&](cublasLtMatmulAlgoConfigAttributes_t at, const void* v, size_t n) {
      if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulAlgoConfigSetAttribute(&c.algo, at, v, n); };
    set(CUBLASLT_ALGO_CONFIG_TILE_ID, &c.tile, 4); set(CUBLASLT_ALGO_CONFIG_STAGES_ID, &c.stages, 4);
    set(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &c.splitk, 4); set(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &c.red, 4);
    set(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &c.swz, 4); set(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &c.custom, 4);
    set(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &c.inner, 2); set(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &c.cluster, 2);
    return s;
  }
  bool check(Cfg& c) const {   // accepted = AlgoCheck ok and its workspace fits the cap
    cublasLtMatmulHeuristicResult_t r{};
    if (cublasLtMatmulAlgoCheck(h, op, a, b, this->c, this->c, &c.algo, &r) != CUBLAS_STATUS_SUCCESS) return false;
    c.ws = r.workspaceSize; c.waves = r.wavesCount;
    return c.ws <= ws_cap;
  }
};

void read_cfg(Cfg& c) {   // a heuristic result's attributes
  auto get = [&](cublasLtMatmulAlgoConfigAttributes_t at, void* v, size_t n) {
    size_t w; cublasLtMatmulAlgoConfigGetAttribute(&c.algo, at, v, n, &w); };
  get(CUBLASLT_ALGO_CONFIG_ID, &c.algo_id, 4); get(CUBLASLT_ALGO_CONFIG_TILE_ID, &c.tile, 4);
  get(CUBLASLT_ALGO_CONFIG_STAGES_ID, &c.stages, 4); get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &c.splitk, 4);
  get(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &c.red, 4); get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &c.swz, 4);
  get(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &c.custom, 4); get(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &c.inner, 2);
  get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &c.cluster, 2);
}

std::vector<uint32_t> cap_ids(const cublasLtMatmulAlgo_t& a, int attr) {
  size_t need = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&a, (cublasLtMatmulAlgoCapAttributes_t)attr, nullptr, 0, &need) != CUBLAS_STATUS_SUCCESS || !need)
    return {};
  std::vector<uint32_t> v(need / 4);
  size_t w = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&a, (cublasLtMatmulAlgoCapAttributes_t)attr, v.data(), need, &w) != CUBLAS_STATUS_SUCCESS) return {};
  v.resize(w / 4);
  return v;
}
template <class T> T cap(const cublasLtMatmulAlgo_t& a, cublasLtMatmulAlgoCapAttributes_t attr) {
  T v{}; size_t w; cublasLtMatmulAlgoCapGetAttribute(&a, attr, &v, sizeof v, &w); return v;
}

std::string cfg_json(const Cfg& c) {   // attributes, decoded
  int tr = 0, tc = 0, sk = 0, sn = -1, cx = 0, cy = 0, cz = 0;
  for (auto& t : kTiles) if (t.id == (int)c.tile) tr = t.r, tc = t.c;
  for (auto& t : kStages) if (t.id == (int)c.stages) sk = t.k, sn = t.n;
  for (auto& t : kClusters) if (t.id == c.cluster) cx = t.x, cy = t.y, cz = t.z;
  const char* inner = "?";
  for (auto& t : kInner) if (t.id == c.inner) inner = t.name;
  static const char* red[] = {"none", "inplace", "compute_type", "?", "output_type"};
  const std::string stages = sn < 0 ? "undefined" : std::to_string(sk) + "x" + (sn == 0 ? "AUTO" : std::to_string(sn));
  const std::string cluster = c.cluster == 0 ? "auto" : std::to_string(cx) + "x" + std::to_string(cy) + "x" + std::to_string(cz);
  char buf[1024];
  snprintf(buf, sizeof buf,
           "\"algo_id\": %d, \"tile_id\": %u, \"tile\": \"%dx%d\", \"tile_m\": %d, \"tile_n\": %d, \"stages_id\": %u, "
           "\"stages\": \"%s\", \"stage_k\": %d, \"stage_count\": %d, \"splitk\": %d, \"reduction_scheme\": %u, "
           "\"reduction\": \"%s\", \"swizzle\": %u, \"custom_option\": %u, \"inner_shape_id\": %u, \"inner_shape\": \"%s\", "
           "\"cluster_id\": %u, \"cluster\": \"%s\", \"cluster_m\": %d, \"cluster_n\": %d, \"workspace_bytes\": %zu, "
           "\"waves\": %.4f, \"source\": \"%s\", \"heuristic_rank\": %d, \"same_as\": %d",
           c.algo_id, c.tile, tr, tc, tc, tr, c.stages, stages.c_str(), sk, sn, c.splitk, c.red, c.red <= 4 ? red[c.red] : "?",
           c.swz, c.custom, c.inner, inner, c.cluster, cluster.c_str(), cy, cx, c.ws, c.waves,
           c.heur ? "heuristic" : "enumerated", c.hrank, c.same_as);
  return buf;
}

struct Rng { uint64_t s; uint64_t next() { s = s * 6364136223846793005ull + 1442695040888963407ull; return s >> 33; } };

// Round-robin over groups (seeded group and member order): the first n picks cover every group once.
template <class K> std::vector<int> stratified(const std::vector<K>& group_of, Rng& rng) {
  std::map<K, std::vector<int>> g;
  for (size_t i = 0; i < group_of.size(); ++i) g[group_of[i]].push_back((int)i);
  std::vector<std::pair<uint64_t, int>> order;   // (round << 32 | random, index)
  for (auto& [key, v] : g) {
    for (size_t j = v.size(); j > 1; --j) std::swap(v[j - 1], v[rng.next() % j]);
    const uint64_t gr = rng.next() & 0xffff;
    for (size_t j = 0; j < v.size(); ++j) order.push_back({((uint64_t)j << 32) | (gr << 16) | (rng.next() & 0xffff), v[j]});
  }
  std::sort(order.begin(), order.end());
  std::vector<int> out;
  for (auto& p : order) out.push_back(p.second);
  return out;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t lo = (size_t)pos, hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}
}  // namespace

int main(int argc, char** argv) {
  const Opts o = parse(argc, argv);
  const double t_start = wall_s();
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv)); CK(cudaRuntimeGetVersion(&rt));
  char gpu[512];
  snprintf(gpu, sizeof gpu, "\"gpu\": {\"name\": \"%s\", \"sms\": %d, \"l2_bytes\": %d, \"cc\": \"%d.%d\", \"cuda_driver_api\": %d, "
           "\"cuda_runtime\": %d}, \"cublaslt_version\": %zu, \"cublaslt_cudart_version\": %zu, \"enums_header_sha\": \"%s\"",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize, prop.major, prop.minor, drv, rt, cublasLtGetVersion(),
           cublasLtGetCudartVersion(), PM_ENUMS_HEADER_SHA);
  if (o.info) { printf("{\"kind\": \"info\", %s}\n", gpu); return 0; }
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  Lt lt{};
  lt.in = o.fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
  lt.ws_cap = (size_t)(o.ws_mb * 1048576.0);
  LT(cublasLtCreate(&lt.h));
  LT(cublasLtMatmulDescCreate(&lt.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  LT(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  LT(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (o.fp8) { const int8_t fa = (int8_t)o.fast_accum; LT(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fa, sizeof fa)); }
  LT(cublasLtMatrixLayoutCreate(&lt.a, lt.in, o.k, o.n, o.k));          // our B: K x N column-major, op T
  LT(cublasLtMatrixLayoutCreate(&lt.b, lt.in, o.k, o.m, o.k));          // our A: K x M column-major, op N
  LT(cublasLtMatrixLayoutCreate(&lt.c, CUDA_R_16BF, o.n, o.m, o.n));    // our D: N x M column-major

  // ---- heuristic top 8
  cublasLtMatmulPreference_t pref;
  LT(cublasLtMatmulPreferenceCreate(&pref));
  LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &lt.ws_cap, sizeof lt.ws_cap));
  cublasLtMatmulHeuristicResult_t hr[8];
  int n_heur = 0;
  cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt.h, lt.op, lt.a, lt.b, lt.c, lt.c, pref, 8, hr, &n_heur);
  std::vector<Cfg> list;   // heuristic entries first (idx 0..), then the selected enumerated ones
  for (int i = 0; hs == CUBLAS_STATUS_SUCCESS && i < n_heur; ++i) {
    if (hr[i].state != CUBLAS_STATUS_SUCCESS) continue;
    Cfg c; c.algo = hr[i].algo; read_cfg(c);
    c.heur = true; c.hrank = i; c.ws = hr[i].workspaceSize; c.waves = hr[i].wavesCount;
    list.push_back(c);
  }
  const size_t n_h = list.size();

  // ---- enumeration: every tile x stages x cluster x inner shape of every algo id, split-K 1, swizzle 0
  int ids[4096], n_ids = 0;
  LT(cublasLtMatmulAlgoGetIds(lt.h, CUBLAS_COMPUTE_32F, CUDA_R_32F, lt.in, lt.in, CUDA_R_16BF, CUDA_R_16BF, 4096, ids, &n_ids));
  std::vector<Cfg> base;
  struct Caps { int splitk; uint32_t red_mask, swz; int cmax; };
  std::map<int, Caps> caps;
  long n_checked = 0;
  bool enum_truncated = false;
  const double t_enum = wall_s();
  for (int ai = 0; ai < n_ids; ++ai) {
    Cfg c0; c0.algo_id = ids[ai];
    if (lt.init(c0) != CUBLAS_STATUS_SUCCESS) continue;
    auto tiles = cap_ids(c0.algo, CUBLASLT_ALGO_CAP_TILE_IDS), stages = cap_ids(c0.algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
    std::vector<uint32_t> clusters = {0};   // no capability lists cluster shapes: probe auto and <= 4 CTAs
    for (auto& t : kClusters) if (t.id && t.z == 1 && t.x * t.y <= 4 && t.x * t.y != 3) clusters.push_back(t.id);
    if (tiles.empty()) tiles = {0};
    if (stages.empty()) stages = {0};
    std::vector<uint16_t> inners = {0};
    for (size_t i = 0; i < n_h; ++i) if (list[i].algo_id == ids[ai] && list[i].inner && std::find(inners.begin(), inners.end(), list[i].inner) == inners.end()) inners.push_back(list[i].inner);
    Caps cp{cap<int32_t>(c0.algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT), cap<uint32_t>(c0.algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK),
            cap<uint32_t>(c0.algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT), cap<int32_t>(c0.algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX)};
    caps[ids[ai]] = cp;
    int accepted = 0;
    std::string tl, sl, cl;
    std::vector<uint16_t> cl_ok;
    for (uint32_t t : tiles) for (uint32_t s : stages) for (uint32_t k : clusters) for (uint16_t in : inners) {
      if (wall_s() - t_enum > o.enum_limit_s) { enum_truncated = true; break; }
      Cfg c = c0; c.tile = t; c.stages = s; c.cluster = (uint16_t)k; c.inner = in;
      ++n_checked;
      if (lt.init(c) != CUBLAS_STATUS_SUCCESS || !lt.check(c)) continue;
      base.push_back(c); ++accepted;
      if (std::find(cl_ok.begin(), cl_ok.end(), c.cluster) == cl_ok.end()) cl_ok.push_back(c.cluster);
    }
    for (auto t : tiles) tl += (tl.empty() ? "" : ",") + std::to_string(t);
    for (auto s : stages) sl += (sl.empty() ? "" : ",") + std::to_string(s);
    for (auto k : cl_ok) cl += (cl.empty() ? "" : ",") + std::to_string(k);
    printf("{\"kind\": \"algo\", \"algo_id\": %d, \"tile_ids\": [%s], \"stages_ids\": [%s], \"cluster_ids_accepted\": [%s], "
           "\"splitk_support\": %d, \"reduction_mask\": %u, \"swizzle_support\": %u, "
           "\"custom_option_max\": %d, \"numerical_impl_flags\": %llu, \"min_align_bytes\": [%u, %u, %u, %u], \"accepted\": %d}\n",
           ids[ai], tl.c_str(), sl.c_str(), cl.c_str(), cp.splitk, cp.red_mask, cp.swz,
           cp.cmax,
           (unsigned long long)cap<uint64_t>(c0.algo, CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS),
           cap<uint32_t>(c0.algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES), cap<uint32_t>(c0.algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES),
           cap<uint32_t>(c0.algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES), cap<uint32_t>(c0.algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES), accepted);
  }
  const double enum_s = wall_s() - t_enum;

  // ---- selection: ~60% base configurations, the rest split-K / swizzle variants, each checked
  Rng rng{o.seed * 0x9E3779B97F4A7C15ull + 1};
  std::vector<std::pair<int, uint32_t>> gk;
  for (auto& c : base) gk.push_back({c.algo_id, c.tile});
  const auto order = stratified(gk, rng);
  const int n_base = std::min<int>((int)base.size(), o.budget - std::min<int>(o.budget, (int)(0.4 * o.budget)));
  std::vector<Cfg> sel;
  for (int i = 0; i < n_base; ++i) sel.push_back(base[order[i]]);
  std::vector<Cfg> var;
  std::vector<std::pair<int, uint32_t>> vk;
  for (auto& b : base) {
    const Caps& cp = caps[b.algo_id];
    std::vector<uint32_t> reds;
    for (uint32_t r : {1u, 2u, 4u}) if (cp.red_mask & r) reds.push_back(r);
    for (int sk : {1, 2, 3, 4}) for (uint32_t sw : {0u, 1u}) for (uint32_t cu = 0; cu <= (uint32_t)std::clamp(cp.cmax, 0, 7); ++cu) {
      if ((sk == 1 && sw == 0 && cu == 0) || (sk > 1 && !cp.splitk) || (sw && !cp.swz)) continue;
      Cfg v = b; v.splitk = sk; v.swz = sw; v.custom = cu;
      v.red = sk > 1 && !reds.empty() ? reds[(var.size() + sk) % reds.size()] : 0;
      var.push_back(v); vk.push_back({v.algo_id, v.tile});
    }
  }
  long n_var_checked = 0;
  for (int i : stratified(vk, rng)) {
    if ((int)sel.size() >= o.budget) break;
    if (lt.init(var[i]) != CUBLAS_STATUS_SUCCESS) continue;
    ++n_var_checked;
    if (lt.check(var[i])) sel.push_back(var[i]);
  }
  for (size_t i = n_base; (int)sel.size() < o.budget && i < base.size(); ++i) sel.push_back(base[order[i]]);   // too few variants
  std::map<decltype(Cfg().key()), int> where;
  for (auto& c : sel) { list.push_back(c); where[c.key()] = (int)list.size() - 1; }
  for (size_t i = 0; i < n_h; ++i) {
    auto it = where.find(list[i].key());
    if (it != where.end()) { list[i].same_as = it->second; list[it->second].hrank = (int)i; list[it->second].same_as = (int)i; }
  }

  // ---- buffers: rotated sets exceeding 3 x L2; reference on set 0
  const size_t M = o.m, N = o.n, K = o.k, el = o.fp8 ? 1 : 2, d_el = M * N;
  const size_t set_bytes = (M * K + N * K) * el + d_el * 2;
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  int sets = o.names ? 1 : std::max(1, (int)std::ceil(3.0 * prop.l2CacheSize / set_bytes));
  sets = std::min<int>(sets, std::max<size_t>(1, (free_b / 3) / set_bytes));
  struct Buf { void *a, *b; __nv_bfloat16* d; };
  std::vector<Buf> bufs(sets);
  for (int s = 0; s < sets; ++s) {
    CK(cudaMalloc(&bufs[s].a, M * K * el)); CK(cudaMalloc(&bufs[s].b, N * K * el)); CK(cudaMalloc(&bufs[s].d, d_el * 2));
    const uint64_t sd = o.seed * 1000003ull + 2 * s;
    if (o.fp8) { fill<<<1024, 256, 0, st>>>((__nv_fp8_e4m3*)bufs[s].a, M * K, sd); fill<<<1024, 256, 0, st>>>((__nv_fp8_e4m3*)bufs[s].b, N * K, sd + 1); }
    else { fill<<<1024, 256, 0, st>>>((__nv_bfloat16*)bufs[s].a, M * K, sd); fill<<<1024, 256, 0, st>>>((__nv_bfloat16*)bufs[s].b, N * K, sd + 1); }
    CK(cudaGetLastError());
  }
  void* ws = nullptr;
  size_t ws_max = 0;
  for (auto& c : list) ws_max = std::max(ws_max, c.ws);
  if (ws_max) CK(cudaMalloc(&ws, ws_max));
  float* ref = nullptr;
  double* acc = nullptr;
  int* sink = nullptr;
  CK(cudaMalloc(&sink, 64));
  if (!o.names) {
    CK(cudaMalloc(&ref, d_el * 4)); CK(cudaMalloc(&acc, 3 * sizeof(double)));
    dim3 g((o.n + 63) / 64, (o.m + 63) / 64);
    if (o.fp8) ref_gemm<<<g, 256, 0, st>>>((const __nv_fp8_e4m3*)bufs[0].a, (const __nv_fp8_e4m3*)bufs[0].b, ref, o.m, o.n, o.k);
    else ref_gemm<<<g, 256, 0, st>>>((const __nv_bfloat16*)bufs[0].a, (const __nv_bfloat16*)bufs[0].b, ref, o.m, o.n, o.k);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  printf("{\"kind\": \"problem\", \"m\": %d, \"n\": %d, \"k\": %d, \"dtype\": \"%s\", \"fast_accum\": %d, %s, "
         "\"layout\": \"TN: D(MxN) = A(MxK) B(NxK)^T, cuBLASLt m'=N n'=M transa=T transb=N\", \"algo_ids\": %d, "
         "\"heuristic_status\": \"%s\", \"heuristic_returned\": %zu, \"checked\": %ld, \"accepted_base\": %zu, "
         "\"variants\": %zu, \"variants_checked\": %ld, \"selected\": %zu, \"configs\": %zu, \"enum_s\": %.3f, "
         "\"enum_truncated\": %s, \"workspace_cap_bytes\": %zu, \"buffer_sets\": %d, \"set_bytes\": %zu, \"budget\": %d, \"seed\": %llu}\n",
         o.m, o.n, o.k, o.fp8 ? "e4m3" : "bf16", o.fp8 ? o.fast_accum : 0, gpu, n_ids, cublasLtGetStatusName(hs), n_h,
         n_checked, base.size(), var.size(), n_var_checked, sel.size(), list.size(), enum_s, enum_truncated ? "true" : "false",
         lt.ws_cap, sets, set_bytes, o.budget, (unsigned long long)o.seed);
  fflush(stdout);

  // ---- verify and time each configuration
  const float one = 1.f, zero = 0.f;
  const double flops = 2.0 * M * N * K, bound = o.fp8 ? 5e-2 : 1e-2;
  auto mm = [&](const Cfg& c, int s) {
    return cublasLtMatmul(lt.h, lt.op, &one, bufs[s].b, lt.a, bufs[s].a, lt.b, &zero, bufs[s].d, lt.c, bufs[s].d, lt.c,
                          &c.algo, ws, c.ws, st);
  };
  for (int i = o.from; i < (int)list.size(); ++i) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), i) == o.only.end()) continue;
    if (wall_s() - t_start > o.time_limit_s) { printf("{\"kind\": \"stopped\", \"next_idx\": %d}\n", i); fflush(stdout); return 0; }
    const Cfg& c = list[i];
    printf("{\"kind\": \"begin\", \"idx\": %d, %s}\n", i, cfg_json(c).c_str());
    fflush(stdout);
    const double t0 = wall_s();
    std::string status = "correct", err;
    double rel = -1, nonfinite = -1;
    std::vector<double> ms;
    if (o.names) {
      pm_marker<<<i + 1, 32, 0, st>>>(sink);
      const cublasStatus_t s = mm(c, 0);
      CK(cudaStreamSynchronize(st));
      if (s != CUBLAS_STATUS_SUCCESS) status = "runtime", err = cublasLtGetStatusString(s);
    } else {
      fill_nan<<<1024, 256, 0, st>>>(bufs[0].d, d_el);
      CK(cudaMemsetAsync(acc, 0, 3 * sizeof(double), st));
      const cublasStatus_t s = mm(c, 0);
      if (s != CUBLAS_STATUS_SUCCESS) status = "runtime", err = std::string("cublasLtMatmul: ") + cublasLtGetStatusString(s);
      else {
        compare<<<1024, 256, 0, st>>>(bufs[0].d, ref, d_el, acc);
        CK(cudaGetLastError());
        double h[3];
        CK(cudaMemcpyAsync(h, acc, sizeof h, cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
        rel = h[1] > 0 ? std::sqrt(h[0] / h[1]) : (h[0] > 0 ? INFINITY : 0.0);
        nonfinite = h[2];
        if (!(h[2] == 0 && std::isfinite(rel) && rel <= bound)) status = "correctness", err = "relative error or non-finite outputs";
      }
      if (status == "correct") {   // warm-up, estimate, then one event pair per launch
        int it = 0, batch = 1;
        const double tw = wall_s();
        do { for (int j = 0; j < batch; ++j) mm(c, it++ % sets); CK(cudaStreamSynchronize(st)); batch = std::min(batch * 2, 64); }
        while ((wall_s() - tw) * 1e3 < o.warmup_ms);
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        float est = 0; int n_est = 0;
        do { float x; CK(cudaEventRecord(e0, st)); for (int j = 0; j < 3; ++j) mm(c, it++ % sets); CK(cudaEventRecord(e1, st));
             CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&x, e0, e1)); est += x; n_est += 3; } while (est < 1.f && n_est < 3000);
        CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
        const int reps = std::clamp((int)std::ceil(o.min_ms / std::max(est / n_est, 1e-4f)), o.min_reps, o.max_reps);
        std::vector<cudaEvent_t> ev(2 * reps);
        for (auto& e : ev) CK(cudaEventCreate(&e));
        for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(ev[2 * r], st)); mm(c, it++ % sets); CK(cudaEventRecord(ev[2 * r + 1], st)); }
        CK(cudaStreamSynchronize(st));
        CK(cudaGetLastError());
        for (int r = 0; r < reps; ++r) { float x; CK(cudaEventElapsedTime(&x, ev[2 * r], ev[2 * r + 1])); ms.push_back(x); }
        for (auto& e : ev) CK(cudaEventDestroy(e));
      }
    }
    const double med = quantile(ms, 0.5);
    printf("{\"kind\": \"config\", \"idx\": %d, %s, \"status\": \"%s\", \"error\": \"%s\", \"rel_err\": %.4e, \"nonfinite\": %.0f, "
           "\"reps\": %zu, \"median_ms\": %.6f, \"p20_ms\": %.6f, \"p80_ms\": %.6f, \"min_ms\": %.6f, \"tflops\": %.3f, \"wall_s\": %.3f}\n",
           i, cfg_json(c).c_str(), status.c_str(), err.c_str(), rel, nonfinite, ms.size(), med, quantile(ms, 0.2),
           quantile(ms, 0.8), quantile(ms, 0.0), med > 0 ? flops / (med * 1e-3) / 1e12 : 0.0, wall_s() - t0);
    fflush(stdout);
  }
  printf("{\"kind\": \"done\", \"configs\": %zu, \"wall_s\": %.3f}\n", list.size(), wall_s() - t_start);
  return 0;
}
