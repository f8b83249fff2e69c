"""The device->host copier of sampled ids (engine/worker/async_output.py) on CUDA: its ring of pinned buffers and
events is reused in turn, and every handle still returns its own step's ids, at every batch size, in step order."""

from __future__ import annotations

import pytest
import torch

from engine.worker.async_output import OutputCopier

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="the copier copies only on CUDA")


def test_ring_reuse_keeps_each_steps_ids() -> None:
    copier = OutputCopier(torch.device("cuda"))
    in_flight = []
    sizes = [1, 3, 200, 2, 1, 70, 5, 1, 1, 300]  # grows and shrinks around the ring's buffers
    for step, rows in enumerate(sizes):
        sampled = torch.arange(rows, device="cuda", dtype=torch.int64) + 1000 * step
        in_flight.append((step, rows, copier.start([f"r{i}" for i in range(rows)], sampled)))
        if len(in_flight) == 2:  # the engine's depth: the oldest is read once two are in flight
            old, n, handle = in_flight.pop(0)
            assert handle.get_output().sampled_token_ids == [1000 * old + i for i in range(n)]
    for old, n, handle in in_flight:
        assert handle.get_output().sampled_token_ids == [1000 * old + i for i in range(n)]


def test_no_row_samples() -> None:
    out = OutputCopier(torch.device("cuda")).start([], None).get_output()
    assert out.sampled_token_ids == []
