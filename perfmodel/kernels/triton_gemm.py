"""The two Triton matmul families perfmodel models (written for this project; TN layout: C = A @ B^T with
A (M x K) and B (N x K) both K-contiguous, as our CUDA kernel and cuBLAS TN). Imports Triton: it runs on
the GPU machine only, and nothing in ``import perfmodel`` imports it.

- ``matmul_tma``: host tensor descriptors (``TensorDescriptor.from_tensor``) for A, B and C; loads with
  ``desc.load`` in a K loop Triton software-pipelines ``num_stages`` deep; the output leaves by
  ``desc.store`` (a TMA store).
- ``matmul_ptr``: the tutorial's pointer matmul: masked ``tl.load`` of blocks (Triton pipelines them with
  cp.async), ``tl.store`` of the output.
Both: one program per output tile, tiles in GROUP_M grouped order.
"""
import triton
import triton.language as tl


@triton.jit
def _tile_ids(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first_m = (pid // in_group) * GROUP_M
    size_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % in_group) % size_m)
    pid_n = (pid % in_group) // size_m
    return pid_m, pid_n


@triton.jit
def matmul_tma(a_desc, b_desc, c_desc, M, N, K,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def matmul_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_n[None, :] * stride_bn + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + cm[:, None] * stride_cm + cn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


def prepare(family, a, b, c, knobs):
    """A callable running one config (descriptors built once): ``knobs`` = (BLOCK_M, BLOCK_N, BLOCK_K,
    GROUP_M, num_warps, num_stages). Each call returns the compiled kernel (registers, spills, smem)."""
    bm, bn, bk, g, w, s = knobs
    M, K = a.shape
    N = b.shape[0]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    if family == "triton-tma":
        from triton.tools.tensor_descriptor import TensorDescriptor
        ad = TensorDescriptor.from_tensor(a, [bm, bk])
        bd = TensorDescriptor.from_tensor(b, [bn, bk])
        cd = TensorDescriptor.from_tensor(c, [bm, bn])
        return lambda: matmul_tma[grid](ad, bd, cd, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=g,
                                        num_warps=w, num_stages=s)
    sa, sb, sc = a.stride(0), b.stride(0), c.stride(0)
    return lambda: matmul_ptr[grid](a, b, c, M, N, K, sa, sb, sc, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                    GROUP_M=g, num_warps=w, num_stages=s)
