"""A labelled set of fact pairs that contradict each other or do not, and how chronomem scores.

Each pair is two facts a user might store one after the other, with the label a careful reader
would give and the category a careful user would file both under. The pairs are generated from
templates (deterministic for a seed) so that one relation is stated in several phrasings:

* one-valued attributes (lives in, works at, phone, birthday, spouse, favourite X, age, a
  meeting time, manager, a device's interface, a deadline, origin): two values contradict;
  the same value spelled differently (10:00 / 10, May 3 / 3rd of May, Wi-Fi / WiFi) does not;
* relations that may hold several values (uses, likes, speaks, visited, has, plays, is a, works
  on, knows): two values do not contradict;
* negations: "X" against "not X" contradicts, "X" against "not Y" and two denials do not;
* other subjects, other attributes, past states, hedges and questions: no contradiction.

``evaluate`` stores every pair in a fresh memory and compares ``remember(...).contradicts`` and
``contradictions()`` with the label.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from chronomem import ChronoMem

__all__ = ["PAIRS", "Pair", "Score", "evaluate", "generate"]


@dataclass(frozen=True)
class Pair:
    """Two facts, whether they contradict, what kind of case it is, and a fitting category."""

    first: str
    second: str
    contradicts: bool
    kind: str
    category: str


@dataclass(frozen=True)
class Relation:
    """One relation: how it is stated and denied, its values and each value's other spellings."""

    category: str
    states: tuple[str, ...]  # "{s}" the subject, "{v}" the value
    denies: tuple[str, ...]
    values: tuple[str, ...]
    spellings: dict[str, tuple[str, ...]]
    subjects: tuple[str, ...] = ()  # default: PEOPLE


PEOPLE = (
    "Ardian", "Alice Moreau", "Bruno Tanaka", "Chen Wei", "Dana Okafor", "Emeka Silva",
    "Farah Haddad", "Goran Petrov", "Hana Kowalski", "Ines Duarte", "Jonas Berg", "Kofi Mensah",
    "Lena Fischer", "Mateo Ramos", "Nadia Rossi", "Priya Nair", "Rosa Lindqvist", "Samir Khan",
)  # fmt: skip
PARTNERS = ("Bob Lee", "Carl Jensen", "Dewi Lestari", "Omar Haddad", "Yusuf Demir")
CITIES = ("Berlin", "Paris", "Lisbon", "Osaka", "Nairobi", "New York", "Buenos Aires", "Kemang")
TEAMS = ("Falcon", "Orion", "Kestrel", "Juniper", "Cobalt")
DEVICES = ("ThinkPad T14", "Dell XPS 13", "MacBook Air M2", "Surface Pro 9")

