"""Pure-torch reference attention kernels: the definition the Triton kernels are tested against, and the CPU path.

Contract: see attention_metadata.py. Every function here is free of host synchronisation on CUDA: shapes come from
the host copies in the metadata (q_lens_cpu / seq_lens_cpu), never from `.item()` / `.tolist()` on device tensors.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from engine.kernels.attention_metadata import AttentionMetadata
from engine.utils import cdiv


def write_kv(
    k: torch.Tensor,  # [T, Hkv, D]
    v: torch.Tensor,  # [T, Hkv, D]
    kv_cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D], any layout (attention_metadata.allocate_kv_cache)
    slot_mapping: torch.Tensor,  # [T] int64; a negative slot (vLLM's PAD_SLOT_ID = -1) is skipped
) -> None:
    if slot_mapping.numel() == 0:
        return
    block_size = kv_cache.shape[2]
    slots, k, v = _redirect_padding(slot_mapping, k, v, kv_cache)
    where = (slots // block_size, slots % block_size)  # indexes the logical shape: any memory layout
    kv_cache[0].index_put_(where, k)
    kv_cache[1].index_put_(where, v)


def _redirect_padding(
    slot_mapping: torch.Tensor, k: torch.Tensor, v: torch.Tensor, kv_cache: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Skip negative slots without a host sync (boolean indexing would sync): each padded token instead rewrites
    the first real token's slot with that token's own K/V, so duplicate writes carry identical values; with no
    real token at all, it rewrites slot 0 with what slot 0 already holds."""
    block_size = kv_cache.shape[2]
    valid = slot_mapping >= 0
    first = torch.argmax(valid.to(torch.int32))  # index of the first real token, 0 if none
    src = torch.where(valid, torch.arange(slot_mapping.shape[0], device=slot_mapping.device), first)
    slots = slot_mapping[src].clamp_min(0)
    keep = valid[src].view(-1, 1, 1)
    blk, off = slots // block_size, slots % block_size
    k = torch.where(keep, k[src].to(kv_cache.dtype), kv_cache[0][blk, off])
    v = torch.where(keep, v[src].to(kv_cache.dtype), kv_cache[1][blk, off])
    return slots, k, v


def host_lens(attn: AttentionMetadata) -> tuple[list[int], list[int]]:
    """(q_lens, seq_lens) as host lists; falls back to reading the device tensors (a sync on CUDA)."""
    q_lens = attn.q_lens_cpu
    if q_lens is None:
        q_lens = torch.diff(attn.cu_seqlens_q).tolist()
    seq_lens = attn.seq_lens_cpu if attn.seq_lens_cpu is not None else attn.seq_lens.tolist()
    return list(q_lens), list(seq_lens)


def paged_attention(
    q: torch.Tensor,  # [T, Hq, D]
    kv_cache: torch.Tensor,  # [2, num_blocks, block_size, Hkv, D], already holding the new tokens
    attn: AttentionMetadata,
    scale: float,
) -> torch.Tensor:  # [T, Hq, D]
    """Causal GQA attention of every new token over its sequence's cached K/V (positions 0 .. seq_len - 1).

    Decode rows (q_len == 1) run as one batched, length-masked SDPA; rows with several new tokens (prefill,
    chunked prefill) run one SDPA each over their gathered K/V with a causal-with-offset mask.
    """
    q_lens, seq_lens = host_lens(attn)
    starts = [0]
    for n in q_lens:
        starts.append(starts[-1] + n)
    out = torch.empty_like(q)
    decode = [b for b, n in enumerate(q_lens) if n == 1]
    if decode:
        _decode_batch(
            q, kv_cache, attn, scale, decode, [starts[b] for b in decode], max(seq_lens[b] for b in decode), out
        )
    for b, n in enumerate(q_lens):
        if n > 1:
            s = starts[b]
            k, v = gather_kv(kv_cache, attn.block_tables[b], seq_lens[b])
            out[s : s + n] = _attend(q[s : s + n], k, v, seq_lens[b] - n, scale)
    return out


