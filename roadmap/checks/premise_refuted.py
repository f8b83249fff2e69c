"""RL103 premise-refuted: a later commit says the measurement or claim a directive rests on was wrong."""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.asof import commits_matching, news_subset
from roadmap.analysis.commit_text import MAX_COMMITS
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.landing import reverts
from roadmap.analysis.quoted_words import holds, quoted_lines, quotes
from roadmap.analysis.quoted_words import quoted as quoted_phrase
from roadmap.analysis.stale import hits_for
from roadmap.analysis.surfaces import subject_ids, work_terms
from roadmap.analysis.work import message_language, own_lines, terms_of, text_language
from roadmap.findings import Hit
from roadmap.history.commit import Commit
from roadmap.records.figures import find_figures
from roadmap.records.kinds import title_of
from roadmap.records.model import Statement
from roadmap.regex_hints import Hinted

REFUTES = re.compile(
    r"\b(?:is|was|were|are|turned out(?: to be)?|proved|proves)\s+(?:(?:also|simply|actually|therefore|"
    r"in fact)\s+)?(?:wrong|incorrect|mistaken|false|bogus|invalid|refuted|misattributed|not the cause)\b"
    r"|\brefut(?:es|ed|ing)\b|\b(?:do(?:es)?|did)(?:n't| not) (?:apply|hold(?: up)?)\b|\bno longer holds?\b"
    r"|\bmisattribut\w*|\bnot the (?:cause|bottleneck)\b"
    # "That isn't true", "was never the case", "wasn't the bottleneck", "a red herring", "the profile disproves
    # it", "a misdiagnosis", "we got that wrong", "pg_locks says otherwise", "turned out not to hold"
    r"|\b(?:is|are|was|were)(?:n't|\s+not|\s+never)\s+(?:(?:actually|really)\s+)?(?:true|the\s+case|correct|accurate)\b"
    r"|\b(?:is|are|was|were)\s+(?:(?:simply|actually|just)\s+)?(?:untrue|inaccurate|unfounded|a\s+(?:myth|misconception))\b"
    r"|\bno\s+longer\s+(?:true|the\s+case|accurate)\b"
    r"|(?:\bnot|n't|\bnever)\s+the\s+(?:(?:real|actual|main)\s+)?(?:cause|bottleneck|problem|culprit|issue)\b"
    r"|\bred\s+herring\b|\bdisprov(?:es|ed|en|ing)\b|\bmisdiagnos\w*|\b(?:got|had)\s+(?:that|this|it)\s+wrong\b"
    r"|\b(?:says|said|shows?|showed|shown)\s+otherwise\b|\bturn(?:s|ed)\s+out\s+not\s+to\s+(?:be\s+true|hold|apply)\b"
    # the measurement itself was off: a wrong build, preset, box or corpus, an artifact, a figure misread
    r"|\bwrong\s+(?:\w+\s+)?(?:build|preset|config\w*|corpus|box|machine|binary|branch|model|baseline|denominator|"
    r"file|flags?)\b"
    r"|\b(?:measurement|profil\w*|timing)\s+artifact\b|\bmis-?measur\w*|\bmis-?read\b|\b(?:that|which)\s+we\s+"
    r"attributed\s+to\b|\bnot\s+the\s+(?:problem|culprit|issue|bottleneck|hot\s*spot)\b|\bnot\s+(?:on|in)\s+the\s+"
    r"(?:hot|critical|benchmarked)\s+path\b|\b(?:will|would)\s+not\s+help\b|\bwon't\s+help\b|"
    r"\bwe\s+are\s+not\s+doing\s+(?:that|this|it)\b|\b(?:taken|measured|profiled)\b[^.]{0,40}(?:debug\s+build|-O0\b|"
    r"asserts\s+on)"
    # a cause denied: "the outlier channels are not where the loss comes from", "the stall isn't due to X"
    # "the S3 listing was never what made extract slow", "it's the oversampler allocating, not the reverb"
    r"|\b(?:is|are|was|were)(?:n't|\s+not|\s+never)\s+what\s+(?:makes?|made|causes?|caused|slows?|slowed)\b"
    r"|\bit(?:'s|\s+is|\s+was)\s+(?:the\s+)?[\w`:.()-]+(?:\s+[\w`:.()-]+){0,4},\s+not\s+the\s+\w+"
    r"|\bit(?:'s|\s+is|\s+was)(?:n't|\s+not)\s+the\s+\w+"
    r"|\b(?:is|are|was|were)(?:n't|\s+not)\s+(?:caused\s+by|due\s+to|what\s+causes|"
    r"where\s[^.;]{0,40}?\b(?:comes?|came)\s+from)\b|\b(?:does|do|did)(?:n't|\s+not)\s+come\s+from\b"
    # the same in the languages records are often kept in: Spanish, German, French
    r"|\b(?:era|es|fue|estaba|resultó|resulto)\s+(?:una\s+)?(?:hipótesis\s+|hipotesis\s+|idea\s+)?"
    r"(?:equivocad[oa]|incorrect[oa]|fals[oa]|errónea|erronea)\b|\bno\s+(?:venía|venia|venían|venian|viene|vienen)\s+de"
    r"|\bno\s+(?:era|es|fue)\s+(?:la\s+causa|el\s+origen)\b"
    r"|\b(?:war|ist)\s+(?:falsch|widerlegt|nicht\s+die\s+Ursache)\b|\bkam\s+nicht\s+von\b"
    # German: "sind also nicht der Grund für die Langsamkeit", "würde fast nichts bringen", "stimmt nicht"
    r"|\b(?:ist|sind|war|waren)\s+(?:\w+\s+){0,2}?nicht\s+"
    r"(?:der\s+Grund|die\s+Ursache|das\s+Problem|der\s+Engpass|schuld)\b"
    r"|\b(?:würde|wird|bringt|brachte|hilft|half)\b[^.;]{0,40}?\b(?:nichts|nicht)\s+(?:bringen|helfen)\b"
    r"|\b(?:bringt|brachte|hilft|half)\s+(?:\w+\s+){0,2}?nichts\b"
    r"|\b(?:stimmt|stimmte|trifft|traf)\s+(?:\w+\s+){0,2}?nicht\b"
    r"|\b(?:était|est)\s+(?:fausse?|erronée?|erroné|incorrecte?)\b|\bne\s+(?:venait|vient)\s+pas\s+d"
    # Chinese, Japanese, Korean: "不是显存的问题", "是误判", "判断错了", "原因ではない", "間違いだった", "원인이 아니었다"
    r"|不是[^，。,.；;]{0,12}?的?(?:问题|原因|瓶颈|锅)|误判|判断(?:错了|有误)|(?:说法|结论|假设|前提)(?:不成立|是错的)|并非|"
    r"原因ではな|(?:が|は)原因ではな|間違い(?:だった|でした)|誤りだった|(?:원인|문제)(?:이|가)\s*아니|틀렸",
    re.I,
)
# REFUTES.finditer's matches, each alternative searched only in text holding a literal it needs (regex_hints.py):
# every commit message is asked
_REFUTES = Hinted(REFUTES)


