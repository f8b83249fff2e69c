"""Tensor-parallel processes: one per rank, started here (torch.multiprocessing spawn) or by torchrun (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment).

Rank 0 runs the scheduler (engine/engine_core.py) and broadcasts each step's SchedulerOutput, pickled, over a gloo
group; every other rank runs `run_worker`: the same step on its shard of the model, the same sampling from the
same gathered logits, until rank 0 broadcasts None. Collectives of the model run on the default group: gloo on CPU,
NCCL on CUDA.
"""

from __future__ import annotations

import dataclasses
import os
import socket
from dataclasses import dataclass, field
from datetime import timedelta
from multiprocessing.process import BaseProcess

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from engine.args import EngineArgs
from engine.config import EngineConfig, resolve_dtype
from engine.core.sched_output import SchedulerOutput
from engine.errors import EngineError
from engine.model.loader import LoadedModel, default_model_path, get_model_config, load_model
from engine.model.tensor_parallel import TPGroup, check_tensor_parallel, rank_config
from engine.model.tp_shard import shard_model
from engine.worker.model_runner import ModelRunner

_TIMEOUT = timedelta(minutes=10)  # how long a rank waits for the others (a rank that died leaves them waiting)


@dataclass
class TensorParallel:
    tp: TPGroup
    control: dist.ProcessGroup | None  # gloo, for pickled SchedulerOutputs; None: the default group is gloo
    workers: list[BaseProcess] = field(default_factory=list)  # the ranks this process spawned
    closed: bool = False

    def send_step(self, sched: SchedulerOutput | None) -> None:  # rank 0; None: shut down
        dist.broadcast_object_list([sched], src=0, group=self.control)

    def recv_step(self) -> SchedulerOutput | None:
        box: list[SchedulerOutput | None] = [None]
        dist.broadcast_object_list(box, src=0, group=self.control)
        return box[0]

    def agree_num_blocks(self, num_blocks: int) -> int:
        """The fewest KV blocks any rank can hold (ranks profile their own memory on CUDA)."""
        n = torch.tensor([num_blocks], dtype=torch.int64)
        dist.all_reduce(n, op=dist.ReduceOp.MIN, group=self.control)
        return int(n.item())

    def shutdown(self) -> None:
        """Rank 0: tell the other ranks to stop, wait for the ones it spawned, leave the group."""
        if self.closed:
            return
        self.closed = True
        if self.tp.rank == 0:
            self.send_step(None)
        for proc in self.workers:
            proc.join(timeout=60)
        dist.destroy_process_group()


def check_size(args: EngineArgs) -> None:
    """A size that fits the model, checked from its config before any process starts."""
    check_tensor_parallel(args.tensor_parallel_size, get_model_config(args.model or default_model_path()))


def start(args: EngineArgs) -> TensorParallel:
    """This process's rank: rank 0 of a group it spawns, or its torchrun rank when WORLD_SIZE is set."""
    size = args.tensor_parallel_size
    if "WORLD_SIZE" in os.environ:
        world = int(os.environ["WORLD_SIZE"])
        if world != size:
            raise EngineError(
                f"torchrun started {world} processes but --tensor-parallel-size is {size}; pass "
                f"--nproc-per-node (times --nnodes) equal to the tensor-parallel size"
            )
        return _init(int(os.environ["RANK"]), size, args.resolve_device(), "env://")
    init_method = f"tcp://127.0.0.1:{_free_port()}"
    ctx = mp.get_context("spawn")
    workers = [
        ctx.Process(target=_worker_main, args=(rank, size, args, init_method), daemon=True) for rank in range(1, size)
    ]
    for proc in workers:
        proc.start()
    tp = _init(0, size, args.resolve_device(), init_method)
    tp.workers = workers
    return tp


def load_rank_model(args: EngineArgs, tp: TensorParallel) -> tuple[LoadedModel, EngineConfig]:
    """The whole model loaded (dummy weights: the same full tensors from the seed on every rank), then cut to this
    rank's shard; and the engine config, on this rank's device."""
    device = _rank_device(args.resolve_device(), tp.tp.rank)
    loaded = load_model(
        args.model or default_model_path(),
        load_format=args.load_format,
        dtype=resolve_dtype(args.dtype, device),
        device=device,
        seed=args.seed,
    )
    shard_model(loaded.model, tp.tp)
    config = args.create_engine_config(
        dtype=next(loaded.model.parameters()).dtype, max_position_embeddings=loaded.config.max_position_embeddings
    )
    return loaded, dataclasses.replace(config, device=device)


def eos_token_ids(loaded: LoadedModel) -> frozenset[int]:
    eos = tuple(loaded.config.eos_token_ids)
    if not eos and loaded.tokenizer is not None:
        eos = tuple(loaded.tokenizer.eos_token_ids)
    return frozenset(eos)


def run_worker(args: EngineArgs, tp: TensorParallel) -> None:
    """A rank other than 0: build its runner, then run every step rank 0 broadcasts, until None."""
    loaded, config = load_rank_model(args, tp)
    runner = ModelRunner(
        config, loaded.model, rank_config(loaded.config, tp.tp.size), eos_token_ids=eos_token_ids(loaded)
    )
    runner.initialize_kv_cache(tp.agree_num_blocks(runner.determine_num_blocks()))
    while (sched := tp.recv_step()) is not None:
        runner.execute_model(sched).get_output()
    tp.shutdown()


def _worker_main(rank: int, size: int, args: EngineArgs, init_method: str) -> None:
    run_worker(args, _init(rank, size, args.resolve_device(), init_method))


def _init(rank: int, size: int, device: torch.device, init_method: str) -> TensorParallel:
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.set_device(_rank_device(device, rank))
    dist.init_process_group(
        "nccl" if cuda else "gloo", init_method=init_method, rank=rank, world_size=size, timeout=_TIMEOUT
    )
    control = dist.new_group(backend="gloo") if cuda else None
    return TensorParallel(TPGroup(rank, size), control)


def _rank_device(device: torch.device, rank: int) -> torch.device:
    if device.type != "cuda":
        return device
    local = int(os.environ.get("LOCAL_RANK", rank))
    return torch.device("cuda", local % torch.cuda.device_count())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
