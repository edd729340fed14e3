#!/bin/bash
# 2026-11-26 session 16: mb_tma --direct-store with both store layouts (vector_bytes 4: our kernel's accumulator
# fragments; 16: coalesced 16-byte rows, as Triton's pointer matmul stores after its shared-memory layout conversion),
# twice. The same steps as direct_store.sh (mb_tma built on the GPU machine, --direct-store twice), whose build now
# emits both layouts.
exec bash "$(dirname "$0")/direct_store.sh"
