"""Tokenizer wrapper: streaming detokenisation, chat templates, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import tokenizers

from engine.errors import EngineError
from engine.model import Tokenizer, load_model

STREAM_TEXTS = [
    "Emoji 🤖🚀 and CJK 日本語 split into byte pieces.",
    "  two spaces, then\n\nnewlines\tand tabs",
    "plain ascii words only",
]


@pytest.mark.parametrize("text", STREAM_TEXTS)
def test_streamed_deltas_add_up_to_the_full_decode(smollm2_loaded, text: str) -> None:
    tok = smollm2_loaded.tokenizer
    ids = tok.encode(text, add_special_tokens=False)
    stream = tok.incremental(prompt_ids=tok.encode("Q: say it", add_special_tokens=False))
    deltas = [stream.add([i]) for i in ids]
    assert "".join(deltas) + stream.flush() == tok.decode(ids) == text
    assert all("\ufffd" not in d for d in deltas)  # a half character is held back, never emitted


def test_stream_holds_an_incomplete_character_until_flush(smollm2_loaded) -> None:
    tok = smollm2_loaded.tokenizer
    ids = tok.encode("🤖", add_special_tokens=False)
    assert len(ids) > 1  # a byte-level BPE splits this emoji into byte tokens
    stream = tok.incremental()
    assert stream.add(ids[:-1]) == ""
    assert stream.add(ids[-1:]) == "🤖"
    assert stream.flush() == ""


def test_stream_skips_special_tokens(smollm2_loaded) -> None:
    tok = smollm2_loaded.tokenizer
    ids = tok.encode("Paris.<|im_end|>", add_special_tokens=False)
    stream = tok.incremental()
    assert "".join(stream.add([i]) for i in ids) + stream.flush() == "Paris."


def test_chat_template_sees_special_tokens_and_extra_arguments() -> None:
    backend = tokenizers.Tokenizer(tokenizers.models.BPE())
    template = (
        "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content | tojson }}{% endfor %}"
        "{% if add_generation_prompt %}[assistant]{% endif %}{% if enable_thinking is false %}/no{% endif %}"
        "{% if messages | length > 2 %}{{ raise_exception('too long') }}{% endif %}"
    )
    tok = Tokenizer(
        backend,
        name="t",
        eos_token_ids=[3],
        chat_template=template,
        special_tokens={"bos_token": "<s>", "eos_token": None},
    )
    chat = [{"role": "user", "content": 'say "hi"'}]
    assert tok.apply_chat_template(chat) == '<s>[user]"say \\"hi\\""[assistant]'
    assert (
        tok.apply_chat_template(chat, add_generation_prompt=False, enable_thinking=False)
        == '<s>[user]"say \\"hi\\""/no'
    )
    with pytest.raises(EngineError, match=r"chat template of t failed: too long"):
        tok.apply_chat_template(chat * 3)


def test_no_chat_template_is_a_clear_error(tiny_llama_dir: Path) -> None:
    tok = Tokenizer(tokenizers.Tokenizer(tokenizers.models.BPE()), name="bare", eos_token_ids=[])
    with pytest.raises(EngineError, match=r"bare has no chat template; pass a plain prompt"):
        tok.apply_chat_template([{"role": "user", "content": "x"}])
    hf = load_model(str(tiny_llama_dir), dtype="float32").tokenizer
    assert hf is not None and hf.chat_template is not None and hf.bos_token_id == 1
