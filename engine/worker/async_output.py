"""A step's sampled token ids on their way to the host: a pinned copy on a side stream, finished by an event.

The ids stay on the device for the next step (the runner scatters them into `SlotState.last_sampled`); the host
needs them only to append tokens, check stops and detokenize, which under async scheduling happens one step later
(engine/engine_core.py). So the copy waits for the sampler on the compute stream, runs on its own stream, and
`get_output()` blocks on that copy alone, usually while the GPU already runs the next step. mini-sglang returns the
same triple (next_tokens_gpu, next_tokens_cpu, copy_done_event); vLLM calls the handle AsyncModelRunnerOutput.
"""
from __future__ import annotations

import torch

from engine.core.sched_output import ModelRunnerOutput


class AsyncModelRunnerOutput:
    """One step's output; `get_output()` (once, in step order) waits for its copy and returns the token ids."""

    def __init__(self, req_ids: list[str], sampled: torch.Tensor | None = None, host: torch.Tensor | None = None,
                 copied: torch.cuda.Event | None = None, logits: torch.Tensor | None = None) -> None:
        self.req_ids = req_ids
        self._sampled = sampled   # [S] int64 on the device: kept alive until the side-stream copy has read it
        self._host = host         # [S] int64 pinned, written by that copy (None off CUDA: `sampled` is on the host)
        self._copied = copied
        self._logits = logits

    def get_output(self) -> ModelRunnerOutput:
        if not self.req_ids:
            return ModelRunnerOutput()
        if self._copied is not None:
            self._copied.synchronize()
        source = self._host if self._host is not None else self._sampled
        assert source is not None, "an output with rows but no sampled ids"
        token_ids = source.tolist()
        self._sampled = self._host = None
        return ModelRunnerOutput(self.req_ids, token_ids, self._logits)


class OutputCopier:
    """Starts each step's device->host copy of its sampled ids (CUDA: side stream + event; elsewhere: nothing)."""

    def __init__(self, device: torch.device) -> None:
        self.stream = torch.cuda.Stream(device) if device.type == "cuda" else None

    def start(self, req_ids: list[str], sampled: torch.Tensor, logits: torch.Tensor | None = None
              ) -> AsyncModelRunnerOutput:
        """sampled [S] int64 on the device, rows in req_ids' order; logits [S, vocab] fp32 when the runner keeps
        them (tests)."""
        if self.stream is None:
            return AsyncModelRunnerOutput(req_ids, sampled, logits=logits)
        # Pinned memory from torch's caching host allocator: a block is reused only after its copy is done.
        host = torch.empty(sampled.shape, dtype=sampled.dtype, pin_memory=True)
        self.stream.wait_stream(torch.cuda.current_stream(sampled.device))   # after the sampler wrote `sampled`
        with torch.cuda.stream(self.stream):
            host.copy_(sampled, non_blocking=True)
            copied = torch.cuda.Event()
            copied.record()
        return AsyncModelRunnerOutput(req_ids, sampled, host, copied, logits)
