"""summary.md: what a person reads in an evidence directory (rendered from result.json alone)."""

from __future__ import annotations

from typing import Any


def _num(v: Any, digits: int = 1) -> str:
    if v is None:
        return "-"
    if isinstance(v, (int, float)):
        return f"{v:,.{digits}f}"
    return str(v)


def _sig(v: Any) -> str:
    """Ceilings: GPU ones in thousands, CPU ones far below 1 TFLOP/s."""
    if not isinstance(v, (int, float)):
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _spread_row(name: str, s: dict[str, Any] | None, digits: int = 1) -> str:
    if not s:
        return f"| {name} | - | - | - |"
    return f"| {name} | {_num(s['median'], digits)} | {_num(s['min'], digits)} | {_num(s['max'], digits)} |"


def _latency_row(name: str, s: dict[str, Any] | None) -> str:
    if not s:
        return f"| {name} | - | - | - | - |"
    return f"| {name} | {_num(s['p50'], 2)} | {_num(s['p90'], 2)} | {_num(s['p99'], 2)} | {_num(s['mean'], 2)} |"


def markdown(r: dict[str, Any]) -> str:
    m, w, mach, model = r["metrics"], r["workload"], r["machine"], r["model"]
    subject = r.get("subject", {})
    who = f"{subject.get('name', 'engine')} {subject.get('version') or ''}".strip()
    lines = [
        f"# {r['series']}",
        "",
        f"{who} on {mach.get('gpu') or mach.get('cpu') or mach.get('device')}, {model['name']} "
        f"({model['load_format']} weights, {model['dtype']}), workload {w['name']}: {w['num_requests']} requests, "
        f"{w['prompt_tokens']:,} prompt and {w['output_tokens']:,} output tokens, ignore_eos.",
        "",
        f"Row {r['row']}; commit `{r['commit']}`{' (dirty)' if r['dirty'] else ''}; created {r['created']}; "
        f"{m['num_runs']} run(s).",
        "",
    ]
    serving = subject.get("kind") == "serve"
    if serving:
        lines += [
            f"Served at {subject.get('base_url')}{subject.get('endpoint')}: request rate "
            f"{w.get('request_rate')} req/s, max concurrency {w.get('max_concurrency') or 'none'}; every "
            f"figure is the client's, stamped on each streamed chunk's arrival.",
            "",
        ]
    if subject.get("complete") is False:
        lines += [
            f"**Incomplete**: stopped at its time limit after {_num(m['elapsed_s']['max'], 1)} s; the figures "
            "are over the tokens it produced in that time.",
            "",
        ]
    lines += [
        "| throughput | median | min | max |",
        "|---|---:|---:|---:|",
        _spread_row("output tok/s", m["output_tok_per_s"]),
        f"| total tok/s | {_num(m['total_tok_per_s'])} | | |",
        f"| requests/s | {_num(m['requests_per_s'], 3)} | | |",
        _spread_row("elapsed s", m["elapsed_s"], 2),
        "",
        "| latency (ms, median over runs) | p50 | p90 | p99 | mean |",
        "|---|---:|---:|---:|---:|",
        _latency_row("TTFT", m.get("ttft_ms")),
        _latency_row("TPOT", m.get("tpot_ms")),
        _latency_row("ITL", m.get("itl_ms")),
    ]
    if m.get("latency_ms"):
        lines.append(_latency_row("batch latency", m["latency_ms"]))
    if m.get("e2el_ms"):
        lines.append(_latency_row("E2EL", m["e2el_ms"]))
    vram = m.get("peak_vram_gib")
    lines += [
        "",
        f"Peak device memory: {_num(vram, 2)} GiB (torch.cuda.max_memory_allocated)."
        if vram is not None
        else "Peak device memory: not visible from the client."
        if serving
        else "Peak device memory: not measured (no CUDA device).",
        "",
    ]
    roof = r.get("roofline") or {}
    if roof.get("output_tok_per_s_bound"):
        c = roof.get("ceilings", {})
        frac = roof.get("fraction")
        lines += [
            f"Hardware bound: {_num(roof['output_tok_per_s_bound'])} output tok/s on this workload "
            f"(measured copy {_sig(c.get('copy_gbps'))} GB/s, matmul {_sig(c.get('matmul_tflops'))} "
            f"TFLOP/s); measured median is {'-' if frac is None else f'{frac:.1%}'} of it."
            + (
                ""
                if mach.get("gpu")
                else " On a CPU, caches hold small models, so this bound is loose: speed "
                "is only claimed from GPU evidence."
            ),
            "",
        ]
    peers = r.get("peers") or []
    if peers:
        lines += ["| peer | version | output tok/s (median) | complete | ours / peer |", "|---|---|---:|---|---:|"]
        for p in peers:
            ratio = p.get("ratio")
            lines.append(
                f"| {p['name']} | {p.get('version') or '-'} | "
                f"{_num((p['metrics'].get('output_tok_per_s') or {}).get('median'))} | "
                f"{'yes' if p.get('complete', True) else 'no (time limit)'} | "
                f"{'-' if ratio is None else f'{ratio:.2f}x'} |"
            )
        if any(p.get("complete") is False for p in peers):
            lines.append("")
            # Measured on the H200 (Qwen3-0.6B, nano): the peer's first 5 s gave 129 output tok/s, its whole
            # run 604 — a run cut early is mostly prefill, so the ratio it gives is NOT a bound in our disfavour.
            lines.append(
                "A peer that hit its time limit is rated on the tokens it produced before the limit. Early "
                "in a run most of its time goes to prefill, so a short cut understates the peer and "
                "overstates ours / peer: quote a ratio only against a complete peer run."
            )
        lines.append("")
    lines += ["Reproduce:", "", "```", r["command"], "```", ""]
    return "\n".join(lines)
