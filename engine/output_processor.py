"""OutputProcessor (vLLM's name): engine requests -> text, stop strings, finish reasons and RequestOutputs.

The one output path of the engine: `LLM.generate` and the server (engine/serve/async_engine.py) both add each request
here and, after every engine step, hand over the ids of the requests that moved. Per request it detokenises the new
tokens incrementally (holding back an incomplete UTF-8 sequence), looks for stop strings, and gives back a delta (the
new tokens and the text safe to show: a tail that could still grow into a stop string is held back) and, once
finished, the whole RequestOutput. A request a stop string ended is listed in `reqs_to_abort`: the caller aborts it
in the EngineCore, which frees its KV blocks. Same steps in, same text out: offline and served text agree.

Offline (`stream=False`) a request with nothing to decode or match (token ids only, as every benchmark) is left
alone until it finishes: walking 256 such requests every step cost 0.7 ms here, a few percent of a GPU step.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.core.request import Request
from engine.errors import EngineError
from engine.model.tokenizer import IncrementalDetokenizer, Tokenizer
from engine.outputs import CompletionOutput, Logprobs, RequestOutput


@dataclass
class OutputDelta:
    """What one engine step produced for one request."""

    request_id: str
    token_ids: list[int]  # new token ids this step
    text: str  # new text this step ("" while a character or a stop string is held back)
    num_prompt_tokens: int
    num_output_tokens: int  # generated so far (a stop string's tail included, as vLLM counts)
    finish_reason: str | None = None  # "stop" | "length" | "abort" on the last delta
    stop_reason: int | str | None = None  # the stop token id or stop string that ended it
    logprobs: list[Logprobs] | None = None  # one per new token, when the request asked
    prompt_logprobs: list[Logprobs | None] | None = None  # in the request's first delta, when it asked


@dataclass
class RequestState:
    request: Request
    detokenizer: IncrementalDetokenizer | None
    stop: tuple[str, ...]
    sent_tokens: int = 0  # output tokens already handed out in deltas
    text: str = ""  # decoded text so far
    emitted: int = 0  # characters of `text` already handed out
    finish_reason: str | None = None
    stop_reason: int | str | None = None

    @property
    def incremental(self) -> bool:
        """Whether its text must be followed step by step (decoded, or searched for stop strings)."""
        return self.detokenizer is not None or bool(self.stop)

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def to_request_output(self) -> RequestOutput:
        req = self.request
        lps = req.output_logprobs
        completion = CompletionOutput(
            0,
            self.text[: self.emitted],
            list(req.output_token_ids),
            self.finish_reason,
            self.stop_reason,
            None if lps is None else list(lps),
            None if lps is None else sum(e.logprobs[0] for e in lps),
        )
        return RequestOutput(
            req.request_id,
            req.prompt,
            req.prompt_token_ids,
            [completion],
            self.finished,
            req.metrics,
            req.metrics.num_cached_tokens,
            req.prompt_logprobs,
        )


@dataclass
class ProcessedOutputs:
    deltas: list[OutputDelta] = field(default_factory=list)  # one per request that moved
    finished: list[RequestOutput] = field(default_factory=list)  # the requests that ended in this step
    reqs_to_abort: list[str] = field(default_factory=list)  # ended by a stop string: abort them in the core


class OutputProcessor:
    def __init__(self, tokenizer: Tokenizer | None, stream: bool = True) -> None:
        """stream: a delta for every step a request moved (the server); False: only what finishing needs."""
        self.tokenizer = tokenizer
        self.stream = stream
        self.states: dict[str, RequestState] = {}
        self._num_incremental = 0

    def add_request(self, request: Request) -> None:
        params = request.sampling_params
        if params.stop and self.tokenizer is None:
            raise EngineError("stop strings need a tokenizer and this model has none; use stop_token_ids")
        detok = None
        if self.tokenizer is not None and params.detokenize:
            detok = self.tokenizer.incremental(request.prompt_token_ids, skip_special_tokens=params.skip_special_tokens)
        state = RequestState(request, detok, tuple(params.stop))
        self.states[request.request_id] = state
        self._num_incremental += state.incremental

    def abort_request(self, request_id: str) -> RequestState | None:
        """Forget a request (its client left, or the caller gave up); returns its last state."""
        state = self.states.pop(request_id, None)
        if state is not None:
            self._num_incremental -= state.incremental
        return state

    def has_unfinished_requests(self) -> bool:
        return bool(self.states)

    @property
    def wants_every_step(self) -> bool:
        """Whether the caller must hand over every request that moved, not only the finished ones."""
        return self.stream or self._num_incremental > 0

    def process_outputs(self, request_ids: Iterable[str]) -> ProcessedOutputs:
        """After an engine step: the deltas of the requests that moved (ids not added here are skipped)."""
        out = ProcessedOutputs()
        for rid in dict.fromkeys(request_ids):  # once each, in order
            state = self.states.get(rid)
            if state is None or not (self.stream or state.incremental or state.request.status.finished):
                continue
            delta = self._advance(state)
            if delta is None:
                continue
            out.deltas.append(delta)
            if state.finished:
                self.abort_request(rid)  # done with it: forgotten the same way
                out.finished.append(state.to_request_output())
                if not state.request.status.finished:
                    out.reqs_to_abort.append(rid)
        return out

    def _advance(self, t: RequestState) -> OutputDelta | None:
        req = t.request
        new = req.output_token_ids[t.sent_tokens :]
        finished = req.status.finished
        if not new and not finished:
            return None
        first = t.sent_tokens == 0
        lps = None if req.output_logprobs is None else req.output_logprobs[t.sent_tokens :]
        t.sent_tokens = len(req.output_token_ids)
        if t.detokenizer is not None:
            t.text += t.detokenizer.add(new)
            if finished:
                t.text += t.detokenizer.flush()
        reason, stop_reason = req.finish_reason, req.stop_reason
        end = len(t.text)
        if t.stop:
            hit = _find_stop(t.text, t.stop, t.emitted)
            if hit is not None:
                end, stop_str = max(hit[0], t.emitted), hit[1]
                reason, stop_reason, finished = "stop", stop_str, True
            elif not finished:  # hold back a tail that could still grow into a stop string
                end = max(t.emitted, len(t.text) - (max(map(len, t.stop)) - 1))
        text, t.emitted = t.text[t.emitted : end], end
        if finished:
            t.finish_reason, t.stop_reason = reason, stop_reason
        return OutputDelta(
            req.request_id,
            new,
            text,
            req.num_prompt_tokens,
            t.sent_tokens,
            t.finish_reason,
            t.stop_reason,
            lps,
            req.prompt_logprobs if first else None,
        )


def _find_stop(text: str, stops: tuple[str, ...], emitted: int) -> tuple[int, str] | None:
    """The earliest stop string in text that ends after what was already emitted: (its start, it)."""
    best: tuple[int, str] | None = None
    for s in stops:
        i = text.find(s, max(0, emitted - len(s) + 1))
        if i >= 0 and (best is None or i < best[0]):
            best = (i, s)
    return best
