"""Deterministic contradiction detection: same entity, same category, same attribute, other value.

A fact like "ThinkPad T14 primary interface is Wi-Fi" is read as a claim: the words before the
first state verb ("is", "are", "was", "switched to", "set to", ...) minus the entity names form
the attribute ("primary interface"); the words after it form the value ("wi-fi"). Two active
facts sharing an entity and category that give the same attribute different values contradict
each other. Facts with an empty attribute (as in "Alice is a manager", where two values may
both be true) never contradict: the rule prefers silence to false alarms.

A fact with no such verb ("Mina Novak uses a Fairphone 5 phone") makes a claim only when the
caller filed it under a category and it opens with its entity: the category then names one
attribute of that entity, the first word after the subject is the predicate ("uses") and the
rest is the value ("fairphone 5 phone"). Without a category, "Alice uses Vim" and "Alice uses
Emacs" may both be true, so they stay silent.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence

from ._entities import entity_key
from ._model import Contradiction
from ._tokens import terms

__all__ = ["conflicting_ids", "find_contradictions", "parse_claim"]

_MARKER = re.compile(
    r"\b(?:is now|are now|is|are|was|were|equals|switched to|changed to|set to|moved to"
    r"|became|becomes)\b|[=:]",
    re.IGNORECASE,
)


def parse_claim(
    content: str, entity_names: Sequence[str], category: str | None = None
) -> tuple[str, str] | None:
    """``(attribute, value)`` of a fact, or ``None`` when it makes no comparable claim.

    The attribute is qualified by the entities named before the verb (the claim's subject), so
    "Worker0 counter C0-1 is 1" and "Worker0 counter C0-2 is 2" are about different counters.
    """
    m = _MARKER.search(content)
    if m is None:
        return _predicate_claim(content, entity_names) if category is not None else None
    before = content[: m.start()]
    entity_terms = {t for name in entity_names for t in terms(name)}
    attr = [t for t in terms(before) if t not in entity_terms]
    value = terms(content[m.end() :])
    if not attr or not value or not before.strip():
        return None
    lowered = before.casefold()
    subject = sorted({entity_key(n) for n in entity_names if n.casefold() in lowered})
    return ",".join(subject) + "|" + " ".join(attr), " ".join(value)


def _predicate_claim(content: str, entity_names: Sequence[str]) -> tuple[str, str] | None:
    """``(subject|predicate, value)`` for "<Entity> <verb> <value>", else ``None``."""
    lowered = content.casefold().lstrip()
    longest_first = sorted(entity_names, key=len, reverse=True)
    subject = next((n for n in longest_first if lowered.startswith(n.casefold())), None)
    if subject is None:
        return None
    rest = terms(content.lstrip()[len(subject) :])
    if len(rest) < 2:
        return None
    return entity_key(subject) + "|" + rest[0], " ".join(rest[1:])


def conflicting_ids(
    conn: sqlite3.Connection,
    *,
    owner: str,
    category: str | None,
    claim: tuple[str, str] | None,
    entity_ids: Sequence[int],
) -> tuple[str, ...]:
    """Ids of active facts the new claim contradicts (called before the new fact is stored)."""
    if claim is None or not entity_ids:
        return ()
    marks = ",".join("?" * len(entity_ids))
    rows = conn.execute(
        f"""SELECT DISTINCT f.id FROM chronomem_facts f
            JOIN chronomem_fact_entities fe ON fe.fact_rowid = f.rowid
            WHERE f.owner = ? AND f.attr = ? AND f.invalidated_at IS NULL
              AND f.category IS ? AND f.value != ? AND fe.entity_id IN ({marks})
            ORDER BY f.rowid""",
        (owner, claim[0], category, claim[1], *entity_ids),
    ).fetchall()
    return tuple(r[0] for r in rows)


def find_contradictions(conn: sqlite3.Connection, owner: str) -> list[Contradiction]:
    """Every group of active facts that disagree, one group per (fact set, attribute)."""
    rows = conn.execute(
        """SELECT e.name, f.category, f.attr,
                  json_group_array(f.id), json_group_array(f.value)
           FROM chronomem_facts f
           JOIN chronomem_fact_entities fe ON fe.fact_rowid = f.rowid
           JOIN chronomem_entities e ON e.id = fe.entity_id
           WHERE f.owner = ? AND f.invalidated_at IS NULL AND f.attr IS NOT NULL
           GROUP BY fe.entity_id, f.category, f.attr
           HAVING count(DISTINCT f.value) > 1
           ORDER BY min(f.rowid), e.id""",
        (owner,),
    ).fetchall()

    seen: set[tuple[object, ...]] = set()
    found: list[Contradiction] = []
    for name, category, attr, ids_json, values_json in rows:
        ids = tuple(json.loads(ids_json))
        key = (ids, category, attr)
        if key in seen:
            continue
        seen.add(key)
        values = sorted(set(json.loads(values_json)))
        reason = (
            f"{len(ids)} active facts about {name!r} give different values for "
            f"{attr.partition('|')[2]!r}: " + " vs ".join(repr(v) for v in values)
        )
        found.append(Contradiction(name, category, ids, reason))
    return found
