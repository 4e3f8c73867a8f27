"""The benchmark's own small world: names, attributes and the sentences that state them.

Kept apart from the unit tests' fixtures on purpose: nothing here was chosen by looking at how
chronomem ranks, and the paraphrases were written before any system was measured on them.
"""

from __future__ import annotations

from dataclasses import dataclass


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


__all__ = [
    "FIRST_NAMES",
    "PERSON_ATTRIBUTES",
    "PROJECTS",
    "PROJECT_ATTRIBUTES",
    "SURNAMES",
    "Attribute",
]

FIRST_NAMES = _words(
    "Alice Bruno Carla Dmitri Elena Farid Greta Hiro Ines Jonas Kavya Liam Mara Nadia Omar "
    "Priya Quentin Rosa Samir Tess Umar Vera Wen Ximena Yusuf Zoe Anika Bastian Chiara Diego "
    "Esther Felix Gaia Hugo Ivana Jakob Keiko Luca Mina Noor"
)

SURNAMES = _words(
    "Moreno Tanaka Okafor Lindqvist Petrov Haddad Novak Silva Kowalski Brennan Castillo Duarte "
    "Eriksen Fischer Gallo Horvat Ibrahim Jensen Kaur Laurent Marsh Nakamura Oliveira Park "
    "Quinn Rossi Sato Tremblay Urban Varga Weber Xu Yamada Zeller Abbott Becker Costa Dubois "
    "Engel Fontaine"
)

PROJECTS = _words(
    "Falcon Harbor Juniper Quartz Meridian Lantern Cobalt Orchid Tundra Beacon Saffron Granite "
    "Willow Nimbus Topaz Aurora Cedar Ember Glacier Horizon Ivory Jasper Kestrel Lotus Magnet "
    "Nova Onyx Pioneer Raven Sierra"
)


@dataclass(frozen=True)
class Attribute:
    """One kind of fact: how it is said, asked plainly, and asked in other words."""

    name: str
    statement: str  # "{e}" the entity, "{v}" the value
    exact: str  # a question reusing the statement's own words
    paraphrase: str  # the same question with none of the statement's predicate words
    values: tuple[str, ...]


def _values(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


PERSON_ATTRIBUTES = (
    Attribute(
        "city",
        "{e} lives in {v}.",
        "Which city does {e} live in?",
        "Where is {e} based these days?",
        _values("Lisbon, Nairobi, Osaka, Montreal, Krakow, Bogota, Tallinn, Porto, Hanoi, Accra"),
    ),
    Attribute(
        "employer",
        "{e} works at {v}.",
        "Which company does {e} work at?",
        "Who is paying {e}'s salary?",
        _values("Acme Robotics, Northwind Bank, Globex Foods, Initech Labs, Umbrella Health"),
    ),
    Attribute(
        "drink",
        "{e} drinks {v} every morning.",
        "What does {e} drink every morning?",
        "Which beverage should I bring {e} for breakfast?",
        _values("green tea, espresso, oat latte, hot chocolate, sparkling water, chai"),
    ),
    Attribute(
        "phone",
        "{e} uses a {v} phone.",
        "Which phone does {e} use?",
        "What handset does {e} carry around?",
        _values("Pixel 9, iPhone 16, Galaxy S25, Fairphone 5, Xperia 10"),
    ),
    Attribute(
        "pet",
        "{e} has a pet {v}.",
        "What pet does {e} have?",
        "Which animal shares a home with {e}?",
        _values("beagle, tabby cat, parrot, tortoise, goldfish, ferret"),
    ),
    Attribute(
        "language",
        "{e} speaks {v} with family.",
        "Which language does {e} speak with family?",
        "In what tongue does {e} talk to relatives?",
        _values("Portuguese, Swahili, Japanese, Polish, Tagalog, Greek, Finnish"),
    ),
)

PROJECT_ATTRIBUTES = (
    Attribute(
        "deadline",
        "Project {e} deadline is {v}.",
        "What is the deadline of project {e}?",
        "When must {e} ship?",
        _values("March 3, April 14, May 30, June 9, July 21, August 2, September 18"),
    ),
    Attribute(
        "budget",
        "Project {e} budget is {v}.",
        "What is the budget of project {e}?",
        "How much money can {e} spend?",
        _values("40k EUR, 120k EUR, 75k USD, 2 million JPY, 300k USD"),
    ),
    Attribute(
        "stack",
        "Project {e} is written in {v}.",
        "Which language is project {e} written in?",
        "What does the {e} team code with?",
        _values("Rust, Go, TypeScript, Python, Kotlin, Elixir"),
    ),
)