ONE_VALUED: tuple[Relation, ...] = (
    Relation(
        "city",
        ("{s} lives in {v}.", "{s} lives in {v} now.", "{s} currently lives in {v}.",
         "{s} is living in {v}.", "{s} resides in {v}.", "{s} is based in {v}.",
         "{s} moved to {v}.", "{s} has lived in {v} since 2019.", "{s}'s home is in {v}.",
         "{s} lives in {v} with her partner."),
        ("{s} does not live in {v}.", "{s} doesn't live in {v} anymore.",
         "{s} no longer lives in {v}.", "{s} isn't living in {v}."),
        CITIES,
        {"New York": ("new york",), "Kemang": ("kemang",)},
    ),
    Relation(
        "employer",
        ("{s} works at {v}.", "{s} works for {v}.", "{s} is employed at {v}.",
         "{s} is employed by {v}.", "{s}'s employer is {v}.", "{s} is working at {v}.",
         "{s} works at {v} as a designer.", "{s} has worked at {v} since 2021."),
        ("{s} does not work at {v}.", "{s} doesn't work for {v}.", "{s} no longer works at {v}."),
        ("Acme Robotics", "Globex", "Initech", "Northwind Bank", "Umbrella Health", "Gojek"),
        {"Globex": ("GLOBEX",), "Initech": ("initech",)},
    ),
    Relation(
        "phone",
        ("{s}'s phone is a {v}.", "{s} uses a {v} phone.", "The phone of {s} is a {v}.",
         "{s}'s phone is a {v} these days.", "{s}'s mobile is a {v}."),
        ("{s}'s phone is not a {v}.", "{s}'s phone isn't a {v}.",
         "{s} does not use a {v} phone."),
        ("Pixel 9", "iPhone 16", "Galaxy S25", "Fairphone 5", "Xperia 10"),
        {"iPhone 16": ("iphone 16", "IPhone 16"), "Galaxy S25": ("Galaxy S-25", "galaxy s25")},
    ),
    Relation(
        "birthday",
        ("{s}'s birthday is {v}.", "{s}'s birthday is on {v}.", "{s} was born on {v}.",
         "{s}'s date of birth is {v}."),
        ("{s}'s birthday is not {v}.", "{s}'s birthday isn't on {v}."),
        ("May 3", "June 14", "March 9", "October 21", "December 1"),
        {
            "May 3": ("3 May", "May 3rd", "the 3rd of May", "3rd May"),
            "June 14": ("14 June", "June 14th", "the 14th of June"),
            "October 21": ("21 October", "Oct 21", "October 21st"),
        },
    ),
    Relation(
        "spouse",
        ("{s} is married to {v}.", "{s}'s spouse is {v}.", "{s} married {v}.",
         "{s} has been married to {v} since 2015."),
        ("{s} is not married to {v}.", "{s} isn't married to {v}."),
        PARTNERS,
        {"Bob Lee": ("bob lee",)},
    ),
    Relation(
        "favourite colour",
        ("{s}'s favourite colour is {v}.", "{s}'s favorite color is {v}.",
         "The favourite colour of {s} is {v}.", "{s}'s favourite colour is {v} these days."),
        ("{s}'s favourite colour is not {v}.", "{s}'s favorite color isn't {v}."),
        ("blue", "green", "red", "yellow", "purple"),
        {"blue": ("Blue", "BLUE")},
    ),
    Relation(
        "favourite food",
        ("{s}'s favourite food is {v}.", "{s}'s favorite food is {v}.",
         "The favourite food of {s} is {v}."),
        ("{s}'s favourite food is not {v}.",),
        ("sushi", "pizza", "rendang", "ramen", "dal"),
        {"sushi": ("Sushi",)},
    ),
    Relation(
        "age",
        ("{s} is {v} years old.", "{s} is {v}.", "{s}'s age is {v}.", "{s} turned {v} this year."),
        ("{s} is not {v} years old.", "{s} is not {v}."),
        ("29", "34", "41", "57"),
        {},
    ),
    Relation(
        "schedule",
        ("The {s} standup is at {v}.", "The {s} standup starts at {v}.",
         "{s} standup is at {v}.", "The {s} standup is scheduled for {v}."),
        ("The {s} standup is not at {v}.",),
        ("10:00", "11:30", "14:30", "9:15", "16:00"),
        {
            "10:00": ("10", "10am", "10 a.m.", "10:00 AM", "10.00"),
            "14:30": ("2:30pm", "2:30 PM", "14.30", "2.30 p.m."),
            "9:15": ("09:15", "9.15", "9:15 am"),
            "16:00": ("4pm", "4 p.m.", "16.00", "4 PM"),
        },
        TEAMS,
    ),
    Relation(
        "manager",
        ("{s} reports to {v}.", "{s}'s manager is {v}.", "{s}'s boss is {v}."),
        ("{s} does not report to {v}.", "{s}'s manager is not {v}."),
        PARTNERS,
        {},
    ),
    Relation(
        "network",
        ("{s} primary interface is {v}.", "{s} primary interface switched to {v}.",
         "{s}'s primary interface is {v}."),
        ("{s} primary interface is not {v}.",),
        ("Wi-Fi", "Ethernet", "LTE", "Thunderbolt dock"),
        {"Wi-Fi": ("WiFi", "wifi", "Wi-fi")},
        DEVICES,
    ),
    Relation(
        "deadline",
        ("Project {s} deadline is {v}.", "The deadline for Project {s} is {v}.",
         "Project {s} is due on {v}.", "Project {s} is due {v}."),
        ("Project {s} deadline is not {v}.",),
        ("May 30", "April 14", "July 21", "September 18"),
        {"May 30": ("30 May", "May 30th", "the 30th of May"), "July 21": ("21 July", "Jul 21")},
        TEAMS,
    ),
    Relation(
        "origin",
        ("{s} is from {v}.", "{s} comes from {v}.", "{s} is originally from {v}."),
        ("{s} is not from {v}.", "{s} doesn't come from {v}."),
        ("Spain", "Japan", "Indonesia", "Brazil", "Kenya", "Poland"),
        {},
    ),
)  # fmt: skip

