"""GET /metrics: Prometheus text (prometheus-client), vLLM's metric set under the `engine:` prefix.

| engine:                           | vLLM's                         | what                                            |
|-----------------------------------|--------------------------------|-------------------------------------------------|
| num_requests_running / _waiting   | vllm:num_requests_running/... | requests in the batch / queued in the scheduler |
| kv_cache_usage_perc               | vllm:kv_cache_usage_perc       | fraction of KV blocks in use (0..1)             |
| prefix_cache_queries/_hits_total  | vllm:prefix_cache_queries/...  | prompt tokens looked up / found                 |
| num_preemptions_total             | vllm:num_preemptions_total     | requests preempted (recomputed later)           |
| time_to_first_token_seconds       | same                           | histogram: arrival -> first token at the server |
| inter_token_latency_seconds       | same                           | histogram: gaps between a request's outputs     |
| e2e_request_latency_seconds       | same                           | histogram: arrival -> finish                    |
| request_prompt_tokens / _generation_tokens | same                  | histograms per finished request                 |
| prompt_tokens_total / generation_tokens_total | same               | counters                                        |
| request_success_total{finished_reason} | same                      | finished requests by reason (stop, length, abort) |

The engine's gauges come with every step's Batch (engine/serve/engine_loop.py) and are read at scrape time; the
latencies are observed on the event loop as outputs arrive, the times a client of this server sees.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from engine.serve.async_engine import AsyncEngine, RequestStream, StreamOutput

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
)
TOKEN_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)


class _EngineGauges:
    """A collector that reads the engine's latest gauges when scraped."""

    def __init__(self, engine: AsyncEngine, model: str) -> None:
        self.engine, self.model = engine, model

    def collect(self) -> Iterator[Metric]:
        g = self.engine.gauges
        for name, doc, value in (
            ("num_requests_running", "Requests in the running batch.", g.num_running),
            ("num_requests_waiting", "Requests waiting in the scheduler.", g.num_waiting),
            ("kv_cache_usage_perc", "Fraction of KV-cache blocks in use.", g.kv_usage),
            ("num_requests_in_flight", "Requests admitted by the server.", self.engine.num_in_flight),
        ):
            m = GaugeMetricFamily(f"engine:{name}", doc, labels=["model_name"])
            m.add_metric([self.model], value)
            yield m
        for name, doc, value in (
            ("prefix_cache_queries", "Prompt tokens looked up in the prefix cache.", g.prefix_queries),
            ("prefix_cache_hits", "Prompt tokens found in the prefix cache.", g.prefix_hits),
            ("num_preemptions", "Requests preempted.", g.num_preemptions),
            ("engine_step_errors", "Engine steps that raised.", g.num_errors),
        ):
            m = CounterMetricFamily(f"engine:{name}", doc, labels=["model_name"])
            m.add_metric([self.model], value)
            yield m


class Metrics:
    def __init__(self, engine: AsyncEngine, model: str) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.registry.register(_EngineGauges(engine, model))
        r, labels = self.registry, ["model_name"]
        self.ttft = Histogram(
            "engine:time_to_first_token_seconds", "Time to first token.", labels, buckets=LATENCY_BUCKETS, registry=r
        ).labels(model)
        self.itl = Histogram(
            "engine:inter_token_latency_seconds",
            "Time between a request's outputs.",
            labels,
            buckets=LATENCY_BUCKETS,
            registry=r,
        ).labels(model)
        self.e2e = Histogram(
            "engine:e2e_request_latency_seconds", "Arrival to finish.", labels, buckets=LATENCY_BUCKETS, registry=r
        ).labels(model)
        self.prompt_hist = Histogram(
            "engine:request_prompt_tokens", "Prompt tokens per request.", labels, buckets=TOKEN_BUCKETS, registry=r
        ).labels(model)
        self.gen_hist = Histogram(
            "engine:request_generation_tokens",
            "Generated tokens per request.",
            labels,
            buckets=TOKEN_BUCKETS,
            registry=r,
        ).labels(model)
        self.prompt_tokens = Counter(
            "engine:prompt_tokens", "Prompt tokens of finished requests.", labels, registry=r
        ).labels(model)
        self.gen_tokens = Counter(
            "engine:generation_tokens", "Generated tokens of finished requests.", labels, registry=r
        ).labels(model)
        self.success = Counter(
            "engine:request_success",
            "Finished requests by finish reason.",
            ["model_name", "finished_reason"],
            registry=r,
        )
        self.model = model

    def on_output(self, stream: RequestStream, out: StreamOutput, now: float) -> None:
        """Called for each output before the stream's timestamps move (engine/serve/async_engine.py)."""
        if out.token_ids:
            if stream.first_token is None:
                self.ttft.observe(now - stream.arrival)
            elif stream.last_token is not None:
                self.itl.observe(now - stream.last_token)
        if out.finish_reason is not None:
            self.e2e.observe(now - stream.arrival)
            self.prompt_hist.observe(out.num_prompt_tokens)
            self.gen_hist.observe(out.num_output_tokens)
            self.prompt_tokens.inc(out.num_prompt_tokens)
            self.gen_tokens.inc(out.num_output_tokens)
            self.success.labels(self.model, out.finish_reason).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
