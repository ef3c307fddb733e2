"""Numbers and names at the edge: whole-string name checks (no `e1` and `e1\\n` side by side),
control characters refused in names, tag keys and file names, downloads of names stored before
that, numbers from text that are ASCII and in range, the gRPC door's double check, and free-form
integers that survive a round trip or are refused."""

from __future__ import annotations

import json
from urllib.parse import quote

import grpc
import pytest
from google.protobuf import wrappers_pb2

from evidence_grpc.api.v2 import build_service_pb2, deployment_service_pb2
from evidence_grpc.domain.kernel.errors import InvalidArgument
from evidence_grpc.domain.kernel.names import check_name, safe_filename
from evidence_grpc.domain.kernel.numbers import COLUMN_MAX, whole_number
from evidence_grpc.services import service_descriptors
from evidence_grpc.storage.models import Attestation
from rest_shim.backend import InProcessBackend
from rest_shim.codec import BodyError
from rest_shim.transcoder import _from_text
from tests.conftest import ALICE_KEY, bearer
from tests.helpers import attest, begin_trail, create_flow, report_artifact, trail_attestations

JSON = "application/json; charset=utf-8"
CONTROL = ["\n", "\r\n", "\x00", "\t", "\x7f", "\x85"]


def put(client, path, body):
    return client.put(path, data=json.dumps(body), content_type=JSON, headers=bearer())


def error_fields(response) -> set[str]:
    assert response.status_code == 400, response.get_data(as_text=True)
    return set(response.get_json().get("errors", {}))


@pytest.mark.parametrize("tail", CONTROL)
def test_name_checks_match_the_whole_name(tail):
    for check in (lambda v: check_name("name", v),):
        with pytest.raises(InvalidArgument):
            check("e1" + tail)
    with pytest.raises(InvalidArgument):
        safe_filename("attachment_file", "report" + tail + ".txt")


def test_names_ending_in_a_newline_are_refused_everywhere(client):
    assert put(client, "/api/v2/flows/acme", {"name": "f1", "description": ""}).status_code == 201
    assert put(client, "/api/v2/environments/acme",
               {"name": "e1", "type": "server", "description": ""}).status_code == 201
    for tail in CONTROL:
        assert error_fields(put(client, "/api/v2/flows/acme",
                                {"name": "f1" + tail, "description": ""})) == {"name"}
        assert error_fields(put(client, "/api/v2/environments/acme", {
            "name": "e1" + tail, "type": "server", "description": ""})) == {"name"}
        assert error_fields(put(client, "/api/v2/flows/acme/f1/rename",
                                {"new_name": "g" + tail})) == {"new_name"}
        assert error_fields(put(client, "/api/v2/environments/acme/e1/rename",
                                {"new_name": "e2" + tail})) == {"new_name"}
        begin = client.put("/api/v2/trails/acme/f1", content_type="multipart/form-data",
                           headers=bearer(), data={"data_json": json.dumps({"name": "t" + tail})})
        assert error_fields(begin) in ({"name"}, {"data_json.name"})
        tags = client.patch("/api/v2/tags/acme/flow/f1", data=json.dumps(
            {"set_tags": {"k" + tail: "v"}}), content_type=JSON, headers=bearer())
        assert error_fields(tags) == {f"set_tags.k{tail}"}
        # and as a path value, where a name is looked up
        assert error_fields(client.get("/api/v2/flows/acme/f1" + quote(tail),
                                       headers=bearer())) == {"flow_name"}
    assert [f["name"] for f in client.get("/api/v2/flows/acme", headers=bearer()).get_json()] \
        == ["f1"]
    assert [e["name"] for e in client.get("/api/v2/environments/acme",
                                          headers=bearer()).get_json()] == ["e1"]


