"""Thin servicers: proto in, domain call, proto out."""
