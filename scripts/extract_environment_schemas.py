"""Copy the request-body JSON Schemas of environment operations (create, update, reports,
allowlist) from the published operations catalog into the package.

Usage: python scripts/extract_environment_schemas.py [CATALOG] > evidence_grpc/domain/environment-schemas.json
Keys: `create_env`, `update_env`, `allow_artifact_for_env`, and `report:<TYPE>` for each report
type. The container-service report (SPEC.md, absent from the catalog) is the ECS report shape with
`type` fixed to `container_service`; `container_service` is added to the environment types.
"""

import copy
import json
import pathlib
import sys

DEFAULT = pathlib.Path(__file__).resolve().parents[2] / "shared/spec/reference/kosli-operations-catalog.json"
REPORTS = {"server": "server_report", "docker": "docker_report", "K8S": "k8s_report",
           "ECS": "ecs_report", "lambda": "lambda_report", "S3": "s3_report",
           "azure-apps": "azure_apps_report", "cloud-run": "cloud_run_report"}
OTHERS = ["create_env", "update_env", "allow_artifact_for_env"]


def body_schema(operation: dict) -> dict:
    schema = operation["requestBody"][0]["schema"]
    return {k: v for k, v in schema.items() if k not in ("examples", "description", "title")}


def main() -> int:
    catalog = json.loads(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else DEFAULT).read_text())
    by_id = {op["id"]: op for op in catalog}
    out = {op_id: body_schema(by_id[op_id]) for op_id in OTHERS}
    out["create_env"]["properties"]["type"]["enum"].append("container_service")
    for env_type, op_id in REPORTS.items():
        out[f"report:{env_type}"] = body_schema(by_id[op_id])
    container = copy.deepcopy(out["report:ECS"])
    container["properties"]["type"] = {"type": "string", "const": "container_service"}
    out["report:container_service"] = container
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
