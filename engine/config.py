"""EngineConfig: every engine setting in one place, with vLLM's names and defaults resolved per device."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.errors import EngineError
from engine.kernels.backends import check_backend_name, require_triton

_DTYPES = {   # accepted spellings -> the name the loader takes
    "float32": "float32", "fp32": "float32", "float": "float32",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float16": "float16", "fp16": "float16", "half": "float16",
}
LOAD_FORMATS = ("auto", "hf", "gguf", "dummy")


@dataclass
class EngineConfig:
    model: str | None = None                  # HF dir, .gguf file, or a config name with load_format="dummy"
    load_format: str = "auto"
    dtype: str | torch.dtype = "auto"         # auto: bfloat16 on cuda, float32 on cpu; becomes the loaded
                                              # model's torch dtype once loaded
    device: str | torch.device | None = None  # None: cuda if available, else cpu
    seed: int = 0
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    max_model_len: int | None = None          # None: the model's max_position_embeddings
    block_size: int = 16
    enable_prefix_caching: bool = True
    enable_chunked_prefill: bool = True
    gpu_memory_utilization: float = 0.9       # CUDA: fraction of device memory the engine may use
    num_blocks: int | None = None             # KV blocks; None: CUDA profiles, CPU uses cpu_kv_cache_gib
    cpu_kv_cache_gib: float = 1.0             # CPU cap on the KV cache when num_blocks is None
    enforce_eager: bool | None = None         # None: CUDA graphs for pure-decode steps where they can run (CUDA with
                                              # the Triton kernels), eager elsewhere; True: always eager; False:
                                              # graphs asked for explicitly (worker/cuda_graphs.py)
    async_scheduling: bool = False            # the depth-2 async path is a later issue
    attention_backend: str = "auto"           # auto: triton on cuda when it imports, torch otherwise; triton; torch
    max_capture_size: int | None = None       # largest decode batch run as a graph; None: min(max_num_seqs, 512)

    def __post_init__(self) -> None:
        if self.device is None:
            self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(self.device)
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise EngineError(f"device={self.device} requested but CUDA is not available; use --device cpu")
        if not isinstance(self.dtype, torch.dtype) and self.dtype != "auto" and self.dtype not in _DTYPES:
            raise EngineError(f"dtype must be auto, float32, bfloat16 or float16, got {self.dtype!r}")
        if isinstance(self.dtype, str) and self.dtype != "auto":
            self.dtype = _DTYPES[self.dtype]
        if self.load_format not in LOAD_FORMATS:
            raise EngineError(f"load_format must be one of {', '.join(LOAD_FORMATS)}, got {self.load_format!r}")
        for name in ("max_num_seqs", "max_num_batched_tokens", "block_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise EngineError(f"{name} must be an integer >= 1, got {value!r}")
        if self.max_model_len is not None and (not isinstance(self.max_model_len, int) or self.max_model_len < 1):
            raise EngineError(f"max_model_len must be an integer >= 1, got {self.max_model_len!r}")
        if self.max_capture_size is not None and (not isinstance(self.max_capture_size, int)
                                                  or self.max_capture_size < 1):
            raise EngineError(f"max_capture_size must be an integer >= 1, got {self.max_capture_size!r}")
        if self.num_blocks is not None and (not isinstance(self.num_blocks, int) or self.num_blocks < 1):
            raise EngineError(f"num_blocks must be an integer >= 1, got {self.num_blocks!r}")
        if not 0.0 < self.gpu_memory_utilization <= 1.0:
            raise EngineError(f"gpu_memory_utilization must be in (0, 1], got {self.gpu_memory_utilization!r}")
        if self.async_scheduling:
            raise EngineError("async_scheduling is not implemented yet; run with async_scheduling=False")
        if self.enforce_eager is not None and not isinstance(self.enforce_eager, bool):
            raise EngineError(f"enforce_eager must be True, False or None (graphs where they can run), "
                              f"got {self.enforce_eager!r}")
        check_backend_name(self.attention_backend)
        if self.attention_backend == "triton":   # fail before the model loads, not after
            require_triton(self.device, block_size=self.block_size)

    @property
    def torch_dtype(self) -> torch.dtype:
        """The dtype once resolved (EngineCore sets dtype to the loaded model's)."""
        if not isinstance(self.dtype, torch.dtype):
            raise RuntimeError("dtype is resolved when the model is loaded")
        return self.dtype

    def resolve_max_model_len(self, max_position_embeddings: int) -> int:
        """Fix max_model_len against the model; called once the model config is known."""
        if self.max_model_len is None:
            self.max_model_len = max_position_embeddings
        elif self.max_model_len > max_position_embeddings:
            raise EngineError(f"max_model_len={self.max_model_len} exceeds the model's "
                              f"max_position_embeddings={max_position_embeddings}; lower --max-model-len")
        if not self.enable_chunked_prefill and self.max_num_batched_tokens < self.max_model_len:
            raise EngineError(f"without chunked prefill, max_num_batched_tokens ({self.max_num_batched_tokens}) must be "
                              f">= max_model_len ({self.max_model_len}): a whole prompt runs in one step; "
                              f"raise --max-num-batched-tokens, lower --max-model-len or enable chunked prefill")
        return self.max_model_len



def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """The torch dtype a setting names; "auto" is float32 on cpu and bfloat16 on cuda."""
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype in (None, "auto"):
        return torch.bfloat16 if torch.device(device).type == "cuda" else torch.float32
    if dtype not in _DTYPES:
        raise EngineError(f"dtype must be auto, float32, bfloat16 or float16, got {dtype!r}")
    return getattr(torch, _DTYPES[dtype])
