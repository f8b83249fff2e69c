"""How the server's event loop reaches its EngineLoop (engine/serve/engine_loop.py): in a thread of the server's
process (ThreadCore: tests, and `--no-engine-process`) or in a process of its own (ProcessCore: `engine serve`).

Both carry the same messages: commands in (add, abort, stop), one Batch out per step, handed to `deliver` on the
event loop. In its own process the engine's host work (scheduling, input preparation, output processing) no longer
shares a GIL with the event loop's per-token work (JSON, SSE frames, sockets): on a CPU stand-in for a GPU step
(device time as a sleep) the threaded server made 44% of the offline throughput, as on the H200 (docs/serve.md).
Batches come back through a pipe the event loop watches (`add_reader`), read without blocking: a Batch the engine
process is still writing (it may be descheduled mid-write) never stalls the event loop; its frames are decoded once
whole (`FrameReader`).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import struct
import threading
import traceback
from collections.abc import Callable
from typing import Any

from engine.args import EngineArgs
from engine.engine_core import EngineCore
from engine.errors import EngineError
from engine.sampling_params import SamplingParams
from engine.serve.engine_loop import Batch, EngineLoop
from engine.serve.info import CoreInfo

log = logging.getLogger("engine.serve")
Deliver = Callable[[Batch], None]


_HEADER = struct.Struct("!Q")  # a frame: its length, then a pickle


def write_frame(fd: int, obj: Any) -> None:
    """Write one object as a frame (the engine process's side: blocking, whole)."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


class FrameReader:
    """The server's side of the pipe: bytes as they arrive -> the objects whose frames are complete."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[Any]:
        self.buffer += data
        out, start = [], 0
        while len(self.buffer) - start >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer, start)
            end = start + _HEADER.size + size
            if len(self.buffer) < end:
                break
            out.append(pickle.loads(memoryview(self.buffer)[start + _HEADER.size : end]))
            start = end
        del self.buffer[:start]
        return out

    def read_one(self, fd: int) -> Any:
        """Block until one whole object arrived (the start-up message, before the event loop watches the fd)."""
        while True:
            objs = self.feed(b"")
            if objs:
                assert not self.buffer, "more than one frame before the engine was ready"
                return objs[0]
            data = os.read(fd, 1 << 16)
            if not data:
                raise EOFError
            self.buffer += data


class ThreadCore:
    """The EngineLoop in a daemon thread of this process, over an EngineCore built by the caller."""

    def __init__(self, core: EngineCore) -> None:
        self.core = core
        self.info = CoreInfo.of(core)
        self._engine_loop: EngineLoop | None = None
        self._thread: threading.Thread | None = None

    def start(self, deliver: Deliver) -> None:
        loop = asyncio.get_running_loop()

        def send(batch: Batch) -> None:
            if not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(deliver, batch)
                except RuntimeError:  # the loop closed between the check and the call (process exit)
                    pass

        self._engine_loop = EngineLoop(self.core, send)
        self._thread = threading.Thread(target=self._engine_loop.run, name="engine-core", daemon=True)
        self._thread.start()

    def add(self, rid: str, ids: list[int], params: SamplingParams) -> None:
        assert self._engine_loop is not None
        self._engine_loop.submit("add", rid, ids, params)

    def abort(self, rid: str) -> None:
        assert self._engine_loop is not None
        self._engine_loop.submit("abort", rid)

    async def stop(self, message: str) -> None:
        if self._engine_loop is None or self._thread is None:
            return
        self._engine_loop.submit("stop", message)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join)
        self._engine_loop = self._thread = None


class ProcessCore:
    """The EngineLoop in a spawned process that builds its own EngineCore from EngineArgs (the model loads there).

    The constructor waits for the model to load: a user mistake there (a bad path, no memory for the KV cache)
    raises EngineError here, with the child's message."""

    def __init__(self, engine_args: EngineArgs, cpu_threads: int | None = None, warmup: bool = False) -> None:
        ctx = multiprocessing.get_context("spawn")  # CUDA cannot be used in a forked child
        cmd_recv, self._cmd = ctx.Pipe(duplex=False)
        self._out, out_send = ctx.Pipe(duplex=False)
        # A daemonic process may not start children: with tensor parallelism it starts the other ranks; it still
        # exits when the server goes (its command pipe closes).
        self.process = ctx.Process(
            target=_engine_process,
            args=(engine_args, cpu_threads, cmd_recv, out_send, warmup),
            name="engine-core",
            daemon=engine_args.tensor_parallel_size == 1,
        )
        self.process.start()
        cmd_recv.close()
        out_send.close()
        self._frames = FrameReader()
        try:
            kind, payload = self._frames.read_one(self._out.fileno())
        except EOFError:
            self.process.join(5)
            raise EngineError(
                f"the engine process exited while loading the model (exit code "
                f"{self.process.exitcode}); see its messages above"
            ) from None
        if kind == "error":
            self.process.join(5)
            raise EngineError(payload)
        self.info: CoreInfo = payload
        self._deliver: Deliver | None = None
        self._closed = False

    def start(self, deliver: Deliver) -> None:
        self._deliver = deliver
        os.set_blocking(self._out.fileno(), False)
        asyncio.get_running_loop().add_reader(self._out.fileno(), self._readable)

    def _readable(self) -> None:
        """Whatever the pipe holds now; each whole Batch delivered, a partial one kept for the next call."""
        assert self._deliver is not None
        while not self._closed:
            try:
                data = os.read(self._out.fileno(), 1 << 20)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:  # the engine process closed its end
                self._lost()
                return
            for batch in self._frames.feed(data):
                self._deliver(batch)

    def _lost(self) -> None:
        """The engine process is gone: whatever was in flight gets an error, nothing hangs."""
        if self._closed:
            return
        self._closed = True
        asyncio.get_running_loop().remove_reader(self._out.fileno())
        log.error("the engine process exited (exit code %s)", self.process.exitcode)
        assert self._deliver is not None
        self._deliver(Batch(stopped=True))

    def _send(self, *command: Any) -> None:
        if self._closed:
            return
        try:
            self._cmd.send(command)
        except (BrokenPipeError, OSError):
            self._lost()

    def add(self, rid: str, ids: list[int], params: SamplingParams) -> None:
        self._send("add", rid, ids, params)

    def abort(self, rid: str) -> None:
        self._send("abort", rid)

    async def stop(self, message: str) -> None:
        """Ask the loop to fail what is left and exit; its last Batch arrives before the pipe closes."""
        loop = asyncio.get_running_loop()
        self._send("stop", message)
        await loop.run_in_executor(None, self.process.join, 30)
        if self.process.is_alive():
            self.process.kill()
        if not self._closed:
            self._readable()  # the last Batch (the failures of what was in flight) and the pipe's end
        if not self._closed:
            self._closed = True
            loop.remove_reader(self._out.fileno())


def _engine_process(
    engine_args: EngineArgs,
    cpu_threads: int | None,
    commands: multiprocessing.connection.Connection,
    outputs: multiprocessing.connection.Connection,
    warmup: bool = False,
) -> None:
    """The engine process: build the core (and warm it up), report ready (or the error), then loop until told to
    stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the process group: the server decides when to stop
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        import torch

        if cpu_threads is not None and engine_args.resolve_device().type == "cpu":
            torch.set_num_threads(cpu_threads)
        core = EngineCore.from_args(engine_args)
        if warmup:
            from engine.serve.warmup import warm_up

            warm_up(core)
        info = CoreInfo.of(core, with_machine=True)
    except EngineError as e:
        write_frame(outputs.fileno(), ("error", str(e)))
        return
    except Exception as e:  # a bug: its traceback on the console, one line for the server to show
        traceback.print_exc()
        write_frame(outputs.fileno(), ("error", f"the engine could not start: {type(e).__name__}: {e}"))
        return
    out_fd = outputs.fileno()
    write_frame(out_fd, ("ready", info))
    engine_loop = EngineLoop(core, lambda batch: write_frame(out_fd, batch))

    def read_commands() -> None:
        while True:
            try:
                command = commands.recv()
            except (EOFError, OSError):  # the server is gone
                engine_loop.submit("stop", "the server went away")
                return
            engine_loop.submit(*command)
            if command[0] == "stop":
                return

    threading.Thread(target=read_commands, name="engine-commands", daemon=True).start()
    engine_loop.run()
    core.shutdown()  # the other tensor-parallel ranks, if any
