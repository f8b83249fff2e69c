"""OpenAI request bodies -> validated engine inputs; every mistake is an ApiError naming the field and the fix.

Fields follow OpenAI's /v1/completions and /v1/chat/completions and vLLM's extras (top_k, ignore_eos,
stop_token_ids, skip_special_tokens, chat_template_kwargs). Fields the engine cannot honour are refused with
400 when they ask for something other than their default, never silently ignored.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.sampling_params import SamplingParams

CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")
# field -> values that mean "off" (accepted and ignored); anything else is refused as unsupported.
UNSUPPORTED = {
    "logprobs": (None, False, 0), "top_logprobs": (None, 0), "echo": (None, False), "best_of": (None, 1),
    "suffix": (None, ""), "logit_bias": (None, {}), "presence_penalty": (None, 0, 0.0),
    "frequency_penalty": (None, 0, 0.0), "repetition_penalty": (None, 1, 1.0), "min_tokens": (None, 0),
    "use_beam_search": (None, False), "tools": (None, []), "response_format": (None, {"type": "text"}),
    "prompt_logprobs": (None, 0), "guided_json": (None,), "guided_regex": (None,), "guided_choice": (None,),
}


class ApiError(Exception):
    """An HTTP error with OpenAI's error body."""

    def __init__(self, status: int, message: str, param: str | None = None, type_: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.type = type_ or {400: "BadRequestError", 404: "NotFoundError", 500: "InternalServerError",
                              503: "ServiceUnavailableError"}.get(status, "Error")

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.status}}


@dataclass
class GenerateRequest:
    """One validated request: what the engine runs and how the answer is shaped."""
    model: str
    prompt_token_ids: list[int]
    prompt: str | None
    params: SamplingParams     # stop strings included
    stream: bool
    include_usage: bool


def _bad(field: str, message: str) -> ApiError:
    return ApiError(400, f"{field}: {message}", param=field)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _number(body: dict[str, Any], name: str, default: float, ok: str, check) -> float:
    x = body.get(name)
    if x is None:
        return default
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not check(x):
        raise _bad(name, f"must be {ok}, got {x!r}")
    return float(x)


def _int(body: dict[str, Any], name: str, default: int | None, ok: str, check) -> int | None:
    x = body.get(name)
    if x is None:
        return default
    if not _is_int(x) or not check(x):
        raise _bad(name, f"must be {ok}, got {x!r}")
    return x


def _bool(body: dict[str, Any], name: str, default: bool) -> bool:
    x = body.get(name)
    if x is None:
        return default
    if not isinstance(x, bool):
        raise _bad(name, f"must be true or false, got {x!r}")
    return x


def _common(body: Any, served_model: str) -> tuple[str, bool, bool]:
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object, e.g. {\"prompt\": \"Hello\", \"max_tokens\": 16}")
    model = body.get("model")
    if model is not None and model != served_model:
        raise ApiError(404, f"model: the model {model!r} does not exist here; this server serves {served_model!r} "
                            f"(see GET /v1/models)", param="model", type_="NotFoundError")
    for name, off in UNSUPPORTED.items():
        if name in body and body[name] not in off:
            raise _bad(name, f"is not supported by this engine; leave it out (got {body[name]!r})")
    n = body.get("n")
    if n is not None and n != 1:
        raise _bad("n", f"only n=1 is supported (one completion per request); send {n!r} separate requests instead")
    stream = _bool(body, "stream", False)
    options = body.get("stream_options")
    include_usage = False
    if options is not None:
        if not stream:
            raise _bad("stream_options", "is only allowed with \"stream\": true; remove it or set stream")
        if not isinstance(options, dict):
            raise _bad("stream_options", f"must be an object like {{\"include_usage\": true}}, got {options!r}")
        include_usage = _bool(options, "include_usage", False)
    return served_model, stream, include_usage


def _sampling(body: dict[str, Any], max_tokens_default: int | None, tokens_field: str) -> SamplingParams:
    max_tokens = _int(body, tokens_field, max_tokens_default, "an integer >= 1", lambda v: v >= 1)
    stop = body.get("stop")
    if stop is None:
        stops: tuple[str, ...] = ()
    elif isinstance(stop, str):
        stops = (stop,)
    elif isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        stops = tuple(stop)
    else:
        raise _bad("stop", f"must be a string or a list of strings, got {stop!r}")
    if any(s == "" for s in stops):
        raise _bad("stop", "stop strings must not be empty")
    stop_ids = body.get("stop_token_ids")
    if stop_ids is not None and not (isinstance(stop_ids, list) and all(_is_int(t) and t >= 0 for t in stop_ids)):
        raise _bad("stop_token_ids", f"must be a list of token ids >= 0, got {stop_ids!r}")
    params = SamplingParams(
        temperature=_number(body, "temperature", 1.0, "a number >= 0 (0 = greedy)", lambda v: v >= 0),
        top_p=_number(body, "top_p", 1.0, "a number in (0, 1]", lambda v: 0 < v <= 1),
        top_k=_int(body, "top_k", 0, "an integer >= 1, or 0 / -1 to disable", lambda v: v >= -1),
        seed=_int(body, "seed", None, "an integer", lambda v: True),
        max_tokens=max_tokens, ignore_eos=_bool(body, "ignore_eos", False), stop=list(stops),
        stop_token_ids=list(stop_ids or []), skip_special_tokens=_bool(body, "skip_special_tokens", True))
    return params


