"""Copy request-body JSON Schemas of the published operations catalog into the package.

Usage: python scripts/extract_contract_schemas.py [CATALOG] > evidence_grpc/domain/contract-schemas.json
The output maps an operation id to the JSON Schema of its body (for multipart bodies, of the
`data_json` part). Facts of the contract only: field names, types, patterns, required fields.
"""

import json
import pathlib
import sys

DEFAULT = pathlib.Path(__file__).resolve().parents[2] / "shared/spec/reference/kosli-operations-catalog.json"
OPERATIONS = [
    "post_generic_attestation", "post_junit_attestation", "post_snyk_attestation",
    "post_sonar_attestation", "post_jira_attestation", "post_pull_request_attestation",
    "post_custom_attestation", "post_system_attestation", "post_override_attestation",
    "create_artifact", "post_custom_attestation_type", "patch_tags",
]


def body_schema(operation: dict) -> dict:
    schema = operation["requestBody"][0]["schema"]
    if "data_json" in schema.get("properties", {}):
        schema = schema["properties"]["data_json"]
    return {k: v for k, v in schema.items() if k not in ("examples", "description", "title")}


def main() -> int:
    catalog = json.loads(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else DEFAULT).read_text())
    by_id = {op["id"]: op for op in catalog}
    out = {op_id: body_schema(by_id[op_id]) for op_id in OPERATIONS}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
