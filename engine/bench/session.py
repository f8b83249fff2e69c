"""What every bench command settles before it measures: provenance, device, dtype, model config, machine,
ceilings; and how it reports progress (a rich bar on a terminal, plain timestamped lines in a log)."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

from engine.args import EngineArgs
from engine.bench import evidence, probe
from engine.bench.roofline import Ceilings, ModelShape
from engine.config import resolve_dtype
from engine.model.loader import get_model_config
from engine.provenance.commit import resolve_commit
from engine.provenance.machine import machine_info


@dataclass
class Session:
    command: str
    created: datetime
    commit: str
    dirty: bool
    device: torch.device
    dtype: torch.dtype
    model_config: Any
    shape: ModelShape
    machine: dict[str, Any]
    ceilings: Ceilings
    ceiling_details: dict[str, Any]
    output_dir: Path
    started: float = field(default_factory=time.perf_counter)

    @property
    def hf_config(self) -> dict[str, Any]:
        return dict(getattr(self.model_config, "hf_config", {}) or {})

    @property
    def created_iso(self) -> str:
        return self.created.isoformat().replace("+00:00", "Z")

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def start(args: Any, command: str) -> Session:
    """Provenance and settings first (a missing --commit or a bad flag fails before minutes of measuring), then
    the probe."""
    started = time.perf_counter()
    commit, dirty = resolve_commit(args.commit, args.dirty)
    evidence.check_output_dir(Path(args.output_dir), dirty, args.dirty)
    engine_args = EngineArgs.from_cli_args(args)
    device = engine_args.resolve_device()
    dtype = resolve_dtype(engine_args.dtype, device)
    model_config = get_model_config(args.model)  # HF dir, config .json, .gguf metadata or a shipped name
    log(f"probe: measuring copy bandwidth and matmul peak on {device} ...")
    ceilings, details = probe.measure(device, dtype)
    log(
        f"probe: copy {ceilings.copy_gbps:,.0f} GB/s, {str(dtype).removeprefix('torch.')} matmul "
        f"{ceilings.matmul_tflops:,.1f} TFLOP/s ({details['probe_s']:.2f} s)"
    )
    return Session(
        command=command,
        created=evidence.utc_now(),
        commit=commit,
        dirty=dirty,
        device=device,
        dtype=dtype,
        model_config=model_config,
        shape=ModelShape.from_config(model_config),
        machine=machine_info(device),
        ceilings=ceilings,
        ceiling_details=details,
        output_dir=Path(args.output_dir),
        started=started,
    )


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


@contextmanager
def progress(label: str, total: int) -> Iterator[Callable[[int, int], None]]:
    """Yields on_progress(done, total): a rich bar on a terminal; elsewhere (a log) a line per 10%."""
    if sys.stdout.isatty():
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("requests"),
            TimeElapsedColumn(),
        ) as bar:
            task = bar.add_task(label, total=total)
            yield lambda done, _total: bar.update(task, completed=done)
        return
    step = max(1, total // 10)
    shown = [0]

    def line(done: int, total_: int) -> None:
        if done - shown[0] >= step or done == total_:
            shown[0] = done
            log(f"{label}: {done}/{total_} requests")

    yield line
