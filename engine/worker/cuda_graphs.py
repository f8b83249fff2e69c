"""CUDA graphs for pure-decode steps (vLLM's cudagraph capture sizes), and the same padded path without capture.

A decode step of n rows (one new token each) pads to the smallest capture size b >= n and runs the model forward on
static buffers sized for the largest bucket: the step's inputs are copied into rows [0, n), rows [n, b) hold a
harmless padding row (token 0 at position 0, seq_len 1, slot -1 so write_kv skips it, block-table row of block 0),
and only rows [0, n) of the output are read. The LM head runs inside the graph too (when the runner passes
`compute_logits`): a pure-decode step samples every row, so its logits come out of the replay and the host launches
no GEMM of its own (on the H200 the eager LM head took 0.10 ms of a 0.84 ms batch-1 host step:
docs/device-checks/20261203-gemv-sweep). Sampling stays outside.

Modes: "capture" (CUDA) records one graph per bucket on one private memory pool, largest first, and replays it;
"replay" (CPU, tests, tools) runs the identical padded forward eagerly, so everything but the capture is testable on
CPU. The attention metadata of these steps says `static_launch=True`: kernels must not choose a path or a size from
max_seqlen_k (it is fixed at capture); the path is the graph's own (`static_split_kv`). The torch reference kernels
read host lists and cannot be captured: that backend always stays eager.

Long contexts: where the model may see MIN_SPLIT_SEQLEN keys (max_model_len) and a bucket's unified grid would leave
the GPU idle (engine/kernels/decode_split.py), that bucket is captured twice, once with the unified kernel and once
with split-KV decode (segments bounded on the device from seq_lens, the merge inside the graph); a step replays the
split graph when its longest context (the host int max_seqlen_k) reaches MIN_SPLIT_SEQLEN. Large buckets fill the GPU
unsplit and keep one graph.
"""

from __future__ import annotations

import bisect
import logging
import time
from collections import Counter
from collections.abc import Callable

import torch

from engine.kernels.attention_metadata import AttentionMetadata
from engine.kernels.decode_split import MIN_SPLIT_SEQLEN, grid_leaves_gpu_idle

log = logging.getLogger("engine.graphs")

DEFAULT_MAX_CAPTURE_SIZE = 512
MODES = ("off", "capture", "replay")


def capture_sizes(max_num_seqs: int, max_capture_size: int | None = None) -> list[int]:
    """1, 2, 4, then every multiple of 8, up to min(max_capture_size, max_num_seqs); that cap is always a bucket."""
    cap = min(max_num_seqs, DEFAULT_MAX_CAPTURE_SIZE if max_capture_size is None else max_capture_size)
    sizes = [s for s in (1, 2, 4) if s <= cap] + list(range(8, cap + 1, 8))
    if sizes[-1] != cap:
        sizes.append(cap)
    return sizes


def bucket_for(num_rows: int, sizes: list[int]) -> int | None:
    """The smallest size >= num_rows, or None when the batch is larger than every bucket."""
    i = bisect.bisect_left(sizes, num_rows)
    return sizes[i] if i < len(sizes) else None


def graph_mode(enforce_eager: bool | None, device: torch.device, kernels_name: str) -> str:
    """off: plain eager; capture: CUDA graphs; replay: the padded static-buffer path without capture (CPU).

    enforce_eager None (the default) captures where graphs can run (CUDA with the Triton kernels) and is eager
    elsewhere, silently; False asks for graphs explicitly (replay on CPU, a warning where they cannot run)."""
    if enforce_eager is None:
        return "capture" if torch.device(device).type == "cuda" and kernels_name != "torch" else "off"
    if enforce_eager:
        return "off"
    if kernels_name == "torch":
        log.warning(
            "enforce_eager=False ignored: the torch reference attention reads host lists and cannot be "
            "captured; decode runs eagerly (use attention_backend triton or auto on CUDA for graphs)"
        )
        return "off"
    return "capture" if torch.device(device).type == "cuda" else "replay"


