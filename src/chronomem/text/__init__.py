"""Text analysis shared by writing, recall and claims: tokens, stems, entities, calendar spans.

Pure functions of text (no database). Imports nothing else of chronomem.
"""
