"""The claim reader: a fact read as a claim (whom, which attribute, what value), by rules, no model.

Owns the word lists and value normal forms it works from, and finds contradictions between active
facts. May import :mod:`chronomem.text` and the engine's connection protocol; not recall.
"""
