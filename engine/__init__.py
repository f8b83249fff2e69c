"""engine: a reference LLM inference engine (PyTorch + Triton) with vLLM's API shape.

    from engine import LLM, SamplingParams
    outputs = LLM("Qwen3-0.6B", load_format="dummy").generate(["Hello"], SamplingParams(temperature=0))
"""
from engine.args import EngineArgs
from engine.config import EngineConfig
from engine.outputs import CompletionOutput, RequestMetrics, RequestOutput
from engine.sampling_params import SamplingParams


def __getattr__(name: str):
    # LLM imports the whole engine (model, runner): loaded on first use so `import engine` stays light.
    if name == "LLM":
        from engine.llm import LLM
        return LLM
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


__all__ = ["LLM", "SamplingParams", "RequestOutput", "CompletionOutput", "RequestMetrics", "EngineArgs", "EngineConfig"]
