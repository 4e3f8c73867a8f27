"""The word lists the claim reader (:mod:`._claims`) works from.

Kept apart from the rules so the vocabulary can grow without touching them. Verbs are keyed by
their stem (:func:`._lexicon.stem`, Porter2), as the reader looks them up.
"""

from __future__ import annotations

from chronomem.text.lexicon import stem
from chronomem.text.tokens import terms

__all__ = [
    "ADVERBS",
    "AUXILIARIES",
    "CHANGES",
    "COPULA_RELATIONS",
    "CUT_WORDS",
    "FILLERS",
    "HEDGES",
    "IRREGULAR",
    "LINKS",
    "MULTI_NOUNS",
    "ONE_VALUED",
    "PAST_PARTICIPLES",
    "PREPOSITIONS",
    "QUALIFIERS",
    "SLOT_NOUNS",
    "SPELLING",
    "STATES",
    "TIMELESS",
    "TIME_VERBS",
    "VERBS",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ADVERBS = _words(
    """also still now currently really usually often always sometimes actually just only already
    recently finally officially mostly definitely certainly indeed clearly apparently even
    presently generally normally mainly primarily truly happily originally"""
)

# Before the predicate they make the sentence something other than a present assertion.
HEDGES = _words(
    """might may could would should will shall must maybe perhaps probably possibly likely
    allegedly supposedly reportedly want wants wanted plan plans planning hope hopes hoped
    intend intends intended going wish wishes considering consider considers think thinks
    believe believes believed say says said claim claims claimed heard hear wonder wonders
    wondered ask asks asked if whether unless suppose supposes try tries tried"""
)

AUXILIARIES = _words("used longer more been can do does did has have had")

_IRREGULAR_FORMS = {
    "have": "has had having",
    "do": "does did done",
    "go": "went gone goes",
    "speak": "spoke spoken",
    "eat": "ate eaten",
    "drink": "drank drunk",
    "drive": "drove driven",
    "write": "wrote written",
    "know": "knew known",
    "teach": "taught",
    "buy": "bought",
    "sell": "sold",
    "leave": "left",
    "meet": "met",
    "lead": "led",
    "run": "ran",
    "begin": "began begun",
    "become": "became",
    "see": "saw seen",
    "wear": "wore worn",
    "keep": "kept",
    "make": "made",
    "take": "took taken",
    "get": "got gotten",
    "grow": "grew grown",
    "fly": "flew flown",
    "swim": "swam swum",
    "sing": "sang sung",
    "ride": "rode ridden",
    "come": "came",
    "hold": "held",
    "lose": "lost",
    "win": "won",
    "pay": "paid",
    "build": "built",
    "find": "found",
    "bring": "brought",
    "spend": "spent",
    "be": "is are was were am been",
}
IRREGULAR: dict[str, str] = {
    form: stem(base) for base, forms in _IRREGULAR_FORMS.items() for form in forms.split()
}
PAST_PARTICIPLES = _words(
    """done gone spoken eaten drunk driven written known taught bought sold left met led run
    begun become seen worn kept made taken got gotten grown flown swum sung ridden come held
    lost won paid built found brought spent been had"""
)

PREPOSITIONS = _words("in at for to on with from by about into of")

# Relations that hold one value at a time; every other relation may hold several.
ONE_VALUED = _words("live_in work_at study_at manager married_to engaged_to from salary weight age")
ONE_VALUED = frozenset(w.replace("_", " ") for w in ONE_VALUED) | {"@time", "born on", "born in"}
ONE_VALUED |= {"born year", "deadline", "phone", "laptop", "car", "name"}
STATES = frozenset({"live in", "work at", "study at", "married to", "manager"})
TIMELESS = frozenset({"born on", "born in", "born year", "visit", "from"})

_VERB_TABLE: dict[str, dict[str | None, str]] = {
    "live": {"in": "live in", "at": "live in"},
    "reside": {"in": "live in"},
    "move": {"to": "live in"},
    "relocate": {"to": "live in"},
    "work": {"at": "work at", "for": "work at"},
    "study": {"at": "study at"},
    "report": {"to": "manager"},
    "marry": {None: "married to"},
    "come": {"from": "from"},
    "earn": {None: "salary"},
    "weigh": {None: "weight"},
    "turn": {None: "age"},
    "start": {"at": "@time"},
    "begin": {"at": "@time"},
    "like": {None: "like"},
    "love": {None: "like"},
    "enjoy": {None: "like"},
    "adore": {None: "like"},
    "hate": {None: "-like"},
    "dislike": {None: "-like"},
    "detest": {None: "-like"},
    "loathe": {None: "-like"},
    "despise": {None: "-like"},
    "own": {None: "have"},
    "have": {None: "have"},
    "visit": {None: "visit"},
    "go": {"to": "visit"},
    "travel": {"to": "visit"},
}
_OTHER_VERBS = """use carry speak play read watch know drink eat cook write build manage lead run
    support attend wear collect follow join leave need drive ride teach sing listen fix deploy
    maintain host rent buy sell prefer hold keep lose win bake paint draw code develop design
    test review handle organise organize mentor coach train practise practice volunteer sponsor
    fund invest care sit stay commute belong meet call help create see hear do grow make take
    get fly swim find bring spend become jam"""
VERBS: dict[str, dict[str | None, str]] = {stem(v): {} for v in _OTHER_VERBS.split()}
VERBS |= {stem(verb): relations for verb, relations in _VERB_TABLE.items()}

# "The standup starts at 10" and "the standup is at 10" name one time; "leaves at" another.
TIME_VERBS = frozenset(stem(v) for v in ("start", "begin", "happen", "occur", "take"))

# A past tense of these still states the present ("moved to Paris": lives there now).
CHANGES = frozenset(stem(v) for v in ("move", "relocate", "turn", "marry"))

# After a bare copula: "is married to", "was born in", "is from", "is due on".
COPULA_RELATIONS: dict[tuple[str, str | None], tuple[str, bool]] = {
    ("married", "to"): ("married to", False),
    ("engaged", "to"): ("engaged to", False),
    ("based", "in"): ("live in", False),
    ("located", "in"): ("live in", False),
    ("living", "in"): ("live in", False),
    ("employed", "at"): ("work at", False),
    ("employed", "by"): ("work at", False),
    ("born", "in"): ("born in", False),
    ("born", "on"): ("born on", False),
    ("from", None): ("from", False),
    ("fluent", "in"): ("speak", True),
    ("allergic", "to"): ("allergic to", True),
    ("interested", "in"): ("interested in", True),
    ("friends", "with"): ("friends with", True),
    ("due", "on"): ("deadline", False),
    ("due", "by"): ("deadline", False),
    ("due", None): ("deadline", False),
    ("called", None): ("name", False),
    ("named", None): ("name", False),
}
# Words between an attribute's copula and its value: "the standup is *scheduled for* 10:00".
LINKS = _words("scheduled planned booked due set")

# Attribute wordings that name a relation a verb also states (after terms(): crude stems).
_QUALIFIERS = {
    "home": "live in",
    "home city": "live in",
    "city": "live in",
    "residence": "live in",
    "employer": "work at",
    "workplace": "work at",
    "spouse": "married to",
    "husband": "married to",
    "wife": "married to",
    "manager": "manager",
    "boss": "manager",
    "birthday": "born on",
    "date birth": "born on",
    "birth date": "born on",
    "birthdate": "born on",
    "mobile": "phone",
    "mobile phone": "phone",
    "cell phone": "phone",
    "smartphone": "phone",
    "due date": "deadline",
}
# Keyed as the reader sees an attribute: after terms() ("boss" reads "bos").
QUALIFIERS = {" ".join(terms(wording)): relation for wording, relation in _QUALIFIERS.items()}
SPELLING = {"favorite": "favourite", "color": "colour", "neighbor": "neighbour", "gray": "grey"}

# Attribute heads that name one of several ("Alice's friend is Bob" does not exclude Carl).
MULTI_NOUNS = _words(
    """friend friends colleague colleagues coworker coworkers neighbour neighbours hobby hobbies
    child children kid kids son sons daughter daughters sibling siblings brother brothers sister
    sisters cousin cousins pet pets client clients customer customers teammate teammates skill
    skills interest interests tool tools"""
)
# "uses a Pixel 9 phone": the device someone uses is one slot.
SLOT_NOUNS = {
    "phone": "phone",
    "smartphone": "phone",
    "mobile": "phone",
    "handset": "phone",
    "laptop": "laptop",
    "car": "car",
}

# A value ends at the first of these (after at least one word of it).
CUT_WORDS = _words(
    """and but because since until till as while when where who which whereas although though
    during every each after before from for with via unless so if whose than"""
)
FILLERS = (
    "these days",
    "nowadays",
    "right now",
    "at the moment",
    "at present",
    "anymore",
    "any more",
    "currently",
    "now",
    "today",
    "still",
    "again",
    "too",
    "also",
    "already",
    "fluently",
    "daily",
    "a lot",
    "very much",
    "so much",
    "years old",
    "year old",
)
