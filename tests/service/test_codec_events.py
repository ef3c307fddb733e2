"""The codec's options for records kept as reported (trail events: `json_inline` kinds,
`omit_when_unset` keys, `as_sent` documents) and for reported resources (`json_array` lists)."""

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


def test_documents_as_sent_keep_their_own_keys_zeros_and_integral_numbers():
    from evidence_grpc.api.v2 import attestation_service_pb2 as att_pb

    junit = att_pb.Attestation(attestation_type="junit", junit=att_pb.JunitAttestation(
        junit_results=[att_pb.JunitSuite(name="api", failures=0, duration=2.0),
                       att_pb.JunitSuite(name="ui", duration=1.5)]))
    shown = message_to_json(junit)
    assert shown["junit_results"] == [{"name": "api", "failures": 0, "duration": 2},
                                      {"name": "ui", "duration": 1.5}]
    assert "jira_results" not in shown and shown["evidence"] is None
    # Nested messages of a document are as sent too (a pull request's commits).
    pull = att_pb.PullRequest(url="u", commits=[common_pb2.GitCommitInfo(sha1="a", timestamp=1.7e9)])
    assert message_to_json(att_pb.PullRequestAttestation(git_provider="github",
                                                         pull_requests=[pull])) == {
        "git_provider": "github",
        "pull_requests": [{"url": "u", "commits": [{"sha1": "a", "timestamp": 1700000000}]}]}


def test_empty_repeated_fields_marked_omit_when_unset_are_left_out():
    from evidence_grpc.api.v2 import artifact_service_pb2 as art_pb

    evidence = art_pb.ArtifactEvidence(evidence_type="generic")
    assert not {"junit_results", "jira_results", "snyk_results", "git_provider",
                "pull_requests"} & set(message_to_json(evidence))
    evidence.junit_results.add(name="api")
    assert message_to_json(evidence)["junit_results"] == [{"name": "api"}]


def test_a_json_array_message_is_answered_as_its_list():
    from evidence_grpc.api.v2 import attestation_service_pb2 as att_pb

    answer = att_pb.ListAttestationsForCriteriaResponse()
    answer.by_commit["a" * 40].data.add(attestation_name="unit")
    answer.by_commit["b" * 40].SetInParent()
    by_commit = message_to_json(answer)["by_commit"]
    assert [a["attestation_name"] for a in by_commit["a" * 40]] == ["unit"]
    assert by_commit["b" * 40] == []


def test_series_of_one_key_objects_are_written_as_the_objects_would_be():
    """Deployment statistics answer their series as `[{"deployed_at": t}, ...]`, written at
    once from the packed numbers: byte for byte what writing the objects gives."""
    import orjson

    from evidence_grpc.api.v2 import repo_service_pb2 as repo_pb
    from rest_shim.codec import dumps

    for times, leads in (([], []), ([1.5], []), ([1764118800.123456, 1e-7, 0.0, 1e22, 2.0, -3.25],
                                                 [60.0, 0.5]), ([float(n) for n in range(3000)],
                                                                [7.0] * 2999)):
        message = repo_pb.DeploymentStatistics(start_ts=0, end_ts=1, environments=[
            repo_pb.EnvironmentDeploymentStatistics(env_name="prod", deployment_frequency=times,
                                                    lead_times=leads)])
        written = dumps(message_to_json(message))
        answer = orjson.loads(written)
        [env] = answer["environments"]
        assert env["deployment_frequency"] == [{"deployed_at": t} for t in times]
        assert env["lead_times"] == [{"lead_time_seconds": t} for t in leads]
        assert written == orjson.dumps(answer)  # the objects, written, give the same bytes
