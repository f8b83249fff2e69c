"""Profile a window of engine steps: host timers around each phase, the device timeline from torch.profiler.

    profile_steps(core, num_steps=32).write(Path("prof"))   # prof/profile.json + prof/trace.json.gz

Host phases, ms per step: `schedule` (scheduler), `execute` (inputs and launches; on CPU the compute too), `wait`
(blocked until a step's sampled ids reached the host: the device was still busy) and `update` (append tokens, stop
rules), each timed by wrapping that method of this one engine for the window only. The device side (kernels and
launches per step, busy and idle time, top kernels) is trace_summary.py over the profiler's Chrome trace.
"""

from __future__ import annotations

import gzip
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from engine.bench.trace_summary import summarize
from engine.engine_core import EngineCore


def sync(core: EngineCore) -> None:
    if core.config.device.type == "cuda":
        torch.cuda.synchronize(core.config.device)


def step_until_steady(core: EngineCore, max_steps: int) -> int:
    """Step until no running request is still in its prompt and the batch is as full as the work allows (nothing
    waits, or max_num_seqs run); returns the steps taken. Steps past max_steps are not taken."""
    sched = core.scheduler
    for n in range(max_steps):
        prefilling = any(r.num_output_tokens == 0 for r in sched.running)
        full = not sched.waiting or len(sched.running) >= sched.max_num_seqs
        if sched.running and not prefilling and full:
            return n
        core.step()
    return max_steps


@contextmanager
def host_timers(core: EngineCore) -> Iterator[dict[str, float]]:
    """Seconds spent in schedule / execute / wait / update while the block runs (instance wrappers, removed after)."""
    spent: dict[str, float] = defaultdict(float)
    sched, runner = core.scheduler, core.runner

    def timed(fn: Callable[..., Any], phase: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[phase] += time.perf_counter() - t0

        return wrapper

    execute = runner.execute_model

    def execute_and_time_the_wait(*args: Any) -> Any:
        handle = timed(execute, "execute")(*args)
        handle.get_output = timed(handle.get_output, "wait")
        return handle

    patched = ((sched, "schedule"), (sched, "update_from_output"), (runner, "execute_model"))
    before = [obj.__dict__.get(name) for obj, name in patched]  # an instance's own override, if it had one
    sched.schedule = timed(sched.schedule, "schedule")  # type: ignore[method-assign]
    sched.update_from_output = timed(sched.update_from_output, "update")  # type: ignore[method-assign]
    runner.execute_model = execute_and_time_the_wait  # type: ignore[method-assign]
    try:
        yield spent
    finally:
        for (obj, name), own in zip(patched, before):
            if own is None:
                del obj.__dict__[name]  # the class's method again
            else:
                obj.__dict__[name] = own


@dataclass
class StepProfile:
    summary: dict[str, Any]  # trace_summary.summarize's figures + host ms per phase + the engine's state
    trace: bytes  # the Chrome trace (JSON)

    def write(self, out_dir: Path) -> None:
        """out_dir/profile.json (the summary) and out_dir/trace.json.gz (chrome://tracing, Perfetto)."""
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "profile.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        with gzip.open(out_dir / "trace.json.gz", "wb") as f:
            f.write(self.trace)


def profile_steps(core: EngineCore, num_steps: int) -> StepProfile:
    """Run `num_steps` engine steps under the profiler and the host timers."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if core.config.device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    batch_rows: list[int] = []
    sync(core)
    with host_timers(core) as spent, profile(activities=activities) as prof:
        t0 = time.perf_counter()
        for _ in range(num_steps):
            _, out = core.step()
            batch_rows.append(len(out.req_ids))
        sync(core)
        wall = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        trace_path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(trace_path))
        raw = trace_path.read_bytes()
    summary = summarize(json.loads(raw).get("traceEvents", []), num_steps, wall)
    summary["host_ms_per_step"] = {k: round(v * 1e3 / num_steps, 4) for k, v in sorted(spent.items())}
    summary["rows_per_step"] = round(sum(batch_rows) / num_steps, 1)  # tokens that reached the host per step
    summary["running"] = len(core.scheduler.running)
    summary["async_scheduling"] = core.config.async_scheduling
    summary["graph_mode"] = core.runner.graph_mode
    return StepProfile(summary, raw)


def drain(core: EngineCore) -> None:
    """Abort every request and process every step in flight: the engine is empty and its device idle again."""
    core.abort_requests([r.request_id for r in [*core.scheduler.running, *core.scheduler.waiting]])
    while core.has_unfinished_requests() or core.num_steps_in_flight:
        core.step()
    core.step()  # the runner hears of the aborts and drops their slots
    sync(core)