def test_attachment_names_with_control_characters_are_refused_and_old_ones_download(client):
    create_flow(client)
    begin_trail(client)
    data = json.dumps({"attestation_name": "coverage", "is_compliant": True})
    for disposition in ("filename*=UTF-8''a%0D%0Ab.html", 'filename="a\x00b.html"',
                        "filename*=UTF-8''a%C2%85b.html"):
        # raw parts: a client sends these names as RFC 5987 `filename*` (or NUL as is)
        body = (f'--B\r\nContent-Disposition: form-data; name="data_json"\r\n\r\n{data}\r\n'
                f'--B\r\nContent-Disposition: form-data; name="attachment_file"; {disposition}'
                f"\r\n\r\n<p>x</p>\r\n--B--\r\n")
        refused = client.post("/api/v2/attestations/acme/payments/trail/release-1/generic",
                              data=body.encode(), headers=bearer(),
                              content_type="multipart/form-data; boundary=B")
        assert error_fields(refused) in ({"attachment_file"}, {"attachment_file.filename"})

    assert attest(client, "generic", {"attestation_name": "coverage", "is_compliant": True},
                  attachment=("ab.html", b"<p>x</p>")).status_code == 201
    [got] = trail_attestations(client, "coverage")
    # a name stored before control characters were refused still downloads
    Attestation.update(attachment_name="a\r\nb.html").execute()
    download = client.get(f"/api/v2/attestations/acme/payments/trail/release-1/attestation/"
                          f"{got['attestation_id']}/evidence", headers=bearer())
    assert download.status_code == 200
    assert download.data == b"<p>x</p>"
    assert download.headers["Content-Disposition"] == "attachment; filename=a__b.html"


def test_numbers_from_text_are_ascii_and_within_the_field_range():
    int64 = wrappers_pb2.Int64Value.DESCRIPTOR.fields_by_name["value"]
    int32 = wrappers_pb2.Int32Value.DESCRIPTOR.fields_by_name["value"]
    uint32 = wrappers_pb2.UInt32Value.DESCRIPTOR.fields_by_name["value"]
    double = wrappers_pb2.DoubleValue.DESCRIPTOR.fields_by_name["value"]
    assert _from_text(int64, str(2**63 - 1)) == 2**63 - 1
    assert _from_text(int64, str(-2**63)) == -2**63
    assert _from_text(int32, "-12") == -12
    assert _from_text(double, "1.5e3") == 1500.0
    for field, text in [(int64, str(2**63)), (int32, str(2**31)), (uint32, "-1"),
                        (int32, "\u00b2"), (int32, "\u0661\u0662"), (int32, "\uff11"),
                        (int32, "1_000"), (int32, " 1"), (double, "nan"), (double, "Infinity"),
                        (double, "\u0661.5"), (double, "1_0.0")]:
        with pytest.raises(BodyError) as refused:
            _from_text(field, text)
        assert refused.value.field == "value"


def test_whole_numbers_in_domain_text_are_ascii_and_fit_a_column():
    assert whole_number("f", "0042") == 42
    assert whole_number("f", str(COLUMN_MAX)) == COLUMN_MAX
    for text in (str(COLUMN_MAX + 1), "\u00b2", "\u0661", "\uff11", "", "1" * 5000, "+1"):
        with pytest.raises(InvalidArgument) as refused:
            whole_number("f", text)
        assert refused.value.errors == {"f": refused.value.errors["f"]}


def test_snapshot_numbers_beyond_a_column_are_400_naming_the_field(client):
    assert put(client, "/api/v2/environments/acme",
               {"name": "e1", "type": "server", "description": ""}).status_code == 201
    huge = "99999999999999999999"
    for path, field in [(f"/api/v2/snapshots/acme/e1/{huge}", "snapshot_expression"),
                        (f"/api/v2/snapshots/acme/e1/%23{huge}", "snapshot_expression"),
                        (f"/api/v2/snapshots/acme/e1/~{huge}", "snapshot_expression"),
                        ("/api/v2/snapshots/acme/e1/%C2%B2", "snapshot_expression"),
                        ("/api/v2/snapshots/acme/e1/%23%D9%A1", "snapshot_expression"),  # \d took it
                        ("/api/v2/snapshots/acme/e1/1%0A", "snapshot_expression"),
                        (f"/api/v2/snapshots/acme/e1?interval=1..{huge}", "interval"),
                        (f"/api/v2/environments/acme/e1/events?start={huge}", "start"),
                        (f"/api/v2/environments/acme/e1/events?end={huge}%20days", "end"),
                        (f"/api/v2/environments/acme/e1/deployment_frequency?flow_id={huge}",
                         None),
                        ("/api/v2/builds/acme/statistics?end_ts=nan", "end_ts"),
                        ("/api/v2/repos/acme/r/deployment-statistics?start_ts=nan", "start_ts"),
                        ("/api/v2/deployments/acme?start_ts=1e30", "start_ts")]:
        answer = client.get(path, headers=bearer())
        if field is None:  # a flow id no column holds names no flow
            assert answer.status_code == 404, (path, answer.get_data(as_text=True))
            continue
        assert error_fields(answer) == {field}, path


