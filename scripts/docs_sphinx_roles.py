"""A griffe extension for the API reference (docs/api.md): Sphinx roles read as code.

The docstrings name other objects the way Sphinx does (``:class:`~chronomem.Fact```,
``:meth:`.remember```), which Markdown would show as is, colons and all. Each role becomes a
code span of the name a reader would see: the last part with ``~`` or a leading dot, the whole
dotted name otherwise. Loaded by mkdocs.yml's mkdocstrings options; the docstrings themselves
are unchanged.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from griffe import Extension, Object, ObjectNode

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)(\.?)([^`<]+?)`")
"""A Sphinx cross-reference role and its target."""


def as_code(match: re.Match[str]) -> str:
    """The role's target as a Markdown code span, shortened as Sphinx would show it."""
    short, relative, target = match.groups()
    shown = target.rsplit(".", 1)[-1] if short or relative else target
    return f"`{shown}`"


def plain_roles(text: str) -> str:
    """``text`` with every Sphinx role made a code span."""
    return ROLE.sub(as_code, text)


class SphinxRoles(Extension):
    """Rewrite each object's docstring as it is loaded."""

    def on_instance(self, *, node: ast.AST | ObjectNode, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
