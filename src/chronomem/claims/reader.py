"""Reading a fact as a claim, by rules (no model): about whom, which attribute, what value, yes/no.

Two sentence shapes are read, each after the subject (the entities named first):

* an attribute and a copula: "Alice's *office* is Berlin", "The *deadline* for Project Falcon is
  May 3", "ThinkPad T14 *primary interface* switched to Ethernet". The words before the verb,
  minus the entities, name the attribute; "Alice is married to Bob", "Alice is 34" and
  "Falcon is due on May 3" name one without such words.
* a verb: "Alice *lives in* Berlin", "Alice *uses* Vim", "Alice *does not like* tea".

A known functional relation (lives in, works at, married to, reports to, born on, age, an
attribute such as "phone" or "favourite colour") holds one value at a time; any other verb
(uses, likes, speaks, visited, has, is a ...) may hold several, so two of its values never
conflict and only a negation does ("likes tea" / "does not like tea"). "Uses a Pixel 9 phone"
fills the one-valued slot "phone". A category the sentence itself names ("drinks" filed under
"drink", "a pet beagle" under "pet") makes the relation one-valued; a mere topic ("tools",
"food") does not.

Values compare in normal form: case, articles, fillers ("these days", "currently"), clock times
(``10:00`` = ``10`` = ``10am``) and dates (``May 3`` = ``3rd of May``). Questions, hedges
("might", "plans to", "said") and past states ("lived in", "used to work at") make no claim a
present fact can contradict.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from chronomem.claims.values import is_clock, is_datelike, normal_value, number
from chronomem.claims.words import (
    ADVERBS,
    AUXILIARIES,
    CHANGES,
    COPULA_RELATIONS,
    HEDGES,
    IRREGULAR,
    LINKS,
    MULTI_NOUNS,
    ONE_VALUED,
    PAST_PARTICIPLES,
    PREPOSITIONS,
    QUALIFIERS,
    SLOT_NOUNS,
    SPELLING,
    STATES,
    TIME_VERBS,
    TIMELESS,
    VERBS,
)
from chronomem.text.entities import entity_key
from chronomem.text.lexicon import stem
from chronomem.text.tokens import STOP_WORDS, terms

__all__ = ["Claim", "read_claim"]


@dataclass(frozen=True)
class Claim:
    """What a fact asserts: ``subject``'s ``relation`` is (or, negated, is not) ``value``."""

    subject: str  # the entity keys named before the predicate, sorted and comma-joined
    relation: str  # "live in", "phone", "primary interface", "like", "standup @time"
    value: str  # normal-form words of the value
    negated: bool = False
    several: bool = False  # the relation may hold for several values at once


_CONTRACTIONS = (
    (re.compile(r"\b(can)'?t\b|\b(can)not\b", re.I), r"\1\2 not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b(it|he|she|that|there|who|what)'s\b", re.I), r"\1 is"),
    (re.compile(r"'re\b", re.I), " are"),
    (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"\b([ap])\.m\b\.?", re.I), r"\1m"),
)
_LONGEST_CLAIM = 400
_SENTENCE_END = re.compile(r"(?<!\b[DMS]r)(?<!\bMrs)(?<!\bProf)(?<!\bSt)[.!?]\s+(?=[A-Z])")
_TOKEN = re.compile(r"'s\b|\d{1,2}:\d{2}|\d+(?:[.,]\d+)+|\w+(?:[-'/]\w+)*|[^\w\s]")
_PUNCT = frozenset(',;.!?()[]:"')
_COPULAS = frozenset({"is", "are", "was", "were", "am"})
_DETERMINERS = frozenset({"a", "an", "the", "my", "our", "your", "his", "her", "their", "its"})
_NEGATORS = frozenset({"not", "never", "no"})
_LINKED = frozenset(head for head, _ in COPULA_RELATIONS) | PREPOSITIONS | _DETERMINERS
_PRESENT_IRREGULAR = frozenset({"has", "have", "does", "do", "goes", "is", "are", "am"})


@dataclass
class _Token:
    text: str  # as written
    low: str
    key: str | None  # the entity key when the token is part of a named entity


@dataclass
class _Reading:
    """The predicate found in a sentence and what surrounds it."""

    tokens: list[_Token]
    at: int  # index of the predicate's first token
    kind: str  # "copula" or "verb"
    width: int = 1  # tokens the predicate takes ("switched to" is two)
    negated: bool = False
    past: bool = False
    perfect: str = ""  # "has" or "had" before a participle


