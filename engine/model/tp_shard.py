"""`shard_model`: a loaded (whole) decoder cut down to one rank's share, in place, Megatron-style.

The weights are loaded whole on every rank and sliced here, so every loader (HF, GGUF, dummy from the seed) gives
every rank the same model to slice. Per layer: QKV and gate/up keep this rank's output rows (column-parallel),
o_proj and down_proj keep its input columns and all-reduce (row-parallel); heads and KV heads follow
engine/model/tensor_parallel.py; the embedding and LM head keep this rank's rows of the padded vocab.
"""

from __future__ import annotations

import torch
from torch import nn

from engine.model.attention import Attention
from engine.model.decoder import DecoderForCausalLM
from engine.model.linear import Linear, PackedLinear
from engine.model.mlp import GatedMLP
from engine.model.tensor_parallel import (
    TPGroup,
    check_tensor_parallel,
    kv_head_start,
    num_local_kv_heads,
    padded_vocab_per_rank,
    rank_config,
)
from engine.model.tp_layers import RowParallelLinear, VocabParallelEmbedding, VocabParallelLMHead


@torch.no_grad()
def shard_model(model: DecoderForCausalLM, tp: TPGroup) -> DecoderForCausalLM:
    config = model.config
    check_tensor_parallel(tp.size, config)
    for layer in model.model.layers:
        _shard_attention(layer.self_attn, tp)
        _shard_mlp(layer.mlp, tp)
    tied = model.lm_head.weight is model.model.embed_tokens.weight
    rows = padded_vocab_per_rank(config.vocab_size, tp.size)
    embed = _vocab_rows(model.model.embed_tokens.weight, rows, tp.rank)
    model.model.embed_tokens = VocabParallelEmbedding(embed, tp.rank * rows, tp)
    head = model.model.embed_tokens.weight if tied else _vocab_rows(model.lm_head.weight, rows, tp.rank)
    model.lm_head = VocabParallelLMHead(head, config.vocab_size, tp)
    model.config = rank_config(config, tp.size)  # the shapes this rank holds (its KV cache follows them)
    return model


def _shard_attention(attn: Attention, tp: TPGroup) -> None:
    d = attn.head_dim
    heads = attn.num_heads // tp.size
    kv_heads = num_local_kv_heads(attn.num_kv_heads, tp.size)
    kv0 = kv_head_start(attn.num_kv_heads, tp.rank, tp.size)
    q_rows = (tp.rank * heads * d, heads * d)
    k_rows = (attn.num_heads * d + kv0 * d, kv_heads * d)
    v_rows = (attn.num_heads * d + attn.num_kv_heads * d + kv0 * d, kv_heads * d)
    _keep_rows(attn.qkv_proj, [q_rows, k_rows, v_rows])
    attn.o_proj = RowParallelLinear(_keep_columns(attn.o_proj, tp.rank * heads * d, heads * d, tp), tp)
    attn.num_heads, attn.num_kv_heads = heads, kv_heads


def _shard_mlp(mlp: GatedMLP, tp: TPGroup) -> None:
    inter = mlp.gate_up_proj.output_sizes[0]
    cols = inter // tp.size
    start = tp.rank * cols
    _keep_rows(mlp.gate_up_proj, [(start, cols), (inter + start, cols)])
    mlp.down_proj = RowParallelLinear(_keep_columns(mlp.down_proj, start, cols, tp), tp)


def _keep_rows(linear: PackedLinear, spans: list[tuple[int, int]]) -> None:
    """Column-parallel: keep the output rows of each (start, length) span, one per packed shard."""
    linear.weight = nn.Parameter(
        torch.cat([linear.weight.narrow(0, s, n) for s, n in spans]).contiguous(), requires_grad=False
    )
    if linear.bias is not None:
        linear.bias = nn.Parameter(
            torch.cat([linear.bias.narrow(0, s, n) for s, n in spans]).contiguous(), requires_grad=False
        )
    linear.output_sizes = [n for _, n in spans]


def _keep_columns(linear: Linear, start: int, length: int, tp: TPGroup) -> Linear:
    """Row-parallel: keep the input columns [start, start + length); the bias stays on rank 0 alone."""
    linear.weight = nn.Parameter(linear.weight.narrow(1, start, length).contiguous(), requires_grad=False)
    if linear.bias is not None and tp.rank != 0:
        linear.bias = None
    return linear


def _vocab_rows(weight: torch.Tensor, rows: int, rank: int) -> torch.Tensor:
    """Rows [rank * rows, (rank + 1) * rows) of a [V, H] table, zero-padded past V (the last rank's share)."""
    start = rank * rows
    part = weight.new_zeros(rows, weight.shape[1])
    real = max(0, min(rows, weight.shape[0] - start))
    part[:real] = weight[start : start + real]
    return part
