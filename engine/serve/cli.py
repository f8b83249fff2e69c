"""`engine serve [MODEL]`: vLLM's `vllm serve` shape (--host, --port, --served-model-name + the engine flags).

Engine flags come from engine.cli.add_engine_args, and every flag whose name is an EngineConfig field reaches
EngineConfig unchanged, so an engine flag added there is served here without an edit.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import shlex
import sys
from typing import Any

from engine.errors import EngineError
from engine.serve.async_engine import DEFAULT_MAX_QUEUED_REQUESTS


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    from engine.bench.cli import add_provenance_args
    from engine.cli import add_engine_args
    p = subparsers.add_parser("serve", help="serve a model over an OpenAI-compatible HTTP API",
                              description="Serve MODEL at http://HOST:PORT/v1 (completions and chat completions, "
                                          "streaming or not). Stop with Ctrl-C or SIGTERM.")
    p.add_argument("model_tag", nargs="?", default=None, metavar="MODEL",
                   help="same as --model (default: the embedded SmolLM2-135M-Instruct GGUF)")
    add_engine_args(p)
    g = p.add_argument_group("server")
    g.add_argument("--host", default="127.0.0.1", help="address to bind (0.0.0.0 for every interface)")
    g.add_argument("--port", type=int, default=8000)
    g.add_argument("--served-model-name", default=None,
                   help="the model name clients send and /v1/models lists (default: the loaded model's name)")
    g.add_argument("--max-queued-requests", type=int, default=DEFAULT_MAX_QUEUED_REQUESTS,
                   help="requests that may wait beyond the --max-num-seqs that run; past that the server answers "
                        "503 at once")
    g.add_argument("--cpu-threads", type=int, default=None,
                   help="torch threads on CPU (default: the cores not already busy, as engine generate)")
    g = p.add_argument_group("provenance (reported by GET /v1/engine; `engine bench serve --output-dir` needs it)")
    add_provenance_args(g, "sha of the code this server runs (default: not stated, and then no evidence can be "
                           "written against it)", "served")
    p.set_defaults(func=run_serve)
    return p


def engine_config(args: argparse.Namespace):
    """EngineConfig from every parsed flag named like one of its fields."""
    from engine.config import EngineConfig
    if args.model_tag and args.model and args.model_tag != args.model:
        raise EngineError(f"two models given: {args.model_tag!r} and --model {args.model!r}; pass one")
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(EngineConfig)
              if getattr(args, f.name, None) is not None}
    values["model"] = args.model_tag or args.model
    return EngineConfig(**values)


def _provenance(args: argparse.Namespace):
    from engine.bench.errors import BenchError
    from engine.serve.info import resolve_provenance
    if args.dirty is not None and args.commit is None:
        raise EngineError("--dirty/--clean say what --commit was served; pass --commit SHA with it")
    try:
        # the command as typed (`engine serve ...`, `python -m engine serve ...`); None when called otherwise
        return resolve_provenance(args.commit, args.dirty, shlex.join(["engine", *sys.argv[1:]])
                                  if sys.argv[1:2] == ["serve"] else None)
    except BenchError as e:
        raise EngineError(str(e)) from None


def run_serve(args: argparse.Namespace) -> int:
    import torch
    from aiohttp import web

    from engine.cli import cpu_threads
    from engine.core.engine_core import EngineCore
    from engine.serve.api import create_app
    from engine.serve.async_engine import AsyncEngine

    if not 0 <= args.port <= 65535:
        raise EngineError(f"--port must be in [0, 65535], got {args.port}")
    config = engine_config(args)
    provenance = _provenance(args)   # a bad --commit fails before the model loads
    if config.device.type == "cpu":
        threads = cpu_threads(args.cpu_threads)
        if threads is not None:
            torch.set_num_threads(threads)
    core = EngineCore(config)
    engine = AsyncEngine(core, args.max_queued_requests)
    name = args.served_model_name or core.loaded.name
    app = create_app(engine, name, provenance)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"[engine] serving {name!r} ({core.loaded.name} on {config.device.type}, "
          f"{str(config.dtype).removeprefix('torch.')}, max_model_len={config.max_model_len}) "
          f"at http://{host}:{args.port}/v1", file=sys.stderr, flush=True)
    try:
        # handler_cancellation: a client that hangs up cancels its handler, which aborts its request.
        web.run_app(app, host=args.host, port=args.port, handler_cancellation=True, print=None,
                    access_log=None, shutdown_timeout=5.0)
    except OSError as e:
        raise EngineError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}; pick another --port "
                          f"or stop what holds it") from None
    print("[engine] server stopped", file=sys.stderr)
    return 0
