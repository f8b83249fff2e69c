"""Which language a text is written in, as far as word stems care: English, Spanish/Portuguese, or German.

A team that writes its records in Spanish writes its commits in Spanish too ("Paginar los pedidos" / "listado por
páginas"), and English stems do not tie those words: Porter leaves "páginas" alone and cuts nothing off
"paginar". A text whose function words are mostly Spanish or Portuguese ones ("los", "con", "para", "não", "com")
is stemmed with analysis/stem.romance_stem instead. Words shared with English ("a", "as", "do", "no", "se") and
with code ("sin") are no evidence either way; two markers are needed, and more than the English ones.

A German team's texts ("die Spalte befüllen, sobald die Migration da ist") carry "die", "der", "und", "nicht"; their
words are stemmed with analysis/stem.german_stem, which meets "fehlende" and "fehlendem", "Zeile" and "Zeilen".

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


# German function words that are no word of English, Spanish or Portuguese ("die", "der", "und", "nicht", "ist").
_GERMAN = frozenset(
    """
der die das den dem des und oder nicht ist sind war waren wird werden wurde wurden ein eine einen einem einer eines
mit für auf bei nach von zum zur im auch noch nur schon jetzt wie wenn dass weil sobald über durch ohne ich wir
als zu statt beim vom ins aus ob sowie
""".split()
)


def romance(words: Iterable[str]) -> bool:
    """Are these (lower-case) words a Spanish or Portuguese text's? Two markers, more than the English ones (and
    than the German ones: "da" and "um" are German words too)."""
    return language(words) == "es"


def language(words: Iterable[str]) -> str:
    """The language of these lower-case words: "es" (Spanish or Portuguese), "de" (German) or "en". Two markers of
    a language, more than the English ones and than the other language's."""
    es = de = en = 0
    for w in words:
        if w in _GERMAN:
            de += 1
        elif w in _ROMANCE:
            es += 1
        elif w in _ENGLISH:
            en += 1
    if es >= 2 and es > en and es >= de:
        return "es"
    if de >= 2 and de > en and de > es:
        return "de"
    return "en"


# Words of a Spanish or Portuguese text that name no work, beside the function words (analysis/function_words.py).
GENERIC = _ROMANCE | frozenset(
    """
de se lo le les hoy ahora antes luego todo toda todos todas otro otra otros otras mismo misma hace hacer ser estar
tiene tienen puede pueden debe deben si sino algo nada sigue siguen queda quedan vez veces bien mal
isso isto esse essa este aqui ali ainda agora antes todo toda todos todas outro outra pode podem deve devem
fica ficam tem têm ser estar fazer vez
""".split()
)
# Words of a German text that name no work, beside _GERMAN.
GERMAN_GENERIC = _GERMAN | frozenset(
    """
an am bis da dort hier so um vor ganz ganze ganzen ganzes alle alles andere anderen etwa usw etc
man er sie es sich mein meine unser unsere also erst ab mehr weniger sehr fast nichts etwas immer dann damit
dabei dazu bereits muss müssen soll sollte sollen kann können würde diese dieser dieses jede jeder jedes kein
keine hat haben hatte sein gibt gab geht ging zu ja nein gut neu neue neuen
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