SEVERAL_VALUED: tuple[Relation, ...] = (
    Relation(
        "tools",
        ("{s} uses {v}.", "{s} uses {v} every day.", "{s} is using {v}.", "{s} uses {v} for work."),
        ("{s} does not use {v}.", "{s} doesn't use {v}.", "{s} no longer uses {v}.",
         "{s} never uses {v}."),
        ("Vim", "Docker", "Slack", "Figma", "Git", "Jira", "Emacs", "Notion"),
        {},
    ),
    Relation(
        "food",
        ("{s} likes {v}.", "{s} loves {v}.", "{s} enjoys {v}.", "{s} really likes {v}."),
        ("{s} does not like {v}.", "{s} doesn't like {v}.", "{s} dislikes {v}.", "{s} hates {v}."),
        ("tea", "sushi", "jazz", "hiking", "rendang", "dark chocolate", "spicy food"),
        {},
    ),
    Relation(
        "language",
        ("{s} speaks {v}.", "{s} speaks {v} fluently.", "{s} can speak {v}.",
         "{s} is fluent in {v}."),
        ("{s} does not speak {v}.", "{s} can't speak {v}.", "{s} doesn't speak {v}."),
        ("Spanish", "Japanese", "Bahasa Indonesia", "Portuguese", "German", "Swahili"),
        {},
    ),
    Relation(
        "travel",
        ("{s} visited {v}.", "{s} has visited {v}.", "{s} visited {v} last year.",
         "{s} has been to {v}."),
        ("{s} has never visited {v}.", "{s} never visited {v}.", "{s} has never been to {v}."),
        ("Paris", "Kyoto", "Lisbon", "Cape Town", "Bali", "Reykjavik"),
        {},
    ),
    Relation(
        "pets",
        ("{s} has a {v}.", "{s} owns a {v}.", "{s} has a pet {v}."),
        ("{s} does not have a {v}.", "{s} doesn't own a {v}.", "{s} has no {v}."),
        ("dog", "cat", "parrot", "tortoise", "rabbit"),
        {},
    ),
    Relation(
        "hobbies",
        ("{s} plays {v}.", "{s} plays {v} on weekends.", "{s} often plays {v}."),
        ("{s} does not play {v}.", "{s} doesn't play {v}.", "{s} never plays {v}."),
        ("chess", "tennis", "the guitar", "badminton", "football"),
        {},
    ),
    Relation(
        "role",
        ("{s} is a {v}.", "{s} is now a {v}.", "{s} also is a {v}."),
        ("{s} is not a {v}.", "{s} is no longer a {v}.", "{s} isn't a {v}."),
        ("manager", "runner", "vegetarian", "volunteer", "parent", "mentor"),
        {},
    ),
    Relation(
        "projects",
        ("{s} works on {v}.", "{s} is working on {v}.", "{s} works on {v} with the platform team."),
        ("{s} does not work on {v}.", "{s} no longer works on {v}."),
        ("Project Falcon", "Project Orion", "the billing service", "the mobile app"),
        {},
    ),
    Relation(
        "skills",
        ("{s} knows {v}.", "{s} knows {v} well."),
        ("{s} does not know {v}.", "{s} doesn't know {v}."),
        ("Python", "Rust", "SQL", "Kotlin", "French cooking"),
        {},
    ),
)  # fmt: skip

# Statements about a relation that do not assert its present value: no contradiction with it.
NOT_PRESENT: dict[str, tuple[str, ...]] = {
    "city": ("{s} lived in {v}.", "{s} used to live in {v}.", "{s} might move to {v}.",
             "{s} plans to move to {v}.", "Does {s} live in {v}?", "{s} wants to live in {v}.",
             "If {s} moves to {v}, she will need a visa.", "{s} said she would move to {v}."),
    "employer": ("{s} worked at {v} until 2020.", "{s} used to work at {v}.",
                 "{s} may join {v} next year.", "Does {s} work at {v}?",
                 "{s} is thinking about working at {v}."),
    "spouse": ("{s} was married to {v}.", "{s} will marry {v} in June."),
    "phone": ("{s}'s old phone was a {v}.", "{s} wants a {v} phone.", "Is {s}'s phone a {v}?"),
}  # fmt: skip


def _spell(relation: Relation, value: str, rng: random.Random) -> str:
    return rng.choice((value, *relation.spellings.get(value, ())))


def _article(text: str) -> str:
    """Fix "a" before a vowel sound in generated text ("a iPhone" -> "an iPhone")."""
    words = text.split(" ")
    for i in range(len(words) - 1):
        if words[i] in ("a", "A") and words[i + 1][:1].lower() in "aeiou":
            words[i] = words[i] + "n"
    return " ".join(words)


