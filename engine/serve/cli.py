"""`engine serve [MODEL]`: vLLM's `vllm serve` shape (--host, --port, --served-model-name, --api-key, ... + the
engine flags).

The engine flags are EngineArgs' (engine/args.py): a setting added there is a flag here without an edit. Order of a
start: flags and files checked, the port bound (a busy port fails here, before the model loads), the model loaded
(in the engine's own process unless --no-engine-process), then the URL printed and requests served.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import shlex
import socket
import sys
from pathlib import Path
from typing import Any

from engine.args import EngineArgs
from engine.errors import EngineError
from engine.provenance.commit import Provenance, add_provenance_args, resolve_provenance
from engine.serve.async_engine import DEFAULT_MAX_QUEUED_REQUESTS
from engine.serve.limits import Timeouts
from engine.utils import cpu_threads, require_package

API_KEY_ENV = "ENGINE_API_KEY"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "serve",
        help="serve a model over an OpenAI-compatible HTTP API",
        description="Serve MODEL at http://HOST:PORT/v1 (completions and chat completions, "
        "streaming or not). Stop with Ctrl-C or SIGTERM: requests in flight "
        "finish first (up to --drain-timeout).",
    )
    p.add_argument(
        "model_tag",
        nargs="?",
        default=None,
        metavar="MODEL",
        help="same as --model (default: the embedded SmolLM2-135M-Instruct GGUF)",
    )
    EngineArgs.add_cli_args(p)
    g = p.add_argument_group("server")
    g.add_argument("--host", default="127.0.0.1", help="address to bind (0.0.0.0 for every interface)")
    g.add_argument("--port", type=int, default=8000, help="port to bind (0: any free one, printed)")
    g.add_argument(
        "--served-model-name",
        default=None,
        help="the model name clients send and /v1/models lists (default: the loaded model's name)",
    )
    g.add_argument(
        "--max-queued-requests",
        type=int,
        default=DEFAULT_MAX_QUEUED_REQUESTS,
        help="requests that may wait beyond the --max-num-seqs that run; past that the server answers 503 at once",
    )
    g.add_argument(
        "--api-key",
        default=None,
        help=f"require 'Authorization: Bearer KEY' on every request but /health and /version "
        f"(default: ${API_KEY_ENV} when set, else no key)",
    )
    g.add_argument(
        "--allowed-origins",
        nargs="*",
        default=[],
        metavar="ORIGIN",
        help="browser origins allowed to call the server (CORS), e.g. http://localhost:3000, or '*'; "
        "default: none (a request with another Origin header is refused)",
    )
    g.add_argument(
        "--chat-template",
        default=None,
        help="a Jinja chat template (a file, or the template text) instead of the model's own",
    )
    g.add_argument(
        "--engine-process",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run the engine in its own process (default), so its host work and the server's never "
        "share a GIL; --no-engine-process steps it in a thread of the server",
    )
    g.add_argument(
        "--warmup",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on CUDA, run a small burst of requests at startup so the first clients never wait for kernels to "
        "compile (default); --no-warmup starts serving right after the model loads",
    )
    g.add_argument(
        "--timeout-keep-alive",
        type=float,
        default=Timeouts.keep_alive,
        help="seconds an idle connection (or one that never sends a whole request head) stays open",
    )
    g.add_argument(
        "--drain-timeout",
        type=float,
        default=30.0,
        help="on Ctrl-C or SIGTERM, seconds requests in flight may take to finish before they end with an error",
    )
    g.add_argument(
        "--cpu-threads",
        type=int,
        default=None,
        help="torch threads on CPU (default: the cores not already busy, as engine generate)",
    )
    g = p.add_argument_group("provenance (reported by GET /v1/engine; `engine bench serve --output-dir` needs it)")
    add_provenance_args(
        g,
        "sha of the code this server runs (default: not stated, and then no evidence can be written against it)",
        "served",
    )
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
    return resolve_provenance(
        args.commit, args.dirty, shlex.join(["engine", *sys.argv[1:]]) if sys.argv[1:2] == ["serve"] else None
    )


def chat_template(value: str | None) -> str | None:
    """--chat-template: a file's text, or the value itself when it is a template (vLLM accepts both)."""
    if value is None:
        return None
    if "{{" in value or "{%" in value:
        return value
    path = Path(value).expanduser()
    if not path.is_file():
        raise EngineError(
            f"--chat-template {value}: no such file, and not a template (no {{{{ or {{%); pass a "
            f"Jinja file or the template text"
        )
    return path.read_text(encoding="utf-8")


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound now: a busy port fails before minutes of model loading."""
    if not 0 <= port <= 65535:
        raise EngineError(f"--port must be in [0, 65535], got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise EngineError(f"--host {host}: cannot resolve it ({e.strerror}); pass an address like 127.0.0.1") from None
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
        sock.listen(1024)
    except OSError as e:
        sock.close()
        raise EngineError(
            f"cannot listen on {host}:{port}: {e.strerror or e}; pick another --port or stop what holds it"
        ) from None
    sock.setblocking(False)
    return sock


def run_serve(args: argparse.Namespace) -> int:
    require_package("aiohttp", "engine serve")
    require_package("pydantic", "engine serve")
    require_package("prometheus_client", "engine serve", package="prometheus-client")
    from aiohttp import web

    from engine.serve.access import AccessLogger
    from engine.serve.api import create_app
    from engine.serve.async_engine import AsyncEngine
    from engine.serve.security import LOCAL_HOSTS, is_loopback

    eargs = engine_args(args)
    provenance = _provenance(args)  # a bad --commit fails before the model loads
    template = chat_template(args.chat_template)
    if args.timeout_keep_alive <= 0 or args.drain_timeout < 0:
        raise EngineError("--timeout-keep-alive must be > 0 and --drain-timeout >= 0")
    api_key = args.api_key or os.environ.get(API_KEY_ENV) or None
    sock = bind(args.host, args.port)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    threads = cpu_threads(args.cpu_threads) if eargs.resolve_device().type == "cpu" else None
    try:
        engine = AsyncEngine(_core_client(args, eargs, threads), args.max_queued_requests)
        info = engine.info
        name = args.served_model_name or info.model_name
        app = create_app(
            engine,
            name,
            provenance,
            api_key=api_key,
            allowed_origins=args.allowed_origins,
            allowed_hosts=LOCAL_HOSTS if is_loopback(args.host) else None,
            chat_template=template,
            timeouts=Timeouts(keep_alive=args.timeout_keep_alive),
            drain_timeout=args.drain_timeout,
        )
    except BaseException:
        sock.close()
        raise
    host, port = sock.getsockname()[:2]
    url_host = f"[{host}]" if ":" in host else host
    print(
        f"[engine] serving {name!r} ({info.model_name} on {info.device}, {info.model['dtype']}, "
        f"max_model_len={info.max_model_len}{', API key required' if api_key else ''}) "
        f"at http://{url_host}:{port}/v1",
        file=sys.stderr,
        flush=True,
    )
    # handler_cancellation: a client that hangs up cancels its handler, which aborts its request.
    web.run_app(
        app,
        sock=sock,
        handler_cancellation=True,
        print=None,
        access_log_class=AccessLogger,
        access_log=logging.getLogger("engine.access"),
        keepalive_timeout=args.timeout_keep_alive,
        shutdown_timeout=args.drain_timeout + 5.0,
    )
    print("[engine] server stopped", file=sys.stderr)
    return 0


def _core_client(args: argparse.Namespace, eargs: EngineArgs, threads: int | None) -> Any:
    from engine.serve.core_client import ProcessCore, ThreadCore

    if args.engine_process:
        return ProcessCore(eargs, threads, warmup=args.warmup)
    import torch

    from engine.engine_core import EngineCore
    from engine.serve.warmup import warm_up

    if threads is not None:
        torch.set_num_threads(threads)
    core = EngineCore.from_args(eargs)
    if args.warmup:
        warm_up(core)
    return ThreadCore(core)