def refutes(text: str) -> bool:
    """REFUTES says something was wrong in `text`, as prose. A lone word of it written as code says nothing: in an
    inline code span, or in capitals used as a name (after an article or possessive, or as what is run, called or
    used: "ran REFUTES over every message"). Capitals as emphasis ("lever REFUTED as the unlock") still count."""
    for m in _REFUTES.finditer(text):
        if text.count("`", 0, m.start()) % 2:
            continue  # inside an inline code span
        word = m.group(0)
        if word.isupper() and " " not in word and _NAMED_BEFORE.search(text, 0, m.start()):
            continue
        return True
    return False


# What puts a capitalised word in a noun's place: an article or possessive, or a verb that runs or uses a thing.
_NAMED_BEFORE = re.compile(
    r"(?:\b(?:the|a|an|its|their|our|this|that|ran|runs?|running|calls?|called|calling|uses?|used|using|"
    r"applies|applied|applying)|'s)\s+$",
    re.I,
)


# A statement whose premise can be refuted: a directive, or a finding that gives a cause for a measurement.
_CLAIMS_CAUSE = re.compile(
    r"\bbecause of\b|\bdue to\b|\bcaused by\b|\bis the bottleneck\b|\bdominated by\b|"
    r"\bstall(?:s|ed)? on\b|\bis the cause\b|\bwill not help\b|\bwon't help\b",
    re.I,
)
# A statement that states a premise in words, figures or not: a cause ("X dominates Y", "fails because the clock
# comes from Z"), a hypothesis or assumption, a constraint with its reason, a risk accepted on a condition.
_PREMISE_PARTS = tuple(
    (words, re.compile(pattern, re.I))
    for words, pattern in (
        (
            ("hypoth", "assumption", "root", "premise", "theory", "suspect"),
            r"^\W*(?:hypothes[ie]s|assumption|root[- ]cause|premise|theory|suspect(?:ed)?)\b\s*[:—-]",
        ),
        # the same label in French, Spanish, Portuguese, German: "Cause : ...", "Hipótesis: ...", "Ursache: ..."
        (
            ("cause", "causa", "hypoth", "hipót", "hipot", "ursache", "vermutung", "annahme"),
            r"^\W*(?:cause|causa|hypoth[èe]se|hip[óo]tes[ie]s?|ursache|vermutung|annahme)\s*[:—-]",
        ),
        (("dominat",), r"\bdominat(?:es|ed|ing)\b"),
        (("from",), r"\b(?:comes?|came) from\b"),
        # "vient du relèvement du seuil", "proviene de", "vem do", "kommt vom Cache": where a cause comes from
        (("vient", "venait"), r"\b(?:pro)?(?:vient|venait)\s+(?:d[eu]s?\b(?!\s+\w+(?:er|ir|re)\b)|d['\u2019])"),
        (("viene", "venía", "venia"), r"\b(?:pro)?(?:viene|venía|venia)\s+de(?:l)?\b"),
        (("vem", "vinha"), r"\b(?:vem|vinha)\s+d[eoa]s?\b"),
        (("kommt", "kam"), r"\b(?:kommt|kam)\s+(?:\w+\s+)?(?:vo[nm]|aus\s+de[mnr])\b"),
        (("because",), r"\bbecause\b"),
        (("due to",), r"\bdue to\b"),
        (("caused by",), r"\bcaused by\b"),
        (("bottleneck", "cause", "culprit", "reason"), r"\b(?:is|are) the (?:bottleneck|cause|culprit|reason)\b"),
        # the same said the other way round: "The bottleneck is the PME rank", "Our main culprit was the GC"
        (
            ("bottleneck", "culprit"),
            r"\b(?:the|our|its|their)\s+(?:(?:main|real|actual|only|biggest)\s+)?(?:bottleneck|culprit)\s+(?:is|was|are|were)\b",
        ),
        # a constraint with its reason: "SQLite can't handle our writers: we measured 41 SQLITE_BUSY/min"
        (
            ("cannot", "can't", "can\u2019t", "can not", "unable"),
            r"\b(?:can(?:not|'t|\u2019t| not)|unable to)\b[^\n;]{0,80}?:\s",
        ),
        (("not exploitable",), r"\bnot exploitable\b"),
        # a diagnosis: "that is what produces the 502s", "which is why the p99 spikes", "the root cause is ..."
        (
            ("what", "why"),
            r"\b(?:is|was|that's|which is|this is)\s+(?:what|why)\s+(?:\w+\s+){0,2}?"
            r"(?:causes?|caused|produces?|produced|triggers?|triggered|drives?|explains?|leads?\s+to)\b",
        ),
        (("cause",), r"\b(?:root[- ])?cause\s+(?:is|was)\b"),
        (("origen", "causa"), r"\b(?:el\s+origen|la\s+causa)\s+(?:es|era)\b"),
        (("debe",), r"\bse\s+debe\s+a\b"),
        (("ursache",), r"\bdie\s+Ursache\s+ist\b"),
        (("weil",), r"\bweil\b"),
        (("grund",), r"\bder\s+Grund\s+(?:ist|war)\b"),
        (("liegt",), r"\bliegt\s+an\b"),
        (("cause",), r"\bla\s+cause\s+est\b"),
        (("dû",), r"\best\s+dûe?\s+à\b"),
        # Chinese, Japanese, Korean: "因为显存不够，所以 ...", "瓶颈是 ...", "…のため", "… 때문에"
        (("因为", "由于"), r"(?:因为|由于)[^，。,.]{2,}"),
        (("原因", "瓶颈"), r"(?:原因|瓶颈)(?:是|在于)"),
        (("ため", "なので"), r"[^。]{2,}(?:のため|なので)"),
        (("때문",), r"때문에"),
    )
)
# Each alternative above with words one of which (lower-cased) is in every text it matches: a text without the case
# twins below is searched only with the alternatives whose words it holds (the whole pattern tried every
# alternative at every position of every statement holding any of _PREMISE_WORDS: most of RL103's `applies` on
# mudler/vllm.cpp).
_STATES_PREMISE = re.compile("|".join(rx.pattern for _, rx in _PREMISE_PARTS), re.I)
# Words one of which (lower-cased) is in every text _STATES_PREMISE matches: most statements have none, and the
# word-bounded alternatives are tried at every position of a text. A text holding one of the non-ASCII letters the
# regex's IGNORECASE also matches to an ASCII one (İ and ı: i, ſ: s) is always searched.
_PREMISE_WORDS = tuple(sorted({w for words, _ in _PREMISE_PARTS for w in words}))  # derived: never out of step
_CASE_TWINS = ("\u0130", "\u0131", "\u017f")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`(\"'])|(?<=[。！？])\s*")  # CJK full stops need no space
# A list item of a commit body starts a sentence of its own, full stop or not.
_ITEM = re.compile(r"\n\s*(?=[-*+]\s|\d{1,2}[.)]\s)")
# A statement that itself gives the thing up or denies it ("Stop: fused-norm-quant micro-levers", "X will not
# help", "not the cause"): a commit saying the same thing is wrong agrees with it, it does not refute it.
_DENIES = re.compile(
    r"^\W*(?:\d+[.)]\s*)?\W*(?:stop|drop|abandon|shelve|skip|avoid|deprioriti[sz]e|do not|don't|never)\b"
    r"|\b(?:will not|won't|does not|doesn't|did not|didn't|cannot|can't) help\b|\bnot worth\b|\bdead[- ]end\b"
    r"|\bno (?:win|gain|benefit)\b|\bruled out\b|\b(?:refuted|disproven|disproved|debunked)\b"
    r"|\bnot the (?:cause|bottleneck|problem|culprit|issue)\b|\bnot worth pursuing\b",
    re.I,
)
# ... unless the commit takes the denial back: "helps after all", "dropped prematurely".
_REVERSES = re.compile(
    r"\bafter all\b|\b(?:does|did|do) help\b|\bpremature(?:ly)?\b|\b(?:revive|reinstat|resurrect|reopen)\w*", re.I
)
MIN_TERMS = 3


def _sentences(paragraph: str) -> list[str]:
    return [s.strip() for item in _ITEM.split(paragraph) for s in _SENTENCE.split(" ".join(item.split())) if s.strip()]


def _anchors(st: Statement, news: News) -> tuple[set[str], set[str]]:
    """What a refutation must name to be about this statement: (dates, figures). Dates are its as-of date
    and the dates it quotes; figures are the numbers it quotes ("497", "20.975")."""
    dates = set(st.mentions.dates)
    if news.kind == "date" and news.base:
        dates.add(news.base)
    figures = {f.text.split()[0].rstrip("x%") for f in st.mentions.figures if any(ch.isdigit() for ch in f.text)}
    # The record's own number ("0007-wal-group-commit.md": a commit saying "design 0007's motivation" names it).
    figures |= set(re.findall(r"(?<![\d.])\d{3,5}(?![\d.])", st.path.rsplit("/", 1)[-1].split(".")[0])[:1])
    # A one-digit figure ("2 ms") is said by too many sentences to tie one to this statement.
    return {d for d in dates if d}, {f for f in figures if f and (len(f.replace(".", "")) >= 2)}


@lru_cache(maxsize=4096)
def _value_re(v: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(v)}(?![\w-]|\.\d)")


def _names(text: str, values: set[str]) -> bool:
    return any(v in text and _value_re(v).search(text) for v in values)  # a substring first: cheap


# A refuting sentence that names its subject only by pointing back at what came before it: "The premise was
# wrong", "That assumption turned out false", "This was misattributed".
_POINTS_BACK = re.compile(
    r"^\W*(?:(?:so|but|and|thus|hence)\W+)?(?:(?:the|that|this|our|its|their|which)\s+(?:\w+\s+)?"
    r"(?:premise|assumption|hypothes[ie]s|theory|idea|attribution|claim|reasoning|rationale|diagnosis|explanation|"
    r"motivation|belief|guess|conclusion|reading)\b|(?:that|this|it|which)\s+(?:is|was|turned|proved)\b)",
    re.I,
)


# A sentence whose refuting verb takes a pronoun for its object ("nsys on both sides refuted that before a line
# of it was written") speaks of the sentence before it; its own words are the instrument, not what was wrong.
_REFUTES_WHAT_CAME_BEFORE = re.compile(
    r"\b(?:refut(?:es|ed|ing)|disprov(?:es|ed|ing)|contradict(?:s|ed|ing)|debunk(?:s|ed|ing))\s+"
    r"(?:that|this|it|them|those|these)\b(?!\s+(?:the|a|an|\w+ing)\b)",
    re.I,
)


def _about(sents: list[str], k: int) -> str:
    """What refuting sentence k of a paragraph speaks of: the paragraph up to it when it points back ("The premise
    was wrong"), the sentence before it when its verb takes a pronoun ("X refuted that"), else itself."""
    s = sents[k]
    if _POINTS_BACK.match(s):
        return " ".join(sents[: k + 1])
    if k > 0 and _REFUTES_WHAT_CAME_BEFORE.search(s):
        return sents[k - 1]
    return s


@lru_cache(maxsize=MAX_COMMITS)
def _refuting(c: Commit) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The commit's paragraphs that say something was wrong, each with its sentences that say so and what each
    speaks of: the sentence itself, or, for one that points back ("The premise was wrong"), the paragraph up to
    it (the part of `_refutation` that does not depend on the statement: once per commit, not per statement)."""
    out = []
    subject, body = own_lines(c)
    for para in re.split(r"\n\s*\n", f"{subject}\n\n{body}" if body else subject):
        if refutes(para):
            sents = _sentences(para)
            found = tuple((s, _about(sents, k)) for k, s in enumerate(sents) if refutes(s))
            out.append((para, found))
    return tuple(out)


def _refutation(c: Commit, st: Statement, news: News) -> tuple[str, str, tuple[int, int] | None] | None:
    """(severity, quoted sentence, the lines of the premise it refutes when they are fewer than the statement's) when
    commit `c` refutes the statement's premise: its refuting sentence is
    about the statement's subject (not only its paragraph: a commit refutes one thing and reports others), and
    it contradicts the statement rather than agreeing with it.

    Error: the refuting sentence names the statement's row/claim and shares a work term; or it names its
    checkpoint date or a figure it quotes and shares a work term while the commit names its row/claim. Warning:
    the sentence names a quoted figure and shares two of its work terms, or (no figure) shares three.
    A date alone is never enough: every statement of a file shares its preamble's date. A statement that itself
    gives its subject up ("Stop: X", "X will not help") is agreed with, not refuted, by a commit saying X was
    wrong; it is refuted when the sentence contradicts the measurement it rests on (names a figure or date it
    quotes) or takes the denial back ("helps after all")."""
    paragraphs = _refuting(c)
    if not paragraphs:
        return None
    # A commit that quotes the statement is about it: a refuting sentence beside the quote or after it speaks of it.
    phrase = quoted_phrase(c.message, st.text)
    if phrase is not None and _reports_refutation(st.text, phrase):
        return None  # the record quotes the premise as the commit does, already saying it was wrong
    if phrase is not None:
        for para, sentences in paragraphs:
            for refuting, _ in sentences:
                if quotes(para, st.text) or _POINTS_BACK.match(refuting):
                    return "error", refuting, _premise_lines(st, phrase)
    if not _premise_by_words(st):
        return None  # a premise only by its section (an ADR's Context): only a quote ties a refutation to it
    clauses = _premise_clauses(st.text)
    if clauses:  # the refuting sentence repeats the premise's own words: "周报里说的显存不够是误判"
        for _, sentences in paragraphs:
            for quoted, sent in sentences:
                if any(cl in " ".join(sent.split()) for cl in clauses):
                    return "warning", quoted, None
    ids = set(subject_ids(st))
    names_ids = _names(c.message, ids)
    dates, figures = _anchors(st, news)
    units = _units(st)
    terms = work_terms(st)
    premise = _premise_terms(st.text)
    wordy = len(terms) > 20  # a long statement shares three words with anything: figures must tie it
    denies = _denies(st.text)
    lang = message_language(c)
    for _, sentences in paragraphs:
        for quoted, sent in sentences:
            figure = _names_figure(sent, figures, units)
            if denies and not figure and not _names(sent, dates) and not _REVERSES.search(sent):
                continue  # says the given-up thing is wrong too; only the measurement it rests on can be refuted
            said = terms_of(sent, lang)
            in_sent = len(terms & said)
            if in_sent and (_names(sent, ids) or names_ids and (_names(sent, dates) or figure)):
                return "error", quoted, None
            # a short refuting sentence mostly made of the statement's terms is about it ("So the idea that HSI48
            # is not enough accurate was wrong"), however long the statement
            focused = in_sent * 2 >= len(said)
            if figure and in_sent >= 2 or not wordy and in_sent >= MIN_TERMS and (in_sent * 3 >= len(terms) or focused):
                return "warning", quoted, None
            # the statement's sentence that states the premise ("El origen es el pool de Hikari, ...") is what a
            # refutation speaks of, whatever the observation beside it says
            in_premise = len(premise & said) if not wordy else 0
            if in_premise >= MIN_TERMS and in_premise * 3 >= len(premise):
                return "warning", quoted, None
    return None


def _reports_refutation(text: str, phrase: str) -> bool:
    """Does a sentence of the statement that holds the quoted phrase say itself that it was wrong ("a clean A/B
    DISPROVED the "~44% GPU-idle from cudaMalloc" premise")? Then the record already reports the refutation."""
    return any(holds(s, phrase) and refutes(s) for s in _sentences(text))


def _units(st: Statement) -> dict[str, set[str]]:
    """The units the statement writes each of its figures' numbers with ("44" -> {"ms"})."""
    out: dict[str, set[str]] = {}
    for f in st.mentions.figures:
        if f.unit:
            out.setdefault(f.text.split()[0].rstrip("x%"), set()).add(f.unit)
    return out


def _names_figure(sent: str, figures: set[str], units: dict[str, set[str]]) -> bool:
    """Does the sentence name one of the statement's figures, in the statement's unit where both write one? The
    same number in another unit is another figure: "~44 ms residual" is not "~44% GPU-idle"."""
    named = [v for v in figures if v in sent and _value_re(v).search(sent)]
    if not named:
        return False
    found = None
    for v in named:
        want = units.get(v)
        if not want:
            return True
        if found is None:
            found = find_figures(sent)
        try:
            number = float(v.lstrip("~+").replace("\u2212", "-"))
        except ValueError:
            return True
        theirs = {f.unit for f in found if abs(f.value - number) < 1e-9 or abs(f.value + number) < 1e-9}
        if not theirs or None in theirs or want & theirs:
            return True
    return False


def _premise_lines(st: Statement, phrase: str) -> tuple[int, int] | None:
    """The record lines of a statement of several lines that hold the premise a commit quotes (a paragraph of an
    ADR's Context gives several: the quoted one is refuted, not its neighbours), when it is no directive and they
    are fewer than its span; None otherwise."""
    if st.directive or st.end_line <= st.line:
        return None
    found = quoted_lines(phrase, st.raw)
    if found is None:
        return None
    first, last = st.line + found[0], min(st.line + found[1], st.end_line)
    return (first, last) if (first, last) != (st.line, st.end_line) else None


# The cause a statement gives, as written: "因为显存不够，..." -> 显存不够, "because the pool exhausts under retry
# storms" -> "the pool exhausts under retry storms". A sentence that repeats it word for word speaks of it.
_CAUSE_CLAUSE = re.compile(
    r"(?:因为|由于)\s*([^，。,.；;：:！？]{3,24})|\bbecause\s+(?!of\b)([^,.;:!?()]{16,100})|\bweil\s+([^,.;:!?()]{16,100})",
    re.I,
)


@lru_cache(maxsize=1 << 12)
def _premise_clauses(text: str) -> tuple[str, ...]:
    return tuple(" ".join(c.split()) for m in _CAUSE_CLAUSE.finditer(text) for c in m.groups() if c and c.strip())


@lru_cache(maxsize=1 << 12)
def _premise_terms(text: str) -> frozenset[str]:
    """The terms of the sentences of a statement of several that state its premise (a cause, a hypothesis), in
    the statement's language; empty for a statement of one sentence."""
    sentences = _sentences(text)
    if len(sentences) < 2:
        return frozenset()
    lang = text_language(text)
    return frozenset().union(*(terms_of(s, lang) for s in sentences if _states_premise(s)))


# A conclusion drawn from the premise, up to the end of its sentence: "..., so adding PP ranks doesn't help".
_CONSEQUENCE = re.compile(r"[,;:—–]\s*(?:and\s+)?(?:so|therefore|hence|thus)\s+(?!far\b)[^.!?]*", re.I)


@lru_cache(maxsize=1 << 14)
def _denies(text: str) -> bool:
    """Does the statement give its subject up? A denial it draws as a conclusion from its premise ("the bottleneck
    is X, so adding Y doesn't help") does not: refuting the premise refutes the conclusion too. Once per statement,
    not once per refuting commit: the pattern's many word-bounded alternatives are tried at every position."""
    return _DENIES.search(_CONSEQUENCE.sub(" ", text)) is not None


# The sections of a decision record that state what the decision rests on (an ADR's Context, MADR's "Context and
# Problem Statement", "Decision Drivers", a design doc's Background or Motivation): each of their statements is a
# premise, however it is worded.
_PREMISE_SECTION = re.compile(
    r"^(?:the\s+)?(?:context|background|motivation|rationale|problem(?:\s+statement)?|decision\s+drivers|"
    r"assumptions|forces)(?:\s+(?:and|&)\s+(?:the\s+)?(?:context|background|motivation|rationale|"
    r"problem(?:\s+statement)?))?$",
    re.I,
)


def applies(st: Statement) -> bool:
    """A directive, a finding that gives a cause for a figure it quotes ("slow because of X (41%)"), a statement
    of a premise: a cause, hypothesis, assumption, constraint or accepted risk with its reason, or any statement
    of a section that gives a decision's premises (Context, Background, Motivation): that one only a commit
    quoting it refutes, since a section of several premises shares its terms and figures with all of them."""
    if _premise_by_words(st):
        return True
    return st.kind != "heading" and bool(st.section) and _premise_section(st.section[-1])


def _premise_by_words(st: Statement) -> bool:
    """Is the statement a directive, a cause given for a figure, or a premise by its own words?"""
    if st.directive or bool(st.mentions.figures) and _CLAIMS_CAUSE.search(st.text) is not None:
        return True
    return st.kind != "heading" and _states_premise(st.text)


@lru_cache(maxsize=1024)
def _premise_section(title: str) -> bool:
    return _PREMISE_SECTION.match(title_of(title)) is not None


def _states_premise(text: str) -> bool:
    low = text.lower()
    if any(c in text for c in _CASE_TWINS):
        return _STATES_PREMISE.search(text) is not None
    if not any(w in low for w in _PREMISE_WORDS):
        return False
    return any(rx.search(text) is not None for words, rx in _PREMISE_PARTS if any(w in low for w in words))


COMMIT_TESTS = (("refutes", refutes, False),)  # what prepare asks of every commit message


def prepare(ctx: LintContext, statements: list[Statement]) -> None:
    """The commits that say something was refuted (what every test reads)."""
    commits_matching(ctx, "refutes", refutes)


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    taken_out = reverts(ctx)
    for c in news_subset(ctx, "refutes", lambda: commits_matching(ctx, "refutes", refutes), news):
        if taken_out.undone(c):
            continue  # reverted since (or a revert quoting it): what it said no longer stands
        hit = _refutation(c, st, news)
        if hit is None:
            continue
        severity, sentence, lines = hit
        quote = sentence if len(sentence) <= 160 else sentence[:157] + "..."
        phrase = f"on a premise {c.short} ({c.day}) refuted: \u201c{quote}\u201d"
        fix = f"remove the premise {c.short} refuted and say what it found instead"
        return Reason("RL103", severity, phrase, fix, commits=[(c, "refuted")], news=news, lines=lines)
    return None


def premise_refuted(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a directive whose premise a later commit refuted: a commit made after the directive was written
    has a sentence saying something "is wrong", "was refuted", "does not apply" or was misattributed, and
    either that paragraph names the directive's row or claim, or the sentence names the directive's
    checkpoint date or a figure it quotes while the commit names the row or claim (an error). A sentence
    naming a quoted figure in a paragraph that shares the directive's terms is a warning. A refuting sentence
    that points back ("The premise was wrong") is read with the sentences before it in its paragraph, and a
    denied cause ("is not where the loss comes from", "isn't due to") refutes too. A premise may be said either
    way round ("X is the bottleneck", "The bottleneck is X"); a denial the statement draws from it as a
    conclusion ("..., so adding PP ranks doesn't help") is not the statement giving its subject up. A commit
    that quotes the statement word for word ("ADR 0007 rests on 'SQLite can't handle our writers'") is
    about it: a refuting sentence in the quote's paragraph, or one pointing back ("So the premise does not hold"),
    is an error; so is a statement of a decision record's Context (Background, Motivation), a premise however it
    is worded, which only such a quote ties to a refutation. A quote may be wrapped over the lines of the commit
    body, in single or double quotes, or a "> " block; the finding points at the lines of the paragraph that hold
    the quoted premise. A commit that quotes a premise without saying it is wrong ("That isn't true", "was a red
    herring", "wasn't the bottleneck", "the profile says otherwise"), or that confirms it, refutes nothing. The
    refuting sentence is quoted. A commit a later commit reverted refutes nothing, and neither does the revert.

    Why:
    A directive built on a measurement that turned out wrong sends the next person after a cause that does
    not exist; the correction lives only in a commit message nobody rereads.

    Example:
    "Remove the measured main-stream wait" (from the 2026-07-25 checkpoint), and a later commit says "The
    2026-07-25 attribution of 497 cudaStreamSynchronize calls to sample_tokens_async is wrong for this
    workload".

    Fix:
    Records only: drop the refuted premise from every surface of the directive and record what the commit
    found instead.
    """
    return list(hits_for(ctx, "RL103"))
