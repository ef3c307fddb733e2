"""AttestationService and AttestationTypeService."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import grpc

from ..api.v2 import attestation_service_pb2 as pb
from ..api.v2 import attestation_service_pb2_grpc as pb_grpc
from ..api.v2 import attestation_type_service_pb2 as type_pb
from ..api.v2 import attestation_type_service_pb2_grpc as type_pb_grpc
from ..api.v2 import common_pb2, options_pb2
from ..config import Settings
from ..convert import (
    optional,
    page_of_request,
    plain_data,
    present_fields,
    text_of,
    to_message,
    upload_of,
    with_items,
)
from ..domain.evidence import attestation_types, attestations, in_toto
from ..domain.identity.callers import current_caller
from ..memo import small_lru
from ..storage.db import owns_transaction
from .transparency import log_signer


def _present(request: object, *names: str) -> dict[str, object]:
    """The named optional fields the caller sent."""
    return {n: optional(request, n) for n in names if optional(request, n) is not None}


_KIND_MEMBERS = {field.name for field in pb.Attestation.DESCRIPTOR.oneofs_by_name["kind"].fields}
_COMMON_KEYS = {field.GetOptions().Extensions[options_pb2.json_key] or field.name
                for field in pb.Attestation.DESCRIPTOR.fields if field.name not in _KIND_MEMBERS}
_SYSTEM_KEYS = {"type_name", "attestation_data"}


def attestation_fields(a: attestations.Listed, org_name: str, html_base: str) -> dict[str, Any]:
    """An attestation as the fields of its message, from the parts its API view is made of: the
    part of its kind goes to the member of `kind` its type names; anything a system attestation
    carries beyond its type and data to `more`."""
    fields: dict[str, Any] = {**attestations.common_fields(a, org_name, html_base)}  # and a member
    part = attestations.kind_part(a.data or {})
    fields["override"] = part.pop("override", None)
    kind = a.type.partition(":")[0]
    member = kind if kind in _KIND_MEMBERS else None if kind == "generic" else "system"
    if member is not None:
        part = {k: v for k, v in part.items() if k not in _COMMON_KEYS}
        if member == "system":
            part["more"] = {k: part.pop(k) for k in list(part) if k not in _SYSTEM_KEYS}
        fields[member] = part
    return fields


@small_lru(items=2048, most_bytes=4096,
           size=lambda a, *_: len(a.data_json or "") + len(a.summary_json or ""))
def _encoded(a: attestations.Listed, org_name: str, html_base: str) -> bytes:
    """An attestation's message, encoded. The message is made of its row alone (and of the
    organization's name and the links' base), so the same row always makes the same bytes: the
    rows read last are kept (up to 4 KiB of JSON each), and a list made of them costs little
    more than its query."""
    return to_message(attestation_fields(a, org_name, html_base), pb.Attestation
                      ).SerializeToString()


class AttestationServicer(pb_grpc.AttestationServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.html_base = settings.html_base

    def _listed(self, rows: list[attestations.Listed], org_name: str) -> list[bytes]:
        """The attestations' messages, encoded, for `with_items`."""
        return [_encoded(a, org_name, self.html_base) for a in rows]

    @owns_transaction
    def CreateAttestation(self, request: pb.CreateAttestationRequest,
                          context: grpc.ServicerContext) -> pb.CreateAttestationResponse:
        caller = current_caller()
        attestation = attestations.create_attestation(
            caller.org, caller.user, request.flow_name, request.trail_name, request.kind,
            plain_data(request.data_json, "data_json"), upload_of(request.attachment_file, "attachment_file"))
        return pb.CreateAttestationResponse(
            message=f"{request.kind} attestation '{attestation.name}' was reported",
            attestation_id=attestation.uid)

    def OverrideAttestation(self, request: pb.OverrideAttestationRequest,
                            context: grpc.ServicerContext) -> pb.CreateAttestationResponse:
        caller = current_caller()
        attestation = attestations.override_attestation(
            caller.org, caller.user, request.flow_name, request.trail_name,
            plain_data(request.data_json, "data_json"))
        return pb.CreateAttestationResponse(
            message=f"attestation '{attestation.name}' was overridden",
            attestation_id=attestation.uid)

    def GetTrailAttestation(self, request: pb.GetTrailAttestationRequest,
                            context: grpc.ServicerContext) -> pb.AttestationList:
        org = current_caller().org
        rows = attestations.trail_attestations(org, request.flow_name, request.trail_name,
                                               request.attestation_name)
        return with_items(pb.AttestationList(), "data", self._listed(rows, org.name))

    def GetAttestationInToto(self, request: pb.GetAttestationInTotoRequest,
                             context: grpc.ServicerContext) -> pb.DsseEnvelope:
        payload, signed = in_toto.export(current_caller().org, request.flow_name,
                                         request.trail_name, request.attestation_name,
                                         self.html_base, log_signer(self.settings))
        return pb.DsseEnvelope(payload=payload, payload_type=in_toto.PAYLOAD_TYPE, signatures=[
            pb.DsseSignature(keyid=keyid, sig=sig) for keyid, sig in signed])

    def GetArtifactAttestation(self, request: pb.GetArtifactAttestationRequest,
                               context: grpc.ServicerContext) -> pb.AttestationList:
        org = current_caller().org
        rows = attestations.artifact_attestations(org, request.flow_name, request.fingerprint,
                                                  request.attestation_name)
        return with_items(pb.AttestationList(), "data", self._listed(rows, org.name))

    def ListSystemAttestationTypes(self, request: pb.ListSystemAttestationTypesRequest,
                                   context: grpc.ServicerContext
                                   ) -> pb.ListSystemAttestationTypesResponse:
        return to_message({"types": attestations.SYSTEM_TYPES},
                          pb.ListSystemAttestationTypesResponse)

    def ListAttestations(self, request: pb.ListAttestationsRequest,
                         context: grpc.ServicerContext) -> pb.AttestationPage:
        org = current_caller().org
        per_page = optional(request, "per_page")
        per_page = 20 if per_page is None else per_page
        filters = _present(request, "attestation_id", "name", "name_regex", "flow", "type",
                            "is_compliant", "from_timestamp", "to_timestamp")
        rows, cursor = attestations.list_attestations(
            org, filters, optional(request, "after"), per_page)
        page = with_items(pb.AttestationPage(), "data", self._listed(rows, org.name))
        page.links.SetInParent()
        if cursor:
            # The next page keeps the caller's filters, or following the link would list others.
            query = {k: str(v).lower() if isinstance(v, bool) else v for k, v in filters.items()}
            query.update(after=cursor, per_page=per_page)
            page.links.next = (f"{self.html_base}/api/v2/attestations/{org.name}"
                               f"?{urlencode(query)}")
        return page

    def ListFlowAttestations(self, request: pb.ListFlowAttestationsRequest,
                             context: grpc.ServicerContext) -> pb.AttestationPage:
        org = current_caller().org
        page = page_of_request(request)
        rows, pagination = attestations.list_flow_attestations(
            org, request.flow_name, page,
            _present(request, "from_timestamp", "to_timestamp", "trail_name"))
        return with_items(to_message({"pagination": pagination}, pb.AttestationPage), "data",
                          self._listed(rows, org.name))

    def ListAttestationsForCriteria(self, request: pb.ListAttestationsForCriteriaRequest,
                                    context: grpc.ServicerContext
                                    ) -> pb.ListAttestationsForCriteriaResponse:
        org = current_caller().org
        found = attestations.attestations_for_criteria(org, present_fields(request))
        answer = pb.ListAttestationsForCriteriaResponse()
        for commit, rows in found.items():
            with_items(answer.by_commit[commit], "data", self._listed(rows, org.name))
        return answer

    def GetAttestationEvidence(self, request: pb.GetAttestationEvidenceRequest,
                               context: grpc.ServicerContext) -> common_pb2.UploadedFile:
        name, content_type, content = attestations.evidence_file(
            current_caller().org, request.flow_name, request.trail_name, request.attestation_id)
        return common_pb2.UploadedFile(filename=name, content_type=content_type, content=content)


