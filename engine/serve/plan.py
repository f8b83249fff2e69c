"""One HTTP generation request as the engine runs it: its choices (one engine request each) and how the answer is
shaped; engine/serve/generate.py builds it, engine/serve/streaming.py and generate.py answer from it."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.outputs import Logprobs
from engine.sampling_params import SamplingParams
from engine.serve.async_engine import StreamOutput
from engine.serve.preprocess import Prompt
from engine.serve.responses import Envelope
from engine.serve.server_state import ServerState


@dataclass
class Choice:
    """One engine request of a response, and what it produced so far."""

    index: int
    prompt_index: int
    prompt: Prompt
    params: SamplingParams
    texts: list[str] = field(default_factory=list)
    token_ids: list[int] = field(default_factory=list)
    logprobs: list[Logprobs] = field(default_factory=list)
    prompt_logprobs: list[Logprobs | None] | None = None
    finish_reason: str | None = None
    stop_reason: int | str | None = None

    def add(self, out: StreamOutput) -> None:
        self.texts.append(out.text)
        self.token_ids += out.token_ids
        if out.logprobs:
            self.logprobs += out.logprobs
        if out.prompt_logprobs is not None:
            self.prompt_logprobs = out.prompt_logprobs
        self.finish_reason, self.stop_reason = out.finish_reason, out.stop_reason

    @property
    def cumulative_logprob(self) -> float:
        return sum(e.logprobs[0] for e in self.logprobs)


@dataclass
class Plan:
    """How one HTTP request runs and how its answer is shaped."""

    chat: bool
    env: Envelope
    choices: list[Choice]
    n: int  # choices returned per prompt
    stream: bool
    include_usage: bool
    num_top: int | None  # top logprobs to return per token; None: no logprobs in the answer
    echo: bool = False
    echo_only: bool = False  # max_tokens 0 with echo: the prompt alone

    @property
    def num_prompt_tokens(self) -> int:
        return sum(len(p.ids) for p in {c.prompt_index: c.prompt for c in self.choices}.values())


def prompt_text(state: ServerState, p: Prompt) -> str:
    if p.text is not None:
        return p.text
    tok = state.engine.tokenizer
    return tok.decode(p.ids, skip_special_tokens=False) if tok is not None else ""