def _say(template: str, subject: str, value: str) -> str:
    return _article(template.format(s=subject, v=value))


def _one_valued(rel: Relation, rng: random.Random, n: int) -> Iterator[Pair]:
    subjects = rel.subjects or PEOPLE
    for _ in range(n):
        s, other = rng.sample(subjects, 2)
        v, w = rng.sample(rel.values, 2)
        a, b = rng.choice(rel.states), rng.choice(rel.states)
        cat = rel.category
        yield Pair(_say(a, s, _spell(rel, v, rng)), _say(b, s, _spell(rel, w, rng)), True,
                   "one value: two values", cat)  # fmt: skip
        respelled = rng.choice((v, *rel.spellings.get(v, ())))
        yield Pair(_say(a, s, v), _say(b, s, respelled), False, "one value: same value", cat)
        yield Pair(
            _say(a, s, v), _say(rng.choice(rel.denies), s, v), True, "negation: X / not X", cat
        )
        yield Pair(
            _say(rng.choice(rel.denies), s, v), _say(b, s, v), True, "negation: not X / X", cat
        )
        yield Pair(_say(a, s, v), _say(rng.choice(rel.denies), s, w), False,
                   "negation: X / not Y", cat)  # fmt: skip
        yield Pair(_say(rng.choice(rel.denies), s, v), _say(rng.choice(rel.denies), s, w), False,
                   "negation: not X / not Y", cat)  # fmt: skip
        yield Pair(_say(a, s, v), _say(b, other, w), False, "other subject", cat)


def _several_valued(rel: Relation, rng: random.Random, n: int) -> Iterator[Pair]:
    for _ in range(n):
        s, other = rng.sample(PEOPLE, 2)
        v, w = rng.sample(rel.values, 2)
        a, b = rng.choice(rel.states), rng.choice(rel.states)
        cat = rel.category
        yield Pair(_say(a, s, v), _say(b, s, w), False, "several values: two values", cat)
        yield Pair(_say(a, s, v), _say(b, s, v), False, "several values: same value", cat)
        yield Pair(
            _say(a, s, v), _say(rng.choice(rel.denies), s, v), True, "negation: X / not X", cat
        )
        yield Pair(
            _say(rng.choice(rel.denies), s, v), _say(b, s, v), True, "negation: not X / X", cat
        )
        yield Pair(_say(a, s, v), _say(rng.choice(rel.denies), s, w), False,
                   "negation: X / not Y", cat)  # fmt: skip
        yield Pair(
            _say(rng.choice(rel.denies), s, v), _say(b, other, v), False, "other subject", cat
        )


def _mixed(rng: random.Random, n: int) -> Iterator[Pair]:
    """Another attribute of the same subject, and statements that assert no present value."""
    by_category = {r.category: r for r in ONE_VALUED}
    people = [r for r in ONE_VALUED if not r.subjects]
    for _ in range(n):
        s = rng.choice(PEOPLE)
        one, two = rng.sample(people, 2)
        yield Pair(_say(rng.choice(one.states), s, rng.choice(one.values)),
                   _say(rng.choice(two.states), s, rng.choice(two.values)), False,
                   "other attribute", one.category)  # fmt: skip
        category = rng.choice(sorted(NOT_PRESENT))
        rel = by_category[category]
        v, w = rng.sample(rel.values, 2)
        yield Pair(_say(rng.choice(NOT_PRESENT[category]), s, v), _say(rel.states[0], s, w), False,
                   "past, hedge or question", category)  # fmt: skip
        brother = _say(rng.choice(("{s}'s brother lives in {v}.", "{s}'s manager lives in {v}.")),
                       s, rng.choice(CITIES))  # fmt: skip
        yield Pair(brother, _say("{s} lives in {v}.", s, rng.choice(CITIES)), False,
                   "someone else's attribute", "city")  # fmt: skip


# Cases named in issue 10, item 10, word for word where the issue gives the words.
NAMED = (
    Pair("Alice uses Vim.", "Alice uses Docker.", False, "named in the issue", "tools"),
    Pair("Alice likes tea.", "Alice likes sushi.", False, "named in the issue", "food"),
    Pair("Alice speaks Spanish.", "Alice speaks Japanese.", False, "named in the issue",
         "language"),
    Pair("The Falcon meeting is at 10:00.", "The Falcon meeting is at 10.", False,
         "named in the issue", "schedule"),
    Pair("Ardian lives in Berlin.", "Ardian lives in Paris.", True, "named in the issue", "city"),
    Pair("Ardian's phone is a Pixel 9.", "Ardian's phone is not a Pixel 9.", True,
         "named in the issue", "phone"),
    Pair("My phone is a Pixel 9.", "My phone is not a Pixel 9.", True, "named in the issue",
         "phone"),
    Pair("Ardian lives in Berlin.", "Ardian lives in Berlin, Germany.", False,
         "named in the issue", "city"),
)  # fmt: skip


