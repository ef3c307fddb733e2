"""The views context."""
