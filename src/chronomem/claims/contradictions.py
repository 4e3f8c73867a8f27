"""Contradictions: two active facts that make incompatible claims about one entity.

:mod:`._claims` reads a fact as a claim (subject, relation, value, yes or no); it is stored as
``attr = "<subject>|<relation>"`` (with a trailing ``*`` when the relation may hold several
values at once) and ``value`` (with a leading ``!`` when denied). Two active facts sharing an
entity, a category and an ``attr`` contradict each other when

* both assert a one-valued relation with values neither of which contains the other
  ("lives in Berlin" / "lives in Paris"; not "Berlin" / "Berlin, Germany", not "10:00" / "10"),
* or one denies what the other asserts ("phone is a Pixel 9" / "phone is not a Pixel 9",
  "likes tea" / "does not like tea").

Two values of a relation that may hold several ("uses Vim" / "uses Docker"), two denials, and
a denial of something else never contradict: the rule prefers silence to a false alarm.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence

from chronomem._model import Contradiction
from chronomem.claims.reader import Claim, read_claim
from chronomem.claims.words import IRREGULAR
from chronomem.engine.dialect import Conn
from chronomem.text.lexicon import stem, term

__all__ = [
    "conflicting_ids",
    "conflicts_among",
    "conflicts_of_keys",
    "encode",
    "find_contradictions",
    "parse_claim",
    "reparse_claims",
    "values_conflict",
]


def parse_claim(
    content: str, entity_names: Sequence[str], category: str | None = None
) -> tuple[str, str] | None:
    """``(attr, value)`` of a fact as stored, or ``None`` when it makes no comparable claim."""
    claim = read_claim(content, entity_names, category)
    return None if claim is None else encode(claim)


def encode(claim: Claim) -> tuple[str, str]:
    """The stored ``(attr, value)`` pair of a claim."""
    attr = f"{claim.subject}|{claim.relation}" + ("*" if claim.several else "")
    return attr, ("!" if claim.negated else "") + claim.value


def values_conflict(attr: str, first: str, second: str) -> bool:
    """Whether two stored values of one ``attr`` cannot both be true."""
    first_denied, second_denied = first.startswith("!"), second.startswith("!")
    if first_denied and second_denied:
        return False
    one, other = first.removeprefix("!"), second.removeprefix("!")
    if first_denied != second_denied:
        denied, stated = (one, other) if first_denied else (other, one)
        return _covers(stated, denied)
    if attr.endswith("*"):
        return False
    return not (_covers(one, other) or _covers(other, one))


def _covers(value: str, part: str) -> bool:
    """``value`` says at least what ``part`` says: ``berlin germany`` covers ``berlin``."""
    words, part_words = value.split(), part.split()
    if "".join(words) == "".join(part_words):  # "wi fi" and "wifi"
        return True
    return {stem(w) for w in part_words} <= {stem(w) for w in words}


def conflicting_ids(
    conn: Conn,
    *,
    owner: str,
    category: str | None,
    claim: tuple[str, str] | None,
    entity_ids: Sequence[int],
) -> tuple[str, ...]:
    """Ids of active facts the new claim contradicts; the same before the new fact is stored
    or after (it holds the very value compared against, which ``value != ?`` leaves out)."""
    if claim is None or not entity_ids:
        return ()
    among, entity_params = conn.dialect.in_list("fe.entity_id", entity_ids)
    return _conflicts_sent(conn, owner, category, claim, (among, entity_params))()


def conflicts_of_keys(
    conn: Conn,
    *,
    owner: str,
    category: str | None,
    claim: tuple[str, str] | None,
    entity_keys: Sequence[str],
) -> Callable[[], tuple[str, ...]]:
    """:func:`conflicting_ids` of the entities with these keys, sent now and read when the
    result is called for: on PostgreSQL its answer then comes back with the statements sent
    after it, without a wait of its own (issue 23). The same facts as by ids, before the
    entities are stored too: an entity not stored yet is named by no fact."""
    if claim is None or not entity_keys:
        return lambda: ()
    keys, key_params = conn.dialect.in_list("key", list(entity_keys))
    among = f"fe.entity_id IN (SELECT id FROM chronomem_entities WHERE owner = ? AND {keys})"
    return _conflicts_sent(conn, owner, category, claim, (among, [owner, *key_params]))


def _conflicts_sent(
    conn: Conn,
    owner: str,
    category: str | None,
    claim: tuple[str, str],
    entities: tuple[str, Sequence[object]],
) -> Callable[[], tuple[str, ...]]:
    attr, value = claim
    among, entity_params = entities
    cur = conn.execute(
        f"""SELECT DISTINCT f.rowid, f.id, f.value FROM chronomem_facts f
            JOIN chronomem_fact_entities fe ON fe.fact_rowid = f.rowid
            WHERE f.owner = ? AND f.attr = ? AND f.invalidated_at IS NULL
              AND f.category {conn.dialect.null_safe_equal} ?
              AND f.value != ? AND {among}
            ORDER BY f.rowid""",
        (owner, attr, category, value, *entity_params),
    )
    return lambda: conflicts_among(claim, ((fid, other) for _, fid, other in cur.fetchall()))


def conflicts_among(
    claim: tuple[str, str] | None, candidates: Iterable[tuple[str, str]]
) -> tuple[str, ...]:
    """The ids of ``candidates`` (``(id, value)`` of active facts making a claim on the
    same attribute of the same entities) whose value conflicts with ``claim``'s."""
    if claim is None:
        return ()
    attr, value = claim
    return tuple(fid for fid, other in candidates if values_conflict(attr, value, other))


