"""Evidence service: gRPC server, domain rules and storage."""
