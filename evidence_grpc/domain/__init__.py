"""Domain rules: plain functions over the storage models, callable without gRPC."""
