"""The runtime context."""