# Written by hand, not from templates: phrasings the rules were not written around, including
# cases they are known to miss (a first clause only, a subject behind a title, world knowledge).
HANDWRITTEN = (
    Pair("Ardian lives in Berlin and works at Gojek.", "Ardian lives in Paris.", True,
         "handwritten", "city"),
    Pair("Ardian lives in Berlin and works at Gojek.", "Ardian works at Globex.", True,
         "handwritten", "employer"),
    Pair("My colleague Ardian lives in Berlin.", "Ardian lives in Paris.", True, "handwritten",
         "city"),
    Pair("ardian lives in berlin", "ardian lives in paris", True, "handwritten", "city"),
    Pair("Ardian is staying in Berlin this week.", "Ardian lives in Paris.", False, "handwritten",
         "city"),
    Pair("The Falcon standup happens at 10:00.", "The Falcon standup is at 11:00.", True,
         "handwritten", "schedule"),
    Pair("The Falcon standup happens at 10:00.", "The Falcon standup is at 10 am.", False,
         "handwritten", "schedule"),
    Pair("Project Falcon budget is 40k EUR.", "Project Falcon budget is 40,000 EUR.", False,
         "handwritten", "budget"),
    Pair("Project Falcon budget is 40k EUR.", "Project Falcon budget is 75k EUR.", True,
         "handwritten", "budget"),
    Pair("Alice's dog is brown.", "Alice's dog is called Rex.", False, "handwritten", "pets"),
    Pair("Alice's dog is called Rex.", "Alice's dog is named Max.", True, "handwritten", "pets"),
    Pair("Alice's office is big.", "Alice's office is bright.", False, "handwritten", "office"),
    Pair("Alice's office is in Berlin.", "Alice's office is in Munich.", True, "handwritten",
         "office"),
    Pair("Alice is a vegetarian.", "Alice eats meat every day.", True, "handwritten", "diet"),
    Pair("Alice likes tea but not coffee.", "Alice likes coffee.", True, "handwritten", "food"),
    Pair("Alice drinks coffee.", "Alice drinks tea.", False, "handwritten", "food"),
    Pair("Alice doesn't drink coffee.", "Alice drinks coffee every morning.", True,
         "handwritten", "food"),
    Pair("Alice has two kids.", "Alice has a dog.", False, "handwritten", "family"),
    Pair("Alice's brother is Tom.", "Alice's brother is Sam.", False, "handwritten", "family"),
    Pair("A friend of Alice is Bob Lee.", "A friend of Alice is Carl Jensen.", False,
         "handwritten", "people"),
    Pair("Alice's husband is Bob Lee.", "Alice is married to Carl Jensen.", True, "handwritten",
         "spouse"),
    Pair("Alice is married.", "Alice is single.", True, "handwritten", "spouse"),
    Pair("Alice Moreau's email is alice@example.com.", "Alice Moreau's email is am@acme.io.",
         True, "handwritten", "contact"),
    Pair("Alice Moreau's phone number is 555-0100.", "Alice Moreau's phone is a Pixel 9.", False,
         "handwritten", "contact"),
    Pair("Alice Moreau's phone number is 555-0100.", "Alice Moreau's phone number is 555-0199.",
         True, "handwritten", "contact"),
    Pair("ThinkPad T14 runs Ubuntu 24.04.", "ThinkPad T14 runs Fedora 40.", False,
         "handwritten", "laptop"),
    Pair("The ThinkPad T14 has 16 GB of RAM.", "The ThinkPad T14 has 32 GB of RAM.", True,
         "handwritten", "laptop"),
    Pair("Ardian's flight to Tokyo leaves at 9:40.", "Ardian's flight to Tokyo leaves at 21:40.",
         True, "handwritten", "travel"),
    Pair("Ardian visited Kyoto in 2019.", "Ardian has never been to Kyoto.", True, "handwritten",
         "travel"),
    Pair("Ardian visited Kyoto in 2019.", "Ardian did not visit Kyoto in 2021.", False,
         "handwritten", "travel"),
    Pair("Ardian is allergic to peanuts.", "Ardian is allergic to shellfish.", False,
         "handwritten", "health"),
    Pair("Ardian is allergic to peanuts.", "Ardian is not allergic to peanuts.", True,
         "handwritten", "health"),
    Pair("Ardian prefers window seats.", "Ardian prefers aisle seats.", True, "handwritten",
         "travel"),
    Pair("Ardian's favourite editor is Vim.", "Ardian uses Emacs at work.", False,
         "handwritten", "tools"),
    Pair("Dana Okafor leads the Search team.", "Dana Okafor leads the Payments team.", False,
         "handwritten", "work"),
    Pair("Dana Okafor is the lead of the Search team.", "Bob Lee is the lead of the Search team.",
         False, "handwritten", "work"),
    Pair("The Search team's lead is Dana Okafor.", "The Search team's lead is Bob Lee.", True,
         "handwritten", "work"),
    Pair("Dana Okafor will move to Lisbon in May.", "Dana Okafor lives in Porto.", False,
         "handwritten", "city"),
    Pair("Dana Okafor moved from Porto to Lisbon.", "Dana Okafor lives in Porto.", True,
         "handwritten", "city"),
    Pair("Dana Okafor was born in Lagos.", "Dana Okafor was born in Accra.", True, "handwritten",
         "origin"),
    Pair("Dana Okafor was born in 1990.", "Dana Okafor was born in Lagos.", False,
         "handwritten", "origin"),
)  # fmt: skip


