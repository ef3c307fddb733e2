"""The one table of size limits of what a write may store: every string, list, map and
free-form document of every write request, by field. The values interceptor holds every write
to it before its servicer runs, so REST (through the shim) and gRPC callers meet the same
limits, refused with INVALID_ARGUMENT (REST: 400) naming the field. docs/limits.md is rendered
from this table (tests/service/test_limits.py checks it).

A field's limit is found, most specific first: by its path in its request message
(`BY_PATH`), by its own name (`BY_NAME`, and `*_url`), else the default of its kind.
Free-form documents (Struct, Value, ListValue) are held to a depth and a size; the keys of
the evidence documents the contract defines (an attestation's data, an artifact's report) are
held to the limits of their names too (`DOCUMENT_KEYS`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    most: int
    unit: str
    why: str


# ---- strings --------------------------------------------------------------------------------

CHARACTERS, ITEMS_, LEVELS = "characters", "items", "levels"
# A name or short text is kept in a column of 255 characters (PostgreSQL's varchar(255): a longer
# value would fail there after the door took it).
NAME = Limit(255, CHARACTERS, "names are single URL path segments; the hosted service's are "
                              "short identifiers; kept in a 255-character column")
ARTIFACT_NAME = Limit(1024, CHARACTERS, "a file name or an image reference (registry host, "
                                        "repository path, tag and digest)")
DESCRIPTION = Limit(16_384, CHARACTERS, "a paragraph or a few, as people write them")
COMMIT_MESSAGE = Limit(65_536, CHARACTERS, "git commit messages (a squash merge lists every "
                                           "commit)")
URL = Limit(2048, CHARACTERS, "the longest URL browsers, proxies and servers reliably carry")
TEXT = Limit(255, CHARACTERS, "any other string: types, fingerprints, commit shas, authors, "
                              "branches; kept in a 255-character column")
SERVICE_ACCOUNT_NAME = Limit(64, CHARACTERS, "the contract's service account name limit")
ACCOUNT_DESCRIPTION = Limit(512, CHARACTERS, "the contract's service account description limit")
KEY_DESCRIPTION = Limit(256, CHARACTERS, "the contract's API key description limit")
CONTROL_NAME = Limit(1024, CHARACTERS, "the contract's control name limit")
TAG_VALUE = Limit(1024, CHARACTERS, "a tag is a label: a version, an owner, a link")

# ---- lists and maps -------------------------------------------------------------------------

ITEMS = Limit(1000, ITEMS_, "any other list: far more environments, flows or rules than a "
                            "write names")
COMMITS = Limit(10_000, ITEMS_, "the commits between two releases an approval covers")
TAGS = Limit(50, ITEMS_, "the tags one call may set or remove")
RESOURCE_TAGS = Limit(100, ITEMS_, "the tags of one flow, environment, repo or control, over "
                                   "all calls")
LINKS = Limit(50, ITEMS_, "the named links of a trail or a control")

# ---- free-form documents --------------------------------------------------------------------

DEPTH = Limit(30, LEVELS, "JSON nesting: each level is three protobuf messages and protobuf "
                          "decoders stop at 100")
DOCUMENT = Limit(1024 * 1024, CHARACTERS, "of the keys and strings of a document (user data, "
                                          "attestation data, links): the REST form field limit")
REPORT = Limit(10 * 1024 * 1024, CHARACTERS, "of the keys and strings of an environment report "
                                             "(a cluster's pods, a bucket's files)")

BY_NAME: dict[str, Limit] = {
    **dict.fromkeys(["org", "name", "flow_name", "trail_name", "env_name", "new_name",
                     "physical_env_name", "environment", "identifier", "attestation_name",
                     "custom_attestation_type_name", "template_reference_name", "resource_id",
                     "actor", "environments", "flows", "included_environments", "policies",
                     "policy_names", "template", "remove_tags", "target_artifacts"], NAME),
    **dict.fromkeys(["artifact_name", "filename"], ARTIFACT_NAME),
    **dict.fromkeys(["description", "comment"], DESCRIPTION),
    **dict.fromkeys(["url", "href"], URL),
    "message": COMMIT_MESSAGE,
}
URL_SUFFIX = "_url"

BY_PATH: dict[str, Limit] = {
    "CreateServiceAccountRequest.name": SERVICE_ACCOUNT_NAME,
    "UpdateServiceAccountRequest.name": SERVICE_ACCOUNT_NAME,
    "CreateServiceAccountRequest.description": ACCOUNT_DESCRIPTION,
    "CreateApiKeyRequest.description": KEY_DESCRIPTION,
    "CreateControlRequest.name": CONTROL_NAME,
    "UpdateControlRequest.name": CONTROL_NAME,
    "UpdateTagsRequest.set_tags": TAGS,
    "UpdateTagsRequest.set_tags.key": NAME,
    "UpdateTagsRequest.set_tags.value": TAG_VALUE,
    "UpdateTagsRequest.remove_tags": TAGS,
    "CreateApprovalRequest.src_commit_list": COMMITS,
    "BeginTrailRequest.data_json.external_urls": LINKS,
    "BeginTrailRequest.data_json.external_urls.key": NAME,
    "ReportEnvironmentRequest.report": REPORT,
}

# Documents whose keys the contract defines: their keys are held to the limits their names
# have above, at the top level and in these objects (the rest of a document, user data
# included, is free-form and held to the document's size only).
DOCUMENT_KEYS = {"CreateAttestationRequest.data_json", "OverrideAttestationRequest.data_json",
                 "ReportArtifactRequest.artifact", "CreateAttestationTypeRequest.data_json"}
DOCUMENT_OBJECTS = {"git_commit_info", "repo_info"}


def string_limit(message: str, path: str) -> Limit:
    """The limit of the string field at `path` (dotted, map values as `.value`) of `message`."""
    name = path.rpartition(".")[2]
    return BY_PATH.get(f"{message}.{path}") or BY_NAME.get(name) or (
        URL if name.endswith(URL_SUFFIX) else TEXT)


def items_limit(message: str, path: str) -> Limit:
    """The most items the list or map at `path` of `message` may hold."""
    return BY_PATH.get(f"{message}.{path}") or ITEMS


def document_limit(message: str, path: str) -> Limit:
    """The most characters of keys and strings the free-form document at `path` may hold."""
    return BY_PATH.get(f"{message}.{path}") or DOCUMENT


def has_defined_keys(message: str, path: str) -> bool:
    """Whether the document at `path` of `message` is one whose keys the contract defines."""
    return f"{message}.{path}" in DOCUMENT_KEYS


def key_limit(message: str, document: str, keys: tuple[str, ...]) -> Limit | None:
    """The limit of a string (or of each string of a list) at `keys` (a top-level key, or one
    in a DOCUMENT_OBJECTS object) of a document whose keys the contract defines; None for a
    key with no limit of its own (free-form)."""
    if not has_defined_keys(message, document):
        return None
    name = keys[-1]
    return BY_NAME.get(name) or (URL if name.endswith(URL_SUFFIX) else None)
