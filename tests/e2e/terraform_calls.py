"""The HTTP calls of the official Terraform provider (kosli-dev/terraform-provider-kosli, its
`pkg/client` as `internal/provider` drives it), as data for one driver
(tests/e2e/test_cli_hosted_answers.py::test_the_terraform_provider_calls_behave): each call as
its Go code builds it (method, path, query, body bytes, headers) and what its Go code needs of
the answer (the status it requires, the struct it decodes into, the fields it reads into the
Terraform state). The calls come in the order `terraform apply`, a second apply with changes,
`terraform import` and `terraform destroy` make them for one resource of each kind.

Go's encoding/json writes a map's keys sorted and a struct's fields in declared order, with no
spaces, and escapes `<`, `>` and `&`; a nil slice is `null`. Its mime/multipart writes a field
part with a Content-Disposition header alone and a file part with `application/octet-stream`.

`decodes` is the Go struct a call's answer is unmarshalled into: a field's Go type as one of
str, int, float, bool, any, raw (json.RawMessage), {str} (map[string]string), a list of one
type or a nested struct; a field json.Unmarshal may find absent (its zero value is what the
provider wants then) ends in `?`. A value of the wrong JSON type fails the whole decode, as it
does in Go. `reads`: what the provider puts in the state, by dotted path in the decoded answer
(`versions.0.evaluator.rules`); a value differing from the plan fails the apply ("inconsistent
result") or shows a diff forever. Values and paths name `{org}`, `{s}` (this run's suffix) and
what earlier calls `capture`d (`{number}`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

SCHEMA = '{"type":"object","properties":{"age":{"type":"integer"}},"required":["age"]}'
TEMPLATE = ("version: 1\ntrail:\n  attestations:\n  - name: tests\n    type: junit\n")
POLICY = ("_schema: https://kosli.com/schemas/policy/environment/v1\n"
          "artifacts:\n  provenance:\n    required: true\n")
POLICY_2 = POLICY + "  trail-compliance:\n    required: true\n"
WEBHOOK = "https://hooks.example.com/services/T0/B0/X0"

FLOW = {"name": "str", "description": "str", "visibility": "str", "template": "str",
        "tags": "{str}"}
ENVIRONMENT = {"org": "str", "name": "str", "type": "str", "description": "str",
               "last_modified_at": "float", "last_reported_at": "float", "state": "any",
               "include_scaling": "bool", "require_provenance": "bool", "tags": "{str}",
               "policies": ["any"], "included_environments?": ["str"]}
POLICY_ANSWER = {"name": "str", "description": "str", "created_at": "float", "versions": [
    {"version": "int", "policy_yaml": "str", "timestamp": "float", "created_by": "str"}]}
ATTESTATION_TYPE = {"name": "str", "description?": "str", "archived": "bool", "org": "str",
                    "versions": [{"version": "int", "timestamp": "float", "type_schema": "raw",
                                  "evaluator": {"content_type": "str", "rules?": ["str"]},
                                  "created_by": "str"}]}
ACTION = {"name": "str", "type": "str", "number": "int", "environments": ["str"],
          "triggers": ["str"], "targets": [{"type": "str", "webhook?": "str",
                                            "payload_version?": "str"}],
          "created_by": "str", "is_created_from_slack_app": "bool", "is_failing": "bool",
          "created_at": "float", "last_modified_at": "float"}


@dataclass(frozen=True)
class Call:
    source: str  # file and function in the provider that makes the call
    method: str
    path: str  # under /api/v2
    json: Any = None  # a JSON body, as json.Marshal writes it (Content-Type: application/json)
    fields: dict[str, Any] = field(default_factory=dict)  # multipart: WriteField parts (JSON)
    files: dict[str, tuple[str, str]] = field(default_factory=dict)  # CreateFormFile parts
    status: int | None = None  # the status the Go code requires; otherwise any 2xx
    missing: bool = False  # a 404 the provider reads as "gone" (removes it from the state)
    decodes: Any = None
    pick: str | None = None  # a list answer: the item of this name is the one used
    reads: dict[str, Any] = field(default_factory=dict)
    capture: dict[str, str] = field(default_factory=dict)  # context name -> path


def go_json(value: Any) -> bytes:
    """`value` as Go's json.Marshal writes it (dicts given in the order Go writes them)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()