# Written after the rules were tuned on everything above, labelled before they were run on it:
# the fairest estimate of how the rules do on phrasing they were not shaped by.
HELD_OUT = tuple(
    Pair(first, second, label == "T", "held out", category)
    for first, second, label, category in (
        ("Kofi Mensah lives in Accra.", "Kofi Mensah resides in Kumasi.", "T", "city"),
        ("Kofi Mensah is based in Accra.", "Kofi Mensah lives in Lagos now.", "T", "city"),
        ("Kofi Mensah works as a nurse at Korle Bu Hospital.", "Kofi Mensah works at Ridge "
         "Hospital.", "T", "employer"),
        ("Lena Fischer's birthday is 12 March.", "Lena Fischer was born on March 21.", "T",
         "birthday"),
        ("Samir Khan's wife is Aisha.", "Samir Khan is married to Leila.", "T", "spouse"),
        ("Samir Khan is 45.", "Samir Khan is 52 years old.", "T", "age"),
        ("The Orion release is on June 3.", "The Orion release is on June 10.", "T", "release"),
        ("The Orion release is scheduled for June 3.", "The Orion release date is June 10.", "T",
         "release"),
        ("Nadia Rossi's team is Payments.", "Nadia Rossi's team is Search.", "T", "team"),
        ("Nadia Rossi speaks Italian.", "Nadia Rossi does not speak Italian.", "T", "language"),
        ("Nadia Rossi has a cat.", "Nadia Rossi doesn't have any pets.", "T", "pets"),
        ("Mateo Ramos's laptop is a MacBook Pro.", "Mateo Ramos uses a ThinkPad X1 laptop.", "T",
         "laptop"),
        ("The Kestrel server runs on port 8080.", "The Kestrel server runs on port 9090.", "T",
         "infra"),
        ("Mateo Ramos's manager is Priya Nair.", "Mateo Ramos reports to Jonas Berg.", "T",
         "manager"),
        ("Chen Wei is vegan.", "Chen Wei is not vegan.", "T", "diet"),
        ("Chen Wei never drinks alcohol.", "Chen Wei drinks beer.", "T", "diet"),
        ("Chen Wei likes cats.", "Chen Wei dislikes cats.", "T", "preferences"),
        ("Chen Wei studies at Tsinghua University.", "Chen Wei studies at Peking University.",
         "T", "education"),
        ("The office Wi-Fi password is hunter2.", "The office Wi-Fi password is swordfish.", "T",
         "office"),
        ("Greta's flight lands at 18:05.", "Greta's flight lands at 6:05 pm.", "F", "travel"),
        ("Greta's flight lands at 18:05.", "Greta's flight lands at 19:30.", "T", "travel"),
        ("Greta moved to Vienna in 2022.", "Greta lives in Graz.", "T", "city"),
        ("Greta has lived in Vienna for five years.", "Greta lives in Graz.", "T", "city"),
        ("Jonas Berg is allergic to penicillin.", "Jonas Berg is not allergic to penicillin.",
         "T", "health"),
        ("Jonas Berg's favourite band is Radiohead.", "Jonas Berg's favourite band is Muse.", "T",
         "music"),
        ("Jonas Berg's shoe size is 44.", "Jonas Berg's shoe size is 42.", "T", "clothes"),
        ("Project Cobalt uses PostgreSQL.", "Project Cobalt does not use PostgreSQL.", "T",
         "stack"),
        ("Project Cobalt's database is PostgreSQL.", "Project Cobalt's database is MySQL.", "T",
         "stack"),
        ("Ines Duarte's editor is Emacs.", "Ines Duarte's editor is Vim.", "T", "tools"),
        ("Ines Duarte's dog is called Bolt.", "Ines Duarte's dog is called Rex.", "T", "pets"),
        ("Kofi Mensah lives in Accra.", "Kofi Mensah works in Kumasi.", "F", "city"),
        ("Kofi Mensah visited Lagos.", "Kofi Mensah lives in Accra.", "F", "city"),
        ("Lena Fischer likes jazz.", "Lena Fischer also likes techno.", "F", "music"),
        ("Lena Fischer plays the piano.", "Lena Fischer plays tennis on Sundays.", "F",
         "hobbies"),
        ("Samir Khan speaks Urdu and English.", "Samir Khan speaks Arabic.", "F", "language"),
        ("Samir Khan has a daughter.", "Samir Khan has a son.", "F", "family"),
        ("Samir Khan's daughter lives in Toronto.", "Samir Khan's son lives in Dubai.", "F",
         "family"),
        ("Samir Khan's daughter lives in Toronto.", "Samir Khan lives in Karachi.", "F", "city"),
        ("Nadia Rossi uses Slack at work.", "Nadia Rossi uses WhatsApp with family.", "F",
         "tools"),
        ("Nadia Rossi is a designer.", "Nadia Rossi is a mother of two.", "F", "role"),
        ("Nadia Rossi's office is on the 3rd floor.", "Nadia Rossi's office is in Milan.", "F",
         "office"),
        ("Nadia Rossi's phone is a Pixel 9.", "Nadia Rossi's laptop is a Pixelbook.", "F",
         "devices"),
        ("Mateo Ramos's phone is an iPhone 15.", "Mateo Ramos's old phone was a Galaxy S21.",
         "F", "phone"),
        ("Mateo Ramos worked at Globex.", "Mateo Ramos works at Initech.", "F", "employer"),
        ("Mateo Ramos used to live in Quito.", "Mateo Ramos lives in Madrid.", "F", "city"),
        ("Mateo Ramos might join Acme Robotics.", "Mateo Ramos works at Globex.", "F",
         "employer"),
        ("Chen Wei's meeting with Bob Lee is at 15:00.", "Chen Wei's meeting with Dana Okafor "
         "is at 16:00.", "F", "schedule"),
        ("The Orion standup is at 9:30.", "The Orion retro is at 16:00.", "F", "schedule"),
        ("The Orion release is on June 3.", "The Orion release is on June 3rd.", "F", "release"),
        ("Chen Wei's birthday is on 5 August.", "Chen Wei's birthday is August 5th.", "F",
         "birthday"),
        ("Jonas Berg lives in Oslo.", "Jonas Berg lives in Oslo, Norway.", "F", "city"),
        ("Jonas Berg works at Northwind.", "Jonas Berg works at Northwind Bank as an analyst.",
         "F", "employer"),
        ("Jonas Berg is married to Ingrid.", "Jonas Berg is married to Ingrid Berg.", "F",
         "spouse"),
        ("Jonas Berg's favourite band is Radiohead.", "Jonas Berg likes Muse.", "F", "music"),
        ("Greta has visited Rome.", "Greta has not visited Milan.", "F", "travel"),
        ("Greta doesn't eat pork.", "Greta eats chicken.", "F", "diet"),
        ("Greta doesn't live in Berlin.", "Greta doesn't live in Munich.", "F", "city"),
        ("Greta is not a smoker.", "Greta is a runner.", "F", "health"),
        ("Project Cobalt uses PostgreSQL.", "Project Cobalt uses Redis.", "F", "stack"),
        ("Project Cobalt's deadline is in Q3.", "Project Cobalt's budget is 50k EUR.", "F",
         "planning"),
        ("Priya Nair thinks Bob Lee lives in Paris.", "Bob Lee lives in Rome.", "F", "city"),
        ("Is Priya Nair in Delhi?", "Priya Nair is in Pune.", "F", "city"),
        ("Priya Nair is in Pune this week.", "Priya Nair lives in Delhi.", "F", "city"),
        ("Priya Nair's sister is a doctor.", "Priya Nair is a lawyer.", "F", "family"),
        ("Ines Duarte drinks two coffees a day.", "Ines Duarte drinks green tea.", "F", "diet"),
        ("Ines Duarte's dog is called Bolt.", "Ines Duarte's cat is called Luna.", "F", "pets"),
    )
)  # fmt: skip


