"""The codec's options for records kept as reported (trail events): `json_inline` kinds,
`omit_when_unset` keys, `as_sent` documents."""

from __future__ import annotations

from evidence_grpc.api.v2 import common_pb2
from evidence_grpc.api.v2 import trail_service_pb2 as pb
from rest_shim.codec import message_to_json


def test_a_kind_is_answered_beside_timestamp_and_type():
    event = pb.TrailEvent(timestamp=1.5, type="trail_updated", trail=pb.TrailReported(user="al"))
    # unset git_commit_info, repo_info, origin_url and user_data are left out, not null
    assert message_to_json(event) == {"timestamp": 1.5, "type": "trail_updated", "user": "al"}


def test_unset_fields_answer_null_unless_marked_omitted():
    stopped = pb.TrailEvent(timestamp=2.0, type="artifact_stopped_running", running=pb.ArtifactRunning(
        artifact_fingerprint="f" * 64, environment_id="3", environment_name="prod",
        snapshot_index=7))
    assert message_to_json(stopped) == {
        "timestamp": 2.0, "type": "artifact_stopped_running", "artifact_fingerprint": "f" * 64,
        "template_reference_name": None, "environment_id": "3", "environment_name": "prod",
        "snapshot_index": 7, "git_commit_info": None, "repo_info": None}
    started = pb.ArtifactRunning(replica_number=2)
    assert message_to_json(started)["replica_number"] == 2


def test_documents_as_sent_keep_only_the_keys_they_hold():
    commit = common_pb2.GitCommitInfo(sha1="a" * 40, timestamp=3.0, verified=False)
    event = pb.TrailEvent(type="trail_attestation_reported", attestation=pb.AttestationReported(
        attestation_id="u", git_commit_info=commit))
    rendered = message_to_json(event)["git_commit_info"]
    # no empty `parents`, no unset `url`: but an optional field set to its default stays
    assert rendered == {"sha1": "a" * 40, "timestamp": 3.0, "verified": False}
    assert message_to_json(pb.TrailEvent(attestation=pb.AttestationReported()))[
        "git_commit_info"] is None  # an unset document (not marked omitted) is null