def _check_prompt(ids: list[int], field: str, params: SamplingParams, vocab_size: int, max_model_len: int,
                  tokens_field: str) -> None:
    if not ids:
        raise _bad(field, "the prompt is empty; it needs at least one token")
    bad = next((i for i, t in enumerate(ids) if not 0 <= t < vocab_size), None)
    if bad is not None:
        raise _bad(field, f"token id {ids[bad]} at position {bad} is outside the vocabulary [0, {vocab_size})")
    if len(ids) >= max_model_len:
        raise _bad(field, f"the prompt has {len(ids)} tokens and the context holds {max_model_len} "
                          f"(--max-model-len), leaving no room to generate; shorten the prompt")
    if params.max_tokens is not None and len(ids) + params.max_tokens > max_model_len:
        raise _bad(tokens_field, f"the context holds {max_model_len} tokens and the prompt has {len(ids)}, so at "
                                 f"most {max_model_len - len(ids)} can be generated; lower {tokens_field} to that")


def parse_completion(body: Any, served_model: str, tokenizer, vocab_size: int, max_model_len: int) -> GenerateRequest:
    model, stream, include_usage = _common(body, served_model)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]   # a batch of one
    text: str | None = None
    if isinstance(prompt, str):
        if tokenizer is None:
            raise _bad("prompt", "this model has no tokenizer; send the prompt as a list of token ids")
        text, ids = prompt, tokenizer.encode(prompt)
    elif isinstance(prompt, list) and all(_is_int(t) for t in prompt):
        ids = list(prompt)
    elif isinstance(prompt, list) and prompt and all(isinstance(p, (str, list)) for p in prompt):
        raise _bad("prompt", f"got a batch of {len(prompt)} prompts; send one prompt per request")
    else:
        raise _bad("prompt", "is required: a string, or a list of token ids (integers)")
    params = _sampling(body, 16, "max_tokens")
    if params.stop and tokenizer is None:
        raise _bad("stop", "stop strings need a tokenizer and this model has none; use stop_token_ids")
    _check_prompt(ids, "prompt", params, vocab_size, max_model_len, "max_tokens")
    return GenerateRequest(model, ids, text, params, stream, include_usage)


def parse_chat(body: Any, served_model: str, tokenizer, vocab_size: int, max_model_len: int) -> GenerateRequest:
    model, stream, include_usage = _common(body, served_model)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _bad("messages", "is required: a non-empty list like [{\"role\": \"user\", \"content\": \"Hello\"}]")
    conversation = [_message(i, m) for i, m in enumerate(messages)]
    if tokenizer is None or tokenizer.chat_template is None:
        raise _bad("messages", "this model has no chat template; use /v1/completions with a prompt instead")
    kwargs = body.get("chat_template_kwargs") or {}
    if not isinstance(kwargs, dict):
        raise _bad("chat_template_kwargs", f"must be an object, got {kwargs!r}")
    add_generation_prompt = _bool(body, "add_generation_prompt", True)
    from engine.errors import EngineError
    try:
        text = tokenizer.apply_chat_template(conversation, add_generation_prompt=add_generation_prompt, **kwargs)
    except (EngineError, TypeError) as e:
        raise _bad("messages", f"the chat template could not render them: {e}") from None
    ids = tokenizer.encode(text, add_special_tokens=False)   # the template wrote the special tokens itself
    field = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    params = _sampling(body, None, field)
    _check_prompt(ids, "messages", params, vocab_size, max_model_len, field)
    return GenerateRequest(model, ids, text, params, stream, include_usage)


def _message(i: int, m: Any) -> dict[str, Any]:
    where = f"messages[{i}]"
    if not isinstance(m, dict):
        raise _bad(where, f"must be an object like {{\"role\": \"user\", \"content\": \"...\"}}, got {m!r}")
    role = m.get("role")
    if role not in CHAT_ROLES:
        raise _bad(f"{where}.role", f"must be one of {', '.join(CHAT_ROLES)}, got {role!r}")
    content = m.get("content")
    if content is None and role == "assistant":
        content = ""
    elif isinstance(content, list):   # content parts: only text parts can be rendered
        texts = []
        for j, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                raise _bad(f"{where}.content[{j}]", "only {\"type\": \"text\", \"text\": \"...\"} parts are supported")
            texts.append(part["text"])
        content = "".join(texts)
    elif not isinstance(content, str):
        raise _bad(f"{where}.content", f"must be a string or a list of text parts, got {content!r}")
    return {**m, "role": role, "content": content}