def env_body(name: str, env_type: str, description: str, *, include_scaling: bool = False,
             included: list[str] | None = None) -> dict[str, Any]:
    """pkg/client/environments.go CreateEnvironment's map body (keys sorted, nil slices null;
    resource_environment.go passes no policies)."""
    return {"description": description, "include_scaling": include_scaling,
            "included_environments": included, "name": name, "policies": None, "type": env_type}


def tags(set_tags: dict[str, str], remove: list[str]) -> dict[str, Any]:
    """pkg/client/tags.go TagResourcePayload (struct order; internal/provider/tags.go applyTags
    sends it only when something changes)."""
    return {"set_tags": dict(sorted(set_tags.items())), "remove_tags": remove}


def flow_form(description: str) -> dict[str, Any]:
    return {"data_json": {"description": description, "name": "tf-flow-{s}",
                          "visibility": "private"}}


def type_form(description: str, rules: list[str]) -> dict[str, Any]:
    return {"data_json": {"description": description,
                          "evaluator": {"content_type": "jq", "rules": rules},
                          "name": "tf-type-{s}"}}


def policy_form(comment: str) -> dict[str, Any]:
    return {"payload": {"comment": comment, "description": "house rules", "name": "tf-policy-{s}",
                        "type": "env"}}


def action_body(triggers: list[str]) -> dict[str, Any]:
    """pkg/client/actions.go ActionRequest (struct order), as resource_action.go builds it."""
    return {"name": "tf-action-{s}", "type": "env", "environments": ["tf-env-{s}"],
            "triggers": triggers, "targets": [{"type": "WEBHOOK", "webhook": WEBHOOK}]}


FLOWS = "/flows/{org}"
ENVS = "/environments/{org}"
TYPES = "/custom-attestation-types/{org}"
ACTIONS = "/organizations/{org}/environments_notifications"