def read_claim(
    content: str, entity_names: Sequence[str], category: str | None = None
) -> Claim | None:
    """The claim ``content`` makes, or ``None`` when it makes none that could be contradicted."""
    text = _first_sentence(content)
    if text is None:
        return None
    tokens = _tokens(text, entity_names)
    reading = _find_predicate(tokens)
    if reading is None:
        return None
    before = _drop_descriptor(tokens[: reading.at])
    subject = ",".join(sorted({t.key for t in before if t.key}))
    attribute = _attribute([t for t in before if t.key is None])
    if reading.kind == "copula":
        claim = _copula_claim(reading, subject, attribute, before)
    else:
        claim = _verb_claim(reading, subject, attribute)
    if claim is None:
        return None
    return _apply_category(claim, reading, category)


def _first_sentence(content: str) -> str | None:
    text = unicodedata.normalize("NFKC", content)
    text = text.translate({0x2019: "'", 0x2018: "'", 0x201C: '"', 0x201D: '"'}).strip()
    if "'" in text or "." in text or "cannot" in text.lower():
        for pattern, replacement in _CONTRACTIONS:
            text = pattern.sub(replacement, text)
    if len(text) > _LONGEST_CLAIM:  # a claim is one short sentence: read no further
        text = text[:_LONGEST_CLAIM].rsplit(None, 1)[0]
    first = _SENTENCE_END.split(text, maxsplit=1)[0].strip()
    if not first or first.endswith("?"):
        return None
    return first


def _tokens(text: str, entity_names: Sequence[str]) -> list[_Token]:
    owner: dict[int, str] = {}  # character offset -> key of the entity written there
    for name in sorted({n.strip() for n in entity_names if n.strip()}, key=len, reverse=True):
        for start, end in _written_at(text, name):
            if not any(i in owner for i in range(start, end)):
                owner.update(dict.fromkeys(range(start, end), entity_key(name)))
    return [
        _Token(m.group(), m.group().lower(), owner.get(m.start())) for m in _TOKEN.finditer(text)
    ]


def _written_at(text: str, name: str) -> Iterator[tuple[int, int]]:
    """Where ``name`` is written in ``text`` as whole words, any case: (start, end) spans.

    ASCII text and names (most of them) are searched with ``str.find`` on lower case; others
    with a regular expression (Unicode case folding may change a string's length). Either
    way the same spans: a bulk import meets thousands of new names, and compiling a pattern
    for each cost more than reading the claim."""
    if not (text.isascii() and name.isascii()):
        yield from (m.span() for m in _name_pattern(name).finditer(text))
        return
    low, want = text.lower(), name.lower()
    start = low.find(want)
    while start != -1:
        end = start + len(want)
        if not (start and _is_word_char(low[start - 1])) and not (
            end < len(low) and _is_word_char(low[end])
        ):
            yield start, end
            start = low.find(want, end)  # finditer's matches never overlap
        else:
            start = low.find(want, start + 1)


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)


def _drop_descriptor(before: list[_Token]) -> list[_Token]:
    """Words right before the first entity describe it ("My colleague Ardian"), unless a
    preposition links them to it as an attribute ("the office of Alice")."""
    first = next((i for i, t in enumerate(before) if t.key is not None), 0)
    if first and before[first - 1].low not in PREPOSITIONS:
        return before[first:]
    return before


def _attribute(words: list[_Token]) -> str:
    """The attribute the words before the predicate name ("primary interface"), or ""."""
    kept = [
        SPELLING.get(t.low, t.low)
        for t in words
        if t.low not in STOP_WORDS
        and t.low not in AUXILIARIES
        and t.low not in ADVERBS
        and t.low not in _NEGATORS
        and t.low not in _PUNCT
        and t.low != "'s"
    ]
    return " ".join(terms(" ".join(kept))) if kept else ""


def _lemma(word: str) -> str:
    """A verb's stem, irregular forms included (``went`` -> ``go``, ``has`` -> ``have``)."""
    return IRREGULAR.get(word) or stem(word)


def _is_past(word: str) -> bool:
    return word.endswith("ed") or (word in IRREGULAR and word not in _PRESENT_IRREGULAR)


