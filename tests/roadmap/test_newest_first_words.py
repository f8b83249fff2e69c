"""A log says it keeps its newest entry first in the language it is written in ("Neueste Übergabe oben", "Le plus
récent en haut", "Lo más reciente arriba", "Mais recente no topo"); a sentence about the newest version is not
such a note."""

from __future__ import annotations

import pytest

from roadmap.records.kinds import NEWEST_FIRST


@pytest.mark.parametrize(
    "text",
    [
        "Newest first.",
        "Reverse-chronological.",
        "Neueste Übergabe oben.",
        "Neueste Einträge zuerst",
        "Le plus récent en haut.",
        "Lo más reciente arriba.",
        "Mais recente no topo.",
    ],
)
def test_a_newest_first_note(text: str) -> None:
    assert NEWEST_FIRST.search(text)


@pytest.mark.parametrize(
    "text",
    ["Die neueste Version ist 3.2.", "plus récent que prévu", "la versión más reciente del SDK", "the newest kernel"],
)
def test_no_newest_first_note(text: str) -> None:
    assert not NEWEST_FIRST.search(text)