CALLS: list[Call] = [
    # ---- kosli_flow (resource_flow.go) --------------------------------------------------------
    Call("flows.go CreateFlow (resource_flow.go Create)", "PUT", FLOWS + "/template_file",
         fields=flow_form("built by terraform"), files={"template_file": ("template.yml", TEMPLATE)}),
    Call("tags.go TagResource (tags.go applyTags, Create)", "PATCH", "/tags/{org}/flow/tf-flow-{s}",
         json=tags({"team": "core", "tier": "1"}, [])),
    Call("flows.go GetFlow (resource_flow.go Create, retry_after_create.go)", "GET",
         FLOWS + "/tf-flow-{s}", decodes=FLOW,
         reads={"name": "tf-flow-{s}", "description": "built by terraform", "template": TEMPLATE,
                "tags": {"team": "core", "tier": "1"}}),
    Call("flows.go CreateFlow (resource_flow.go Update)", "PUT", FLOWS + "/template_file",
         fields=flow_form(""), files={"template_file": ("template.yml", TEMPLATE)}),
    Call("tags.go TagResource (tags.go applyTags, Update)", "PATCH", "/tags/{org}/flow/tf-flow-{s}",
         json=tags({"tier": "2"}, ["team"])),
    Call("flows.go GetFlow (resource_flow.go Update)", "GET", FLOWS + "/tf-flow-{s}", decodes=FLOW,
         reads={"description": "", "template": TEMPLATE, "tags": {"tier": "2"}}),
    Call("flows.go ListFlows", "GET", FLOWS, decodes=[FLOW], pick="tf-flow-{s}",
         reads={"tags": {"tier": "2"}}),
    Call("flows.go ArchiveFlow (resource_flow.go Delete)", "PUT", FLOWS + "/tf-flow-{s}/archive"),
    Call("flows.go GetFlow (resource_flow.go Read: archived is gone)", "GET",
         FLOWS + "/tf-flow-{s}", missing=True),
    # A flow without a template (template is Optional+Computed: whatever is answered is kept).
    Call("flows.go CreateFlow (no template_file)", "PUT", FLOWS + "/template_file",
         fields={"data_json": {"description": "", "name": "tf-bare-{s}", "visibility": "private"}}),
    Call("flows.go GetFlow (data_source_flow.go Read)", "GET", FLOWS + "/tf-bare-{s}",
         decodes=FLOW, reads={"name": "tf-bare-{s}", "description": ""}),

    # ---- kosli_environment (resource_environment.go) ------------------------------------------
    Call("environments.go CreateEnvironment (resource_environment.go Create)", "PUT", ENVS,
         json=env_body("tf-env-{s}", "K8S", "built by terraform", include_scaling=True)),
    Call("tags.go TagResource (tags.go applyTags, Create)", "PATCH",
         "/tags/{org}/environment/tf-env-{s}", json=tags({"team": "core"}, [])),
    Call("environments.go GetEnvironment (resource_environment.go Create)", "GET",
         ENVS + "/tf-env-{s}", decodes=ENVIRONMENT,
         reads={"name": "tf-env-{s}", "type": "K8S", "description": "built by terraform",
                "include_scaling": True, "tags": {"team": "core"}, "last_reported_at": None}),
    Call("environments.go UpdateEnvironment (resource_environment.go Update)", "PATCH",
         ENVS + "/tf-env-{s}", json={"description": "", "include_scaling": False}),
    Call("environments.go GetEnvironment (resource_environment.go Update)", "GET",
         ENVS + "/tf-env-{s}", decodes=ENVIRONMENT,
         reads={"description": "", "include_scaling": False, "require_provenance": False}),
    Call("environments.go ListEnvironments", "GET", ENVS, decodes=[ENVIRONMENT],
         pick="tf-env-{s}", reads={"type": "K8S"}),

    # ---- kosli_logical_environment (resource_logical_environment.go) --------------------------
    Call("environments.go CreateEnvironment (resource_logical_environment.go Create)", "PUT", ENVS,
         json=env_body("tf-all-{s}", "logical", "every cluster", included=["tf-env-{s}"])),
    Call("environments.go GetEnvironment (resource_logical_environment.go Create)", "GET",
         ENVS + "/tf-all-{s}", decodes=ENVIRONMENT,
         reads={"type": "logical", "included_environments": ["tf-env-{s}"]}),
    Call("environments.go UpdateEnvironment (resource_logical_environment.go Update)", "PATCH",
         ENVS + "/tf-all-{s}", json={"description": "no cluster", "included_environments": []}),
    Call("environments.go GetEnvironment (resource_logical_environment.go Update)", "GET",
         ENVS + "/tf-all-{s}", decodes=ENVIRONMENT,
         reads={"description": "no cluster", "included_environments": []}),
    Call("environments.go ArchiveEnvironment (resource_logical_environment.go Delete)", "PUT",
         ENVS + "/tf-all-{s}/archive"),

    # ---- kosli_policy (resource_policy.go) ----------------------------------------------------
    Call("policies.go CreatePolicy (resource_policy.go Create)", "PUT", "/policies/{org}",
         fields=policy_form(""), files={"policy_file": ("policy.yaml", POLICY)}),
    Call("policies.go GetPolicy (resource_policy.go Create)", "GET", "/policies/{org}/tf-policy-{s}",
         decodes=POLICY_ANSWER, reads={"name": "tf-policy-{s}", "description": "house rules",
                                       "versions.0.version": 1, "versions.0.policy_yaml": POLICY}),
    Call("policies.go CreatePolicy (resource_policy.go Update)", "PUT", "/policies/{org}",
         fields=policy_form("and compliant trails"),
         files={"policy_file": ("policy.yaml", POLICY_2)}),
    # resource_policy.go latestPolicyVersion takes the highest version, wherever it is listed.
    Call("policies.go GetPolicy (resource_policy.go Update)", "GET", "/policies/{org}/tf-policy-{s}",
         decodes=POLICY_ANSWER, reads={"versions.#max.policy_yaml": POLICY_2}),
    Call("policies.go ListPolicies", "GET", "/policies/{org}", decodes=[POLICY_ANSWER],
         pick="tf-policy-{s}", reads={"description": "house rules"}),

    # ---- kosli_policy_attachment (resource_policy_attachment.go) ------------------------------
    Call("policy_attachments.go AttachPolicy (Create)", "POST", ENVS + "/tf-env-{s}/policies",
         json={"policy_names": ["tf-policy-{s}"]}),
    Call("policy_attachments.go GetEnvironmentPolicies (Read)", "GET", ENVS + "/tf-env-{s}",
         decodes=ENVIRONMENT, reads={"policies": ["tf-policy-{s}"]}),
    Call("policy_attachments.go DetachPolicy (Delete)", "DELETE", ENVS + "/tf-env-{s}/policies",
         json={"policy_names": ["tf-policy-{s}"]}),
    Call("policy_attachments.go GetEnvironmentPolicies (Read)", "GET", ENVS + "/tf-env-{s}",
         decodes=ENVIRONMENT, reads={"policies": []}),

    # ---- kosli_custom_attestation_type (resource_custom_attestation_type.go) ------------------
    Call("custom_attestation_types.go CreateCustomAttestationType (Create)", "POST", TYPES,
         fields=type_form("adults only", [".age > 21"]),
         files={"type_schema": ("schema.json", SCHEMA)}, status=201),
    Call("custom_attestation_types.go GetCustomAttestationType (Create)", "GET",
         TYPES + "/tf-type-{s}", decodes=ATTESTATION_TYPE,
         reads={"name": "tf-type-{s}", "description": "adults only", "archived": False,
                "versions.0.type_schema": json.loads(SCHEMA),
                "versions.0.evaluator.rules": [".age > 21"]}),
    # Update makes a new version by the same POST and requires 201 again.
    Call("custom_attestation_types.go CreateCustomAttestationType (Update)", "POST", TYPES,
         fields=type_form("adults only", [".age >= 18"]),
         files={"type_schema": ("schema.json", SCHEMA)}, status=201),
    Call("custom_attestation_types.go GetCustomAttestationType (Update: versions[0] is the "
         "latest)", "GET", TYPES + "/tf-type-{s}", decodes=ATTESTATION_TYPE,
         reads={"versions.0.version": 2, "versions.0.evaluator.rules": [".age >= 18"]}),
    Call("custom_attestation_types.go GetCustomAttestationType (Version: \"1\")", "GET",
         TYPES + "/tf-type-{s}?version=1", decodes=ATTESTATION_TYPE,
         reads={"versions.0.version": 1, "versions.0.evaluator.rules": [".age > 21"]}),
    Call("custom_attestation_types.go ListCustomAttestationTypes", "GET", TYPES,
         decodes=[ATTESTATION_TYPE], pick="tf-type-{s}",
         reads={"versions.0.evaluator.rules": [".age >= 18"]}),
    Call("custom_attestation_types.go ArchiveCustomAttestationType (Delete)", "PUT",
         TYPES + "/tf-type-{s}/archive"),
    Call("custom_attestation_types.go GetCustomAttestationType (data source: archived)", "GET",
         TYPES + "/tf-type-{s}", decodes=ATTESTATION_TYPE, reads={"archived": True}),

    # ---- kosli_action (resource_action.go) ----------------------------------------------------
    Call("actions.go CreateOrUpdateAction (resource_action.go Create)", "PUT", ACTIONS,
         json=action_body(["ON_NON_COMPLIANT_ENV"])),
    Call("actions.go GetActionByName via ListActions (resource_action.go Create)", "GET", ACTIONS,
         decodes=[ACTION], pick="tf-action-{s}", capture={"number": "number"},
         reads={"type": "env", "environments": ["tf-env-{s}"],
                "triggers": ["ON_NON_COMPLIANT_ENV"], "targets.0.webhook": WEBHOOK}),
    Call("actions.go GetActionByNumber (resource_action.go Read)", "GET", ACTIONS + "/{number}",
         decodes=ACTION, reads={"name": "tf-action-{s}", "number": "{number}"}),
    Call("actions.go UpdateAction (resource_action.go Update)", "PUT", ACTIONS + "/{number}",
         json=action_body(["ON_NON_COMPLIANT_ENV", "ON_COMPLIANT_ENV"])),
    Call("actions.go GetActionByNumber (resource_action.go Update)", "GET", ACTIONS + "/{number}",
         decodes=ACTION, reads={"number": "{number}",
                                "triggers": ["ON_NON_COMPLIANT_ENV", "ON_COMPLIANT_ENV"]}),
    Call("actions.go DeleteAction (resource_action.go Delete)", "DELETE", ACTIONS + "/{number}"),
    Call("actions.go GetActionByNumber (resource_action.go Read: deleted)", "GET",
         ACTIONS + "/{number}", missing=True),

    # ---- kosli_environment destroy ------------------------------------------------------------
    Call("environments.go ArchiveEnvironment (resource_environment.go Delete)", "PUT",
         ENVS + "/tf-env-{s}/archive"),
]