def test_grpc_callers_cannot_send_non_finite_or_huge_doubles(settings):
    backend = InProcessBackend(settings)
    methods = {m.full_name: m for s in service_descriptors() for m in s.methods}
    metadata = [("authorization", f"Bearer {ALICE_KEY}")]
    calls = [("evidence.v2.BuildService.GetBuildStatistics",
              build_service_pb2.GetBuildStatisticsRequest(org="acme", end_ts=float("nan"))),
             ("evidence.v2.DeploymentService.ListDeployments",
              deployment_service_pb2.ListDeploymentsRequest(org="acme", start_ts=float("inf"))),
             ("evidence.v2.DeploymentService.ListDeployments",
              deployment_service_pb2.ListDeploymentsRequest(org="acme", end_ts=-1e300))]
    for name, request in calls:
        with pytest.raises(grpc.RpcError) as refused:
            backend.call(methods[name], request, metadata)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as refused:
        backend.call(methods["evidence.v2.DeploymentService.ListDeployments"],
                     deployment_service_pb2.ListDeploymentsRequest(org="acme", repo_name="a\x00"),
                     metadata)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_free_form_integers_survive_exactly_or_are_refused(client):
    create_flow(client)
    exact = {"big": 2**53, "small": -(2**53), "nested": [{"n": 2**53 - 1}]}
    begin = client.put("/api/v2/trails/acme/payments", content_type="multipart/form-data",
                       headers=bearer(), data={"data_json": json.dumps(
                           {"name": "t1", "user_data": exact})})
    assert begin.status_code == 201, begin.get_data(as_text=True)
    got = client.get("/api/v2/trails/acme/payments/t1", headers=bearer()).get_json()
    assert got["user_data"] == exact
    for beyond in (2**53 + 1, -(2**53) - 1, 2**63 - 1):
        refused = client.put("/api/v2/trails/acme/payments", content_type="multipart/form-data",
                             headers=bearer(), data={"data_json": json.dumps(
                                 {"name": "t2", "user_data": {"n": [beyond]}})})
        assert error_fields(refused) == {"user_data"}


def test_fingerprints_and_commits_ending_in_a_newline_are_refused(client):
    create_flow(client)
    begin_trail(client)
    fingerprint = report_artifact(client, fingerprint="a" * 63 + "\n")
    assert error_fields(fingerprint) & {"fingerprint"}
    commit = report_artifact(client, fingerprint="a" * 64, commit="b" * 39 + "\n")
    assert error_fields(commit) & {"git_commit", "git_commit_info.sha1"}


@pytest.mark.parametrize("number", ['"NaN"', '"Infinity"', '"-Infinity"', '"1e999"', "1e300"])
def test_doubles_in_json_bodies_are_finite_and_within_int64(client, number):
    """protobuf's JSON parser reads "NaN" and "Infinity" strings into a double field: the
    codec refuses them, and the request interceptor any non-finite or huge double (for gRPC
    callers too)."""
    create_flow(client)
    data_json = ('{"name": "t1", "git_commit_info": {"sha1": "' + "b" * 40 +
                 '", "timestamp": ' + number + "}}")
    begin = client.put("/api/v2/trails/acme/payments", content_type="multipart/form-data",
                       headers=bearer(), data={"data_json": data_json})
    # the codec refuses strings that are no ASCII number; the request interceptor the rest
    assert error_fields(begin) in ({"timestamp"}, {"data_json.git_commit_info.timestamp"})


