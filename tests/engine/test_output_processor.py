"""OutputProcessor: deltas step by step for a stream, stop strings held back and cut, and offline token-id requests
left alone until they finish."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.request import Request, RequestStatus
from engine.model.tokenizer import Tokenizer
from engine.output_processor import OutputProcessor
from engine.sampling_params import SamplingParams


@pytest.fixture(scope="module")
def tok(tiny_qwen3_dir: Path) -> Tokenizer:
    tokenizer = Tokenizer.from_hf_dir(tiny_qwen3_dir)
    assert tokenizer is not None
    return tokenizer


def _step(req: Request, *ids: int) -> None:
    for i in ids:
        req.append_output_token(i, 0.0)


def test_a_stream_gets_every_step_and_a_stop_string_cuts_it(tok: Tokenizer) -> None:
    ids = tok.encode("hello world, and more", add_special_tokens=False)
    req = Request("r", [1, 2], SamplingParams(stop=", and"))
    proc = OutputProcessor(tok, stream=True)
    proc.add_request(req)
    texts, finished = [], []
    for i in ids:
        _step(req, i)
        out = proc.process_outputs(["r"])
        texts += [d.text for d in out.deltas]
        finished += out.finished
        if out.reqs_to_abort:
            assert out.reqs_to_abort == ["r"] and not req.status.finished  # the caller aborts it in the core
            break
    assert "".join(texts) == "hello world" and texts[-1] != ""
    (final,) = finished
    assert (final.outputs[0].text, final.outputs[0].finish_reason, final.outputs[0].stop_reason) == (
        "hello world",
        "stop",
        ", and",
    )
    assert not proc.has_unfinished_requests()


def test_offline_token_id_requests_wait_for_their_end() -> None:
    req = Request("r", [1, 2], SamplingParams(detokenize=False, max_tokens=3))
    proc = OutputProcessor(None, stream=False)
    proc.add_request(req)
    assert not proc.wants_every_step
    _step(req, 7, 8)
    assert proc.process_outputs(["r"]).deltas == []  # nothing to decode or match: left alone
    _step(req, 9)
    req.status = RequestStatus.FINISHED_LENGTH
    out = proc.process_outputs(["r"])
    (delta,) = out.deltas
    assert delta.token_ids == [7, 8, 9] and delta.finish_reason == "length"
    (final,) = out.finished
    assert final.outputs[0].token_ids == [7, 8, 9] and final.outputs[0].text == "" and final.finished


def test_offline_requests_with_text_are_followed_every_step(tok: Tokenizer) -> None:
    proc = OutputProcessor(tok, stream=False)
    proc.add_request(Request("a", [1], SamplingParams(detokenize=False)))
    assert not proc.wants_every_step
    proc.add_request(Request("b", [1], SamplingParams()))  # decoded: step by step, as the server does
    assert proc.wants_every_step
    proc.abort_request("b")
    assert not proc.wants_every_step
