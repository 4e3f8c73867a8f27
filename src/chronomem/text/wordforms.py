"""Word forms that Porter2 leaves apart: derivations, irregular verbs, numbers, compounds.

Porter2 strips inflections, but "allergic" (``allerg``) and "allergies" (``allergi``), "broke"
and "broken", "3" and "three" stay different terms, so a question in one form misses a turn in
the other. :func:`fold` and :func:`base_form` bring such forms to one term; the lexicon
(text/lexicon.py) applies them to the index and the query alike, so both always agree.

Every rule is narrow on purpose: folding too much merges words that only look alike
("organ"/"organic", "class"/"classic", "general"/"generation"), and a merged term matches
turns about something else. The rules only touch stems long enough that the cut leaves a
recognisable root, and each one was measured on the LoCoMo development set
(``scripts/eval_locomo.py``).
"""

from __future__ import annotations

__all__ = ["NUMBERS", "base_form", "fold", "without_days"]

# Past tenses and participles that no suffix rule reaches, by their base. Left out on purpose:
# forms that are also common words of their own ("saw", "rose", "left", "ground", "lay",
# "bore", "wound", "fell", "lead"), which would pull in turns about a tool, a flower or a side.
_IRREGULAR_VERBS = """
    arise arose arisen; awake awoke awoken; be was were been; bear born borne; beat beaten;
    become became; begin began begun; bend bent; bet; bite bit bitten; bleed bled; blow blew
    blown; break broke broken; breed bred; bring brought; build built; burn burnt; buy bought;
    catch caught; choose chose chosen; come came; cost; creep crept; cut; deal dealt; dig dug;
    do did done; draw drew drawn; dream dreamt; drink drank drunk; drive drove driven; eat ate
    eaten; feed fed; feel felt; fight fought; find found; flee fled; fly flew flown; forbid
    forbade forbidden; forget forgot forgotten; forgive forgave forgiven; freeze froze frozen;
    get got gotten; give gave given; go went gone; grow grew grown; hang hung; have had; hear
    heard; hide hid hidden; hit; hold held; hurt; keep kept; kneel knelt; know knew known; lend
    lent; let; light lit; lose lost; make made; mean meant; meet met; pay paid; put; quit; read;
    ride rode ridden; ring rang rung; rise risen; run ran; say said; see seen; seek sought;
    sell sold; send sent; set; shake shook shaken; shine shone; shoot shot; show shown; shrink
    shrank shrunk; shut; sing sang sung; sink sank sunk; sit sat; sleep slept; slide slid;
    speak spoke spoken; spend spent; spin spun; split; spread; stand stood; steal stole stolen;
    stick stuck; sting stung; strike struck; swear swore sworn; sweep swept; swim swam swum;
    swing swung; take took taken; teach taught; tear tore torn; tell told; think thought; throw
    threw thrown; understand understood; wake woke woken; wear wore worn; weep wept; win won;
    write wrote written
"""

_BASE = {
    form: forms.split()[0] for forms in _IRREGULAR_VERBS.split(";") for form in forms.split()[1:]
}

# Numbers as words and as digits meet on the digits: "three kids" / "3 kids".
_NUMBER_WORDS = """zero one two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen twenty"""
# "one" is left out: it is a pronoun as often as a number ("the blue one"), and as "1" it met
# every "1 May" in a question.
_TENS = "thirty forty fifty sixty seventy eighty ninety"
NUMBERS = (
    {w: str(i) for i, w in enumerate(_NUMBER_WORDS.split()) if w != "one"}
    | {w: str(10 * i) for i, w in enumerate(_TENS.split(), 3)}
    | {"hundred": "100", "thousand": "1000", "dozen": "12"}
)

# Stems that end like a derivation but are words of their own ("organ" + "ic" is not "organic").
_KEEP = frozenset("organic classic famili emili lili".split())  # noqa: SIM905 -- prose list

# The -y nouns whose adjective ends in -ic (allergy/allergic, economy/economic,
# photography/photographic, strategy/strategic): Greek-derived endings. Other -y nouns are
# left alone: "injury" folded to "injur" meets "injured", and measured, that costs more than
# it brings.
_GREEK_Y = ("gi", "mi", "phi")

# The shortest root a fold may leave: "allerg" (6) folds, "part" + "i" (party) does not.
_MIN_ROOT = 5


def base_form(word: str) -> str:
    """The base of an irregular verb form ("broke", "broken" -> "break"), a number word's
    digits ("three" -> "3"), else ``word`` itself (lower-case in, lower-case out)."""
    return NUMBERS.get(word) or _BASE.get(word, word)


def fold(stem: str) -> str:
    """A Porter2 stem with its derivational ending folded: ``allergi`` (allergy, allergies)
    and ``allergic`` both become ``allerg``; ``happili`` (happily) becomes ``happi``."""
    if stem in _KEEP:
        return stem
    if stem.endswith("ili") and len(stem) >= 6:  # -ily adverbs: happili -> happi, easili -> easi
        stem = stem[:-2]
    if stem.endswith("ic") and len(stem) - 2 >= _MIN_ROOT:  # histor-ic, athlet-ic
        return stem[:-2]
    if stem.endswith(_GREEK_Y) and len(stem) - 1 >= _MIN_ROOT:  # allerg-i (allergy), econom-i
        return stem[:-1]
    return stem


_MONTHS = frozenset(
    """january february march april may june july august september october november
    december""".split()  # noqa: SIM905 -- prose list
)


def _is_day(words: list[str], i: int) -> bool:
    if not (words[i].isdigit() and len(words[i]) <= 2):
        return False
    return (i > 0 and words[i - 1] in _MONTHS) or words[i + 1 : i + 2] in [[m] for m in _MONTHS]


def without_days(words: list[str]) -> list[str]:
    """``words`` without the day number of a date ("on 3 June", "August 3"): the date is the
    date prior's to match (see recall/lexical.py); as a term the day met every "three" in
    passing."""
    return [w for i, w in enumerate(words) if not _is_day(words, i)]
