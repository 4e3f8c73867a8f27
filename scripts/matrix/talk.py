"""Seeded conversations for the cost matrix: turns that read like people talking.

Two friends chat in dated sessions: news ("I finally went to the pottery class in Lisbon
last weekend."), questions, replies and plans, drawn from templates over word lists with a
long tail of made-up names (restaurants, pets, books), so the terms follow the skewed
frequencies of real speech: a few words in every other turn, most in a handful. Nothing here
comes from LoCoMo or any other data set. Each turn keeps the words it was built from, so a
question about it can be asked the way LoCoMo's are ("When did Mara go to the pottery
class?").
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from .vocab import FIRST_NAMES

__all__ = ["Turn", "conversation_queries", "turns"]


def _list(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


_ACTIVITIES = _list(
    "pottery class, salsa lesson, climbing gym, book club, farmers market, jazz concert, "
    "charity run, support group, art gallery, cooking workshop, yoga retreat, camping trip, "
    "museum tour, film festival, choir rehearsal, volunteer shift at the shelter, job fair, "
    "swimming lesson, photography walk, board game night, wine tasting, science fair, "
    "language exchange, garden party, open mic night, pride parade, beach cleanup, "
    "marathon training, dentist appointment, parent-teacher meeting, baking contest"
)
_PLACES = _list(
    "Lisbon, the old harbour, Kemang, the city park, my cousin's place, the lake, Osaka, "
    "the library downtown, the mountains, Montreal, the community centre, the beach, "
    "Krakow, the new mall, the countryside, Nairobi, the river trail, the school gym"
)
_WHEN = _list(
    "yesterday, last weekend, last Friday, two days ago, this morning, last month, "
    "on Sunday, the week before, a few days ago, last night, over the holidays"
)
_LATER = _list(
    "next weekend, tomorrow, next month, this summer, on Saturday, after the holidays, "
    "in a couple of weeks, before the end of the year"
)
_FEELINGS = _list(
    "nervous, excited, exhausted, proud, a bit lonely, relieved, inspired, stressed, "
    "grateful, overwhelmed, hopeful, restless"
)
_TOPICS = _list(
    "the new job, the adoption process, the wedding plans, the move, the painting project, "
    "the kids' school, the running routine, the garden, the thesis, the band, grandma's "
    "health, the renovation, the diet, the startup, the guitar lessons, the road trip"
)
_THINGS = _list(
    "a vintage camera, a sunflower painting, a used bike, a pair of hiking boots, "
    "a ceramic vase, a telescope, a bread maker, a stack of comics, a handmade necklace, "
    "a violin, a tent, a sketchbook, a puzzle of the night sky"
)
_PEOPLE = _list(
    "my sister, my mom, my dad, my best friend, my coworker, my neighbour, my kids, "
    "my partner, my brother, my roommate, my mentor, my grandma"
)
_REACTIONS = (
    "That's amazing!",
    "Oh wow!",
    "That sounds lovely.",
    "I'm so happy for you!",
    "No way!",
    "That must have been hard.",
    "Good for you!",
    "That's really cool.",
    "Aww, that's sweet.",
)
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]

_NEWS = (
    "I went to the {activity} {when} and it was {feeling_word}.",
    "I finally went to the {activity} in {place} {when}.",
    "{when_cap} I took {person} to {name}'s, the new place near {place}.",
    "I've been feeling {feeling} about {topic} lately.",
    "I bought {thing} {when}; it reminds me of {place}.",
    "Our dog {name} ran off at {place} {when}, we found him an hour later!",
    "I just finished reading '{title}', it made me think about {topic}.",
    "{person_cap} and I are planning to go to the {activity} {later}.",
    "I signed up for the {activity} {later}, I'm {feeling} about it.",
    "We spent the day at {place} {when}, {person} loved it.",
    "I got {thing} for {person}'s birthday {when}.",
    "Work has been crazy, so I skipped the {activity} {when}.",
)
_QUESTIONS = (
    "How did the {activity} go?",
    "Did {person} like {place}?",
    "What made you want to try the {activity}?",
    "Are you still working on {topic}?",
    "Where did you find {thing}?",
    "When are you going back to {place}?",
)
_REPLIES = (
    "{reaction} How did you feel afterwards?",
    "{reaction} I'd love to join you next time.",
    "{reaction} Tell me more about {topic}.",
    "Thanks! It was {feeling_word}, honestly.",
    "Yes, we're going again {later}.",
    "Not yet, {person} is still deciding.",
    "{reaction} I remember you mentioned {topic} before.",
)
_ASK = (
    "When did {speaker} go to the {activity}?",
    "What did {speaker} buy {when}?",
    "How does {speaker} feel about {topic}?",
    "Where did {speaker} go with {person}?",
    "What is {speaker} planning to do {later}?",
)


@dataclass(frozen=True)
class Turn:
    """One turn: what was said, by whom, in which session and when, and its slot words."""

    content: str
    speaker: str
    session: str
    at: datetime
    slots: tuple[tuple[str, str], ...]


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


def _slots(rng: random.Random) -> dict[str, str]:
    when, feeling = rng.choice(_WHEN), rng.choice(_FEELINGS)
    person = rng.choice(_PEOPLE)
    return {
        "activity": rng.choice(_ACTIVITIES),
        "place": rng.choice(_PLACES),
        "when": when,
        "when_cap": when[0].upper() + when[1:],
        "later": rng.choice(_LATER),
        "feeling": feeling,
        "feeling_word": rng.choice(("wonderful", "intense", "so much fun", "a bit awkward")),
        "topic": rng.choice(_TOPICS),
        "thing": rng.choice(_THINGS),
        "person": person,
        "person_cap": person[0].upper() + person[1:],
        "reaction": rng.choice(_REACTIONS),
        "name": _name(rng),
        "title": f"The {_name(rng)} of {_name(rng)}",
    }


def turns(count: int, *, seed: int, turns_per_session: int = 24) -> Iterator[Turn]:
    """``count`` turns: pairs of friends in sessions a few days apart, news then replies."""
    rng = random.Random(seed)
    start = datetime(2023, 1, 2, 9, 0, tzinfo=timezone.utc)
    made, number = 0, 0
    while made < count:
        a, b = rng.sample(FIRST_NAMES, 2)
        day = start + timedelta(days=number % 900, minutes=number // 900)
        session = f"{a} and {b}, {day:%Y-%m-%d} chat {number}"
        number += 1
        for i in range(min(turns_per_session, count - made)):
            speaker = (a, b)[i % 2]
            templates = (_NEWS, _QUESTIONS, _REPLIES)[rng.choices((0, 1, 2), (5, 2, 3))[0]]
            slots = _slots(rng)
            text = rng.choice(templates).format(**slots)
            moment = day + timedelta(minutes=i)
            yield Turn(text, speaker, session, moment, (("speaker", speaker), *slots.items()))
            made += 1


def conversation_queries(sample: list[Turn], *, seed: int) -> list[str]:
    """One LoCoMo-style question per turn of ``sample``, built from that turn's own words."""
    rng = random.Random(seed)
    return [rng.choice(_ASK).format(**dict(t.slots)) for t in sample]
