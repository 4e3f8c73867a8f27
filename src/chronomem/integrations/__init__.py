"""Adapters that let an agent framework keep its long-term memory in chronomem, one module each.

- :mod:`chronomem.integrations.adk`: Google ADK's memory service (``chronomem[adk]``).

Each module imports its framework and is imported by nothing in chronomem's core, so
``import chronomem`` never needs a framework installed.
"""
