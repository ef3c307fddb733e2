"""The organization's append-only evidence log; this package holds its pure, storage-free parts."""