def generate(seed: int = 10, per_relation: int = 6) -> list[Pair]:
    """The labelled pairs for ``seed``: several hundred, every kind of case represented."""
    rng = random.Random(seed)
    pairs = [*NAMED, *HANDWRITTEN, *HELD_OUT]
    for rel in ONE_VALUED:
        pairs.extend(_one_valued(rel, rng, per_relation))
    for rel in SEVERAL_VALUED:
        pairs.extend(_several_valued(rel, rng, per_relation))
    pairs.extend(_mixed(rng, 4 * per_relation))
    return pairs


PAIRS = generate()


@dataclass(frozen=True)
class Score:
    """Counts of a run over labelled pairs, and the cases it got wrong."""

    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int
    wrong: tuple[tuple[Pair, bool], ...]  # (pair, what chronomem said)

    @property
    def precision(self) -> float:
        flagged = self.true_positives + self.false_positives
        return self.true_positives / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        real = self.true_positives + self.false_negatives
        return self.true_positives / real if real else 1.0

    def summary(self, label: str) -> str:
        """One line: the label, precision, recall and the counts behind them."""
        return (
            f"{label}: precision {self.precision:.3f} recall {self.recall:.3f} "
            f"(tp {self.true_positives}, fp {self.false_positives}, "
            f"fn {self.false_negatives}, tn {self.true_negatives})"
        )


