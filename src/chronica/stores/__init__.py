"""Bundled stores, one module per backend.

- :mod:`chronica.stores.inmemory`: one process, for tests and development.
- :mod:`chronica.stores.sqlite`: the embedded, durable default.
- :mod:`chronica.stores.postgres`: many processes and machines (``chronomem[postgres]``).
"""
