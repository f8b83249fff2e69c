"""The hardware bound on a workload: bytes and FLOPs per step of an idealised schedule, against measured ceilings.

Schedule model (what "idealised" means here; every real engine does more work than this):

* Prefill first: all prompt tokens, in request order, packed into steps of at most `max_num_batched_tokens`
  tokens (a prompt may be split across steps, as chunked prefill does). Each prefill step reads every weight
  once and writes the K/V of its tokens; it computes 2 x (layer matmul params) FLOPs per token, causal
  attention (4 x heads x head_dim per (query, key) pair per layer) and the LM head for the last prompt token of
  each request that completes in the step (that logit row gives the request's first output token).
* Then decode, continuous batching: up to `max_num_seqs` requests in flight, a finished request's slot is
  refilled by the next waiting request in order. A request with o output tokens takes o - 1 decode steps
  (its first token came from prefill). Each decode step reads every weight once, reads the K/V of every
  context token of every request in flight (its prompt plus the tokens generated so far, the new one
  included), writes one token's K/V per request, and computes 2 x params FLOPs per request plus attention.
* Each step takes max(bytes / copy bandwidth, FLOPs / matmul peak): perfect overlap, no launch or host cost.
  The bound on output tok/s is (total output tokens) / (sum of step times).

Bytes count weights at the model dtype; the embedding lookup (a few rows per step) and norms' activations
are ignored; a tied model reads its embedding matrix once per step as the LM head.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence


@dataclass(frozen=True)
class ModelShape:
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool

    @classmethod
    def from_config(cls, cfg: Any) -> "ModelShape":
        """From engine.model ModelConfig (attributes) or an HF config.json mapping (HF key names)."""
        get = (
            (lambda k, hf: cfg[hf] if hf in cfg else cfg[k])
            if isinstance(cfg, Mapping)
            else (lambda k, hf: getattr(cfg, k) if hasattr(cfg, k) else getattr(cfg, hf))
        )
        hidden = int(get("hidden_size", "hidden_size"))
        heads = int(get("num_heads", "num_attention_heads"))
        head_dim = _maybe(get, "head_dim", "head_dim") or hidden // heads
        return cls(
            hidden_size=hidden,
            num_layers=int(get("num_layers", "num_hidden_layers")),
            num_heads=heads,
            num_kv_heads=int(get("num_kv_heads", "num_key_value_heads")),
            head_dim=int(head_dim),
            intermediate_size=int(get("intermediate_size", "intermediate_size")),
            vocab_size=int(get("vocab_size", "vocab_size")),
            tie_word_embeddings=bool(get("tie_word_embeddings", "tie_word_embeddings")),
        )

    # Parameter counts (Qwen3 dense: no biases; q_norm/k_norm over head_dim).
    @property
    def layer_matmul_params(self) -> int:
        h, q, kv = self.hidden_size, self.num_heads * self.head_dim, self.num_kv_heads * self.head_dim
        return h * q + 2 * h * kv + q * h + 3 * h * self.intermediate_size

    @property
    def layer_norm_params(self) -> int:
        return 2 * self.hidden_size + 2 * self.head_dim

    @property
    def embed_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def lm_head_params(self) -> int:
        return self.vocab_size * self.hidden_size  # shared with the embedding when tied

    @property
    def num_params(self) -> int:
        """Distinct parameters, as a checkpoint counts them."""
        layers = self.num_layers * (self.layer_matmul_params + self.layer_norm_params)
        untied_head = 0 if self.tie_word_embeddings else self.lm_head_params
        return self.embed_params + layers + self.hidden_size + untied_head

    @property
    def step_weight_params(self) -> int:
        """Parameters a forward step reads in full: every layer, the final norm, the LM head."""
        return (
            self.num_layers * (self.layer_matmul_params + self.layer_norm_params)
            + self.hidden_size
            + self.lm_head_params
        )

    def kv_bytes_per_token(self, dtype_bytes: int) -> int:
        return self.num_layers * 2 * self.num_kv_heads * self.head_dim * dtype_bytes

    def attn_flops_per_pair(self) -> int:
        """QK^T and PV for one (query, key) pair, all heads, all layers."""
        return 4 * self.num_heads * self.head_dim * self.num_layers


def _maybe(get: Any, k: str, hf: str) -> Any:
    try:
        return get(k, hf)
    except (KeyError, AttributeError):
        return None


@dataclass(frozen=True)
class Ceilings:
    copy_gbps: float  # device-to-device copy, bytes read + written per second / 1e9
    matmul_tflops: float  # dense matmul peak in the run's dtype / 1e12


@dataclass
class Bound:
    time_s: float
    output_tokens: int
    prefill_steps: int
    decode_steps: int
    prefill_time_s: float
    decode_time_s: float
    bytes: float
    flops: float

    @property
    def output_tok_per_s(self) -> float:
        return self.output_tokens / self.time_s if self.time_s > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "output_tok_per_s": self.output_tok_per_s}


def workload_bound(
    shape: ModelShape,
    dtype_bytes: int,
    prompt_lens: Sequence[int],
    output_lens: Sequence[int],
    max_num_seqs: int,
    max_num_batched_tokens: int,
    ceilings: Ceilings,
) -> Bound:
    """Sum over the idealised schedule (module docstring) of max(bytes / BW, FLOPs / peak) per step."""
    if len(prompt_lens) != len(output_lens):
        raise ValueError("prompt_lens and output_lens differ in length")
    bw = ceilings.copy_gbps * 1e9
    peak = ceilings.matmul_tflops * 1e12
    weight_bytes = shape.step_weight_params * dtype_bytes
    kv_tok = shape.kv_bytes_per_token(dtype_bytes)
    matmul_flops_tok = 2 * shape.num_layers * shape.layer_matmul_params
    head_flops = 2 * shape.lm_head_params
    pair_flops = shape.attn_flops_per_pair()
    total_bytes = total_flops = 0.0

    def step(nbytes: float, nflops: float) -> float:
        nonlocal total_bytes, total_flops
        total_bytes += nbytes
        total_flops += nflops
        return max(nbytes / bw, nflops / peak)

    # Prefill: chunks of the concatenated prompts; a chunk = [tokens, causal (query, key) pairs, LM head rows].
    prefill_time, prefill_steps = 0.0, 0
    chunk = [0, 0.0, 0]

    def flush() -> None:
        nonlocal prefill_time, prefill_steps
        tokens, pairs, heads = chunk
        prefill_time += step(
            weight_bytes + tokens * kv_tok, tokens * matmul_flops_tok + pairs * pair_flops + heads * head_flops
        )
        prefill_steps += 1
        chunk[:] = [0, 0.0, 0]

    for p in prompt_lens:
        done = 0
        while done < p:
            take = min(p - done, max_num_batched_tokens - chunk[0])
            chunk[1] += take * done + take * (take + 1) / 2  # queries done..done+take-1 see keys 0..q: sum of q + 1
            chunk[0] += take
            done += take
            chunk[2] += done == p
            if chunk[0] == max_num_batched_tokens:
                flush()
    if chunk[0]:
        flush()

    # Decode: continuous batching over slots; state per in-flight request = [context length, steps left].
    decode_time, decode_steps = 0.0, 0
    waiting = [(p, o - 1) for p, o in zip(prompt_lens, output_lens) if o > 1]
    waiting.reverse()  # pop() takes requests in order
    running: list[list[int]] = []
    while running or waiting:
        while waiting and len(running) < max_num_seqs:
            p, left = waiting.pop()
            running.append([p, left])
        n = len(running)
        ctx = 0
        for r in running:
            r[0] += 1  # the new token joins the context it attends to
            ctx += r[0]
            r[1] -= 1
        decode_time += step(
            weight_bytes + ctx * kv_tok + n * kv_tok, n * (matmul_flops_tok + head_flops) + ctx * pair_flops
        )
        decode_steps += 1
        running = [r for r in running if r[1] > 0]

    return Bound(
        time_s=prefill_time + decode_time,
        output_tokens=int(sum(output_lens)),
        prefill_steps=prefill_steps,
        decode_steps=decode_steps,
        prefill_time_s=prefill_time,
        decode_time_s=decode_time,
        bytes=total_bytes,
        flops=total_flops,
    )


def roofline_record(
    shape: ModelShape,
    dtype_bytes: int,
    bound: Bound,
    ceilings: Ceilings,
    measured_output_tok_per_s: float | None,
    ceiling_details: dict[str, Any],
) -> dict[str, Any]:
    """The `roofline` block of result.json."""
    bound_tps = bound.output_tok_per_s
    fraction = (measured_output_tok_per_s / bound_tps) if (measured_output_tok_per_s and bound_tps) else None
    return {
        "output_tok_per_s_bound": round(bound_tps, 1),
        "fraction": None if fraction is None else round(fraction, 4),
        "time_s_bound": round(bound.time_s, 4),
        "ceilings": {
            "copy_gbps": _sig(ceilings.copy_gbps),
            "bf16_tflops": ceiling_details.get("bf16_tflops"),
            "matmul_tflops": _sig(ceilings.matmul_tflops),
            **{k: v for k, v in ceiling_details.items() if k != "bf16_tflops"},
        },
        "model": {
            "num_params": shape.num_params,
            "step_weight_bytes": shape.step_weight_params * dtype_bytes,
            "kv_bytes_per_token": shape.kv_bytes_per_token(dtype_bytes),
            "dtype_bytes": dtype_bytes,
        },
        "schedule": {
            "prefill_steps": bound.prefill_steps,
            "decode_steps": bound.decode_steps,
            "prefill_time_s": round(bound.prefill_time_s, 4),
            "decode_time_s": round(bound.decode_time_s, 4),
            "bytes": bound.bytes,
            "flops": bound.flops,
            "model": "prefill in max_num_batched_tokens chunks, then continuous-batching decode of up to "
            "max_num_seqs requests; each step max(bytes/copy_bw, flops/matmul_peak)",
        },
    }


def _sig(x: float, digits: int = 4) -> float:
    """x to `digits` significant digits (CPU ceilings are thousands of times smaller than GPU ones)."""
    return float(f"{x:.{digits}g}")
