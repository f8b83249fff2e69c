"""EngineCore: scheduler + runner, stepped synchronously (schedule -> execute -> update).

The async depth-2 path (DESIGN §4) will keep this shape: the SchedulerOutput is the only thing that
crosses to the runner, and sampled tokens already live in a slot-indexed device tensor.
"""
from __future__ import annotations

import random

from engine.config import EngineConfig, resolve_dtype
from engine.core.request import Request
from engine.core.scheduler import Scheduler
from engine.errors import EngineError
from engine.sampling_params import SamplingParams
from engine.worker.model_runner import ModelRunner

_SEED_MASK = (1 << 63) - 1


class EngineCore:
    def __init__(self, config: EngineConfig, loaded=None, keep_logits: bool = False) -> None:
        if loaded is None:
            from engine.model import default_model_path
            from engine.model.loader import load_model
            loaded = load_model(config.model or default_model_path(), load_format=config.load_format,
                                dtype=resolve_dtype(config.dtype, config.device), device=config.device,
                                seed=config.seed)
        self.config = config
        config.dtype = next(loaded.model.parameters()).dtype   # what "auto" resolved to
        self.loaded = loaded
        self.model_config = loaded.config
        self.tokenizer = loaded.tokenizer
        config.resolve_max_model_len(self.model_config.max_position_embeddings)
        self.runner = ModelRunner(config, loaded.model, self.model_config, keep_logits=keep_logits)
        self.num_blocks = self.runner.determine_num_blocks()
        self.runner.initialize_kv_cache(self.num_blocks)
        self.scheduler = Scheduler(
            max_num_seqs=config.max_num_seqs, max_num_batched_tokens=config.max_num_batched_tokens,
            max_model_len=config.max_model_len, num_blocks=self.num_blocks, block_size=config.block_size,
            enable_prefix_caching=config.enable_prefix_caching, enable_chunked_prefill=config.enable_chunked_prefill)
        eos = tuple(self.model_config.eos_token_ids)
        if not eos and self.tokenizer is not None:
            eos = tuple(self.tokenizer.eos_token_ids)
        self.eos_token_ids = frozenset(eos)
        self._seed_rng = random.Random(config.seed)   # seeds for requests that bring none
        self.num_steps = 0

    @property
    def vocab_size(self) -> int:
        return self.model_config.vocab_size

    def add_request(self, request_id: str, prompt_token_ids: list[int], sampling_params: SamplingParams,
                    prompt: str | None = None, arrival_time: float | None = None) -> Request:
        if not prompt_token_ids:
            raise EngineError(f"request {request_id!r} has an empty prompt")
        seed = sampling_params.seed if sampling_params.seed is not None else self._seed_rng.getrandbits(63)
        req = Request(request_id, prompt_token_ids, sampling_params, eos_token_ids=self.eos_token_ids,
                      sampling_seed=seed & _SEED_MASK, arrival_time=arrival_time, prompt=prompt)
        self.scheduler.add_request(req)
        return req

    def abort_requests(self, request_ids: list[str]) -> None:
        self.scheduler.abort_requests(request_ids)

    def has_unfinished_requests(self) -> bool:
        return self.scheduler.has_unfinished_requests()

    def step(self) -> tuple[list[Request], object]:
        """One engine step; returns (requests finished in it, the runner output)."""
        sched = self.scheduler.schedule()
        result = self.runner.execute_model(sched)
        finished = self.scheduler.update_from_output(sched, result)
        self.num_steps += 1
        return finished, result
