"""Adapters that let an agent framework keep its sessions in chronica, one module each.

- :mod:`chronica.integrations.openai_agents`: the OpenAI Agents SDK's ``Session``
  (``chronomem[openai-agents]``).
- :mod:`chronica.integrations.adk`: Google ADK's session service (``chronomem[adk]``).

Each module imports its framework and is imported by nothing in chronica's core, so
``import chronica`` never needs a framework installed.
"""
