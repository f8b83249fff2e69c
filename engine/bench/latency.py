"""`engine bench latency`: end-to-end latency of one fixed batch (vLLM's benchmark_latency), as evidence.

Every iteration generates the same batch (--batch-size prompts of --input-len random tokens, --output-len tokens
each, ignore_eos); --num-iters-warmup untimed iterations first. Each timed iteration is a run: its wall time
is the latency, and its per-token stamps give TTFT / TPOT / ITL like a throughput run.
"""

from __future__ import annotations

from typing import Any

from engine.bench import evidence, metrics, ours, workloads
from engine.bench.errors import BenchError
from engine.bench.result import assemble
from engine.bench.session import log, start
from engine.bench.throughput import report, roofline
from engine.provenance.settings import model_block
from engine.provenance.version import engine_version

LATENCY_PERCENTILES = (10, 25, 50, 75, 90, 99)


def run(args: Any, command: str) -> int:
    if args.num_iters < 1 or args.num_iters_warmup < 0 or args.batch_size < 1:
        raise BenchError("--batch-size and --num-iters must be >= 1, --num-iters-warmup >= 0")
    w = workloads.random_fixed(args.batch_size, args.input_len, args.output_len, args.seed)
    s = start(args, command)
    series = args.series or (
        f"latency-bs{args.batch_size}-in{args.input_len}-out{args.output_len}-"
        f"{evidence.slug(args.model)}" + ("" if s.device.type == "cuda" else f"-{s.device.type}")
    )
    out = evidence.evidence_dir(s.output_dir, s.created, series)  # refused now if taken, not after the runs
    model = model_block(args.model, args.load_format, s.dtype, s.hf_config)
    log(f"engine: building {args.model} ...")
    llm, settings = ours.build_llm(ours.engine_args(args, s.device))
    for _ in range(args.num_iters_warmup):
        ours.generate(llm, w)
    runs = []
    for _ in range(args.num_iters):
        timings, elapsed, peak = ours.timed_run(llm, w, s.device)
        r = metrics.run_metrics(timings, elapsed, peak)
        r.pop("cdf_ms")  # one batch per run: the pooled quantiles below describe it
        r["latency_ms"] = round(elapsed * 1e3, 4)
        runs.append(r)
    llm = None
    ours.release(s.device)
    lat = sorted(r["latency_ms"] for r in runs)
    agg = metrics.aggregate(runs)
    agg["latency_ms"] = metrics.summary(lat, scale=1.0)
    agg["latency_percentiles_ms"] = {f"p{p}": round(metrics.quantile(lat, p), 4) for p in LATENCY_PERCENTILES}
    log(
        f"latency over {len(runs)} iterations: mean {agg['latency_ms']['mean']:.1f} ms, "
        + ", ".join(f"{k} {v:.1f}" for k, v in agg["latency_percentiles_ms"].items())
    )
    # the bound for one batch: its output tokens over the idealised time of that batch
    roof = roofline(s, w, settings, agg["output_tok_per_s"]["median"])
    workload = {
        **w.describe(),
        "name": "latency",
        "batch_size": args.batch_size,
        "num_iters": args.num_iters,
        "num_iters_warmup": args.num_iters_warmup,
    }
    result = assemble(
        series=series,
        row=args.row,
        created=s.created_iso,
        commit=s.commit,
        dirty=s.dirty,
        command=s.command,
        machine=s.machine,
        model=model,
        workload=workload,
        engine=settings,
        runs=runs,
        metrics=agg,
        roofline=roof,
        peers=[],
        subject={"kind": "ours", "name": "engine", "version": engine_version(), "complete": True},
    )
    evidence.write(out, result, result_only=args.result_only)
    report(result, out)
    return 0
