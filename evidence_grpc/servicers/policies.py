"""PolicyService and SchemaService."""

from __future__ import annotations

import grpc
from google.api import httpbody_pb2

from ..api.v2 import policy_service_pb2 as pb
from ..api.v2 import policy_service_pb2_grpc as pb_grpc
from ..convert import optional, text_of, to_message
from ..domain.governance import policies
from ..domain.identity.callers import current_caller
from ..domain.kernel.errors import validation_error
from ..domain.kernel.yaml_documents import published_schema
from ..storage.db import owns_transaction
from ..storage.models import Organization, Policy


def _policies(org: Organization, rows: list[Policy]) -> list[pb.Policy]:
    return [to_message(view, pb.Policy) for view in policies.policy_views(org, rows)]


class PolicyServicer(pb_grpc.PolicyServiceServicer):
    def UpsertPolicy(self, request: pb.UpsertPolicyRequest, context: grpc.ServicerContext
                     ) -> pb.UpsertPolicyResponse:
        caller = current_caller()
        if not request.HasField("payload"):
            raise validation_error("payload", "The policy's name, description, type and comment "
                                              "are required")
        payload = request.payload
        policy, created = policies.upsert_policy(
            caller.org, caller.user.name, payload.name, description=payload.description,
            comment=payload.comment, policy_type=optional(payload, "type"),
            policy_yaml=text_of(request.policy_file, "policy_file"))
        return pb.UpsertPolicyResponse(policy=_policies(caller.org, [policy])[0], created=created)

    def GetPolicy(self, request: pb.GetPolicyRequest, context: grpc.ServicerContext) -> pb.Policy:
        org = current_caller().org
        return _policies(org, [policies.find_policy(org, request.policy_name)])[0]

    def ListPolicies(self, request: pb.ListPoliciesRequest, context: grpc.ServicerContext
                     ) -> pb.ListPoliciesResponse:
        org = current_caller().org
        return pb.ListPoliciesResponse(data=_policies(org, policies.list_policies(org)))

    @owns_transaction  # judges before its write transaction
    def AttachPolicies(self, request: pb.AttachPoliciesRequest, context: grpc.ServicerContext
                       ) -> pb.AttachPoliciesResponse:
        env = policies.attach_policies(current_caller().org, request.env_name,
                                       list(request.policy_names))
        return pb.AttachPoliciesResponse(
            message=f"policies {list(request.policy_names)} attached to environment '{env.name}'")

    @owns_transaction  # judges before its write transaction
    def DetachPolicies(self, request: pb.DetachPoliciesRequest, context: grpc.ServicerContext
                       ) -> pb.DetachPoliciesResponse:
        env = policies.detach_policies(current_caller().org, request.env_name,
                                       list(request.policy_names))
        return pb.DetachPoliciesResponse(
            message=f"policies {list(request.policy_names)} detached from environment '{env.name}'")


class SchemaServicer(pb_grpc.SchemaServiceServicer):
    def GetSchema(self, request: pb.GetSchemaRequest, context: grpc.ServicerContext
                  ) -> httpbody_pb2.HttpBody:
        return httpbody_pb2.HttpBody(content_type="application/schema+json",
                                     data=published_schema(request.kind, request.version).encode())
