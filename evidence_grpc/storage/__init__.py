"""Storage: one peewee model layer over SQLite (embedded default) or PostgreSQL."""