class AttestationTypeServicer(type_pb_grpc.AttestationTypeServiceServicer):
    def CreateAttestationType(self, request: type_pb.CreateAttestationTypeRequest,
                              context: grpc.ServicerContext
                              ) -> type_pb.CreateAttestationTypeResponse:
        caller = current_caller()
        type_, created = attestation_types.create_type(
            caller.org, caller.user, plain_data(request.data_json, "data_json"),
            text_of(request.type_schema, "type_schema"))
        verb = "created" if created else "updated"
        return type_pb.CreateAttestationTypeResponse(
            message=f"custom attestation type '{type_.name}' was {verb}", created=created)

    def GetAttestationType(self, request: type_pb.GetAttestationTypeRequest,
                           context: grpc.ServicerContext) -> type_pb.AttestationType:
        org = current_caller().org
        type_ = attestation_types.find_type(org, request.custom_attestation_type_name)
        version = optional(request, "version")
        return to_message(attestation_types.type_view(type_, org.name, version),
                          type_pb.AttestationType)

    def ListAttestationTypes(self, request: type_pb.ListAttestationTypesRequest,
                             context: grpc.ServicerContext) -> type_pb.AttestationTypeList:
        org = current_caller().org
        return type_pb.AttestationTypeList(data=[
            to_message(attestation_types.type_view(t, org.name), type_pb.AttestationType)
            for t in attestation_types.list_types(org)])

    def ArchiveAttestationType(self, request: type_pb.ArchiveAttestationTypeRequest,
                               context: grpc.ServicerContext
                               ) -> type_pb.ArchiveAttestationTypeResponse:
        type_ = attestation_types.archive_type(current_caller().org,
                                               request.custom_attestation_type_name)
        return type_pb.ArchiveAttestationTypeResponse(
            message=f"custom attestation type '{type_.name}' was archived")
