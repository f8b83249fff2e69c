"""`engine bench throughput`: offline throughput of our engine (and its peer) on a workload, as evidence.

Order of a run: provenance and the ceilings probe; our engine (a short warm-up, --warmup-passes untimed passes over
the workload, then --repeat timed passes, then the --profile window if asked for); the peer,
after our engine has let go of the device (`--peer transformers-cb`), or read from its own evidence directory
(`--peer-evidence DIR`); then the evidence: the peer's own directory when it ran here, and ours citing it.
`--peer-only` runs just the peer, into its own directory, for later runs to cite.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import torch

from engine.args import DEFAULT_BATCHED_TOKENS, EngineArgs
from engine.bench import evidence, metrics, ours, peer_transformers, workloads
from engine.bench.errors import BenchError
from engine.bench.result import assemble, check_peer_matches, ratio
from engine.bench.roofline import roofline_record, workload_bound
from engine.bench.session import Session, log, progress, start
from engine.provenance.settings import model_block
from engine.provenance.version import engine_version

PEER_STOP_MARGIN_S = 30.0  # left at the end of --time-budget for writing evidence and tearing down


def default_series(kind: str, args: Any, w: workloads.Workload, device: torch.device) -> str:
    suffix = "" if device.type == "cuda" else f"-{device.type}"
    if kind == "peer":
        return f"peer-{peer_transformers.NAME}-{evidence.slug(args.model)}-{workloads.slug(w)}{suffix}"
    return f"throughput-{workloads.slug(w)}-{evidence.slug(args.model)}{suffix}"


def run(args: Any, command: str) -> int:
    w = workloads.build(args.dataset_name, args.num_prompts, args.input_len, args.output_len, args.seed)
    if args.peer_only and args.peer == "none":
        raise BenchError("--peer-only runs the peer alone: also pass --peer transformers-cb")
    if args.peer != "none" and args.peer_evidence:
        raise BenchError(
            "pass either --peer (run the peer here) or --peer-evidence DIR (cite an earlier run), not both"
        )
    resolve_run_counts(args)
    s = start(args, command)
    # Both evidence paths are settled (and refused if taken) before minutes of measuring.
    series = args.series or default_series("ours", args, w, s.device)
    out = None if args.peer_only else evidence.evidence_dir(s.output_dir, s.created, series)
    peer_out = evidence.evidence_dir(s.output_dir, s.created, peer_series(args, w, s)) if args.peer != "none" else None
    log(f"workload {w.name}: {w.num_requests} requests, {w.prompt_tokens:,} prompt + {w.output_tokens:,} output tokens")
    model = model_block(args.model, args.load_format, s.dtype, s.hf_config)
    if args.peer_only:
        run_peer(args, s, w, model, peer_out)
        return 0
    peers: list[dict[str, Any]] = []
    if args.peer_evidence:  # checked before minutes of measuring
        peers.append(evidence.peer_entry_from(Path(args.peer_evidence)))
        check_peer_matches(peers[-1], w.describe(), model, args.peer_evidence)
    engine_settings, runs = run_ours(args, s, w)
    agg = metrics.aggregate(runs)
    if args.peer != "none":
        peer_data = run_peer(args, s, w, model, peer_out)
        peers.append(evidence.peer_entry(peer_data["result"], peer_data["dir"].name, str(peer_data["dir"])))
    for p in peers:
        p["ratio"] = ratio(agg["output_tok_per_s"]["median"], p["metrics"])
    roof = roofline(s, w, engine_settings, agg["output_tok_per_s"]["median"])
    result = assemble(
        series=series,
        row=args.row,
        created=s.created_iso,
        commit=s.commit,
        dirty=s.dirty,
        command=s.command,
        machine=s.machine,
        model=model,
        workload=w.describe(),
        engine=engine_settings,
        runs=runs,
        metrics=agg,
        roofline=roof,
        peers=peers,
        subject={"kind": "ours", "name": "engine", "version": engine_version(), "complete": True},
    )
    assert out is not None
    evidence.write(out, result, result_only=args.result_only)
    report(result, out)
    return 0


CUDA_REPEAT, CUDA_WARMUP_PASSES = 3, 1  # on CUDA: a median of 3 after a pass that compiles (the first runs slower)


def resolve_run_counts(args: Any) -> None:
    """--repeat and --warmup-passes default by device (checked here, before anything is measured)."""
    cuda = EngineArgs.from_cli_args(args).resolve_device().type == "cuda"
    if args.repeat is None:
        args.repeat = CUDA_REPEAT if cuda else 1
    if args.warmup_passes is None:
        args.warmup_passes = CUDA_WARMUP_PASSES if cuda else 0
    if args.repeat < 1 or args.warmup_passes < 0:
        raise BenchError(f"--repeat must be >= 1 and --warmup-passes >= 0, got {args.repeat} and {args.warmup_passes}")
    if args.profile_steps < 1:
        raise BenchError(f"--profile-steps must be >= 1, got {args.profile_steps}")


def peer_series(args: Any, w: workloads.Workload, s: Session) -> str:
    return args.series if args.peer_only and args.series else default_series("peer", args, w, s.device)


def run_ours(args: Any, s: Session, w: workloads.Workload) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    log(f"engine: building {args.model} ({args.load_format}, {str(s.dtype).removeprefix('torch.')}) ...")
    llm, settings = ours.build_llm(ours.engine_args(args, s.device))
    ours.warmup(llm, w)
    for i in range(args.warmup_passes):
        t0 = time.perf_counter()
        ours.generate(llm, w)
        log(f"warm-up pass {i + 1}/{args.warmup_passes}: {time.perf_counter() - t0:.2f} s (not timed)")
    runs = []
    for i in range(args.repeat):
        with progress(f"run {i + 1}/{args.repeat}", w.num_requests) as tick:
            timings, elapsed, peak = ours.timed_run(llm, w, s.device, tick)
        r = metrics.run_metrics(timings, elapsed, peak)
        runs.append(r)
        log(
            f"run {i + 1}/{args.repeat}: {elapsed:.2f} s, {_fmt(r['output_tok_per_s'])} output tok/s, "
            f"TTFT p50 {_ms(r['ttft_ms'])}, ITL p50 {_ms(r['itl_ms'])}"
        )
    if args.profile:
        p = ours.profile(llm, w, Path(args.profile), args.profile_steps)
        busy = "-" if p["gpu_busy_fraction"] is None else f"{p['gpu_busy_fraction']:.1%}"
        log(
            f"profile: {p['steps']} steps with {p['running']} running, {p['step_ms']:.3f} ms a step, GPU busy {busy}, "
            f"{p['kernels_per_step']:.0f} kernels and {p['host_launch_calls_per_step']:.0f} launch calls a step; "
            f"{args.profile}/profile.json"
        )
    llm = None
    ours.release(s.device)
    return settings, runs


def peer_stop_at(args: Any, s: Session) -> float | None:
    """The perf_counter() time by which the peer must stop for the command to end inside --time-budget."""
    if args.time_budget is None:
        return None
    return s.started + max(1.0, args.time_budget - PEER_STOP_MARGIN_S)


def run_peer(args: Any, s: Session, w: workloads.Workload, model: dict[str, Any], out: Path) -> dict[str, Any]:
    version = peer_transformers.version()
    if version is None:
        raise peer_transformers.PeerError(
            "--peer transformers-cb needs transformers >= 5 installed; or pass --peer none"
        )
    log(f"peer: transformers {version} continuous batching on our weights ({args.load_format}) ...")
    loaded, weights = peer_transformers.engine_weights(args.model, args.load_format, s.dtype, s.device, args.seed)
    hf = peer_transformers.build_model(s.hf_config, s.dtype, s.device, weights)
    del loaded, weights
    ours.release(s.device)
    stop_at = peer_stop_at(args, s)
    limits = ([f"{args.peer_timeout:g} s of generation"] if args.peer_timeout else []) + (
        [f"the time budget, {stop_at - time.perf_counter():.0f} s from now"] if stop_at else []
    )
    log(f"peer: warm-up, then {w.num_requests} requests" + (f"; stops at {' or '.join(limits)}" if limits else ""))
    with progress("peer", w.num_requests) as tick:
        pr = peer_transformers.run(hf, w, args.peer_timeout, stop_at, tick)
    hf = None
    ours.release(s.device)
    r = metrics.run_metrics(pr.timings, pr.elapsed_s, pr.peak_vram_bytes)
    log(
        f"peer: {pr.elapsed_s:.2f} s, {r['output_tokens']:,} tokens, {_fmt(r['output_tok_per_s'])} output tok/s"
        + ("" if pr.complete else " (stopped at its time limit)")
    )
    agg = metrics.aggregate([r])
    settings = {
        **pr.settings,
        "warmup_s": round(pr.warmup_s, 3),
        "peer_timeout_s": args.peer_timeout,
        "time_budget_s": args.time_budget,
        "weights": f"our loader's {args.load_format} weights"
        + (f" (seed {args.seed}, {s.device.type})" if args.load_format == "dummy" else "")
        + ", unpacked to HF names",
    }
    series = peer_series(args, w, s)
    roof = roofline(s, w, {}, agg["output_tok_per_s"]["median"])  # the engine's default schedule
    result = assemble(
        series=series,
        row=args.row,
        created=s.created_iso,
        commit=s.commit,
        dirty=s.dirty,
        command=s.command,
        machine=s.machine,
        model=model,
        workload=w.describe(),
        engine=settings,
        runs=[r],
        metrics=agg,
        roofline=roof,
        peers=[],
        subject={"kind": "peer", "name": peer_transformers.NAME, "version": version, "complete": pr.complete},
    )
    evidence.write(out, result, result_only=args.result_only)
    log(f"peer evidence: {out}")
    return {"result": result, "dir": out}


def roofline(
    s: Session, w: workloads.Workload, engine_settings: dict[str, Any], measured: float | None
) -> dict[str, Any]:
    defaults = EngineArgs()
    max_seqs = int(engine_settings.get("max_num_seqs") or defaults.max_num_seqs)
    max_tokens = int(engine_settings.get("max_num_batched_tokens") or DEFAULT_BATCHED_TOKENS)
    b = workload_bound(s.shape, s.dtype.itemsize, w.prompt_lens, w.output_lens, max_seqs, max_tokens, s.ceilings)
    rec = roofline_record(s.shape, s.dtype.itemsize, b, s.ceilings, measured, s.ceiling_details)
    rec["schedule"].update({"max_num_seqs": max_seqs, "max_num_batched_tokens": max_tokens})
    return rec


def report(result: dict[str, Any], out: Path) -> None:
    m, roof = result["metrics"], result["roofline"]
    tps = m["output_tok_per_s"]
    line = (
        f"output tok/s median {_fmt(tps['median'])} (min {_fmt(tps['min'])}, max {_fmt(tps['max'])}); bound "
        f"{_fmt(roof['output_tok_per_s_bound'])}"
    )
    if roof.get("fraction") is not None:
        line += f" ({roof['fraction']:.1%} of it)"
    for p in result["peers"]:
        line += f"; vs {p['name']}: {p['ratio']}x" + ("" if p.get("complete", True) else " (peer cut short)")
    log(line)
    log(f"evidence: {out}")


def _fmt(x: float) -> str:
    """Thousands for GPU figures, three significant digits for small CPU ones."""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _ms(summary: dict[str, float] | None) -> str:
    return "-" if not summary else f"{summary['p50']:.1f} ms"
