"""TransparencyService: the organization's transparency log, its signed checkpoints and proofs
(domain.transparency)."""

from __future__ import annotations

import functools

import grpc
from google.api import httpbody_pb2

from ..api.v2 import transparency_service_pb2 as pb
from ..api.v2 import transparency_service_pb2_grpc as pb_grpc
from ..config import Settings
from ..domain.identity.callers import current_caller
from ..domain.transparency import keys, log, witnessing

TEXT = "text/plain; charset=utf-8"


@functools.cache
def _signer(key_file: str) -> log.LogSigner:
    return log.read_signer(key_file)


def log_signer(settings: Settings) -> log.LogSigner:
    """The log's signing key of these settings (read once per process; made, when it may be,
    by the command that starts the server, before it forks: cli._prepare_log_key)."""
    return _signer(settings.log_key_file)


@functools.cache
def _witnesses(specs: tuple[str, ...], quorum: int) -> witnessing.Witnesses:
    return witnessing.parse_witnesses(specs, quorum)


def log_witnesses(settings: Settings) -> witnessing.Witnesses:
    """The witnesses of these settings, and their quorum (parsed once per process)."""
    return _witnesses(settings.witnesses, settings.witness_quorum)


class TransparencyServicer(pb_grpc.TransparencyServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def signer(self) -> log.LogSigner:
        return log_signer(self.settings)

    @property
    def witnesses(self) -> witnessing.Witnesses:
        return log_witnesses(self.settings)

    def _served(self) -> str:
        return witnessing.served_checkpoint(current_caller().org, self.signer, self.signer.name,
                                            self.witnesses)

    def GetLogPublicKey(self, request: pb.GetLogPublicKeyRequest, context: grpc.ServicerContext
                        ) -> httpbody_pb2.HttpBody:
        return httpbody_pb2.HttpBody(content_type=TEXT, data=f"{self.signer.vkey}\n".encode())

    def GetLogKeyHistory(self, request: pb.GetLogKeyHistoryRequest, context: grpc.ServicerContext
                         ) -> pb.LogKeyHistory:
        return pb.LogKeyHistory(keys=[
            pb.LogKey(verifier_key=span.verifier_key, first_size=span.first_size,
                      last_size=span.last_size, rotation_checkpoint=span.rotation or "")
            for span in keys.history(current_caller().org, self.signer.vkey)])

    def GetLogCheckpoint(self, request: pb.GetLogCheckpointRequest, context: grpc.ServicerContext
                         ) -> httpbody_pb2.HttpBody:
        return httpbody_pb2.HttpBody(content_type=TEXT, data=self._served().encode())

    def GetLogEntry(self, request: pb.GetLogEntryRequest, context: grpc.ServicerContext
                    ) -> pb.LogEntry:
        found = log.entry(current_caller().org, request.index)
        return pb.LogEntry(index=found.number, leaf=found.leaf, leaf_hash=found.leaf_hash.hex())

    def GetLogInclusionProof(self, request: pb.GetLogInclusionProofRequest,
                             context: grpc.ServicerContext) -> pb.LogProof:
        return pb.LogProof(hashes=log.inclusion_proof(current_caller().org, request.index,
                                                      request.tree_size))

    def GetLogTile(self, request: pb.GetLogTileRequest, context: grpc.ServicerContext
                   ) -> httpbody_pb2.HttpBody:
        return httpbody_pb2.HttpBody(content_type="application/octet-stream",
                                     data=log.tile(current_caller().org, request.tile))

    def GetLogConsistencyProof(self, request: pb.GetLogConsistencyProofRequest,
                               context: grpc.ServicerContext) -> pb.LogProof:
        return pb.LogProof(hashes=log.consistency_proof(current_caller().org, request.first,
                                                        request.second))

    def GetLogWitnesses(self, request: pb.GetLogWitnessesRequest, context: grpc.ServicerContext
                        ) -> pb.LogWitnesses:
        org = current_caller().org
        size = log.size_of(org)
        served_size, states = witnessing.states(org, self.witnesses)
        return pb.LogWitnesses(
            size=size, quorum=self.witnesses.quorum, served_size=served_size,
            checkpoint=self._served(),
            witnesses=[pb.LogWitness(
                name=state.witness.name, key=state.witness.key, cosigned_size=state.size,
                cosigned_at=state.cosigned_at, behind=max(size - state.size, 0),
                failures=state.failures, refusals=state.refusals, problem=state.problem,
                on_served_checkpoint=state.on_served) for state in states])
