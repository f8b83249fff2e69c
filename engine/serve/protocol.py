"""OpenAI request bodies as pydantic models (vLLM's choice): a field is one line with its type, default and bounds.

Fields follow OpenAI's /v1/completions and /v1/chat/completions and vLLM's extras (top_k, min_tokens, penalties,
ignore_eos, stop_token_ids, skip_special_tokens, prompt_logprobs, chat_template_kwargs). Every number is bounded by
the type the engine stores it in (engine/sampling_params.py); what only the model knows (the vocabulary, the
context) is checked by `to_sampling_params` and engine/serve/preprocess.py. Unknown fields are ignored, as OpenAI's
clients send some (`user`, `metadata`); fields the engine cannot honour are refused when set to anything but "off".
Parsing is strict: "8" is not a number and "yes" is not a boolean.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.sampling_params import FLOAT32_MAX, INT64_MAX, MAX_LOGPROBS, MAX_REPETITION_PENALTY, SamplingParams
from engine.serve.limits import MAX_MESSAGES, MAX_N, MAX_PROMPTS, MAX_STOP_CHARS, MAX_STOP_STRINGS, MAX_TOKEN_IDS

INT64_MIN = -INT64_MAX - 1
CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")
# field -> values that mean "off" (accepted and ignored); anything else is refused as unsupported.
UNSUPPORTED = {
    "suffix": (None, ""),
    "logit_bias": (None, {}),
    "use_beam_search": (None, False),
    "tools": (None, []),
    "tool_choice": (None, "none"),
    "response_format": (None, {"type": "text"}),
    "guided_json": (None,),
    "guided_regex": (None,),
    "guided_choice": (None,),
    "guided_grammar": (None,),
}


class FieldError(ValueError):
    """A check of the whole body that is about one field (engine/serve/errors.py names it in `param`)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class _Body(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _unsupported(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name, off in UNSUPPORTED.items():
                if name in data and data[name] not in off:
                    raise FieldError(
                        name, f"is not supported by this engine; leave it out (got {str(data[name])[:60]!r})"
                    )
        return data


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    include_usage: bool = False


class _Sampling(_Body):
    model: str | None = None
    temperature: float = Field(1.0, ge=0, le=FLOAT32_MAX)
    top_p: float = Field(1.0, gt=0, le=1)
    top_k: int = Field(0, ge=-1, le=INT64_MAX)
    seed: int | None = Field(None, ge=INT64_MIN, le=INT64_MAX)
    n: int = Field(1, ge=1, le=MAX_N)
    stop: list[str] = Field(default_factory=list)  # a string or a list of strings
    stop_token_ids: list[int] = Field(default_factory=list, max_length=MAX_STOP_STRINGS)
    presence_penalty: float = Field(0.0, ge=-2, le=2)
    frequency_penalty: float = Field(0.0, ge=-2, le=2)
    repetition_penalty: float = Field(1.0, gt=0, le=MAX_REPETITION_PENALTY)
    min_tokens: int = Field(0, ge=0, le=INT64_MAX)
    ignore_eos: bool = False
    skip_special_tokens: bool = True
    stream: bool = False
    stream_options: StreamOptions | None = None

    @field_validator("stop", mode="before")
    @classmethod
    def _stop(cls, v: Any) -> list[str]:
        stops = [] if v is None else [v] if isinstance(v, str) else v
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise ValueError("must be a string or a list of strings")
        if len(stops) > MAX_STOP_STRINGS:
            raise ValueError(f"at most {MAX_STOP_STRINGS} stop strings, got {len(stops)}")
        for s in stops:
            if not s or len(s) > MAX_STOP_CHARS:
                raise ValueError(f"each stop string must have 1 to {MAX_STOP_CHARS} characters, got {len(s)}")
        return stops

    @field_validator("stop_token_ids")
    @classmethod
    def _stop_ids(cls, v: list[int]) -> list[int]:
        if any(not 0 <= t <= INT64_MAX for t in v):
            raise ValueError("token ids must be >= 0")
        return v

    @model_validator(mode="after")
    def _stream_options(self) -> _Sampling:
        if self.stream_options is not None and not self.stream:
            raise FieldError("stream_options", 'is only allowed with "stream": true; remove it or set stream')
        return self

    @model_validator(mode="after")
    def _min_tokens(self) -> _Sampling:
        limit = getattr(self, "max_completion_tokens", None) or getattr(self, "max_tokens", None)
        if limit and self.min_tokens > limit:
            raise FieldError("min_tokens", f"must be <= the most tokens asked for ({limit}), got {self.min_tokens}")
        return self

    @property
    def include_usage(self) -> bool:
        return self.stream_options is not None and self.stream_options.include_usage

    def to_sampling_params(
        self,
        max_tokens: int | None,
        vocab_size: int,
        logprobs: int | None = None,
        prompt_logprobs: int | None = None,
        seed: int | None = None,
    ) -> SamplingParams:
        """The engine's params for one completion; raises ApiError-ready ValueErrors through the caller."""
        return SamplingParams(
            temperature=self.temperature,
            top_p=self.top_p,
            top_k=self.top_k,
            seed=seed,
            max_tokens=max_tokens,
            min_tokens=self.min_tokens,
            presence_penalty=self.presence_penalty,
            frequency_penalty=self.frequency_penalty,
            repetition_penalty=self.repetition_penalty,
            logprobs=logprobs,
            prompt_logprobs=prompt_logprobs,
            ignore_eos=self.ignore_eos,
            stop=list(self.stop),
            stop_token_ids=list(self.stop_token_ids),
            skip_special_tokens=self.skip_special_tokens,
        )


class CompletionRequest(_Sampling):
    prompt: list[str | list[int]]  # one entry per prompt: text, or token ids
    max_tokens: int | None = Field(16, ge=0, le=INT64_MAX)
    echo: bool = False
    logprobs: int | None = Field(None, ge=0, le=MAX_LOGPROBS)
    prompt_logprobs: int | None = Field(None, ge=0, le=MAX_LOGPROBS)
    best_of: int | None = Field(None, ge=1, le=MAX_N)
    add_special_tokens: bool = True

    @field_validator("prompt", mode="before")
    @classmethod
    def _prompt(cls, v: Any) -> list[str | list[int]]:
        """A string, a list of token ids, or a batch of either (OpenAI's four shapes)."""
        if isinstance(v, str):
            return [v]
        if isinstance(v, list) and v and all(_is_int(t) for t in v):
            return [_ids(v)]
        if isinstance(v, list) and v and all(isinstance(p, (str, list)) for p in v):
            if len(v) > MAX_PROMPTS:
                raise ValueError(f"at most {MAX_PROMPTS} prompts in one request, got {len(v)}")
            return [p if isinstance(p, str) else _ids(p) for p in v]
        if isinstance(v, list) and not v:
            raise ValueError("the prompt is empty; it needs at least one token")
        raise ValueError("is required: a string, a list of token ids (integers), or a list of either")

    @model_validator(mode="after")
    def _choices(self) -> CompletionRequest:
        if self.max_tokens == 0 and not self.echo:
            raise FieldError("max_tokens", 'must be >= 1 (0 only with "echo": true, to score the prompt)')
        if self.best_of is not None:
            if self.best_of < self.n:
                raise FieldError("best_of", f"must be >= n ({self.n}), got {self.best_of}")
            if self.stream and self.best_of > self.n:
                raise FieldError("best_of", "> n cannot stream (the best are known only at the end); drop stream")
        return self


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _content(cls, v: Any) -> str | None:
        """A string, or content parts of which only text can be rendered (joined)."""
        if v is None or isinstance(v, str):
            return v
        if isinstance(v, list):
            texts = []
            for j, part in enumerate(v):
                if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                    raise ValueError(f'part {j}: only {{"type": "text", "text": "..."}} parts are supported')
                texts.append(part["text"])
            return "".join(texts)
        raise ValueError(f"must be a string or a list of text parts, got {type(v).__name__}")


class ChatCompletionRequest(_Sampling):
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    max_tokens: int | None = Field(None, ge=1, le=INT64_MAX)
    max_completion_tokens: int | None = Field(None, ge=1, le=INT64_MAX)
    logprobs: bool = False
    top_logprobs: int | None = Field(None, ge=0, le=MAX_LOGPROBS)
    chat_template_kwargs: dict[str, Any] = Field(default_factory=dict)
    add_generation_prompt: bool = True

    @field_validator("messages", mode="before")
    @classmethod
    def _count(cls, v: Any) -> Any:
        if isinstance(v, list) and len(v) > MAX_MESSAGES:  # before validating each of them
            raise ValueError(f"at most {MAX_MESSAGES} messages in one request, got {len(v)}")
        return v

    @model_validator(mode="after")
    def _top_logprobs(self) -> ChatCompletionRequest:
        if self.top_logprobs and not self.logprobs:
            raise FieldError("top_logprobs", 'needs "logprobs": true')
        return self

    def conversation(self) -> list[dict[str, Any]]:
        """The messages as the chat template reads them (an assistant turn without content renders as "")."""
        return [{**m.model_dump(), "content": m.content if m.content is not None else ""} for m in self.messages]


class TokenizeRequest(_Body):
    """vLLM's /tokenize: a prompt, or chat messages rendered by the chat template."""

    model: str | None = None
    prompt: str | None = None
    messages: list[ChatMessage] | None = Field(None, min_length=1, max_length=MAX_MESSAGES)
    add_special_tokens: bool = True
    add_generation_prompt: bool = True
    chat_template_kwargs: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one(self) -> TokenizeRequest:
        if (self.prompt is None) == (self.messages is None):
            raise FieldError("prompt", 'send either "prompt" (a string) or "messages" (chat messages)')
        return self


class DetokenizeRequest(_Body):
    model: str | None = None
    tokens: list[int] = Field(max_length=MAX_TOKEN_IDS)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _ids(v: list[Any]) -> list[int]:
    if not v:
        raise ValueError("the prompt is empty; it needs at least one token")
    if len(v) > MAX_TOKEN_IDS:
        raise ValueError(f"at most {MAX_TOKEN_IDS} token ids, got {len(v)}")
    bad = next((i for i, t in enumerate(v) if not _is_int(t) or not 0 <= t <= INT64_MAX), None)
    if bad is not None:
        raise ValueError(f"token id {v[bad]!r} at position {bad} is not a token id (an integer >= 0)")
    return v
