"""The kernel context."""
