"""REST shim: the /api/v2 JSON and multipart contract, transcoded into evidence.v2 gRPC calls."""
