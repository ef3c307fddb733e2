"""The identity context."""
