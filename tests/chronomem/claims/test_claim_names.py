"""Where a claim's reader finds an entity's name in a sentence: the fast search for ASCII text
gives the spans the whole-word, any-case regular expression gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chronomem.claims.reader import _name_pattern, _written_at

_WORDS = st.sampled_from(["ann", "Ann", "ANNA", "an", "n", "_ann", "ann2", "Jo Ann", "ann-marie"])
_GLUE = st.sampled_from([" ", "", "-", "_", ".", "'s ", "\n", "9"])


@settings(max_examples=400, deadline=None)
@given(
    parts=st.lists(st.tuples(_WORDS, _GLUE), max_size=8),
    name=st.one_of(_WORDS, st.text(alphabet="anANJo -_'", min_size=1, max_size=6)),
)
def test_ascii_search_equals_the_regular_expression(
    parts: list[tuple[str, str]], name: str
) -> None:
    text = "".join(word + glue for word, glue in parts)
    expected = [m.span() for m in _name_pattern(name).finditer(text)]
    assert list(_written_at(text, name)) == expected


def test_unicode_takes_the_regular_expression() -> None:
    assert list(_written_at("İstanbul'da Ayşe, ayşe", "Ayşe")) == [(12, 16), (18, 22)]
