"""ModelRunner: owns the KV cache and the slot state; turns a SchedulerOutput into sampled tokens.

One step: apply the SchedulerOutput to the slot state -> build inputs (input_batch.py) -> run the model
(eagerly; a pure-decode step with enforce_eager=False through cuda_graphs.py) -> logits only for rows that
finished their known tokens -> sample -> scatter the samples into the slot-indexed device tensor (next step's
decode inputs) -> start the device->host copy of the samples (async_output.py) and return without waiting for it.
Nothing in a step reads a device value on the host, so the engine may schedule and launch the next step before
this one's tokens are known (async scheduling, engine/engine_core.py).
"""

from __future__ import annotations

import os

import torch

from engine.config import EngineConfig
from engine.core.sched_output import SchedulerOutput
from engine.errors import EngineError
from engine.kernels.attention_metadata import AttentionMetadata, allocate_kv_cache
from engine.kernels.backends import select as select_attention
from engine.utils import cdiv
from engine.worker.async_output import AsyncModelRunnerOutput, OutputCopier
from engine.worker.cuda_graphs import DecodeGraphs, capture_sizes, graph_mode
from engine.worker.input_batch import Uploader, prepare_inputs
from engine.worker.logits_processors import LogitsProcessors
from engine.worker.logprobs import PendingLogprobs
from engine.worker.sampler import Sampler, SamplingTensors
from engine.worker.state import SlotState


def graph_logits_enabled() -> bool:
    """ENGINE_GRAPH_LOGITS=0 keeps the LM head out of the decode graphs (the A/B of the bench's evidence)."""
    return os.environ.get("ENGINE_GRAPH_LOGITS", "1").strip().lower() not in ("0", "false", "off", "no")


