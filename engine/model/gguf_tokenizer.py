"""A `tokenizers` BPE tokenizer rebuilt from a GGUF's `tokenizer.ggml.*` metadata, the way transformers' GGUF
loader builds it (byte-level vocabulary and merges, control tokens special, user-defined tokens added whole, the
pre-tokenizer split llama.cpp names in `tokenizer.ggml.pre`), so both produce the same ids for the same text.
"""

from __future__ import annotations

from typing import Any

import tokenizers
from tokenizers import AddedToken, Regex, decoders, models, pre_tokenizers, processors

from engine.errors import EngineError
from engine.model.tokenizer import Tokenizer

_CONTROL, _USER_DEFINED = 3, 4  # llama.cpp token types

_LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# tokenizer.ggml.pre -> split regex; any other value keeps GPT-2's byte-level regex (e.g. SmolLM2's "smollm").
PRE_TOKENIZER_SPLITS = {
    "llama3": _LLAMA3_SPLIT,
    "llama-v3": _LLAMA3_SPLIT,
    "llama-bpe": _LLAMA3_SPLIT,
    "smaug-bpe": _LLAMA3_SPLIT,
    "falcon3": _LLAMA3_SPLIT,
    "qwen2": _QWEN2_SPLIT,
    "deepseek-r1-qwen": _QWEN2_SPLIT,
}


def _byte_alphabet() -> dict[int, str]:
    """GPT-2's byte -> printable character table (bytes_to_unicode)."""
    printable = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def build_gguf_tokenizer(meta: dict[str, Any], source: str) -> Tokenizer:
    """`meta` holds the GGUF fields (tokenizer.ggml.tokens, .merges, .token_type, ids, tokenizer.chat_template)."""
    kind = meta.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise EngineError(
            f"{source}: tokenizer model {kind!r} is not supported (only byte-level BPE, 'gpt2'); "
            "use an HF directory with tokenizer.json instead"
        )
    tokens: list[str] = list(meta["tokenizer.ggml.tokens"])
    types: list[int] = list(meta.get("tokenizer.ggml.token_type") or [0] * len(tokens))
    spelling = _byte_alphabet()
    alphabet = set(spelling.values())
    # A token outside the byte alphabet is stored as raw text; spell its UTF-8 bytes (as transformers does).
    vocab = {t if set(t) <= alphabet else "".join(spelling[b] for b in t.encode()): i for i, t in enumerate(tokens)}
    merges = [tuple(m.split(" ", 1)) for m in meta.get("tokenizer.ggml.merges") or []]
    backend = tokenizers.Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    split = PRE_TOKENIZER_SPLITS.get(meta.get("tokenizer.ggml.pre", ""))
    if split is None:
        backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        backend.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(split), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    backend.decoder = decoders.ByteLevel()
    # Control tokens spelled outside the byte alphabet are llama.cpp mislabels; transformers skips them too.
    backend.add_special_tokens(
        [
            AddedToken(t, normalized=False, special=True)
            for t, ty in zip(tokens, types)
            if ty == _CONTROL and set(t) <= alphabet
        ]
    )
    backend.add_tokens(
        [
            AddedToken(t, normalized=False, special=False)
            for t, ty in zip(tokens, types)
            if ty == _USER_DEFINED and t in vocab
        ]
    )

    def token(key: str) -> str | None:
        i = meta.get(f"tokenizer.ggml.{key}")
        return tokens[int(i)] if i is not None and 0 <= int(i) < len(tokens) else None

    special = {
        "bos_token": token("bos_token_id"),
        "eos_token": token("eos_token_id"),
        "unk_token": token("unknown_token_id"),
        "pad_token": token("padding_token_id"),
    }
    if meta.get("tokenizer.ggml.add_bos_token") and special["bos_token"] is not None:
        bos = special["bos_token"]
        backend.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, vocab[bos])]
        )
    eos = {
        int(meta[f"tokenizer.ggml.{k}"])
        for k in ("eos_token_id", "eot_token_id", "eom_token_id")
        if meta.get(f"tokenizer.ggml.{k}") is not None
    }
    return Tokenizer(
        backend,
        name=source,
        eos_token_ids=eos,
        chat_template=meta.get("tokenizer.chat_template"),
        special_tokens=special,
    )
