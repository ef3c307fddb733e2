"""The governance context."""
