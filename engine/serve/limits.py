"""The bounds on what one request may make the server do (DESIGN §5: explicit, reported, checked before the work).

Each is checked before the work it bounds: the body's size before it is read, a prompt's characters before it is
tokenised (a text of C characters has at least C / `Tokenizer.max_token_chars` tokens), its tokens before it is
queued, the stop strings before any step matches them. docs/serve.md lists them.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_BODY_BYTES = 32 * 2**20  # a request body; past it: 413
MAX_STOP_STRINGS = 64  # `stop` entries: every step looks for each of them in the new text
MAX_STOP_CHARS = 1024  # one stop string; a stream holds back its length - 1 characters
MAX_MESSAGES = 4096  # chat messages in one request (the template renders each)
MAX_PROMPTS = 1024  # prompts in one /v1/completions request
MAX_N = 128  # `n` / `best_of`: completions per prompt
MAX_TOKEN_IDS = 2**20  # token ids in a prompt, or in /detokenize, before the context check


@dataclass(frozen=True)
class Timeouts:
    """Connections: `keep_alive` idle seconds before an open connection is closed (also: a client that connects
    and never sends a whole request head); `body` seconds to receive a request's body once its head arrived."""

    keep_alive: float = 15.0
    body: float = 60.0
