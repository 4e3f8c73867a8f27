"""The floor below chronomem's front doors: what the command line, the MCP server and the web
inspector share, so that no door imports another.

It owns where a door's database and owner come from (:mod:`.settings`: ``--db`` /
``CHRONOMEM_DB``, ``--owner`` / ``CHRONOMEM_OWNER``, ``--http HOST:PORT``, and naming a
database on screen without its password), who may connect over HTTP (:mod:`.access`), the
plain-text rendering more than one door prints (:mod:`.text`), and the one declaration of the
target flags every door takes (:mod:`.arguments`).

Who may import it: the doors (``chronomem.cli``, ``chronomem.server``, ``chronomem.ui``) and
``chronomem.demo``; never the core. What it may import: chronomem's and chronica's public API,
chronica's bundled stores, and the core's engine helpers (``chronomem.engine``, the
PostgreSQL one only when a DSN is given); never a door. Like the command line's quick
commands, it imports neither the MCP SDK nor the web stack.
"""