def _find_predicate(tokens: list[_Token]) -> _Reading | None:
    """The first copula or verb after the subject, with the negation and tense around it."""
    negated = past = False
    perfect = ""
    in_noun_phrase = False
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1].low if i + 1 < len(tokens) else ""
        if t.key is not None:
            in_noun_phrase = False
        elif t.low in HEDGES and not (t.text == "May" and i > 0):  # the month is no hedge
            return None
        elif t.low in _NEGATORS:
            negated = True
            i += nxt in ("longer", "more")
        elif t.low in ADVERBS or t.low in _PUNCT:
            pass
        elif t.low == "used" and nxt == "to":
            past = True
            i += 1
        elif t.text in _COPULAS:  # lower-case: "AM" is a time of day
            return _Reading(tokens, i, "copula", 1, negated, t.low in ("was", "were"), perfect)
        elif t.low in ("switched", "changed", "set", "switches", "changes") and nxt == "to":
            return _Reading(tokens, i, "copula", 2, negated, False, perfect)
        elif t.low in ("became", "becomes", "equals", "=") or (t.low == ":" and i > 0):
            return _Reading(tokens, i, "copula", 1, negated, False, perfect)
        elif t.low in ("do", "does", "did") and _helps(tokens, i):
            past = past or t.low == "did"
        elif t.low in ("has", "have", "had") and _helps(tokens, i):
            perfect = "had" if t.low == "had" else "has"
        elif t.low == "been" and perfect:
            if nxt == "to":  # "has been to Paris": a visit
                return _Reading(tokens, i, "verb", 1, negated, True, perfect)
            if not (nxt.endswith(("ing", "ed")) or nxt in PAST_PARTICIPLES):
                return _Reading(tokens, i, "copula", 1, negated, perfect == "had", perfect)
        elif t.low == "can":
            pass
        elif _is_verb(tokens, i, in_noun_phrase):
            return _Reading(tokens, i, "verb", 1, negated, past or _is_past(t.low), perfect)
        else:
            in_noun_phrase = True
        i += 1
    return None


def _helps(tokens: list[_Token], i: int) -> bool:
    """Whether do/have at ``i`` is an auxiliary: a negation, participle or verb follows."""
    for t in tokens[i + 1 : i + 4]:
        if t.low in _NEGATORS or t.low in ADVERBS or t.low in ("longer", "more"):
            continue
        if tokens[i].low in ("do", "does", "did"):
            return _lemma(t.low) in VERBS
        return t.low == "been" or t.low.endswith("ed") or t.low in PAST_PARTICIPLES
    return False


def _is_verb(tokens: list[_Token], i: int, in_noun_phrase: bool) -> bool:
    t = tokens[i]
    if not t.text[:1].islower() or not t.low.isalpha() or t.low.endswith("ing"):
        return False  # a finite verb is lower-case and never a bare -ing form ("meeting")
    if any(u.text in _COPULAS for u in tokens[i + 1 : i + 4]):
        return False  # "ThinkPad T14 interfaces are ...": a noun before the verb
    inflected = t.low.endswith(("s", "ed")) and not t.low.endswith(("ss", "us", "is"))
    known = _lemma(t.low) in VERBS
    if in_noun_phrase or (i > 0 and tokens[i - 1].low in ("'s", *_DETERMINERS)):
        return inflected
    return known or (inflected and i > 0 and tokens[i - 1].key is not None)


def _copula_claim(r: _Reading, subject: str, attribute: str, before: list[_Token]) -> Claim | None:
    j = r.at + r.width
    negated = r.negated
    while j + 1 < len(r.tokens) and (
        r.tokens[j].low in ADVERBS | _NEGATORS | {"longer"}
        or (r.tokens[j].low.endswith("ly") and r.tokens[j + 1].low in _LINKED)
    ):  # "is not", "is no longer", "is originally from", "is happily married to"
        negated = negated or r.tokens[j].low in _NEGATORS
        j += 1
    if j >= len(r.tokens):
        return None
    if not attribute:
        return _bare_copula(r, j, subject, negated)
    relation = QUALIFIERS.get(attribute, attribute)
    qualifier = [t for t in before if t.key is None and t.low not in _PUNCT]
    several = _several_attribute(attribute, qualifier, r.tokens[r.at].low)
    rest = r.tokens[j:]
    if rest[0].low in LINKS:
        rest = rest[1:]
    if rest and rest[0].low in ("called", "named"):
        relation, rest = relation + " name", rest[1:]
    elif rest and rest[0].low in PREPOSITIONS:
        prep, rest = rest[0].low, rest[1:]
        value = normal_value([t.low for t in rest], after_at=prep == "at")
        if value is not None and relation == attribute and not is_datelike(value):
            relation += " " + prep  # "office is in Berlin" is not "office is Berlin"
        return _finish(subject, relation, value, negated, several, r.past)
    return _finish(subject, relation, normal_value([t.low for t in rest]), negated, several, r.past)


def _bare_copula(r: _Reading, j: int, subject: str, negated: bool) -> Claim | None:
    """ "Alice is married to Bob", "Alice is 34", "Falcon is due on May 3", "Alice is a chef"."""
    head = r.tokens[j].low
    nxt = r.tokens[j + 1].low if j + 1 < len(r.tokens) else None
    found = COPULA_RELATIONS.get((head, nxt)) or COPULA_RELATIONS.get((head, None))
    if found is not None:
        relation, several = found
        skip = 2 if (head, nxt) in COPULA_RELATIONS else 1
        value = normal_value([t.low for t in r.tokens[j + skip :]])
        if relation == "born in" and value is not None:
            if is_datelike(value):
                relation = "born on"
            elif re.fullmatch(r"\d{4}", value):
                relation = "born year"
        return _finish(subject, relation, value, negated, several, r.past)
    if head.endswith("ing") and _lemma(head) in VERBS:  # "is living in", "is using"
        moved = _Reading(r.tokens, j, "verb", 1, negated, r.past, r.perfect)
        return _verb_claim(moved, subject, "")
    rest = [t.low for t in r.tokens[j + 1 :]]
    if head.isdigit() and all(w in ("years", "year", "old", "of", "age", ".") for w in rest):
        return _finish(subject, "age", head, negated, False, r.past)
    return _finish(
        subject, "be", normal_value([t.low for t in r.tokens[j:]]), negated, True, r.past
    )