class ModelRunner:
    def __init__(
        self,
        config: EngineConfig,
        model: torch.nn.Module,
        model_config,
        keep_logits: bool = False,
        eos_token_ids: frozenset[int] = frozenset(),
    ) -> None:
        self.config = config
        self.device = config.device
        self.dtype = config.dtype
        self.model = model
        self.model_config = model_config
        self.block_size = config.block_size
        self.max_model_len = config.max_model_len
        self.state = SlotState(
            config.max_num_seqs, self.max_model_len, cdiv(self.max_model_len, self.block_size), self.device
        )
        self.upload = Uploader(self.device)
        self.output_copier = OutputCopier(self.device)
        self.sampler = Sampler()
        # Penalties, min_tokens and logprobs, for the requests that ask; nothing for the others.
        self.logits_processors = LogitsProcessors(
            config.max_num_seqs, model_config.vocab_size, self.device, eos_token_ids
        )
        self.kv_caches: list[torch.Tensor] = []
        self.num_blocks = 0
        self.keep_logits = keep_logits  # tests: return each step's sampling-row logits
        # Applied once, before the profiling run, so every forward of this engine runs the same kernels.
        self.attention_kernels = select_attention(
            config.attention_backend, self.device, head_dim=model_config.head_dim, block_size=self.block_size
        )
        model.set_attention_kernels(self.attention_kernels)
        self.graph_mode = graph_mode(config.enforce_eager, self.device, self.attention_kernels.name)
        self.decode_graphs: DecodeGraphs | None = None  # built (and captured) once the KV cache exists

    # ---- KV cache sizing ----------------------------------------------------------------------
    @property
    def bytes_per_block(self) -> int:
        return self.model_config.kv_cache_bytes_per_token(self.dtype.itemsize) * self.block_size

    def determine_num_blocks(self) -> int:
        cfg = self.config
        if cfg.num_blocks is not None:
            return cfg.num_blocks
        if self.device.type != "cuda":
            wanted = cdiv(cfg.max_num_seqs * self.max_model_len, self.block_size)
            return max(1, min(wanted, int(cfg.cpu_kv_cache_gib * 2**30) // self.bytes_per_block))
        return self._profile_num_blocks()

    @torch.inference_mode()
    def _profile_num_blocks(self) -> int:
        """Run the largest step once; what is left of gpu_memory_utilization after it becomes KV cache."""
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        self._dummy_run(min(self.config.max_num_batched_tokens, self.config.max_num_seqs * self.max_model_len))
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated()
        torch.cuda.empty_cache()
        activations = peak - torch.cuda.memory_allocated()
        free, total = torch.cuda.mem_get_info()
        budget = total * self.config.gpu_memory_utilization - (total - free) - activations
        num_blocks = int(budget // self.bytes_per_block)
        if num_blocks < 1:
            raise EngineError(
                f"no GPU memory left for the KV cache: {total / 2**30:.1f} GiB total, "
                f"{(total - free) / 2**30:.1f} GiB in use, {activations / 2**30:.1f} GiB peak activations; "
                f"raise --gpu-memory-utilization or lower --max-num-batched-tokens"
            )
        return num_blocks

    def _dummy_run(self, num_tokens: int) -> None:
        """A prefill of num_tokens (split into max_model_len sequences) plus sampling of max_num_seqs rows."""
        bs, dev = self.block_size, self.device
        q_lens = [min(self.max_model_len, num_tokens - i) for i in range(0, num_tokens, self.max_model_len)]
        blocks = [cdiv(q, bs) for q in q_lens]
        mc = self.model_config
        caches = [
            allocate_kv_cache(sum(blocks), bs, mc.num_key_value_heads, mc.head_dim, dtype=self.dtype, device=dev)
            for _ in range(mc.num_hidden_layers)
        ]
        table = torch.zeros(len(q_lens), max(blocks), dtype=torch.int32)
        first = 0
        for i, nb in enumerate(blocks):
            table[i, :nb] = torch.arange(first, first + nb, dtype=torch.int32)
            first += nb
        slot_mapping = torch.cat(
            [table[i].repeat_interleave(bs)[:q].long() * bs + torch.arange(q) % bs for i, q in enumerate(q_lens)]
        )
        cu = torch.zeros(len(q_lens) + 1, dtype=torch.int32)
        cu[1:] = torch.tensor(q_lens).cumsum(0)
        attn = AttentionMetadata(
            cu.to(dev),
            torch.tensor(q_lens, dtype=torch.int32, device=dev),
            table.to(dev),
            slot_mapping.to(dev),
            max(q_lens),
            max(q_lens),
            list(q_lens),
            list(q_lens),
        )
        positions = torch.cat([torch.arange(q) for q in q_lens]).to(dev)
        hidden = self.model.forward(torch.zeros(num_tokens, dtype=torch.int64, device=dev), positions, attn, caches)
        rows = min(self.config.max_num_seqs, num_tokens)
        logits = self.model.compute_logits(hidden[:rows])
        ones = torch.ones(rows, device=dev)
        self.sampler(
            logits,
            SamplingTensors(
                ones,
                torch.full((rows,), 50, dtype=torch.int64, device=dev),
                ones * 0.9,
                torch.arange(rows, device=dev),
                torch.arange(rows, device=dev),
                False,
                False,
                True,
                True,
            ),
        )
        self.sampler.warm_up(logits)
        del caches, hidden, logits

    def initialize_kv_cache(self, num_blocks: int) -> None:
        mc = self.model_config
        # Zeros, not empty: padding lanes of a block may be loaded (and masked) by kernels; never NaN garbage.
        # The memory layout is ENGINE_KV_CACHE_LAYOUT's (attention_metadata.allocate_kv_cache).
        self.kv_caches = [
            allocate_kv_cache(
                num_blocks, self.block_size, mc.num_key_value_heads, mc.head_dim, dtype=self.dtype, device=self.device
            )
            for _ in range(mc.num_hidden_layers)
        ]
        self.num_blocks = num_blocks
        if self.graph_mode != "off":
            self.decode_graphs = DecodeGraphs(
                self.model,
                self.kv_caches,
                capture_sizes(self.config.max_num_seqs, self.config.max_capture_size),
                self.state.block_table.shape[1],
                self.max_model_len,
                self.device,
                self.graph_mode,
                # ENGINE_GRAPH_LOGITS=0: the LM head stays outside the graph (an A/B switch for the bench)
                compute_logits=self.model.compute_logits if graph_logits_enabled() else None,
            )
            self.decode_graphs.capture()

    # ---- one step -------------------------------------------------------------------------------
    def _update_states(self, sched: SchedulerOutput) -> None:
        for rid in sched.finished_req_ids | sched.preempted_req_ids:
            self.state.remove(rid)
        for new in sched.scheduled_new_reqs:
            self.state.add(new)
        for cached in sched.scheduled_cached_reqs:
            self.state.update(cached)
        self.logits_processors.update(sched)

    @torch.inference_mode()
    def execute_model(self, sched: SchedulerOutput) -> AsyncModelRunnerOutput:
        """Launch one step; its sampled ids reach the host when the caller asks the returned handle for them."""
        self._update_states(sched)
        if sched.is_empty:
            return AsyncModelRunnerOutput([])
        inputs = prepare_inputs(self.state, sched, self.block_size, self.upload)
        self.state.num_computed[inputs.row_slots] += inputs.row_q_lens
        graphs = self.decode_graphs
        bucket = graphs.bucket(inputs.attn) if graphs is not None else None
        graph_logits = None  # every row's logits, computed inside the replay
        if graphs is not None and bucket is not None:  # pure decode: padded static buffers, a replay on CUDA
            hidden, graph_logits = graphs.run_with_logits(bucket, inputs.input_ids, inputs.positions, inputs.attn)
        else:
            hidden = self.model.forward(inputs.input_ids, inputs.positions, inputs.attn, self.kv_caches)
        # {} unless a request in this step asks for prompt logprobs (engine/worker/logits_processors.py)
        prompt_logprobs = self.logits_processors.prompt_logprobs(
            hidden, inputs, sched, self.state, self.model.compute_logits
        )
        if inputs.sampling is None:
            if not prompt_logprobs:
                return AsyncModelRunnerOutput([])
            return self.output_copier.start([], None, logprobs=PendingLogprobs(0, prompt=prompt_logprobs))
        if graph_logits is not None and inputs.logits_indices is None:  # every row samples
            logits = graph_logits  # [S, vocab] the model's dtype, the graph's static output
        else:
            rows = hidden if inputs.logits_indices is None else hidden[inputs.logits_indices]
            logits = self.model.compute_logits(rows)  # [S, vocab] the model's dtype
        # The sampler alone unless a row asks for penalties, min_tokens or logprobs (then: torch ops around it).
        sampled, pending = self.logits_processors.sample(logits, inputs, self.sampler)  # [S] on the device
        if prompt_logprobs:
            pending = pending or PendingLogprobs(len(inputs.sample_req_ids))
            pending.prompt = prompt_logprobs
        self.state.last_sampled[inputs.sample_slots] = sampled  # next step's decode inputs
        self.state.num_tokens[inputs.sample_slots_np] += 1
        # fp32 (ModelRunnerOutput.logits), a copy: never a graph buffer
        kept = logits.to(torch.float32, copy=True) if self.keep_logits else None
        return self.output_copier.start(inputs.sample_req_ids, sampled, kept, pending)
