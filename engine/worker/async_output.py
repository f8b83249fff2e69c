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
from engine.worker.logprobs import PendingLogprobs


class AsyncModelRunnerOutput:
    """One step's output; `get_output()` (once, in step order) waits for its copy and returns the token ids."""

    def __init__(
        self,
        req_ids: list[str],
        sampled: torch.Tensor | None = None,
        host: torch.Tensor | None = None,
        copied: torch.cuda.Event | None = None,
        logits: torch.Tensor | None = None,
        logprobs: PendingLogprobs | None = None,
    ) -> None:
        self.req_ids = req_ids
        self._sampled = sampled  # [S] int64 on the device: kept alive until the side-stream copy has read it
        self._host = host  # [S] int64 pinned, written by that copy (None off CUDA: `sampled` is on the host)
        self._copied = copied
        self._logits = logits
        self._logprobs = logprobs  # only when a request of the step asked; copied with the ids (pinned on CUDA)

    def get_output(self) -> ModelRunnerOutput:
        if not self.req_ids and self._logprobs is None:
            return ModelRunnerOutput()
        if self._copied is not None:
            self._copied.synchronize()
        token_ids: list[int] = []
        if self.req_ids:
            source = self._host if self._host is not None else self._sampled
            assert source is not None, "an output with rows but no sampled ids"
            token_ids = source.tolist()
        self._sampled = self._host = None
        logprobs, prompt_logprobs = self._logprobs.resolve() if self._logprobs is not None else (None, {})
        self._logprobs = None
        return ModelRunnerOutput(self.req_ids, token_ids, self._logits, logprobs, prompt_logprobs)


class OutputCopier:
    """Starts each step's device->host copy of its sampled ids (CUDA: side stream + event; elsewhere: nothing).

    CUDA: a ring of RING pinned buffers and events, reused in turn, so a step allocates nothing (with a fresh pinned
    buffer and event each step, start() took 0.12 ms of a 0.84 ms batch-1 host step on the H200:
    docs/device-checks/20261203-gemv-sweep; the ring's effect alone was not measured).
    A buffer is reused RING steps after its copy was queued; the engine has read it by then (at most two steps are
    in flight), and the event is synchronized first in any case."""

    RING = 4

    def __init__(self, device: torch.device) -> None:
        self.stream = torch.cuda.Stream(device) if device.type == "cuda" else None
        self._host: list[torch.Tensor | None] = [None] * self.RING
        self._events: list[torch.cuda.Event | None] = [None] * self.RING
        self._turn = 0

    def _slot(self, rows: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.cuda.Event]:
        """The next ring buffer (grown to `rows` when smaller) and its event, once its previous copy is done."""
        i = self._turn
        self._turn = (i + 1) % self.RING
        event = self._events[i]
        if event is None:
            event = self._events[i] = torch.cuda.Event()
        else:
            event.synchronize()  # recorded RING steps ago: long done
        buf = self._host[i]
        if buf is None or buf.numel() < rows or buf.dtype != dtype:
            buf = self._host[i] = torch.empty(max(rows, 64), dtype=dtype, pin_memory=True)
        return buf, event

    def start(
        self,
        req_ids: list[str],
        sampled: torch.Tensor | None,
        logits: torch.Tensor | None = None,
        logprobs: PendingLogprobs | None = None,
    ) -> AsyncModelRunnerOutput:
        """sampled [S] int64 on the device, rows in req_ids' order (None: no row samples); logits [S, vocab] fp32
        when the runner keeps them (tests); logprobs: what the step's requests that ask for them get."""
        if self.stream is None:
            return AsyncModelRunnerOutput(req_ids, sampled, logits=logits, logprobs=logprobs)
        device = torch.cuda.current_device() if sampled is None else sampled.device
        self.stream.wait_stream(torch.cuda.current_stream(device))  # after the sampler wrote `sampled`
        buf, copied = self._slot(*((0, torch.int64) if sampled is None else (sampled.numel(), sampled.dtype)))
        host = None
        with torch.cuda.stream(self.stream):
            if sampled is not None:
                host = buf[: sampled.numel()]
                host.copy_(sampled, non_blocking=True)
            for block in logprobs.blocks() if logprobs is not None else ():
                block.ids = _to_pinned(block.ids)
                block.vals = _to_pinned(block.vals)
            copied.record()
        return AsyncModelRunnerOutput(req_ids, sampled, host, copied, logits, logprobs)


def _to_pinned(x: torch.Tensor) -> torch.Tensor:
    """A non-blocking copy on the current (side) stream; the source stays alive with the caching allocator's
    stream bookkeeping (record_stream)."""
    host = torch.empty(x.shape, dtype=x.dtype, pin_memory=True)
    host.copy_(x, non_blocking=True)
    x.record_stream(torch.cuda.current_stream(x.device))
    return host