def gather_kv(kv_cache: torch.Tensor, block_table: torch.Tensor, seq_len: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One sequence's K and V, each [seq_len, Hkv, D], read through its block table row [max_blocks]."""
    block_size, num_kv_heads, head_dim = kv_cache.shape[2:]
    num_blocks = cdiv(seq_len, block_size)
    blocks = block_table[:num_blocks].long()
    k = kv_cache[0].index_select(0, blocks).reshape(-1, num_kv_heads, head_dim)[:seq_len]
    v = kv_cache[1].index_select(0, blocks).reshape(-1, num_kv_heads, head_dim)[:seq_len]
    return k, v


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, context: int, scale: float) -> torch.Tensor:
    """q [L, Hq, D] at positions context .. context + L - 1 over k/v [S, Hkv, D] (S = context + L) -> [L, Hq, D]."""
    num_q, seq_len = q.shape[0], k.shape[0]
    qh, kh, vh = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
    if context == 0:
        o = F.scaled_dot_product_attention(qh, kh, vh, is_causal=num_q > 1, scale=scale, enable_gqa=True)
    else:
        rows = torch.arange(num_q, device=q.device).unsqueeze(1) + context
        mask = torch.arange(seq_len, device=q.device).unsqueeze(0) <= rows  # [L, S]
        o = F.scaled_dot_product_attention(qh, kh, vh, attn_mask=mask, scale=scale, enable_gqa=True)
    return o.transpose(0, 1)


def _decode_batch(
    q: torch.Tensor,
    kv_cache: torch.Tensor,
    attn: AttentionMetadata,
    scale: float,
    rows: list[int],
    token_index: list[int],
    max_seq_len: int,
    out: torch.Tensor,
) -> None:
    """All single-token rows at once: gather [R, max_seq_len] K/V through the block tables, mask the tail."""
    block_size, num_kv_heads, head_dim = kv_cache.shape[2:]
    num_blocks = cdiv(max_seq_len, block_size)
    r0, t0 = rows[0], token_index[0]
    # Decode-first batches put these rows in one contiguous run: slice them; otherwise gather by index.
    contiguous = rows == list(range(r0, r0 + len(rows))) and token_index == list(range(t0, t0 + len(rows)))
    if contiguous:
        tables = attn.block_tables[r0 : r0 + len(rows)]
        seq_lens = attn.seq_lens[r0 : r0 + len(rows)]
        qr = q[t0 : t0 + len(rows)]  # [R, Hq, D]
    else:
        row_idx, tok_idx = _index(rows, q.device), _index(token_index, q.device)
        tables = attn.block_tables.index_select(0, row_idx)
        seq_lens = attn.seq_lens.index_select(0, row_idx)
        qr = q.index_select(0, tok_idx)
    blocks = tables[:, :num_blocks].long().clamp_min(0)  # padding entries (-1) are masked out below
    span = num_blocks * block_size
    k = kv_cache[0][blocks].reshape(len(rows), span, num_kv_heads, head_dim).transpose(1, 2)  # [R, Hkv, S, D]
    v = kv_cache[1][blocks].reshape(len(rows), span, num_kv_heads, head_dim).transpose(1, 2)
    mask = torch.arange(span, device=q.device).unsqueeze(0) < seq_lens.unsqueeze(1)  # [R, S]
    o = F.scaled_dot_product_attention(
        qr.unsqueeze(2), k, v, attn_mask=mask[:, None, None, :], scale=scale, enable_gqa=True
    ).squeeze(2)
    if contiguous:
        out[t0 : t0 + len(rows)] = o
    else:
        out.index_copy_(0, tok_idx, o)


def _index(values: list[int], device: torch.device) -> torch.Tensor:
    """A host list as a device index; on CUDA through pinned memory so the copy does not block the host."""
    t = torch.tensor(values, dtype=torch.int64)
    if device.type == "cuda":
        return t.pin_memory().to(device, non_blocking=True)
    return t.to(device)


def prefill_attention(
    q: torch.Tensor,  # [T, Hq, D]
    k: torch.Tensor,  # [T, Hkv, D]
    v: torch.Tensor,  # [T, Hkv, D]
    attn: AttentionMetadata,
    scale: float,
) -> torch.Tensor:  # [T, Hq, D]
    """Attention without a KV cache (e.g. a memory-profiling run): each sequence's new tokens are all its tokens."""
    q_lens, _ = host_lens(attn)
    out = torch.empty_like(q)
    s = 0
    for n in q_lens:
        out[s : s + n] = _attend(q[s : s + n], k[s : s + n], v[s : s + n], 0, scale)
        s += n
    return out
