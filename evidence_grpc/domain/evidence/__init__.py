"""The evidence context."""
