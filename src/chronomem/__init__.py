"""chronomem: bi-temporal long-term fact memory for AI agents, on embedded SQLite."""