class DecodeGraphs:
    """Static decode buffers at the largest bucket, one captured graph (or eager replay) per bucket."""

    def __init__(
        self,
        model: torch.nn.Module,
        kv_caches: list[torch.Tensor],
        sizes: list[int],
        max_blocks_per_seq: int,
        max_model_len: int,
        device: torch.device,
        mode: str,
        compute_logits: Callable[[torch.Tensor], torch.Tensor] | None = None,
    ) -> None:
        if mode not in ("capture", "replay"):
            raise ValueError(f"DecodeGraphs mode must be capture or replay, got {mode!r}")
        self.model, self.kv_caches, self.sizes, self.mode = model, kv_caches, sizes, mode
        self.compute_logits = compute_logits  # hidden [n, H] -> logits [n, V] (model dtype), replayed with the forward
        n = sizes[-1]
        self.input_ids = torch.zeros(n, dtype=torch.int64, device=device)
        self.positions = torch.zeros(n, dtype=torch.int64, device=device)
        self.slot_mapping = torch.full((n,), -1, dtype=torch.int64, device=device)
        self.seq_lens = torch.ones(n, dtype=torch.int32, device=device)
        self.block_tables = torch.zeros(n, max_blocks_per_seq, dtype=torch.int32, device=device)
        self.cu_seqlens_q = torch.arange(n + 1, dtype=torch.int32, device=device)  # one token per row, always
        self.decode_order = torch.arange(n, dtype=torch.int32, device=device)  # padding rows keep their own index
        num_kv_heads = kv_caches[0].shape[3] if kv_caches else 0
        self.split_sizes = [
            b for b in sizes if max_model_len >= MIN_SPLIT_SEQLEN and grid_leaves_gpu_idle(b, num_kv_heads, device)
        ]
        # max_seqlen_k is the bound every step respects; static_launch keeps kernels from sizing launches by it.
        # Keyed (bucket, split-KV): the split variant exists for split_sizes only.
        self.meta = {
            (b, split): AttentionMetadata(
                self.cu_seqlens_q[: b + 1],
                self.seq_lens[:b],
                self.block_tables[:b],
                self.slot_mapping[:b],
                1,
                max_model_len,
                static_launch=True,
                static_split_kv=split,
                decode_order=self.decode_order[:b],
            )
            for b in sizes
            for split in ((False, True) if b in self.split_sizes else (False,))
        }
        self.graphs: dict[tuple[int, bool], torch.cuda.CUDAGraph] = {}
        self.outputs: dict[tuple[int, bool], tuple[torch.Tensor, torch.Tensor | None]] = {}  # (hidden, logits)
        self.replays: Counter[int] = Counter()  # steps run per bucket (tests, tools)
        self.split_replays: Counter[int] = Counter()  # of which through the split-KV graph
        self.capture_seconds = 0.0
        self._dirty = 0  # rows >= _dirty hold the padding row; rows below may hold an earlier step's data

    def bucket(self, attn: AttentionMetadata) -> int | None:
        """The bucket a step runs in, or None for the eager path (prefill/mixed rows, or too many rows)."""
        if attn.max_seqlen_q != 1 or attn.slot_mapping.shape[0] != attn.num_seqs:
            return None
        if attn.block_tables.shape[1] > self.block_tables.shape[1]:
            return None
        return bucket_for(attn.num_seqs, self.sizes)

    def _forward(self, key: tuple[int, bool]) -> tuple[torch.Tensor, torch.Tensor | None]:
        b = key[0]
        hidden = self.model.forward(self.input_ids[:b], self.positions[:b], self.meta[key], self.kv_caches)
        return hidden, (self.compute_logits(hidden) if self.compute_logits is not None else None)

    @torch.inference_mode()
    def capture(self) -> None:
        """Warm up and capture every bucket, largest first, on one shared pool (CUDA); replay mode only logs."""
        t0 = time.perf_counter()
        if self.mode == "capture":
            pool = torch.cuda.graph_pool_handle()
            for key in sorted(self.meta, reverse=True):
                self._forward(key)  # warm-up: Triton compiles and autotunes outside the capture
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph, pool=pool):
                    self.outputs[key] = self._forward(key)
                self.graphs[key] = graph
            torch.cuda.synchronize()
        self.capture_seconds = time.perf_counter() - t0
        what = "captured CUDA graphs" if self.mode == "capture" else "eager replay (no capture off CUDA)"
        log.info(
            "decode %s for batch sizes %s (split-KV too for %s) in %.2f s",
            what,
            self.sizes,
            self.split_sizes or "none",
            self.capture_seconds,
        )

    def run(self, b: int, input_ids: torch.Tensor, positions: torch.Tensor, attn: AttentionMetadata) -> torch.Tensor:
        """Copy the step into the static buffers, run bucket b, return the hidden states of the real rows [n, H]."""
        return self.run_with_logits(b, input_ids, positions, attn)[0]

    def run_with_logits(
        self, b: int, input_ids: torch.Tensor, positions: torch.Tensor, attn: AttentionMetadata
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """As run(), with the real rows' logits [n, V] (None without compute_logits). Both are the graph's
        static outputs: the next replay overwrites them, so a caller that keeps them longer copies them."""
        n = attn.num_seqs
        if self._dirty > n:  # rows an earlier, larger step wrote become padding again
            self.input_ids[n : self._dirty].zero_()
            self.positions[n : self._dirty].zero_()
            self.slot_mapping[n : self._dirty].fill_(-1)
            self.seq_lens[n : self._dirty].fill_(1)
            self.block_tables[n : self._dirty].zero_()
            self.decode_order[n : self._dirty].copy_(self.cu_seqlens_q[n : self._dirty])
        self._dirty = n
        self.input_ids[:n].copy_(input_ids)
        self.positions[:n].copy_(positions)
        self.slot_mapping[:n].copy_(attn.slot_mapping)
        self.seq_lens[:n].copy_(attn.seq_lens)
        self.block_tables[:n, : attn.block_tables.shape[1]].copy_(attn.block_tables)
        if attn.decode_order is not None:
            self.decode_order[:n].copy_(attn.decode_order)
        else:
            self.decode_order[:n].copy_(self.cu_seqlens_q[:n])
        key = (b, b in self.split_sizes and attn.max_seqlen_k >= MIN_SPLIT_SEQLEN)
        self.replays[b] += 1
        if key[1]:
            self.split_replays[b] += 1
        if self.mode == "capture":
            self.graphs[key].replay()
            hidden, logits = self.outputs[key]
        else:
            hidden, logits = self._forward(key)
        return hidden[:n], (logits[:n] if logits is not None else None)
