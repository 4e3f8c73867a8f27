"""ADK events parsed from the JSON the adapter stored, by pydantic, without the Python hooks.

``Event.model_validate_json`` spent two thirds of its 60-100 µs an event in Python: google-genai
runs a ``before`` validator on every one of its models (it warns when a field holds a model
instance of the wrong class, which JSON never does), ADK's ``Event`` runs one that routes
convenience keyword arguments (``message=``, ``state=``; a dumped event has none), and
``types.Part`` has its own ``__init__`` that validates each part twice. Reading a session of
10,000 events paid that 10,000 times, and so do ADK's own services.

:func:`parse_event` validates with the same core schema minus exactly those hooks: every
field is still checked and converted by pydantic (bytes from base64, enums, unions, nested
models, ADK's field validators, the models' ``extra`` rules), and each model is made the way
pydantic makes it (fields, fields set, ``model_post_init``). A model whose validation settings
differ from ``Event``'s, or that has any other validator around it, keeps its own validator.
Anything the lean validator refuses is parsed by ``Event.model_validate_json``, which then
decides, so both give equal events (``tests/chronica/integrations/test_adk_rebuild.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from google.adk.events import Event
from google.genai import types
from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaError, SchemaValidator

__all__ = ["parse_event"]

_HOOKS = frozenset({"_check_field_type_mismatches", "_accept_convenience_kwargs"})
"""The ``before`` validators left out: no-ops on the JSON of a dumped event (see above)."""
_CUSTOM_INIT = (types.Part,)
"""Models whose ``__init__`` only validates keyword arguments again (given no positional one)."""
_NOT_VALIDATION = frozenset({"title", "ser_json_bytes", "ser_json_timedelta", "ser_json_inf_nan",
                             "from_attributes"})  # fmt: skip
"""Config keys that do not change how JSON validates (``from_attributes``: objects only)."""

_set = object.__setattr__


def _hook(node: dict[str, Any]) -> bool:
    if node.get("type") != "function-before":
        return False
    return getattr(node.get("function", {}).get("function"), "__name__", None) in _HOOKS


def _maker(cls: type[BaseModel], post_init: bool) -> Callable[[Any], Any]:
    """Make a ``cls`` from what its fields validated to, as pydantic's model validator does."""

    def make(validated: tuple[dict[str, Any], dict[str, Any] | None, set[str]]) -> Any:
        values, extra, fields_set = validated
        model = cls.__new__(cls)
        _set(model, "__dict__", values)
        _set(model, "__pydantic_extra__", extra)
        _set(model, "__pydantic_fields_set__", fields_set)
        _set(model, "__pydantic_private__", None)
        if post_init:
            model.model_post_init(None)
        return model

    return make


class _Lean:
    """Copies a core schema, replacing each plain model's validator by its fields' validator
    and :func:`_maker`, and dropping the hooks."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config

    def copy(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.copy(item) for item in node]
        if not isinstance(node, dict):
            return node
        if _hook(node):
            return self.copy(node["schema"])
        if node.get("type") == "model":
            lean = self._model(node)
            if lean is not None:
                return lean
        return {key: self.copy(value) for key, value in node.items()}

    def _model(self, node: dict[str, Any]) -> dict[str, Any] | None:
        config = dict(node.get("config") or {})
        extra = config.pop("extra_fields_behavior", None)
        settings = {k: v for k, v in config.items() if k not in _NOT_VALIDATION}
        inner = node["schema"]
        while _hook(inner):
            inner = inner["schema"]
        cls = node["cls"]
        plain = not node.get("custom_init") or cls in _CUSTOM_INIT
        if settings != self.config or inner.get("type") != "model-fields" or not plain:
            return None  # keeps its own validator
        if node.get("root_model") or node.get("revalidate_instances", "never") != "never":
            return None
        fields = dict(inner)
        if extra is not None:
            fields.setdefault("extra_behavior", extra)
        make = _maker(cls, bool(node.get("post_init")))
        lean = {"type": "function-after", "function": {"type": "no-info", "function": make},
                "schema": self.copy(fields)}  # fmt: skip
        if "ref" in node:
            lean["ref"] = node["ref"]
        return lean


def _lean_validator() -> SchemaValidator | None:
    schema = Event.__pydantic_core_schema__
    top = schema["schema"] if schema.get("type") == "definitions" else schema
    if top.get("type") != "model" or top.get("cls") is not Event:
        return None
    config = dict(top.get("config") or {})
    config.pop("extra_fields_behavior", None)
    settings = {k: v for k, v in config.items() if k not in _NOT_VALIDATION}
    try:
        return SchemaValidator(_Lean(settings).copy(schema), settings)  # type: ignore[arg-type]
    except (SchemaError, KeyError, TypeError):  # an ADK whose schema this does not know
        return None


_lock = threading.Lock()
_validator: list[SchemaValidator | None] = []


def _lean() -> SchemaValidator | None:
    if not _validator:
        with _lock:
            if not _validator:
                _validator.append(_lean_validator())
    return _validator[0]


def parse_event(payload: str) -> Event:
    """The event ``payload`` (``Event.model_dump_json`` output) holds."""
    lean = _lean()
    if lean is not None:
        try:
            event = lean.validate_json(payload)
        except ValidationError:
            pass  # Event's own validator decides, and explains
        else:
            if type(event) is Event:
                return event
    return Event.model_validate_json(payload)
