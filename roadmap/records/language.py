"""Which language a text is written in, as far as word stems care: English, or Spanish/Portuguese.

A team that writes its records in Spanish writes its commits in Spanish too ("Paginar los pedidos" / "listado por
páginas"), and English stems do not tie those words: Porter leaves "páginas" alone and cuts nothing off
"paginar". A text whose function words are mostly Spanish or Portuguese ones ("los", "con", "para", "não", "com")
is stemmed with analysis/stem.romance_stem instead. Words shared with English ("a", "as", "do", "no", "se") and
with code ("sin") are no evidence either way; two markers are needed, and more than the English ones.

Such a team writes its to-do items as infinitives ("Paginar ...", "Migrar ...", "Ativar CDC ..."), as an English
one writes imperatives: an item of a Spanish or Portuguese text that opens with an infinitive asks for work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_ROMANCE = frozenset(
    """
el la los las de en una unos unas para por con como pero cuando sobre entre hasta desde está están esta estos estas
hoy todos todas cada también ya hay muy sus les y que del al ni más
da dos das em na nos nas um uma com não nao ao aos pelo pela pelos pelas são está também depois já mais
""".split()
)
_ENGLISH = frozenset("the of to and is for with on in this that it be are was were from by not we when which".split())


def romance(words: Iterable[str]) -> bool:
    """Are these (lower-case) words a Spanish or Portuguese text's? Two markers, more than the English ones."""
    ours = theirs = 0
    for w in words:
        if w in _ROMANCE:
            ours += 1
        elif w in _ENGLISH:
            theirs += 1
    return ours >= 2 and ours > theirs


# Words of a Spanish or Portuguese text that name no work, beside the function words (analysis/function_words.py).
GENERIC = _ROMANCE | frozenset(
    """
de se lo le les hoy ahora antes luego todo toda todos todas otro otra otros otras mismo misma hace hacer ser estar
tiene tienen puede pueden debe deben si sino algo nada sigue siguen queda quedan vez veces bien mal
isso isto esse essa este aqui ali ainda agora antes todo toda todos todas outro outra pode podem deve devem
fica ficam tem têm ser estar fazer vez
""".split()
)
_LETTERS = re.compile(r"[^\W\d_]+")
# An infinitive: -ar, -er, -ir after at least three letters ("Paginar", "Añadir", "Reexecutar", "Devolver").
_INFINITIVE = re.compile(r"[^\W\d_]{3,}(?:ar|er|ir)")


def opens_with_infinitive(text: str) -> bool:
    """Does `text` open with an infinitive and read as Spanish or Portuguese?"""
    first = _LETTERS.search(text)
    if first is None or not _INFINITIVE.fullmatch(first.group(0).lower()):
        return False
    return romance(_LETTERS.findall(text.lower()))
