"""LLM: the offline entry point, vLLM's shape. `LLM(model).generate(prompts, SamplingParams(...))`."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np

from engine.args import EngineArgs
from engine.core.request import Request
from engine.engine_core import EngineCore
from engine.errors import EngineError
from engine.output_processor import OutputProcessor
from engine.outputs import RequestOutput
from engine.sampling_params import SamplingParams

# A prompt: text, {"prompt": text}, or {"prompt_token_ids": [ids]} (vLLM's TextPrompt / TokensPrompt).
PromptType = Union[str, dict[str, Any]]


class LLM:
    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        """`LLM(model, max_num_seqs=..., dtype=..., ...)`: every keyword is an engine setting (engine/args.py)."""
        args = EngineArgs.from_kwargs({"model": model, **kwargs}, caller="LLM")
        self._init(EngineCore.from_args(args.for_offline()))

    @classmethod
    def from_engine_args(cls, engine_args: EngineArgs) -> LLM:
        return cls.from_engine_core(EngineCore.from_args(engine_args.for_offline()))

    @classmethod
    def from_engine_core(cls, engine_core: EngineCore) -> LLM:
        """Wrap an already built EngineCore (tests, bench: a loaded model reused across settings)."""
        llm = cls.__new__(cls)
        llm._init(engine_core)
        return llm

    def _init(self, engine_core: EngineCore) -> None:
        self.engine_core = engine_core
        self.config = engine_core.config
        self.output_processor = OutputProcessor(engine_core.tokenizer, stream=False)
        self._ids = itertools.count()

    def get_tokenizer(self):
        return self.engine_core.tokenizer

    def reset_prefix_cache(self) -> bool:
        """Forget cached prompt blocks, so the same prompts are computed again (benchmarks repeat a workload)."""
        return self.engine_core.reset_prefix_cache()

    # ---- generation --------------------------------------------------------------------------------
    def generate(
        self,
        prompts: PromptType | Sequence[PromptType],
        sampling_params: SamplingParams | Sequence[SamplingParams] | None = None,
        *,
        use_tqdm: bool = True,
        on_request_finished: Callable[[RequestOutput], None] | None = None,
    ) -> list[RequestOutput]:
        """Run every prompt to completion; outputs come back in input order.

        on_request_finished(RequestOutput) is called as each request finishes (progress / bench timing hook).
        """
        if isinstance(prompts, (str, dict)):
            prompts = [prompts]
        prompts = list(prompts)
        if not prompts:
            raise EngineError("prompts is empty: pass at least one prompt")
        if sampling_params is None:
            sampling_params = SamplingParams()
        if isinstance(sampling_params, SamplingParams):
            params = [sampling_params] * len(prompts)
        else:
            params = list(sampling_params)
            if len(params) != len(prompts):
                raise EngineError(
                    f"got {len(params)} SamplingParams for {len(prompts)} prompts; pass one, or one per prompt"
                )
        for sp in params:
            sp.validate()
            if sp.stop and self.engine_core.tokenizer is None:
                raise EngineError(
                    f"model {self.engine_core.loaded.name} has no tokenizer, so stop strings cannot be "
                    f"matched; use SamplingParams(stop_token_ids=[...])"
                )
        token_lists = [self._prompt_token_ids(i, p) for i, p in enumerate(prompts)]
        core = self.engine_core
        requests: list[Request] = []
        for prompt, ids, sp in zip(prompts, token_lists, params):
            text = prompt if isinstance(prompt, str) else prompt.get("prompt")
            req = core.add_request(str(next(self._ids)), ids, sp, prompt=text)
            self.output_processor.add_request(req)
            requests.append(req)
        return self._run(requests, use_tqdm, on_request_finished)

    def chat(
        self,
        messages: list[dict[str, Any]] | Sequence[list[dict[str, Any]]],
        sampling_params: SamplingParams | Sequence[SamplingParams] | None = None,
        *,
        use_tqdm: bool = True,
        on_request_finished: Callable[[RequestOutput], None] | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> list[RequestOutput]:
        """One conversation ([{"role", "content"}, ...]) or a list of them, rendered by the chat template."""
        tok = self._require_tokenizer("chat messages")
        conversations = [messages] if messages and isinstance(messages[0], dict) else list(messages)
        prompts = [
            tok.apply_chat_template(c, add_generation_prompt=True, **(chat_template_kwargs or {}))
            for c in conversations
        ]
        # The template already wrote the special tokens (BOS included): encode without adding more.
        items = [{"prompt": p, "prompt_token_ids": tok.encode(p, add_special_tokens=False)} for p in prompts]
        return self.generate(items, sampling_params, use_tqdm=use_tqdm, on_request_finished=on_request_finished)

    def _run(
        self, requests: list[Request], use_tqdm: bool, on_request_finished: Callable[[RequestOutput], None] | None
    ) -> list[RequestOutput]:
        core, processor = self.engine_core, self.output_processor
        done: dict[str, RequestOutput] = {}
        progress = _Progress(len(requests)) if use_tqdm and sys.stderr.isatty() else None
        try:
            while len(done) < len(requests):
                if not core.has_unfinished_requests():
                    raise RuntimeError("the engine went idle with requests unanswered (an engine bug)")
                finished, result = core.step()
                # The requests whose tokens reached the host in this step: under async scheduling the tokens of the
                # step before (engine/engine_core.py); a token dropped after a late stop names a forgotten request.
                moved = result.req_ids if processor.wants_every_step else []
                processed = processor.process_outputs([*moved, *(r.request_id for r in finished)])
                core.abort_requests(processed.reqs_to_abort)  # a stop string ended them: free their blocks now
                for out in processed.finished:
                    done[out.request_id] = out
                    if on_request_finished is not None:
                        on_request_finished(out)
                if progress is not None and processed.finished:
                    progress.advance(len(processed.finished))
        except BaseException:
            unanswered = [r.request_id for r in requests if r.request_id not in done]
            core.abort_requests(unanswered)
            for rid in unanswered:
                processor.abort_request(rid)
            raise
        finally:
            if progress is not None:
                progress.close()
        return [done[r.request_id] for r in requests]

    # ---- input validation --------------------------------------------------------------------------
    def _require_tokenizer(self, what: str):
        tok = self.engine_core.tokenizer
        if tok is None:
            raise EngineError(
                f"model {self.engine_core.loaded.name} has no tokenizer, so {what} cannot be "
                f"encoded; pass {{'prompt_token_ids': [...]}} instead"
            )
        return tok

    def _prompt_token_ids(self, index: int, prompt: PromptType) -> list[int]:
        where = f"prompt {index}"
        if isinstance(prompt, str):
            ids = self._require_tokenizer("text prompts").encode(prompt)
        elif isinstance(prompt, dict) and "prompt_token_ids" in prompt:
            ids = prompt["prompt_token_ids"]
        elif isinstance(prompt, dict) and isinstance(prompt.get("prompt"), str):
            ids = self._require_tokenizer("text prompts").encode(prompt["prompt"])
        else:
            raise EngineError(
                f"{where} must be a string, {{'prompt': str}} or {{'prompt_token_ids': [int, ...]}}, "
                f"got {type(prompt).__name__}"
            )
        arr = np.asarray(ids)
        if arr.size == 0:
            raise EngineError(f"{where} is empty: it needs at least one token")
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise EngineError(f"{where}: prompt_token_ids must be a flat list of integers")
        vocab = self.engine_core.vocab_size
        bad = (arr < 0) | (arr >= vocab)
        if bad.any():
            pos = int(np.argmax(bad))
            raise EngineError(
                f"{where}: token id {int(arr[pos])} at position {pos} is outside the vocabulary [0, {vocab})"
            )
        max_len = self.config.max_model_len
        if arr.size > max_len:
            raise EngineError(
                f"{where} has {arr.size} tokens, longer than the context (max_model_len={max_len}); "
                f"shorten it or raise --max-model-len"
            )
        return arr.tolist()


class _Progress:
    """A rich progress bar on stderr (only drawn on a terminal)."""

    def __init__(self, total: int) -> None:
        from rich.progress import Progress

        self._bar = Progress(transient=True)
        self._task = self._bar.add_task("generating", total=total)
        self._bar.start()

    def advance(self, n: int) -> None:
        self._bar.update(self._task, advance=n)

    def close(self) -> None:
        self._bar.stop()
