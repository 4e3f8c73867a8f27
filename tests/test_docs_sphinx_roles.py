"""The API reference's griffe extension (scripts/docs_sphinx_roles.py): Sphinx roles as code."""

from __future__ import annotations

import pytest
from scripts.docs_sphinx_roles import plain_roles


@pytest.mark.parametrize(
    ("docstring", "shown"),
    [
        ("Raises :class:`~chronomem.InvalidArgumentError`.", "Raises `InvalidArgumentError`."),
        ("See :meth:`.remember` first.", "See `remember` first."),
        ("In :mod:`chronica.stores.sqlite`.", "In `chronica.stores.sqlite`."),
        (":func:`a` and :data:`~b.C`", "`a` and `C`"),
        ("No role: ``x`` stays.", "No role: ``x`` stays."),
    ],
)
def test_a_role_becomes_a_code_span(docstring: str, shown: str) -> None:
    assert plain_roles(docstring) == shown
