"""Word stems (the Porter algorithm, M. F. Porter 1980), so that "eviction", "evicts" and "evictor" meet.

Records and commit messages describe the same work in different forms of the same words ("Rotate the refresh
token" / "refresh token rotation", "stream the export" / "streams rows"); matching on stems lets them meet
without a dictionary. Stems are only ever compared with stems, never shown.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_VOWELS = frozenset("aeiou")


def _cons(w: str, i: int) -> bool:
    c = w[i]
    if c in _VOWELS:
        return False
    if c == "y":
        return i == 0 or not _cons(w, i - 1)
    return True


def _m(stem: str) -> int:
    """The number of vowel-consonant sequences in `stem` (Porter's measure)."""
    n, i, size = 0, 0, len(stem)
    while i < size and _cons(stem, i):
        i += 1
    while i < size:
        while i < size and not _cons(stem, i):
            i += 1
        if i >= size:
            break
        n += 1
        while i < size and _cons(stem, i):
            i += 1
    return n


def _has_vowel(stem: str) -> bool:
    return any(not _cons(stem, i) for i in range(len(stem)))


def _double_cons(w: str) -> bool:
    return len(w) >= 2 and w[-1] == w[-2] and _cons(w, len(w) - 1)


def _cvc(w: str) -> bool:
    if len(w) < 3:
        return False
    return _cons(w, len(w) - 3) and not _cons(w, len(w) - 2) and _cons(w, len(w) - 1) and w[-1] not in "wxy"


def _replace(w: str, pairs: tuple[tuple[str, str], ...], min_m: int) -> str:
    for suf, rep in pairs:
        if w.endswith(suf):
            stem = w[: len(w) - len(suf)]
            return stem + rep if _m(stem) > min_m else w
    return w


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
)
_STEP3 = (("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", ""))
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of a lower-case ASCII word; other words (digits, identifiers, short words) unchanged."""
    w = word
    if len(w) <= 2 or not w.isalpha() or not w.isascii():
        return w
    if len(w) > 6 and w.endswith(("ctor", "ptor", "ssor", "ctors", "ptors", "ssors")):
        w = w[:-3] if w.endswith("s") else w[:-2]  # agent nouns: "evictor" meets "evict", "compressor" "compress"
    # step 1a
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    # step 1b
    extra = False
    if w.endswith("eed"):
        if _m(w[:-3]) > 0:
            w = w[:-1]
    elif w.endswith("ed") and _has_vowel(w[:-2]):
        w, extra = w[:-2], True
    elif w.endswith("ing") and _has_vowel(w[:-3]):
        w, extra = w[:-3], True
    if extra:
        if w.endswith(("at", "bl", "iz")):
            w += "e"
        elif _double_cons(w) and w[-1] not in "lsz":
            w = w[:-1]
        elif _m(w) == 1 and _cvc(w):
            w += "e"
    # step 1c
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    w = _replace(w, _STEP2, 0)
    w = _replace(w, _STEP3, 0)
    # step 4
    for suf in _STEP4:
        if w.endswith(suf):
            stem_ = w[: len(w) - len(suf)]
            if _m(stem_) > 1 and (suf != "ion" or stem_.endswith(("s", "t"))):
                w = stem_
            break
    # step 5
    if w.endswith("e"):
        s = w[:-1]
        if _m(s) > 1 or (_m(s) == 1 and not _cvc(s)):
            w = s
    if _m(w) > 1 and _double_cons(w) and w.endswith("l"):
        w = w[:-1]
    for noun, verb in _NOUN_VERB:
        if w.endswith(noun) and len(w) > len(noun) + 1 and w not in _NOT_NOUNS:
            return w[: -len(noun)] + verb
    return w


# Latin nouns in -tion/-sion whose verbs Porter stems apart, each family as one stem: "resolution" and "resolved"
# (resolv), "consumption" and "consume" (consum), "subscription" and "subscribe" (subscrib), "exclusion" and
# "exclude" (exclud). A record names the work with the noun ("cache for module resolution"), the commit with the
# verb ("LRU for resolved specifiers").
_NOUN_VERB = (("olut", "olv"), ("umpt", "um"), ("script", "scrib"), ("clus", "clud"))
_NOT_NOUNS = frozenset({"absolut"})  # "absolute" is no noun of "absolve"


# Spanish and Portuguese endings, longest first, on a word without its accents: verb (-ar, -ir; -ado, -ando),
# noun (-ación, -ação, -amiento, -mente) and the plural and gender endings every noun and adjective takes, so that
# "Paginar", "páginas", "paginación" and "paginado" meet at "pagin". One ending comes off, and at least four letters
# stay. (-er is left: in a Spanish record it ends "server" and "buffer" far more often than a verb.)
_ROMANCE_ENDINGS = (
    *("amientos", "imientos", "aciones", "amiento", "imiento", "adoras", "adores", "acion", "acoes", "adora"),
    *("ador", "acao", "mente", "ando", "iendo", "ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida"),
    *("ar", "ir", "es", "os", "as", "s", "o", "a", "e"),
)


@lru_cache(maxsize=1 << 14)
def fold(word: str) -> str:
    """`word` without its accents ("página" -> "pagina", "ação" -> "acao")."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def romance_stem(word: str) -> str:
    """The stem of a lower-case word of a Spanish or Portuguese text (analysis/language.py): accents folded, one
    ending cut; a word with none of those endings (an English word in the text: "streaming") gets its Porter stem."""
    w = fold(word)
    if not w.isalpha() or not w.isascii():
        return w
    if len(w) > 4:
        for end in _ROMANCE_ENDINGS:
            if w.endswith(end) and len(w) - len(end) >= 4:
                return w[: -len(end)]
    return stem(w)


# German endings, longest first, on a word with its umlauts folded: the case and plural endings of nouns and
# adjectives and the infinitive, so that "fehlende" and "fehlendem", "Zeile" and "Zeilen", "verwerfen" and
# "verworfen"'s neighbours meet. One ending comes off, and at least four letters stay; "-iert" (markiert) is "-ier".
# A word with none of them, often an English one ("Onboarding"), gets its Porter stem, as in an English text.
_GERMAN_ENDINGS = ("ierte", "iert", "ern", "em", "en", "er", "es", "e", "s", "n")
_UMLAUTS = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "ss"})


# Heads of German compounds that add a kind of record to their modifier, not a subject: "Luftdruckwerte" are the
# air pressure's values, "Stationsdaten" the stations' data. Such a compound stems to its modifier, so that it meets
# the plain word ("fehlender Luftdruck").
_RECORD_HEADS = ("werte", "wert", "daten", "datei", "dateien", "liste", "listen", "angaben", "felder", "feld")


@lru_cache(maxsize=65536)
def german_stem(word: str) -> str:
    """The stem of a lower-case word of a German text (records/language.py)."""
    w = word.translate(_UMLAUTS)
    if not w.isalpha() or not w.isascii():
        return w
    for head in _RECORD_HEADS:
        if w.endswith(head) and len(w) - len(head) >= 5:
            return german_stem(w[: -len(head)].removesuffix("s"))  # the linking -s- of "Stationsdaten"
    for end in _GERMAN_ENDINGS:
        if w.endswith(end) and len(w) - len(end) >= 4:
            return w[: -len(end)] + ("ier" if end.startswith("iert") else "")
    return stem(w)  # no German ending: an English word in the text ("Onboarding", "Caching") gets its Porter stem
