"""The outbound context."""
