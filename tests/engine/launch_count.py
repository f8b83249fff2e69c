"""Count the kernels a forward launches, on CPU: every aten op that computes (views and allocations launch nothing)
plus every Triton launch (the interpreter's own bookkeeping ops inside a launch are not counted).

    with torch.no_grad(), LaunchCounter() as launches:
        model(...)
    launches.total, launches.by_name   # e.g. 20, {"aten.mm": 8, "_rms_norm_kernel": 5, ...}

Count under no_grad, not inference_mode: in inference mode a dtype cast (aten._to_copy) never reaches the Python
dispatcher, so casts would go uncounted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from torch.utils._python_dispatch import TorchDispatchMode

_ALLOCATIONS = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "lift_fresh", "set_"}


class LaunchCounter(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.by_name: Counter[str] = Counter()
        self._in_triton = 0
        self._patch: Any = None

    @property
    def total(self) -> int:
        return sum(self.by_name.values())

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204 - torch's hook
        name = func.overloadpacket.__name__
        if not self._in_triton and not func.is_view and name not in _ALLOCATIONS:
            self.by_name[f"aten.{name}"] += 1
        return func(*args, **(kwargs or {}))

    def __enter__(self) -> LaunchCounter:
        from triton.runtime.interpreter import InterpretedFunction

        original = InterpretedFunction.run
        counter = self

        def run(fn, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            counter.by_name[fn.__name__] += 1
            counter._in_triton += 1
            try:
                return original(fn, *args, **kwargs)
            finally:
                counter._in_triton -= 1

        self._patch = (InterpretedFunction, original)
        InterpretedFunction.run = run
        return super().__enter__()

    def __exit__(self, *exc: object) -> None:
        cls, original = self._patch
        cls.run = original
        super().__exit__(*exc)
