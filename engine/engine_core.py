"""EngineCore: scheduler + runner, stepped as a pipeline of depth 1 (synchronous) or 2 (async scheduling).

It sits above engine/core/ (scheduler, KV cache) and engine/worker/ (runner), which never import it. The
SchedulerOutput (engine/core/sched_output.py) is the only thing that crosses to the runner; sampled ids live in a
slot-indexed device tensor (engine/worker/state.py) that feeds the next step, and reach the host through a handle
(engine/worker/async_output.py).

One `step()`: schedule and launch a step; then, once `depth` steps are in flight (or nothing new was launched),
wait for the oldest one's sampled ids and update the scheduler with them. Depth 1 is schedule -> execute -> update.
Depth 2 (vLLM's batch queue, mini-sglang's overlap scheduler) schedules step N+1 while the device runs step N, so
the host's scheduling, input preparation and launches hide behind the device's work; tokens reach the host one
step late and the scheduler accounts for them (engine/core/scheduler.py: placeholders, late stops dropped).
"""

from __future__ import annotations

import random
import weakref
from collections import deque

from engine.args import EngineArgs
from engine.config import EngineConfig, resolve_dtype
from engine.core.request import Request
from engine.core.sched_output import ModelRunnerOutput, SchedulerOutput
from engine.core.scheduler import Scheduler
from engine.errors import EngineError
from engine.kernels.backends import require_triton
from engine.model.loader import LoadedModel, default_model_path, load_model
from engine.model.tensor_parallel import rank_config
from engine.sampling_params import SamplingParams
from engine.worker import tp_launch
from engine.worker.async_output import AsyncModelRunnerOutput
from engine.worker.model_runner import ModelRunner
from engine.worker.tp_launch import TensorParallel

_SEED_MASK = (1 << 63) - 1


