"""`engine serve [MODEL]`: vLLM's `vllm serve` shape (--host, --port, --served-model-name + the engine flags).

The engine flags are EngineArgs' (engine/args.py): a setting added there is a flag here without an edit.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import shlex
import sys
from typing import Any

from engine.args import EngineArgs
from engine.errors import EngineError
from engine.provenance.commit import Provenance, add_provenance_args, resolve_provenance
from engine.serve.async_engine import DEFAULT_MAX_QUEUED_REQUESTS
from engine.utils import cpu_threads, require_package


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser("serve", help="serve a model over an OpenAI-compatible HTTP API",
                              description="Serve MODEL at http://HOST:PORT/v1 (completions and chat completions, "
                                          "streaming or not). Stop with Ctrl-C or SIGTERM.")
    p.add_argument("model_tag", nargs="?", default=None, metavar="MODEL",
                   help="same as --model (default: the embedded SmolLM2-135M-Instruct GGUF)")
    EngineArgs.add_cli_args(p)
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


def engine_args(args: argparse.Namespace) -> EngineArgs:
    """EngineArgs from the engine flags; MODEL and --model are one setting."""
    if args.model_tag and args.model and args.model_tag != args.model:
        raise EngineError(f"two models given: {args.model_tag!r} and --model {args.model!r}; pass one")
    return dataclasses.replace(EngineArgs.from_cli_args(args), model=args.model_tag or args.model)


def _provenance(args: argparse.Namespace) -> Provenance:
    if args.dirty is not None and args.commit is None:
        raise EngineError("--dirty/--clean say what --commit was served; pass --commit SHA with it")
    # the command as typed (`engine serve ...`, `python -m engine serve ...`); None when called otherwise
    return resolve_provenance(args.commit, args.dirty, shlex.join(["engine", *sys.argv[1:]])
                              if sys.argv[1:2] == ["serve"] else None)


def run_serve(args: argparse.Namespace) -> int:
    require_package("aiohttp", "engine serve")
    import torch
    from aiohttp import web

    from engine.engine_core import EngineCore
    from engine.serve.api import create_app
    from engine.serve.async_engine import AsyncEngine

    if not 0 <= args.port <= 65535:
        raise EngineError(f"--port must be in [0, 65535], got {args.port}")
    eargs = engine_args(args)
    provenance = _provenance(args)   # a bad --commit fails before the model loads
    if eargs.resolve_device().type == "cpu":
        threads = cpu_threads(args.cpu_threads)
        if threads is not None:
            torch.set_num_threads(threads)
    core = EngineCore.from_args(eargs)
    config = core.config
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