def find_contradictions(conn: Conn, owner: str) -> list[Contradiction]:
    """Every group of active facts that conflict, one group per (fact set, attribute)."""
    id_array, value_array = conn.dialect.json_array("f.id"), conn.dialect.json_array("f.value")
    content_array = conn.dialect.json_array("f.content")
    rows = conn.execute(
        f"""SELECT e.name, f.category, f.attr, {id_array}, {value_array}, {content_array}
           FROM chronomem_facts f
           JOIN chronomem_fact_entities fe ON fe.fact_rowid = f.rowid
           JOIN chronomem_entities e ON e.id = fe.entity_id
           WHERE f.owner = ? AND f.invalidated_at IS NULL AND f.attr IS NOT NULL
           GROUP BY e.id, e.name, f.category, f.attr
           HAVING count(DISTINCT f.value) > 1
           ORDER BY min(f.rowid), e.id""",
        (owner,),
    ).fetchall()
    seen: set[tuple[object, ...]] = set()
    found: list[Contradiction] = []
    for name, category, attr, ids_json, values_json, contents_json in rows:
        ids_all = json.loads(ids_json)
        said = dict(zip(ids_all, json.loads(contents_json), strict=True))
        for ids, values in _conflicting_groups(attr, ids_all, json.loads(values_json)):
            key = (ids, category, attr)
            if key not in seen:
                seen.add(key)
                words = [said[i] for i in ids]
                reason = _reason(name, attr, ids, values, words)
                found.append(Contradiction(name, category, ids, reason))
    return found


def _conflicting_groups(
    attr: str, ids: list[str], values: list[str]
) -> list[tuple[tuple[str, ...], list[str]]]:
    """Facts joined by conflicts, in connected groups (fact order kept within each group)."""
    distinct = list(dict.fromkeys(values))
    parent = list(range(len(distinct)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    linked: set[int] = set()
    for i, a in enumerate(distinct):
        for j in range(i + 1, len(distinct)):
            if values_conflict(attr, a, distinct[j]):
                parent[root(j)] = root(i)
                linked.update((i, j))
    groups: dict[int, tuple[list[str], list[str]]] = {}
    position = {value: i for i, value in enumerate(distinct)}
    for fid, value in zip(ids, values, strict=True):
        index = position[value]
        if index in linked:
            members, seen_values = groups.setdefault(root(index), ([], []))
            members.append(fid)
            seen_values.append(value)
    return [(tuple(members), vals) for members, vals in groups.values()]


_WORD = re.compile(r"[\w'-]+")


def _as_said(relation: str, contents: Sequence[str]) -> str:
    """``relation`` (the stored form: index terms, "book time") in the words the facts used
    ("booking time"): each term becomes the first word of the facts whose term, stem or
    verb base it is; a term no word gives back (a relation the reader named itself) stays."""
    spoken: dict[str, str] = {}
    for content in contents:
        for word in _WORD.findall(content.lower()):
            for form in (term(word), stem(word), IRREGULAR.get(word)):
                if form:
                    spoken.setdefault(form, word)
    return " ".join(spoken.get(part, part) for part in relation.split(" "))


def _reason(
    name: str, attr: str, ids: tuple[str, ...], values: list[str], contents: Sequence[str]
) -> str:
    relation = attr.partition("|")[2].removesuffix("*").replace(" @time", "")
    past = relation.endswith(" @past")
    relation = _as_said(relation.removesuffix(" @past"), contents)
    relation += " (in the past)" if past else ""
    shown = sorted({v.replace("!", "not ", 1) if v.startswith("!") else v for v in values})
    return (
        f"{len(ids)} active facts about {name!r} give different values for {relation!r}: "
        + " vs ".join(repr(v) for v in shown)
    )


def reparse_claims(conn: Conn) -> int:
    """Store every fact's claim as the current reader reads it; returns the rows changed.

    For a schema migration, inside its write transaction, after
    :func:`~chronomem.write.upgrade.rekey_entities` (a claim names its subject by entity key).
    Facts written by an older reader keep their old ``attr``/``value`` until this runs, and
    compare with new facts by those. Rows without entities (episodes among them) never take part
    in a contradiction and are left alone.
    """
    changed: list[tuple[str | None, str | None, int]] = []
    rows = conn.execute(
        """SELECT rowid, content, entities, category, attr, value FROM chronomem_facts
           WHERE entities != '[]'"""
    )
    for rowid, content, names, category, attr, value in rows.fetchall():
        claim = parse_claim(content, json.loads(names), category)
        new = claim if claim is not None else (None, None)
        if new != (attr, value):
            changed.append((new[0], new[1], rowid))
    conn.executemany("UPDATE chronomem_facts SET attr = ?, value = ? WHERE rowid = ?", changed)
    return len(changed)