def _verb_claim(r: _Reading, subject: str, attribute: str) -> Claim | None:
    word = r.tokens[r.at].low
    base = stem("visit") if word == "been" else _lemma(word)
    nxt = r.tokens[r.at + 1].low if r.at + 1 < len(r.tokens) else ""
    prep = nxt if nxt in PREPOSITIONS else None
    rest = r.tokens[r.at + 1 + (prep is not None) :]
    if prep == "from" and base in CHANGES:  # "moved from Porto to Lisbon"
        to = next((k for k, t in enumerate(rest) if t.low == "to"), None)
        prep, rest = ("to", rest[to + 1 :]) if to is not None else (prep, rest)
    negated = r.negated
    if rest and rest[0].low == "no":
        negated, rest = True, rest[1:]
    value = normal_value([t.low for t in rest], after_at=prep == "at")
    if value is None:
        return None
    known = VERBS.get(base, {})
    relation = known.get(prep) or known.get(None) or (base if prep is None else f"{base} {prep}")
    if relation.startswith("-"):  # "hates": the negation of "likes"
        relation, negated = relation[1:], not negated
    several = relation not in ONE_VALUED
    words = value.split()
    if is_clock(value):  # "starts at 10", "leaves at 9:40": the time of one event
        relation, several = ("" if base in TIME_VERBS else base), False
    elif relation in ("use", "carry") and len(words) > 1 and words[-1] in SLOT_NOUNS:
        relation, value, several = SLOT_NOUNS[words[-1]], " ".join(words[:-1]), False
    elif relation == "have" and len(words) > 1 and number(words[0]) is not None:
        # "has 16 GB of RAM", "has two kids": how many, one count per thing counted
        relation, value, several = (
            "have " + " ".join(terms(" ".join(words[1:]))),
            number(words[0]) or "",
            False,
        )
    if relation == "age":  # "turned 35 this year"
        value = words[0] if words[0].isdigit() else ""
    past = r.past and base not in CHANGES
    if r.perfect and relation in STATES:
        past = r.perfect == "had"  # "has lived in Berlin since 2019" is the present
    relation = f"{attribute} {relation}".strip() or "event"
    return _finish(subject, relation, value, negated, several, past)


def _several_attribute(attribute: str, qualifier: list[_Token], copula: str) -> bool:
    words = set(attribute.split())
    if {"favourite", "main", "primary", "current", "only", "best"} & words:
        return False
    if qualifier and qualifier[0].low in ("a", "an", "another", "one"):
        return True  # "a friend of Alice is Bob", "one of her hobbies is chess"
    heads = [t.low for t in qualifier if t.low not in STOP_WORDS]
    head = heads[-1] if heads else ""
    return head in MULTI_NOUNS or (copula in ("are", "were") and head.endswith("s"))


def _finish(
    subject: str, relation: str, value: str | None, negated: bool, several: bool, past: bool
) -> Claim | None:
    if not relation.strip() or not value:
        return None
    if is_clock(value):
        relation += " @time"  # "standup is at 10:00" and "standup starts at 10" agree
    if past and relation not in TIMELESS:
        relation, several = relation + " @past", True  # past values accumulate
    return Claim(subject, relation.strip(), value, negated, several)


def _apply_category(claim: Claim, r: _Reading, category: str | None) -> Claim:
    """A category the sentence itself names marks the one attribute it fills.

    "Alice has a pet beagle" filed under "pet", or "Alice drinks espresso" under "drink" (a
    verb without a preposition), is that attribute's one value. A category the sentence does
    not name word for word ("tools" for "Alice uses Vim", "pets" for "a pet beagle") is a
    topic: the relation stays one of several values.
    """
    if category is None or not claim.several or claim.relation.endswith("@past"):
        return claim
    named = set(re.findall(r"\w+", category.lower()))
    words = claim.value.split()
    kept = [w for w in words if w not in named]
    verb = r.tokens[r.at].low
    verb_named = (
        r.kind == "verb" and " " not in claim.relation and (verb in named or _lemma(verb) in named)
    )
    if verb_named or (kept and len(kept) < len(words)):
        return Claim(claim.subject, claim.relation, " ".join(kept), claim.negated, False)
    return claim
