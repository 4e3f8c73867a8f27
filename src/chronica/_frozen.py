"""Deep-frozen JSON values: a recorded actum's metadata can never change under its readers.

An actum is a frozen dataclass, but a plain ``dict`` in its ``metadata`` would still let one
caller change what every later reader of the same object sees (the in-memory store hands
out the acta it keeps). So stores hand out metadata frozen all the way down.

The frozen forms subclass ``dict`` and ``list`` rather than being a ``MappingProxyType`` and
tuples: ``json.dumps`` only serialises dicts and lists, and callers compare metadata with
plain literals (``{"args": [1, 2]}``), which a tuple would never equal. Every mutating method
raises ``TypeError``; ``dict(m)`` or ``m.copy()`` gives a plain shallow copy to edit.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from json import encoder as _json_encoder
from typing import Any, NoReturn, SupportsIndex

__all__ = [
    "EMPTY",
    "FrozenDict",
    "FrozenList",
    "compact_json",
    "freeze",
    "frozen_copy",
    "frozen_metadata",
    "json_text",
    "load_metadata",
    "with_json",
]


def _refuse(value: object) -> NoReturn:
    # Also chronomem's records (a Fact is a FrozenDict of its JSON form): name the type.
    raise TypeError(f"a {type(value).__name__} is read-only (immutable); copy it to edit")


class FrozenDict(dict[str, Any]):
    """A JSON object that refuses every change after it is built."""

    # The JSON text chronica's validation decoded it from, when it did (see ``with_json``).
    __slots__ = ("_json",)
    _json: str

    def __setitem__(self, key: str, value: Any) -> NoReturn:
        _refuse(self)

    def __delitem__(self, key: str) -> NoReturn:
        _refuse(self)

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]  # cannot return what | does
        _refuse(self)

    def clear(self) -> NoReturn:
        _refuse(self)

    def pop(self, *args: Any) -> NoReturn:
        _refuse(self)

    def popitem(self) -> NoReturn:
        _refuse(self)

    def setdefault(self, *args: Any) -> NoReturn:
        _refuse(self)

    def update(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(self)

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        # pickle and copy would otherwise rebuild the dict item by item through __setitem__.
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A JSON array that refuses every change after it is built."""

    __slots__ = ()

    def __setitem__(self, index: Any, value: Any) -> NoReturn:
        _refuse(self)

    def __delitem__(self, index: Any) -> NoReturn:
        _refuse(self)

    def __iadd__(self, other: Iterable[Any]) -> NoReturn:  # type: ignore[misc]  # cannot return what + does
        _refuse(self)

    def __imul__(self, count: SupportsIndex) -> NoReturn:
        _refuse(self)

    def append(self, value: Any) -> NoReturn:
        _refuse(self)

    def extend(self, values: Iterable[Any]) -> NoReturn:
        _refuse(self)

    def insert(self, index: SupportsIndex, value: Any) -> NoReturn:
        _refuse(self)

    def pop(self, index: SupportsIndex = -1) -> NoReturn:
        _refuse(self)

    def remove(self, value: Any) -> NoReturn:
        _refuse(self)

    def clear(self) -> NoReturn:
        _refuse(self)

    def sort(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(self)

    def reverse(self) -> NoReturn:
        _refuse(self)

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return (FrozenList, (list(self),))


EMPTY = FrozenDict()
"""The metadata of most acta, shared: it cannot change, so one object serves them all."""


def freeze(value: Any) -> Any:
    """Return ``value`` with every dict and list in it (at any depth) frozen, as a new copy.

    Recursive: callers bound the depth first (see ``MAX_METADATA_DEPTH``), as ``json.loads``
    itself does for what comes back from a database.
    """
    if isinstance(value, dict):
        return FrozenDict({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return FrozenList([freeze(item) for item in value])
    return value


def frozen_metadata(metadata: Mapping[str, Any]) -> FrozenDict:
    """``metadata`` deep-frozen; metadata that chronica validated is frozen already and kept."""
    if isinstance(metadata, FrozenDict):
        return metadata
    return freeze(dict(metadata)) if metadata else EMPTY


def _frozen_item(value: Any) -> Any:
    # Objects arrive frozen already (the decoder builds them bottom-up); arrays do not.
    if type(value) is list:
        return FrozenList([_frozen_item(item) for item in value])
    return value


def _frozen_object(pairs: list[tuple[str, Any]]) -> FrozenDict:
    return FrozenDict([(k, _frozen_item(v)) if type(v) is list else (k, v) for k, v in pairs])


# Freezing while decoding costs a third of decoding and freezing after: windows decode the
# metadata of every actum they return.
_decode = json.JSONDecoder(object_pairs_hook=_frozen_object).decode


def load_metadata(text: str) -> FrozenDict:
    """Decode metadata stored as JSON text into a frozen mapping (``"{}"`` costs nothing)."""
    if text == "{}":
        return EMPTY
    frozen: FrozenDict = _decode(text)  # only JSON objects are ever stored
    return frozen


_SCALARS = (str, int, float, bool, type(None))
_COPY_BUDGET = 64  # containers walked before decoding the JSON is the cheaper copy


def frozen_copy(metadata: dict[str, Any]) -> FrozenDict | None:
    """A deep-frozen copy of small metadata of plain JSON types only; None for any other.

    For metadata the encoder has just accepted (so no cycles, no NaN): the walk costs a
    third of decoding the JSON for the few values an actum's metadata usually holds, and
    gives the same result when every value is exactly a dict with ``str`` keys, a list, a
    ``str``, an ``int``, a ``float``, a ``bool`` or None. A tuple, a subclass, a non-string
    key (which JSON turns into text) or more than a few dozen containers: None, so the caller
    decodes the JSON instead, which normalises all of those.
    """
    try:
        copy: FrozenDict = _copy(metadata, [_COPY_BUDGET])
    except _NotPlain:
        return None
    return copy


class _NotPlain(Exception):
    pass


def _copy(value: Any, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise _NotPlain
    kind = type(value)
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = item if type(item) in _SCALARS else _copy(item, budget)
        return FrozenDict(out)
    if kind is list:
        return FrozenList(
            [item if type(item) in _SCALARS else _copy(item, budget) for item in value]
        )
    if kind in _SCALARS:
        return value
    raise _NotPlain


def with_json(frozen: FrozenDict, text: str) -> FrozenDict:
    """``frozen``, remembering ``text``: the compact JSON it was just decoded from.

    Validation encodes every actum's metadata to check it; a store that writes JSON text
    takes that text (:func:`json_text`) instead of encoding the same metadata again. Sound
    because the text was decoded into this very object, deep-frozen, which cannot change.
    """
    if frozen is not EMPTY:
        frozen._json = text
    return frozen


def json_text(metadata: object) -> str | None:
    """The JSON text :func:`with_json` remembered for ``metadata``; None if it has none."""
    if type(metadata) is FrozenDict:
        try:
            text: str = metadata._json
        except AttributeError:
            return None
        return text
    return None


_strict = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_make_encoder = getattr(_json_encoder, "c_make_encoder", None)
_encode_text = getattr(_json_encoder, "c_encode_basestring", None)


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text, as ``json.dumps(value, ensure_ascii=False,
    allow_nan=False, separators=(",", ":"))`` writes it, and raising what it raises.

    What chronica encodes on every write (each actum's metadata, each adapter item): the C
    encoder called directly costs a third less than ``JSONEncoder.encode``, which rebuilds
    its options on every call, and building that encoder once per thread saves a fifth of
    what is left. Its record of the containers it is inside (how a cycle is caught) is empty
    again after every encoding that returns, and emptied after one that raises. Elsewhere
    than CPython, ``JSONEncoder`` is used.
    """
    if _make_encoder is None or _encode_text is None or isinstance(value, str):
        return _strict.encode(value)
    try:
        markers, encode = _encoders.pair
    except AttributeError:
        markers = {}
        encode = _make_encoder(
            markers,  # this thread's own: no other thread's encoding ever sees it
            _strict.default,  # raises "Object of type ... is not JSON serializable"
            _encode_text,
            None,  # no indent
            ":",
            ",",
            False,  # sort_keys
            False,  # skipkeys
            False,  # allow_nan
        )
        _encoders.pair = (markers, encode)
    try:
        return "".join(encode(value, 0))
    except BaseException:
        markers.clear()  # the containers an encoding cut short was inside
        raise


_encoders = threading.local()
