"""chronomem on SQLite: one connection per memory behind a lock, WAL, versioned migrations."""
