"""Small helpers that depend on nothing else in the engine: integer ceil-division, CPU thread count, optional
packages named in one line."""

from __future__ import annotations

import importlib.util
import os

from engine.errors import EngineError


def cdiv(a: int, b: int) -> int:
    """ceil(a / b) for integers (vLLM's name): blocks needed for a tokens at b tokens per block."""
    return -(a // -b)


def cpu_threads(requested: int | None) -> int | None:
    """How many torch threads to run on CPU, or None to leave torch's choice (OMP_NUM_THREADS set).

    OpenMP threads that outnumber the free cores spin against each other: on a 2-core machine with one core
    busy, SmolLM2 decoded at 0.7 tok/s with 2 threads and 16.7 tok/s with 1 (measured here)."""
    if requested is not None:
        if requested < 1:
            raise EngineError(f"--cpu-threads must be >= 1, got {requested}")
        return requested
    if os.environ.get("OMP_NUM_THREADS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return max(1, min(cores, cores - int(busy + 0.5)))


# The distribution and its extras (pyproject.toml): the base install is `roadmap` alone.
DISTRIBUTION = "evident-roadmap"
EXTRA_OF = {
    "gguf": "engine",
    "aiohttp": "engine",
    "pydantic": "engine",
    "prometheus_client": "engine",
    "matplotlib": "bench",
    "transformers": "bench",
    "accelerate": "bench",
}
# What every engine command imports (the `engine` extra less triton, optional on CPU, the server's aiohttp,
# pydantic and prometheus-client, and gguf, read only for a .gguf model: a dummy-weight run on a GPU machine
# without it still works; engine/model/gguf_loader.py asks for it where it reads one).
ENGINE_MODULES = ("torch", "numpy", "safetensors", "tokenizers", "jinja2")


def install_hint(extra: str) -> str:
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing_modules(modules: tuple[str, ...]) -> list[str]:
    out = []
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, or a broken parent package
            found = False
        if not found:
            out.append(module)
    return out


def require_package(module: str, needed_for: str, package: str | None = None, alternative: str = "") -> None:
    """One EngineError naming the package to install, and the extra that brings it, when it is missing."""
    if missing_modules((module,)):
        extra = EXTRA_OF.get(module)
        fix = f"install the `{extra}` extra: {install_hint(extra)}" if extra else f"pip install {package or module}"
        raise EngineError(
            f"{needed_for} needs {package or module}, which is not installed; {fix}"
            + (f" ({alternative})" if alternative else "")
        )


def require_engine_extra() -> None:
    """Every engine command needs the `engine` extra; without it, one line that says so (not an ImportError)."""
    missing = missing_modules(ENGINE_MODULES)
    if missing:
        raise EngineError(
            f"the engine needs {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} "
            f"not installed; install the `engine` extra: {install_hint('engine')}"
        )