class EngineCore:
    def __init__(
        self, config: EngineConfig, loaded: LoadedModel, keep_logits: bool = False, tp: TensorParallel | None = None
    ) -> None:
        """`config` resolved for `loaded` (EngineCore.from_args does both); `tp`: rank 0 of a tensor-parallel group,
        `loaded.model` already this rank's shard."""
        dtype = next(loaded.model.parameters()).dtype
        if config.dtype != dtype:
            raise EngineError(
                f"the config says dtype {config.dtype} but the model loaded in {dtype}; build the "
                f"config with EngineArgs.create_engine_config(dtype=...) of this model"
            )
        if config.tensor_parallel_size > 1 and tp is None:
            raise EngineError("a tensor-parallel config needs its group; build the engine with EngineCore.from_args")
        self.config = config
        self.loaded = loaded
        self.model_config = loaded.config
        self.tokenizer = loaded.tokenizer
        self.eos_token_ids = tp_launch.eos_token_ids(loaded)
        self._tp = tp
        # The runner sees its rank's heads and KV heads (which size its cache); the scheduler the whole model.
        self.runner = ModelRunner(
            config,
            loaded.model,
            rank_config(self.model_config, config.tensor_parallel_size),
            keep_logits=keep_logits,
            eos_token_ids=self.eos_token_ids,
        )
        self.num_blocks = self.runner.determine_num_blocks()
        if tp is not None:
            self.num_blocks = tp.agree_num_blocks(self.num_blocks)
            weakref.finalize(self, tp.shutdown)  # the other ranks stop when this engine goes (or at exit)
        self.runner.initialize_kv_cache(self.num_blocks)
        self.scheduler = Scheduler(
            max_num_seqs=config.max_num_seqs,
            max_num_batched_tokens=config.max_num_batched_tokens,
            max_model_len=config.max_model_len,
            num_blocks=self.num_blocks,
            block_size=config.block_size,
            enable_prefix_caching=config.enable_prefix_caching,
            enable_chunked_prefill=config.enable_chunked_prefill,
        )
        self._seed_rng = random.Random(config.seed)  # seeds for requests that bring none
        self.num_steps = 0  # steps whose output was processed
        self.depth = 2 if config.async_scheduling else 1
        self._in_flight: deque[tuple[SchedulerOutput, AsyncModelRunnerOutput]] = deque()  # oldest first

    @classmethod
    def from_args(cls, args: EngineArgs, loaded: LoadedModel | None = None, keep_logits: bool = False) -> EngineCore:
        """Load the model (unless given), resolve the config against it, build the engine. With
        tensor_parallel_size > 1: start the other ranks (or join torchrun's) and load this rank's shard; a
        torchrun rank other than 0 serves rank 0's steps and exits when rank 0 shuts down."""
        device = args.resolve_device()
        if args.tensor_parallel_size > 1:
            if loaded is not None:
                raise EngineError(
                    "with tensor_parallel_size > 1 every rank loads its own shard: pass the model by "
                    "path (EngineArgs(model=...)), not a loaded model"
                )
            return cls._from_args_tensor_parallel(args, keep_logits)
        if args.attention_backend == "triton":  # fail before the model loads, not after
            require_triton(device, block_size=args.block_size)
        if loaded is None:
            loaded = load_model(
                args.model or default_model_path(),
                load_format=args.load_format,
                dtype=resolve_dtype(args.dtype, device),
                device=device,
                seed=args.seed,
            )
        config = args.create_engine_config(
            dtype=next(loaded.model.parameters()).dtype, max_position_embeddings=loaded.config.max_position_embeddings
        )
        return cls(config, loaded, keep_logits=keep_logits)

    @classmethod
    def _from_args_tensor_parallel(cls, args: EngineArgs, keep_logits: bool) -> EngineCore:
        if args.attention_backend == "triton":
            require_triton(args.resolve_device(), block_size=args.block_size)
        tp_launch.check_size(args)  # before any process starts
        tp = tp_launch.start(args)
        if tp.tp.rank != 0:
            tp_launch.run_worker(args, tp)
            raise SystemExit(0)
        loaded, config = tp_launch.load_rank_model(args, tp)
        return cls(config, loaded, keep_logits=keep_logits, tp=tp)

    def shutdown(self) -> None:
        """Stop the other tensor-parallel ranks (nothing with one rank); the engine cannot step afterwards."""
        if self._tp is not None:
            self._tp.shutdown()

    @property
    def vocab_size(self) -> int:
        return self.model_config.vocab_size

    def add_request(
        self,
        request_id: str,
        prompt_token_ids: list[int],
        sampling_params: SamplingParams,
        prompt: str | None = None,
        arrival_time: float | None = None,
    ) -> Request:
        if not prompt_token_ids:
            raise EngineError(f"request {request_id!r} has an empty prompt")
        sampling_params.check_model(self.vocab_size)
        seed = sampling_params.seed if sampling_params.seed is not None else self._seed_rng.getrandbits(63)
        req = Request(
            request_id,
            prompt_token_ids,
            sampling_params,
            eos_token_ids=self.eos_token_ids,
            sampling_seed=seed & _SEED_MASK,
            arrival_time=arrival_time,
            prompt=prompt,
        )
        self.scheduler.add_request(req)
        return req

    def abort_requests(self, request_ids: list[str]) -> None:
        self.scheduler.abort_requests(request_ids)

    def has_unfinished_requests(self) -> bool:
        return self.scheduler.has_unfinished_requests()

    def reset_prefix_cache(self) -> bool:
        """Forget the cached prompt blocks (vLLM's LLM.reset_prefix_cache): the next request of the same prompt
        computes it again. Only between requests: False, and nothing done, while any request is unfinished."""
        if self.scheduler.has_unfinished_requests():
            return False
        self.scheduler.kv.reset_prefix_cache()
        return True

    @property
    def num_steps_in_flight(self) -> int:
        """Launched steps whose output was not processed yet. Left over once every request finished, they hold only
        tokens to drop; the next `step()` processes them (nothing waits for them before that)."""
        return len(self._in_flight)

    def recover(self) -> list[str]:
        """After `step()` raised: forget the steps in flight (their tokens are recomputed, with the same seeds and
        positions) and send every running request back to waiting (Scheduler.requeue_running). Returns their ids."""
        self._in_flight.clear()
        return self.scheduler.requeue_running()

    def step(self) -> tuple[list[Request], ModelRunnerOutput]:
        """Launch a step, and process the oldest one in flight once the pipeline is full.

        Returns (the requests that finished, the processed step's output: the requests whose new token reached the
        host now, with those tokens); both empty while the pipeline fills."""
        sched = self.scheduler.schedule()  # an empty one still tells the runner which slots to drop
        if self._tp is not None:
            self._tp.send_step(sched)  # the other ranks run the same step on their shards
        handle = self.runner.execute_model(sched)
        if not sched.is_empty:
            self._in_flight.append((sched, handle))
            if len(self._in_flight) < self.depth:
                return [], ModelRunnerOutput()
        if not self._in_flight:
            return [], ModelRunnerOutput()
        sched, handle = self._in_flight.popleft()
        result = handle.get_output()
        finished = self.scheduler.update_from_output(sched, result)
        self.num_steps += 1
        return finished, result