def judge(pair: Pair, *, with_category: bool, memory: ChronoMem | None = None) -> bool:
    """Whether chronomem reports the second fact as contradicting the first (both ways agree).

    The pair is stored in a fresh in-memory SQLite memory, or under a fresh owner of
    ``memory`` (a database of either engine).
    """
    if memory is None:
        with ChronoMem(":memory:") as fresh:
            return _judge(pair, with_category=with_category, mem=fresh)
    return _judge(pair, with_category=with_category, mem=memory.for_owner(uuid.uuid4().hex))


def _judge(pair: Pair, *, with_category: bool, mem: ChronoMem) -> bool:
    category = pair.category if with_category else None
    first = mem.remember(pair.first, category=category)
    second = mem.remember(pair.second, category=category)
    said = second.contradicts == (first,)
    groups = [set(g.fact_ids) for g in mem.contradictions()]
    assert said == ({first, second} in groups), (pair, second.contradicts, groups)
    assert said or not second.contradicts
    return said


def evaluate(
    pairs: Iterable[Pair], *, with_category: bool, memory: ChronoMem | None = None
) -> Score:
    """Score chronomem on ``pairs``, with or without each pair's category (in ``memory``,
    an owner per pair, if given: see :func:`judge`)."""
    tp = fp = fn = tn = 0
    wrong: list[tuple[Pair, bool]] = []
    for pair in pairs:
        said = judge(pair, with_category=with_category, memory=memory)
        if said and pair.contradicts:
            tp += 1
        elif said:
            fp += 1
        elif pair.contradicts:
            fn += 1
        else:
            tn += 1
        if said != pair.contradicts:
            wrong.append((pair, said))
    return Score(tp, fp, fn, tn, tuple(wrong))


def kinds(pairs: Sequence[Pair]) -> dict[str, int]:
    """How many pairs of each kind (for the report)."""
    counts: dict[str, int] = {}
    for pair in pairs:
        counts[pair.kind] = counts.get(pair.kind, 0) + 1
    return counts


def main() -> None:
    """Print the figures: ``python -m tests.chronomem.contradiction_pairs`` from the root."""
    print(f"{len(PAIRS)} labelled pairs, {sum(p.contradicts for p in PAIRS)} contradicting")
    for name, count in kinds(PAIRS).items():
        print(f"  {count:4} {name}")
    for with_category in (False, True):
        label = "with categories" if with_category else "without categories"
        score = evaluate(PAIRS, with_category=with_category)
        print(score.summary(f"all pairs, {label}"))
        print(evaluate(HELD_OUT, with_category=with_category).summary(f"held out, {label}"))
        for pair, said in score.wrong:
            print(f"  {'false alarm' if said else 'missed'}: {pair.first!r} / {pair.second!r}")


if __name__ == "__main__":
    main()
