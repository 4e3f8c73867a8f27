"""The seeded graded-data generator: eight tiers of questions over one shared corpus.

Every system under test ingests the same event stream (adds, then updates) and answers the same
questions. Each question knows which facts answer it and which facts would be *ghost beliefs*
(superseded, or not valid at the asked time). The data is a pure function of the seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .vocab import FIRST_NAMES, PERSON_ATTRIBUTES, PROJECT_ATTRIBUTES, PROJECTS, SURNAMES, Attribute

__all__ = [
    "TIERS",
    "Case",
    "Corpus",
    "Event",
    "GradedFact",
    "generate",
    "synthetic_facts",
]

TIERS = (
    "exact",
    "paraphrase",
    "multi-fact",
    "supersession",
    "as-of",
    "contradiction",
    "multi-hop",
    "distractors",
)

_GREEK = ("Alpha", "Beta", "Gamma", "Delta", "Sigma", "Omega", "Kappa", "Zeta")
_T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
_T_OLD = datetime(2024, 2, 1, tzinfo=timezone.utc)
_T_NEW = datetime(2025, 3, 1, tzinfo=timezone.utc)
_AS_OF = datetime(2024, 9, 1, tzinfo=timezone.utc)
DEFAULT_BUDGET = 120
TIGHT_BUDGET = 24
TOP_K = 5


@dataclass(frozen=True)
class GradedFact:
    """One fact: its sentence is its identity (every sentence in a corpus is unique)."""

    content: str
    entity: str
    category: str
    entities: tuple[str, ...]
    valid_from: datetime
    source: str = "user"


@dataclass(frozen=True)
class Event:
    """Ingest ``fact``; when ``replaces`` is set, ``fact`` supersedes that earlier fact."""

    fact: GradedFact
    replaces: GradedFact | None = None


@dataclass(frozen=True)
class Case:
    """One question with its answer key."""

    tier: str
    query: str
    relevant: frozenset[str]
    ghosts: frozenset[str] = frozenset()
    as_of: datetime | None = None
    budget: int = DEFAULT_BUDGET
    k: int = TOP_K


@dataclass
class Corpus:
    """The event stream every system ingests, and the cases it is graded on."""

    events: list[Event] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)

    def facts(self) -> Iterator[GradedFact]:
        """Every fact ever ingested, in ingestion order."""
        return (e.fact for e in self.events)


class _World:
    """Hands out fresh entity names so no two cases talk about the same person or project."""

    def __init__(self, rng: random.Random) -> None:
        people = [f"{f} {s}" for f in FIRST_NAMES for s in SURNAMES]
        projects = [f"{p} {g}" for p in PROJECTS for g in _GREEK]
        rng.shuffle(people)
        rng.shuffle(projects)
        self.rng = rng
        self._people = iter(people)
        self._projects = iter(projects)
        self._used: set[str] = set()

    def person(self) -> str:
        name = next(self._people)
        while name in self._used:
            name = next(self._people)
        self._used.add(name)
        return name

    def claim(self, name: str) -> bool:
        """Reserve a specific name (a look-alike); False if some case already uses it."""
        if name in self._used:
            return False
        self._used.add(name)
        return True

    def project(self) -> str:
        return next(self._projects)


def _fact(attr: Attribute, entity: str, value: str, *, when: datetime = _T0) -> GradedFact:
    text = attr.statement.format(e=entity, v=value)
    return GradedFact(text, entity, attr.name, (entity,), when)


def _profile(world: _World, entity: str, attrs: tuple[Attribute, ...]) -> dict[str, GradedFact]:
    return {a.name: _fact(a, entity, world.rng.choice(a.values)) for a in attrs}


def _two_values(rng: random.Random, attr: Attribute) -> tuple[str, str]:
    first, second = rng.sample(attr.values, 2)
    return first, second


def _lookup(world: _World, tier: str, adds: list[Event]) -> Case:
    """exact / paraphrase: one attribute of a person with a full profile."""
    person = world.person()
    profile = _profile(world, person, PERSON_ATTRIBUTES)
    adds.extend(Event(f) for f in profile.values())
    attr = world.rng.choice(PERSON_ATTRIBUTES)
    template = attr.exact if tier == "exact" else attr.paraphrase
    return Case(tier, template.format(e=person), frozenset({profile[attr.name].content}))


def _multi_fact(world: _World, adds: list[Event]) -> Case:
    person = world.person()
    profile = _profile(world, person, PERSON_ATTRIBUTES)
    adds.extend(Event(f) for f in profile.values())
    a, b = world.rng.sample(PERSON_ATTRIBUTES, 2)
    query = f"{a.exact.format(e=person)} {b.exact.format(e=person)}"
    return Case("multi-fact", query, frozenset({profile[a.name].content, profile[b.name].content}))


def _changed_fact(
    world: _World, adds: list[Event], updates: list[Event]
) -> tuple[str, GradedFact, GradedFact]:
    """A new person whose one attribute changes later: (query, old fact, new fact)."""
    person = world.person()
    profile = _profile(world, person, PERSON_ATTRIBUTES)
    attr = world.rng.choice(PERSON_ATTRIBUTES)
    old_value, new_value = _two_values(world.rng, attr)
    old = _fact(attr, person, old_value, when=_T_OLD)
    new = _fact(attr, person, new_value, when=_T_NEW)
    profile[attr.name] = old
    adds.extend(Event(f) for f in profile.values())
    updates.append(Event(new, replaces=old))
    return attr.exact.format(e=person), old, new


def _supersession(world: _World, adds: list[Event], updates: list[Event]) -> Case:
    query, old, new = _changed_fact(world, adds, updates)
    return Case(
        "supersession",
        query,
        frozenset({new.content}),
        ghosts=frozenset({old.content}),
    )


def _as_of(world: _World, adds: list[Event], updates: list[Event]) -> Case:
    query, old, new = _changed_fact(world, adds, updates)
    # Asked about a time before the move: the old value is the answer, the new one a ghost.
    return Case(
        "as-of",
        query,
        frozenset({old.content}),
        ghosts=frozenset({new.content}),
        as_of=_AS_OF,
    )


def _contradiction(world: _World, adds: list[Event]) -> Case:
    person = world.person()
    profile = _profile(world, person, PERSON_ATTRIBUTES)
    attr = world.rng.choice(PERSON_ATTRIBUTES)
    one, other = _two_values(world.rng, attr)
    first = _fact(attr, person, one)
    second = GradedFact(
        attr.statement.format(e=person, v=other),
        person,
        attr.name,
        (person,),
        _T0,
        source="colleague",
    )
    profile[attr.name] = first
    adds.extend(Event(f) for f in profile.values())
    adds.append(Event(second))
    # Neither side was retracted: a good memory shows both so the conflict can be resolved.
    return Case(
        "contradiction", attr.exact.format(e=person), frozenset({first.content, second.content})
    )


def _multi_hop(world: _World, adds: list[Event]) -> Case:
    person, project = world.person(), world.project()
    adds.extend(Event(f) for f in _profile(world, person, PERSON_ATTRIBUTES).values())
    project_facts = _profile(world, project, PROJECT_ATTRIBUTES)
    adds.extend(Event(f) for f in project_facts.values())
    link = GradedFact(
        f"{person} works on project {project}.", person, "assignment", (person, project), _T0
    )
    adds.append(Event(link))
    attr = world.rng.choice(PROJECT_ATTRIBUTES)
    query = f"What is the {attr.name} of the project {person} works on?"
    return Case("multi-hop", query, frozenset({link.content, project_facts[attr.name].content}))


def _distractors(world: _World, adds: list[Event]) -> Case:
    """Many near-identical sentences about look-alike people, and a budget for about one fact."""
    first, last = world.person().split(" ", 1)
    target = f"{first} {last}"
    attr = world.rng.choice(PERSON_ATTRIBUTES)
    answer = _fact(attr, target, world.rng.choice(attr.values))
    adds.append(Event(answer))
    adds.extend(
        Event(f) for a, f in _profile(world, target, PERSON_ATTRIBUTES).items() if a != attr.name
    )
    lookalikes = [f"{first} {s}" for s in world.rng.sample(SURNAMES, 6)]
    lookalikes += [f"{f} {last}" for f in world.rng.sample(FIRST_NAMES, 6)]
    for other in [name for name in lookalikes if world.claim(name)][:10]:
        adds.append(Event(_fact(attr, other, world.rng.choice(attr.values))))
    return Case(
        "distractors", attr.exact.format(e=target), frozenset({answer.content}), budget=TIGHT_BUDGET
    )


def _background(world: _World, count: int, adds: list[Event]) -> None:
    for _ in range(count):
        adds.extend(Event(f) for f in _profile(world, world.person(), PERSON_ATTRIBUTES).values())
    for _ in range(max(1, count // 5)):
        adds.extend(Event(f) for f in _profile(world, world.project(), PROJECT_ATTRIBUTES).values())


def generate(*, seed: int, cases_per_tier: int, background_people: int) -> Corpus:
    """Build the corpus: shuffled adds first, then the updates (they happen later in time)."""
    world = _World(random.Random(seed))
    adds: list[Event] = []
    updates: list[Event] = []
    cases: list[Case] = []
    for _ in range(cases_per_tier):
        cases.append(_lookup(world, "exact", adds))
        cases.append(_lookup(world, "paraphrase", adds))
        cases.append(_multi_fact(world, adds))
        cases.append(_supersession(world, adds, updates))
        cases.append(_as_of(world, adds, updates))
        cases.append(_contradiction(world, adds))
        cases.append(_multi_hop(world, adds))
        cases.append(_distractors(world, adds))
    _background(world, background_people, adds)
    world.rng.shuffle(adds)
    world.rng.shuffle(updates)
    _dedupe_check(adds + updates)
    return Corpus(events=adds + updates, cases=cases)


def _dedupe_check(events: list[Event]) -> None:
    seen: set[str] = set()
    for event in events:
        if event.fact.content in seen:
            raise AssertionError(f"generator produced a duplicate sentence: {event.fact.content}")
        seen.add(event.fact.content)


def synthetic_facts(count: int, *, seed: int) -> Iterator[GradedFact]:
    """``count`` distinct facts for the scaling runs (numbered entities keep them unique)."""
    rng = random.Random(seed)
    attrs = PERSON_ATTRIBUTES + PROJECT_ATTRIBUTES
    for i in range(count):
        attr = attrs[i % len(attrs)]
        if attr in PROJECT_ATTRIBUTES:
            entity = f"{rng.choice(PROJECTS)} {i // len(attrs)}"
        else:
            entity = f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)} {i // len(attrs)}"
        yield _fact(attr, entity, rng.choice(attr.values))


def scaling_queries(count: int, *, seed: int, population: int) -> list[str]:
    """Questions about entities that exist in a scaling database of ``population`` facts."""
    rng = random.Random(seed + 1)
    facts = list(synthetic_facts(min(population, 5_000), seed=seed))
    attrs = {a.name: a for a in PERSON_ATTRIBUTES + PROJECT_ATTRIBUTES}
    picked = rng.sample(facts, min(count, len(facts)))
    return [attrs[f.category].exact.format(e=f.entity) for f in picked]
