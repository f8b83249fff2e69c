"""`engine serve` as people start it: the engine in its own process (the default), the port checked before the model
loads, one access-log line per request with its id, and SIGTERM draining a stream in flight before the exit."""

from __future__ import annotations

import json
import os
import pickle
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path


from engine.serve.core_client import FrameReader, write_frame

REPO = Path(__file__).resolve().parents[2]


def test_frames_split_anywhere_decode_whole_and_in_order() -> None:
    objs = [{"i": i, "pad": "x" * (i * 37)} for i in range(20)]
    r, w = os.pipe()
    try:
        for o in objs:
            write_frame(w, o)
        os.close(w)
        data = b""
        while chunk := os.read(r, 1 << 16):
            data += chunk
    finally:
        os.close(r)
    for cut in (1, 3, 8, 9, 100, len(data)):  # bytes as a non-blocking read may hand them over
        reader, got = FrameReader(), []
        for i in range(0, len(data), cut):
            got += reader.feed(data[i : i + cut])
        assert got == objs and not reader.buffer
    assert pickle.loads(data[8 : 8 + int.from_bytes(data[:8], "big")]) == objs[0]


def _serve(args: list[str]) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "OMP_NUM_THREADS": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "engine", "serve", *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_busy_port_fails_before_the_model_loads() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        # A model that does not exist: had it loaded first, that would be the error.
        proc = _serve(["/no/such/model", "--port", str(port), "--device", "cpu"])
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in err and "pick another --port" in err
    assert "serving" not in err and "Traceback" not in err


def test_sigterm_lets_a_stream_finish_and_every_request_is_logged(tiny_qwen3_dir: Path) -> None:
    proc = _serve(
        [
            str(tiny_qwen3_dir),
            "--port",
            "0",
            "--device",
            "cpu",
            "--max-model-len",
            "512",
            "--cpu-threads",
            "1",
            "--drain-timeout",
            "60",
        ]
    )
    lines: list[str] = []
    url_seen = threading.Event()

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if " at http://" in line:
                url_seen.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert url_seen.wait(180), "".join(lines)
        base = re.search(r"at (http://\S+)/v1", "".join(lines)).group(1)
        body = {
            "prompt": [5, 6, 7],
            "max_tokens": 400,
            "temperature": 0,
            "ignore_eos": True,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        req = urllib.request.Request(
            base + "/v1/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Request-Id": "drain-me"},
        )
        events, sent_sigterm = [], False
        with urllib.request.urlopen(req, timeout=120) as resp:
            assert resp.headers["X-Request-Id"] == "drain-me"
            for raw in resp:
                line = raw.decode().strip()
                if not line.startswith("data: "):
                    continue
                events.append(line[6:])
                if not sent_sigterm:  # the first token is out: the rest must still come
                    proc.send_signal(signal.SIGTERM)
                    sent_sigterm = True
        assert proc.wait(90) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    text = "".join(lines)
    chunks = [json.loads(e) for e in events if e != "[DONE]"]
    assert events[-1] == "[DONE]" and chunks[-2]["choices"][0]["finish_reason"] == "length"
    assert chunks[-1]["usage"]["completion_tokens"] == 400  # every token, after the SIGTERM too
    assert "draining 1 requests in flight" in text and "server stopped" in text
    access = [ln for ln in lines if '"POST /v1/completions HTTP/1.1" 200' in ln]
    assert len(access) == 1 and "id=drain-me" in access[0]
