"""The store contract as reusable pytest test classes.

A backend proves itself by subclassing these classes with a factory::

    from chronica.storeconformance import IdempotentStoreContract, StoreContract

    class TestMyStore(StoreContract):
        def make_store(self) -> Store:
            return MyStore(...)

    class TestMyStoreIdempotency(IdempotentStoreContract):
        def make_store(self) -> IdempotentStore:
            return MyStore(...)

A store that can take back exports also subclasses :class:`RestorableStoreContract`; one
that writes batches in one transaction, :class:`BatchStoreContract`; one that can be paged
through, :class:`BrowsableStoreContract`; one that can erase an owner,
:class:`ErasableStoreContract`; one that names its newest acta by ID,
:class:`TailStoreContract`.

Each test gets a fresh store from ``make_store``; if the store has a ``close()`` method it
is called afterwards. A factory that needs pytest fixtures (a database URL, a temporary
directory) can override the ``store`` fixture instead. Assertions compare exact sequences,
never sets: order is the contract. Chronicum IDs are scoped by owner (see
:mod:`chronica.store`): most tests write as one owner through an :class:`OwnerView`, and
the tests about owners check that two owners' chronica of one ID never meet.

This package imports pytest, so it is for test code only: ``pip install 'chronomem[testing]'``
brings pytest (``chronomem[dev]`` too). Without it the import says so, instead of failing
deep inside ``_base`` with a bare ``ModuleNotFoundError``.
"""

try:
    import pytest  # noqa: F401  # only to check it is there
except ModuleNotFoundError as _missing:
    if _missing.name != "pytest":
        raise
    raise ImportError(
        "chronica.storeconformance is pytest test classes and needs pytest: "
        "pip install 'chronomem[testing]'"
    ) from None

from ._base import OWNER, OwnerView, make_actum, run_together
from ._batch import BatchStoreContract
from ._browse import BrowsableStoreContract
from ._erase import ErasableStoreContract
from ._idempotent import IdempotentStoreContract
from ._restore import RestorableStoreContract
from ._store import StoreContract
from ._tail import TailStoreContract

__all__ = [
    "OWNER",
    "BatchStoreContract",
    "BrowsableStoreContract",
    "ErasableStoreContract",
    "IdempotentStoreContract",
    "OwnerView",
    "RestorableStoreContract",
    "StoreContract",
    "TailStoreContract",
    "make_actum",
    "run_together",
]
