"""Text analysis shared by writing, recall and claims: tokens, stems, entities, calendar spans.

Pure functions of text (no database), except entity re-keying, which a migration runs. Imports
nothing else of chronomem.
"""