def test_typed_64_bit_integers_survive_a_json_round_trip_exactly():
    """Integers in int64/uint64 fields keep every digit through the codec (parse, message,
    render); only free-form data is bounded by a double."""
    from google.protobuf import descriptor_pb2

    from rest_shim.codec import dumps, loads, merge_json, message_to_json

    text = '{"negative_int_value": -9223372036854775808, "positive_int_value": 18446744073709551615}'
    message = descriptor_pb2.UninterpretedOption()
    merge_json(loads(text), message, strict=True)
    rendered = json.loads(dumps(message_to_json(message)))
    assert rendered["negative_int_value"] == -(2**63)
    assert rendered["positive_int_value"] == 2**64 - 1
    with pytest.raises(BodyError) as refused:
        merge_json(loads('{"negative_int_value": -9223372036854775809}'),
                   descriptor_pb2.UninterpretedOption(), strict=True)
    assert refused.value.field == "negative_int_value"
    for text in ("\u0661\u0662", "\uff11", "1_0", " 1", "\u00b2"):  # int() takes the first three
        with pytest.raises(BodyError) as refused:
            merge_json({"positive_int_value": text}, descriptor_pb2.UninterpretedOption(), True)
        assert refused.value.field == "positive_int_value"
    merge_json({"positive_int_value": "12"}, message, strict=True)
    assert message.positive_int_value == 12


PYTHONS_WORDS = ("expected string", "bytes-like", "Map field", "must be in", "NoneType",
                 "at UpdateTagsRequest", "repeated field")


def test_tag_errors_speak_the_apis_words(client, db):
    """Issue 47, item 10: a tag change of the wrong shape is refused in the API's words, naming
    the field, key or index (REST); over gRPC, whose messages are typed, a key that is no name
    and an unknown resource type are refused as the REST door refuses them."""
    from evidence_grpc.api.v2 import tag_service_pb2 as tag_pb
    from evidence_grpc.api.v2 import tag_service_pb2_grpc as tag_grpc
    from tests.conftest import grpc_channel
    from tests.helpers import details_of

    client.put("/api/v2/flows/acme", headers=bearer(),
               json={"name": "f1", "description": "", "visibility": "private"})
    for body, field, words in (
            ({"set_tags": {"a": 1}}, "set_tags.a", "Input should be a valid string"),
            ({"set_tags": {"a": None}}, "set_tags.a", "Input should be a valid string"),
            ({"set_tags": {"a": ["x"]}}, "set_tags.a", "Input should be a valid string"),
            ({"set_tags": ["a"]}, "set_tags", "Input should be a valid dictionary"),
            ({"set_tags": "a"}, "set_tags", "Input should be a valid dictionary"),
            ({"remove_tags": "a"}, "remove_tags", "Input should be a valid list"),
            ({"remove_tags": {"a": 1}}, "remove_tags", "Input should be a valid list"),
            ({"remove_tags": [1]}, "remove_tags.0", "Input should be a valid string"),
            ({"remove_tags": ["a", None]}, "remove_tags.1", "Input should be a valid string")):
        answer = client.patch("/api/v2/tags/acme/flow/f1", data=json.dumps(body),
                              content_type=JSON, headers=bearer())
        assert answer.status_code == 400, (body, answer.get_json())
        assert answer.get_json()["errors"] == {field: words}, (body, answer.get_json())
    with grpc_channel(db) as channel:
        stub = tag_grpc.TagServiceStub(channel)
        metadata = (("authorization", f"Bearer {ALICE_KEY}"),)
        for request, code, text in (
                (tag_pb.UpdateTagsRequest(org="acme", resource_type="flow", resource_id="f1",
                                          set_tags={"a b": "v"}),
                 grpc.StatusCode.INVALID_ARGUMENT, "String should match pattern"),
                (tag_pb.UpdateTagsRequest(org="acme", resource_type="pipeline",
                                          resource_id="f1"),
                 grpc.StatusCode.NOT_FOUND, "Unknown resource type 'pipeline'")):
            with pytest.raises(grpc.RpcError) as refused:
                stub.UpdateTags(request, metadata=metadata, timeout=10)
            assert refused.value.code() is code
            said = refused.value.details() + " ".join(details_of(refused.value)[1].values())
            assert text in said and not any(w in said for w in PYTHONS_WORDS), said
