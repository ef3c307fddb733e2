"""Audit packages and the trail PDF: everything recorded about a trail (or an artifact) in one
download an auditor can keep and check.

A package is a gzipped tar of `trail.json` (or `artifact.json`), every attestation as JSON with
its data and summary as stored (`records/`), their attachments as stored, the artifacts of the
trail, the template that judges the trail (`template.json`), the trail report as `report.pdf`,
the log's checkpoint with the entries of what it holds and the trail's latest manifest
(`transparency/`), and `manifest.json` plus `SHA256SUMS` listing the SHA-256 and size of every
other file. Its bytes depend only on what is recorded (fixed member times and order), so two
downloads of an unchanged trail are identical."""

from __future__ import annotations

import base64
import binascii
import datetime
import gzip
import hashlib
import io
import json
import re
import tarfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...api.v2 import views
from ...storage.models import Artifact, Organization, Trail, TrailEvent
from ..evidence import artifacts, attestations, blobs, trails
from ..evidence.compliance import COMPLIANT
from ..evidence.flows import find_flow
from ..evidence.leaves import (
    ARTIFACT,
    ARTIFACT_MANIFEST,
    ATTESTATION,
    ATTESTATION_BOUND,
    LOGGED_EVENTS,
    TRAIL_EVENT,
    TRAIL_MANIFEST,
    binding_log_indexes,
)
from ..evidence.manifests import (
    artifact_entries,
    artifact_reports,
    judged_again,
    latest_artifact_manifest,
    latest_manifest,
    trail_entries,
)
from ..kernel.errors import FailedPrecondition
from ..transparency import cosignatures, log, merkle, notes, witnessing
from . import artifact_views

FORMAT = "evidence-audit-package/1"
TRANSPARENCY_FORMAT = "evidence-transparency/1"
MAX_PACKAGE_BYTES = 256 * 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(name: str) -> str:
    """A file name that cannot leave its folder or surprise a shell."""
    cleaned = _UNSAFE.sub("_", name).strip("._") or "file"
    return cleaned[:120]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _json(value: Any) -> bytes:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).encode()


class _Package:
    """Files in the order added; the manifest and checksums are written last."""

    def __init__(self, stamp: float) -> None:
        self.stamp = int(stamp)
        self.files: list[tuple[str, bytes]] = []
        self.size = 0
        # (file, the log entry of one of its records) of what the log holds
        self.covered: list[tuple[str, int]] = []

    def add(self, path: str, content: bytes) -> None:
        self.size += len(content)
        if self.size > MAX_PACKAGE_BYTES:
            raise FailedPrecondition(
                f"The audit package would be larger than {MAX_PACKAGE_BYTES // (1024 * 1024)} "
                "MiB; download the attachments one by one instead", reason="PACKAGE_TOO_LARGE")
        self.files.append((path, content))

    def add_transparency(self, org: Organization, signer: log.LogSigner,
                         latest: int | None, listed: list[int],
                         witnesses: witnessing.Witnesses) -> None:
        """The log's checkpoint now, its verifier key, and for each covered file the entries of
        its records with their inclusion proofs against that checkpoint (transparency/); the
        latest manifest of the trail or artifact, `latest` (with its proof), and the entries it
        lists (of `listed`, its entries now, those before it)."""
        # the newest checkpoint the witnesses cosigned, when it holds every entry carried (else
        # the log's now: a package made within the second after a write waits for no witness)
        needed = max([number for _, number in self.covered] + [-1 if latest is None else latest])
        found = witnessing.witnessed(org, witnesses, needed + 1)
        size = found[0] if found is not None else log.size_of(org)

        def proved(number: int) -> dict[str, Any]:
            return {"index": number, "leaf": _b64(log.entry(org, number).leaf),
                    "inclusion_proof": [_b64(h) for h in log.inclusion_proof(org, number, size)]}

        carried: dict[str, Any] = {"format": TRANSPARENCY_FORMAT, "tree_size": size,
                                   "entries": [{"path": path, **proved(number)}
                                               for path, number in self.covered]}
        if latest is not None and latest < size:
            carried["manifest"] = {**proved(latest), "entries": [
                number for number in listed if number < latest]}
        note = found[1] if found is not None else log.checkpoint(org, signer, signer.name)
        self.add("transparency/checkpoint", note.encode())
        self.add("transparency/public-key", f"{signer.vkey}\n".encode())
        self.add("transparency/entries.json", _json(carried))

    def gzipped(self, about: dict[str, Any]) -> bytes:
        entries = [{"path": path, "sha256": hashlib.sha256(content).hexdigest(),
                    "size": len(content)} for path, content in self.files]
        manifest = _json({"format": FORMAT, **about, "files": entries})
        sums = "".join(f"{e['sha256']}  {e['path']}\n" for e in entries).encode()
        out = io.BytesIO()
        # gzip's own header time is the recorded one too, so equal evidence gives equal bytes
        with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=self.stamp) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path, content in [*self.files, ("manifest.json", manifest), ("SHA256SUMS", sums)]:
                info = tarfile.TarInfo(path)
                info.size, info.mtime, info.mode = len(content), self.stamp, 0o644
                tar.addfile(info, io.BytesIO(content))
        return out.getvalue()


def _add_evidence(package: _Package, org: Organization, rows: list[attestations.Listed],
                  html_base: str) -> list[dict[str, Any]]:
    attested = []
    bindings = binding_log_indexes([row.uid for row in rows])
    for number, row in enumerate(rows, start=1):
        view = attestations.attestation_document(row, org.name, html_base)
        attested.append(view)
        stem = f"{number:04d}-{_safe(row.name)}"
        package.add(f"attestations/{stem}.json", _json(view))
        package.add(f"records/{stem}.json", _json({"data": row.data, "summary": row.summary}))
        if row.log_index is not None:  # else recorded before the log began: verify-package says so
            package.covered.append((f"attestations/{stem}.json", row.log_index))
        if row.uid in bindings:  # made before its artifact, bound to it later
            package.covered.append((f"attestations/{stem}.json", bindings[row.uid]))
        if row.attachment_id:
            package.add(f"attachments/{stem}/{_safe(row.attachment_name or 'evidence')}",
                        blobs.content_of(row.attachment_id))
    return attested


def _trail_document(org: Organization, trail: Trail, html_base: str) -> dict[str, Any]:
    """The trail as get trail answers it, with its events as recorded: each its fields beside
    its timestamp and type."""
    events = [e.view() for e in trails.events_of([trail])[trail.id]]
    view = trails.trail_view(trail, org.name, html_base, trails.evidence_of([trail])[trail.id])
    return {key: events if key == "events" else value for key, value in view.items()}


def trail_package(org: Organization, flow_name: str, trail_name: str, html_base: str,
                  signer: log.LogSigner, witnesses: witnessing.Witnesses) -> bytes:
    trail = trails.find_trail(org, flow_name, trail_name)
    package = _Package(trail.last_modified_at)
    view = _trail_document(org, trail, html_base)
    package.add("trail.json", _json(view))
    package.add("template.json", _json(trails.template_in_force(trail)))
    events = [event_id for (event_id,) in TrailEvent.select(TrailEvent.id).where(
        (TrailEvent.trail == trail) & TrailEvent.type.in_(LOGGED_EVENTS)).tuples()]
    package.covered += [("trail.json", number)
                        for number in sorted(log.log_indexes(TRAIL_EVENT, events).values())]
    rows = attestations.recorded_in(org, trail)
    attested = _add_evidence(package, org, rows, html_base)
    made = list(Artifact.select().where(Artifact.trail == trail).order_by(Artifact.id))
    made_views = artifact_views.artifact_views(org, made, html_base) if made else []
    for artifact in made_views:
        package.add(f"artifacts/{artifact['fingerprint']}.json", _json(artifact))
    package.add("report.pdf", _pdf(org.name, view, attested, made_views))
    latest = latest_manifest(trail)
    package.add_transparency(org, signer, latest, trail_entries(trail.id) if latest else [],
                             witnesses)
    return package.gzipped({"org": org.name, "flow": trail.flow.name, "trail": trail.name,
                            "recorded_until": trail.last_modified_at})


def artifact_package(org: Organization, flow_name: str, fingerprint: str, html_base: str,
                     signer: log.LogSigner, witnesses: witnessing.Witnesses) -> bytes:
    """An artifact of a flow (full fingerprint or 5-64 character prefix): its JSON, the
    attestations about it (its manifest's: those of its trail for its template name too) and
    their attachments, the template judging it."""
    flow = find_flow(org, flow_name)
    artifact = artifacts.find_by_fingerprint(org, flow.name, fingerprint)
    view = artifact_views.artifact_views(org, [artifact], html_base)[0]
    package = _Package(artifact.last_modified_at or artifact.created_at)
    package.add("artifact.json", _json(view))
    package.add("template.json", _json(trails.template_in_force(artifact.trail)))
    package.covered += [("artifact.json", number) for number in artifact_reports(artifact)]
    rows = attestations.recorded_in(org, about=artifact)
    _add_evidence(package, org, rows, html_base)
    latest = latest_artifact_manifest(artifact)
    package.add_transparency(org, signer, latest, artifact_entries(artifact) if latest else [],
                             witnesses)
    return package.gzipped({"org": org.name, "flow": flow.name,
                            "fingerprint": artifact.fingerprint})


def trail_pdf(org: Organization, flow_name: str, trail_name: str, html_base: str) -> bytes:
    trail = trails.find_trail(org, flow_name, trail_name)
    rows = attestations.recorded_in(org, trail)
    attested = [attestations.attestation_document(r, org.name, html_base) for r in rows]
    made = list(Artifact.select().where(Artifact.trail == trail).order_by(Artifact.id))
    return _pdf(org.name, _trail_document(org, trail, html_base), attested,
                artifact_views.artifact_views(org, made, html_base) if made else [])


# ---- the report ---------------------------------------------------------------------------

def _text(value: Any) -> str:
    """What the PDF's core fonts can draw (Latin-1), control characters removed."""
    text = "" if value is None else str(value)
    text = "".join(c if c.isprintable() else " " for c in text)
    return text.encode("latin-1", "replace").decode("latin-1")


def _when(stamp: Any) -> str:
    if not isinstance(stamp, int | float):
        return ""
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _pdf(org_name: str, trail: Mapping[str, Any], attested: Sequence[Mapping[str, Any]],
         made: Sequence[Mapping[str, Any]]) -> bytes:
    from fpdf import FPDF  # imported here: a second, paid only by who makes or checks a report

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.set_creation_date(datetime.datetime.fromtimestamp(trail["last_modified_at"],
                                                          datetime.UTC))
    pdf.set_title(_text(f"Audit report: {trail['name']}"))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 9, _text(f"Trail {trail['name']}"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    commit = (trail.get("git_commit_info") or {}).get("sha1", "")
    for label, value in (("Organization", org_name), ("Flow", (trail.get("flow") or {}).get("name", "")),
                         ("Compliance", trail.get("compliance_state", "")),
                         ("Created", f"{_when(trail['created_at'])} by {trail.get('created_by')}"),
                         ("Last modified", _when(trail["last_modified_at"])),
                         ("Commit", commit), ("Description", trail.get("description", ""))):
        pdf.multi_cell(0, 6, _text(f"{label}: {value}"), new_x="LMARGIN", new_y="NEXT")

    def section(title: str, lines: list[str]) -> None:
        pdf.ln(4)
        pdf.set_font("Helvetica", "B", 12)
        pdf.cell(0, 8, _text(title), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 9)
        for line in lines or ["(none)"]:
            pdf.multi_cell(0, 5, _text(line), new_x="LMARGIN", new_y="NEXT")

    section(f"Artifacts ({len(made)})", [
        f"{a.get('filename')}  {a.get('fingerprint')}  {a.get('state')}" for a in made])
    section(f"Attestations ({len(attested)})", [
        f"{_when(a['created_at'])}  {a['attestation_name']} ({a['attestation_type']})  "
        f"{'compliant' if a['is_compliant'] else 'NON-COMPLIANT'}  by {a['created_by']}"
        + (f"  attachment {a['evidence']['filename']} sha256 {a['evidence']['sha256']}"
           if a.get("evidence") else "") for a in attested])
    section("Events", [f"{_when(e.get('timestamp'))}  {e.get('type')}"
                       for e in trail.get("events", [])])
    return bytes(pdf.output())


# ---- offline verification ----------------------------------------------------------------------

# What an attestation's leaf says and the key of its JSON document that must say the same.
_ATTESTED = (("id", "attestation_id"), ("name", "attestation_name"), ("type", "attestation_type"),
             ("compliant", "is_compliant"), ("artifact_fingerprint", "artifact_fingerprint"),
             ("target_artifact", "target_artifact"), ("trail", "trail_name"),
             ("created_at", "created_at"), ("actor", "created_by"),
             ("overrides", "overridden_attestation_id"))
# The fields of an attestation's answer that are not its kind's part (attestations.kind_part):
# a key of the kind's part by one of these names is answered as the row says.
_ANSWER_FIELDS = frozenset(views.Attestation.__annotations__)
# The fields of a trail that the latest trail_reported / trail_updated event naming them says.
_TRAIL_FIELDS = ("git_commit_info", "repo_info", "origin_url", "user_data")
MAX_VERIFIED_BYTES = 2 * MAX_PACKAGE_BYTES
NO_MANIFEST = ("no manifest: omission not checked (the {what} has no manifest in the log: "
               "{why}); its verdict is not judged again")
_FIXED = {"manifest.json", "SHA256SUMS", "transparency/checkpoint", "transparency/public-key",
          "transparency/entries.json"}
_OF_TRAIL = {"trail.json", "template.json", "report.pdf"}
# the paths the entries a manifest lists are about (a trail's, an artifact's)
_ENTRIES_MAY_HOLD = ("trail.json", "artifact.json", "attestations/")


@dataclass
class PackageCheck:
    """What verify-package found: `problems` (it fails) and `notes` (what it could not check)."""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# A leaf proved in the package's checkpoint: (its entry number, the leaf).
Logged = tuple[int, dict[str, Any]]


def _unpacked(content: bytes) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    with tarfile.open(fileobj=io.BytesIO(content), mode="r:gz") as tar:
        for member in tar:
            if not member.isfile() or member.name.startswith("/") or ".." in member.name.split("/"):
                raise ValueError(f"{member.name!r} is not a file a package holds")
            total += member.size
            if total > MAX_VERIFIED_BYTES:
                raise ValueError("the package unpacks to more than a package may hold")
            extracted = tar.extractfile(member)
            files[member.name] = extracted.read() if extracted is not None else b""
    return files


def verify_package(content: bytes, verifier: notes.Verifier) -> list[str]:
    """What does not hold in an audit package (check_package); [] when it holds."""
    return check_package(content, verifier).problems


def check_package(
    content: bytes,
    verifier: notes.Verifier,
    witnesses: Sequence[cosignatures.WitnessVerifier] = (),
    quorum: int = 0,
) -> PackageCheck:
    """Check an audit package with nothing but the package and the log's verifier key: the
    manifest's sums; the checkpoint's signature; each entry's leaf in the checkpoint's tree
    (its inclusion proof); each attestation file the same as its leaf says (an attestation
    bound to its artifact later, as its leaf and its binding's say), its data and summary
    hashing to the leaf's digests and saying what the file says, its attachment the one the
    leaf names; each trail event as logged, the trail's fields as its events say, each artifact
    file as its report event says; the report the one the files make; no file a package does
    not hold. A trail's package: the trail's latest manifest lists exactly the package's
    entries, names the verdict the trail file shows, the template the package carries, and the
    trail judged again from the package's files has that verdict. With `witnesses`: the
    checkpoint carries valid cosignatures of at least `quorum` of them."""
    check = PackageCheck()
    try:
        files = _unpacked(content)
    except (tarfile.TarError, OSError, EOFError, ValueError) as error:
        check.problems.append(f"not an audit package: {error}")
        return check
    problems = check.problems
    try:
        manifest = json.loads(files["manifest.json"])
        listed = {entry["path"]: entry["sha256"] for entry in manifest["files"]}
        transparency = json.loads(files["transparency/entries.json"])
        origin, size, root, *_ = notes.open_checkpoint(files["transparency/checkpoint"], verifier)
    except KeyError as missing:
        check.problems.append(f"the package lacks {missing}")
        return check
    except (ValueError, TypeError) as error:
        check.problems.append(f"the package's manifest or checkpoint does not verify: {error}")
        return check
    checkpoint = files["transparency/checkpoint"]
    if witnesses and (shortfall := cosignatures.quorum_shortfall(checkpoint, witnesses, quorum)):
        problems.append(shortfall)
    for path in sorted(set(files) - {"manifest.json", "SHA256SUMS"} | set(listed)):
        if path not in files or listed.get(path) != hashlib.sha256(files[path]).hexdigest():
            problems.append(f"{path}: not as the manifest lists it")
    if files.get("SHA256SUMS") != "".join(f"{e['sha256']}  {e['path']}\n"
                                          for e in manifest["files"]).encode():
        problems.append("SHA256SUMS: not the sums the manifest lists")
    if transparency.get("tree_size") != size:
        problems.append(f"the entries are proved against {transparency.get('tree_size')} entries, "
                        f"the checkpoint has {size}")
    leaves: dict[str, list[Logged]] = {}
    for entry in transparency.get("entries", []):
        leaf = _proved(entry, size, root, origin, problems)
        if leaf is not None:
            leaves.setdefault(entry["path"], []).append(leaf)
    try:
        problems += _unexpected(files) + _attested(files, leaves) + _trail_events(files, leaves) \
            + _trail_fields(files) + _artifacts(files) + _the_artifact(files, leaves) \
            + _report(files, manifest)
        if "trail.json" in files:
            _manifest(files, transparency, size, root, origin, leaves, check)
        elif "artifact.json" in files:
            _artifact_manifest(files, transparency, size, root, origin, leaves, check)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        problems.append(f"a file of the package is not as a package writes it: {error!r}")
    return check


def _proved(entry: dict[str, Any], size: int, root: bytes, origin: str, problems: list[str]
            ) -> Logged | None:
    """(number, leaf) of an entry whose inclusion proof leads to the checkpoint's root."""
    try:
        leaf = base64.b64decode(entry["leaf"])
        merkle.verify_inclusion(entry["index"], size, merkle.leaf_hash(leaf),
                                [base64.b64decode(h) for h in entry["inclusion_proof"]], root)
        return entry["index"], json.loads(leaf)
    except (KeyError, TypeError, ValueError, binascii.Error) as error:
        problems.append(f"{entry.get('path', 'the manifest')}: entry {entry.get('index')} is not "
                        f"in the log of {origin} ({error})")
        return None


def _stems(files: dict[str, bytes]) -> list[str]:
    """The attestation files' stems (`NNNN-name`), in the package's order (their numbers)."""
    stems = [path[len("attestations/"):-len(".json")] for path in files
             if path.startswith("attestations/") and path.endswith(".json") and path.count("/") == 1]
    return sorted(stems, key=lambda stem: (int(stem.partition("-")[0]) if stem.partition("-")[0]
                                           .isdigit() else -1, stem))


def _unexpected(files: dict[str, bytes]) -> list[str]:
    """Files a package does not hold, and those it must that are not there."""
    stems = set(_stems(files))
    trail = "trail.json" in files
    problems = []
    for path in sorted(files):
        folder, _, rest = path.partition("/")
        expected = (path in _FIXED or (trail and path in _OF_TRAIL)
                    or (not trail and path in ("artifact.json", "template.json"))
                    or (folder == "records" and rest.endswith(".json") and rest[:-5] in stems)
                    or (folder == "attestations" and "/" not in rest)
                    or (folder == "attachments" and rest.partition("/")[0] in stems
                        and "/" in rest and "/" not in rest.partition("/")[2])
                    or (trail and folder == "artifacts" and "/" not in rest
                        and rest.endswith(".json")))
        if not expected:
            problems.append(f"{path}: not a file an audit package holds")
    for path in sorted({"report.pdf", "trail.json"} - set(files) if trail
                       else {"artifact.json"} - set(files)):
        problems.append(f"{path}: missing")
    return problems


def _attested(files: dict[str, bytes], leaves: dict[str, list[Logged]]) -> list[str]:
    problems = []
    attachments: dict[str, list[str]] = {}  # by the stem of their attestation
    for path in files:
        if path.startswith("attachments/"):
            attachments.setdefault(path.split("/")[1], []).append(path)
    for stem in _stems(files):
        path = f"attestations/{stem}.json"
        logged = [leaf for _, leaf in leaves.get(path, []) if leaf.get("kind") == ATTESTATION]
        if len(logged) != 1:
            problems.append(f"{path}: not in the transparency log")
            continue
        document, leaf = json.loads(files[path]), _as_bound(logged[0], [
            bound for _, bound in leaves[path] if bound.get("kind") == ATTESTATION_BOUND])
        held = log.text if "v" in leaf else log.whole  # a version-1 leaf holds texts whole
        differ = [key for leaf_key, key in _ATTESTED
                  if held(document.get(key)) != leaf.get(leaf_key)]
        if (document.get("evidence") or {}).get("sha256") != leaf.get("attachment_sha256"):
            differ.append("evidence.sha256")
        if differ:
            problems.append(f"{path}: differs from its log entry ({', '.join(differ)})")
        problems += _as_recorded(stem, document, leaf, files)
        attached = attachments.get(stem, [])
        for each in attached:
            if hashlib.sha256(files[each]).hexdigest() != leaf.get("attachment_sha256"):
                problems.append(f"{each}: not the attachment its log entry names")
        if leaf.get("attachment_sha256") is not None and not attached:
            problems.append(f"attachments/{stem}/: missing (its log entry names an attachment)")
    return problems


def _as_recorded(stem: str, document: dict[str, Any], leaf: dict[str, Any],
                 files: dict[str, bytes]) -> list[str]:
    """An attestation's data and summary (records/) as its leaf digests them, and its file
    saying what they say."""
    path = f"records/{stem}.json"
    if path not in files:
        return [f"{path}: missing (the data and summary of attestations/{stem}.json)"]
    record = json.loads(files[path])
    data, summary = record.get("data"), record.get("summary")
    problems = [f"{path}: its {name} is not the one its log entry digests ({name}_sha256)"
                for name, value in (("data", data), ("summary", summary))
                if log.digest(value) != leaf.get(f"{name}_sha256")]
    said = {key: value for key, value in attestations.kind_part(data or {}).items()
            if key not in _ANSWER_FIELDS}
    said.update(attestations.data_fields(data or {}), summary=summary)
    differ = sorted(key for key, value in said.items() if document.get(key) != value)
    if differ:
        problems.append(f"attestations/{stem}.json: differs from its data and summary as logged "
                        f"({', '.join(differ)})")
    return problems


def _as_bound(leaf: dict[str, Any], bindings: list[dict[str, Any]]) -> dict[str, Any]:
    """An attestation's leaf as its binding entry (one made without a fingerprint, bound to
    its artifact later) completes it; as it is without one, or with a binding that is not its
    own to take (of another attestation, a second one, or of one made with a fingerprint)."""
    if len(bindings) != 1 or bindings[0].get("id") != leaf.get("id") \
            or leaf.get("artifact_fingerprint") is not None:
        return leaf
    return {**leaf, "artifact_fingerprint": bindings[0].get("artifact_fingerprint")}


def _logged_events(files: dict[str, bytes]) -> list[dict[str, Any]]:
    return [e for e in json.loads(files["trail.json"]).get("events", [])
            if e.get("type") in LOGGED_EVENTS] if "trail.json" in files else []


def _trail_events(files: dict[str, bytes], leaves: dict[str, list[Logged]]) -> list[str]:
    if "trail.json" not in files:
        return []
    events = _logged_events(files)
    logged = {(leaf.get("type"), leaf.get("timestamp"), leaf.get("payload_sha256"))
              for _, leaf in leaves.get("trail.json", []) if leaf.get("kind") == TRAIL_EVENT}
    problems = []
    for event in events:
        payload = {k: v for k, v in event.items() if k not in ("timestamp", "type")}
        if (event.get("type"), event.get("timestamp"), log.digest(payload)) not in logged:
            problems.append(f"trail.json: its {event.get('type')} event of {event.get('timestamp')} "
                            "is not in the transparency log as it reads")
    if len(logged) != len(events):
        problems.append("trail.json: the log holds events of the trail the file does not")
    return problems


def _trail_fields(files: dict[str, bytes]) -> list[str]:
    """The trail's fields that its begin events report, as the latest one naming each says
    (an event without a field leaves it as it was)."""
    if "trail.json" not in files:
        return []
    trail = json.loads(files["trail.json"])
    said: dict[str, Any] = {}
    for event in _logged_events(files):
        if event.get("type") in ("trail_reported", "trail_updated"):
            said.update((key, event[key]) for key in _TRAIL_FIELDS if key in event)
    differ = [key for key, value in said.items() if trail.get(key) not in (value, None)]
    return [f"trail.json: its {key} is not the one its latest event reporting it says"
            for key in differ]


def _reports(files: dict[str, bytes]) -> dict[str, dict[str, Any]]:
    """The trail's logged artifact reports: fingerprint -> its latest report, in the order the
    fingerprints were first reported."""
    reported: dict[str, dict[str, Any]] = {}
    for event in _logged_events(files):
        if event.get("type") == "artifact_creation_reported":
            reported[event.get("fingerprint", "")] = event
    return reported


def _artifacts(files: dict[str, bytes]) -> list[str]:
    """Each artifact file as the trail's latest report of its fingerprint says (its name,
    template name and commit)."""
    reported = _reports(files)
    problems = []
    for path in sorted(p for p in files if p.startswith("artifacts/")):
        artifact = json.loads(files[path])
        latest = reported.get(artifact.get("fingerprint"))
        if latest is None or path != f"artifacts/{artifact.get('fingerprint')}.json":
            problems.append(f"{path}: no logged report of the trail is of this artifact")
            continue
        differ = [key for key, said in (("filename", "artifact_name"),
                                        ("template_reference_name", "template_reference_name"),
                                        ("git_commit_info", "git_commit_info"))
                  if artifact.get(key) != latest.get(said)]
        if "git_commit" in artifact and artifact["git_commit"] != (
                latest.get("git_commit_info") or {}).get("sha1"):
            differ.append("git_commit")
        if differ:
            problems.append(f"{path}: differs from its logged report ({', '.join(differ)})")
    return problems


def _the_artifact(files: dict[str, bytes], leaves: dict[str, list[Logged]]) -> list[str]:
    """An artifact's package: artifact.json is the artifact its latest report's entry logs,
    and the one its attestations' entries are about (each about its fingerprint, as made or
    as bound later, or made in its trail for its template name)."""
    if "artifact.json" not in files:
        return []
    artifact = json.loads(files["artifact.json"])
    problems = []
    reports = sorted((number, leaf) for number, leaf in leaves.get("artifact.json", [])
                     if leaf.get("kind") == ARTIFACT)
    if reports:
        report = reports[-1][1]
        differ = [key for key, said in (("id", "id"), ("fingerprint", "fingerprint"),
                                        ("filename", "name"),
                                        ("template_reference_name", "template_reference_name"))
                  if artifact.get(key) != report.get(said)]
        if differ:
            problems.append(f"artifact.json: differs from its latest report's log entry "
                            f"({', '.join(differ)})")
    fingerprint, name = artifact.get("fingerprint"), artifact.get("template_reference_name")
    for stem in _stems(files):
        logged = leaves.get(f"attestations/{stem}.json", [])
        made = [leaf for _, leaf in logged if leaf.get("kind") == ATTESTATION]
        if len(made) != 1:
            continue
        leaf = _as_bound(made[0], [bound for _, bound in logged
                                   if bound.get("kind") == ATTESTATION_BOUND])
        if leaf.get("artifact_fingerprint") != fingerprint and not (
                name and leaf.get("target_artifact") == name
                and leaf.get("trail") == artifact.get("trail_name")):
            problems.append("artifact.json: its fingerprint is not that of the artifact its "
                            "attestations' log entries are about")
            break
    return problems


def _attestation_documents(files: dict[str, bytes]) -> list[dict[str, Any]]:
    return [json.loads(files[f"attestations/{stem}.json"]) for stem in _stems(files)]


def _report(files: dict[str, bytes], manifest: dict[str, Any]) -> list[str]:
    """report.pdf: the one the package's own files make (its rendering is deterministic)."""
    if "trail.json" not in files or "report.pdf" not in files:
        return []
    reported = list(_reports(files))
    made = sorted((json.loads(files[p]) for p in files if p.startswith("artifacts/")),
                  key=lambda a: reported.index(a.get("fingerprint"))
                  if a.get("fingerprint") in reported else len(reported))  # as first reported
    expected = _pdf(str(manifest.get("org", "")), json.loads(files["trail.json"]),
                    _attestation_documents(files), made)
    return [] if expected == files["report.pdf"] else [
        "report.pdf: not the report the package's trail, attestations and artifacts make"]


def _carried(files: dict[str, bytes], transparency: dict[str, Any], size: int, root: bytes,
             origin: str, leaves: dict[str, list[Logged]], check: PackageCheck,
             what: str, kind: str, subject: tuple[str, str, Any]) -> tuple[dict[str, Any], str] | None:
    """The latest manifest of the package's trail or artifact (`what`), proved, of `kind`,
    whose `subject` (its key, the file's key, the file's value) is the file's, listing exactly
    the package's entries: (its leaf, how problems name it); None when it has none (noted) or
    does not hold (named)."""
    problems = check.problems
    carried = transparency.get("manifest")
    if carried is None:
        check.notes.append(NO_MANIFEST.format(what=what, why="not written since the log began "
                                              f"keeping {what} manifests"))
        return None
    proved = _proved(carried, size, root, origin, problems)
    if proved is None:
        return None
    number, manifest = proved
    where = f"the {what}'s manifest (entry {number})"
    key, file_key, value = subject
    if manifest.get("kind") != kind or manifest.get(key) != value:
        problems.append(f"{where}: not a manifest of {what} {value!r}")
        return None
    listed = carried.get("entries")
    if not isinstance(listed, list) or len(listed) != manifest.get("count") \
            or log.entries_digest(listed) != manifest.get("entries_sha256"):
        problems.append(f"{where}: the entries the package lists are not those it digests")
        return None
    held = {n for path, found in leaves.items() if path.startswith(_ENTRIES_MAY_HOLD)
            for n, _ in found}
    problems += [f"entry {n}: listed in {where}, the package lacks it"
                 for n in sorted(set(listed) - held)]
    problems += [f"entry {n}: in the package, not listed in {where}"
                 for n in sorted(held - set(listed))]
    return manifest, where


def _template(files: dict[str, bytes], manifest: dict[str, Any], where: str, what: str,
              problems: list[str]) -> dict[str, Any] | None:
    """template.json, when it is the template the manifest names."""
    if "template.json" not in files:
        problems.append(f"template.json: missing (the template the {what} is judged by)")
        return None
    in_force = json.loads(files["template.json"])
    if log.digest(in_force) != manifest.get("template_sha256"):
        problems.append(f"template.json: not the template {where} names (template_sha256)")
        return None
    return in_force


def _manifest(files: dict[str, bytes], transparency: dict[str, Any], size: int, root: bytes,
              origin: str, leaves: dict[str, list[Logged]], check: PackageCheck) -> None:
    """The trail's latest manifest: the entries it lists are exactly the package's, its
    verdict the trail file's and the one the package's files make."""
    trail = json.loads(files["trail.json"])
    found = _carried(files, transparency, size, root, origin, leaves, check, "trail",
                     TRAIL_MANIFEST, ("trail", "name", trail.get("name")))
    if found is None:
        return
    manifest, where = found
    status = manifest.get("status")
    if trail.get("compliance_state") != status \
            or (trail.get("compliance_status") or {}).get("status") != status \
            or trail.get("is_compliant") is not (status == COMPLIANT):
        check.problems.append(f"trail.json: its verdict is not {status}, the one {where} logs")
    in_force = _template(files, manifest, where, "trail", check.problems)
    if in_force is None:
        return
    again = _judged_again(files, in_force, leaves)
    if again != status:
        check.problems.append(f"the trail judged again from the package's files is {again}, "
                              f"not {status} as {where} logs")


def _artifact_manifest(files: dict[str, bytes], transparency: dict[str, Any], size: int,
                       root: bytes, origin: str, leaves: dict[str, list[Logged]],
                       check: PackageCheck) -> None:
    """The artifact's latest manifest: the entries it lists are exactly the package's, its
    verdict the artifact file's state and the one the package's files make with its trail's
    part of it (as logged)."""
    artifact = json.loads(files["artifact.json"])
    found = _carried(files, transparency, size, root, origin, leaves, check, "artifact",
                     ARTIFACT_MANIFEST, ("uid", "id", artifact.get("id")))
    if found is None:
        return
    manifest, where = found
    status = manifest.get("status")
    if artifact.get("state") != status or manifest.get("fingerprint") != artifact.get("fingerprint"):
        check.problems.append(f"artifact.json: its state is not {status}, the one {where} "
                              "logs of its fingerprint")
    in_force = _template(files, manifest, where, "artifact", check.problems)
    if in_force is None:
        return
    attested = [a for a in _for_judging(files, leaves)
                if a.pop("trail") == artifact.get("trail_name")]
    try:
        again = judged_again(in_force, artifact.get("template_reference_name"),
                             str(manifest.get("trail_status")), attested)
    except (KeyError, TypeError, ValueError) as error:
        again = f"not judged ({error!r})"
    if again != status:
        check.problems.append(f"the artifact judged again from the package's files is {again}, "
                              f"not {status} as {where} logs")


def _for_judging(files: dict[str, bytes], leaves: dict[str, list[Logged]]
                 ) -> list[dict[str, Any]]:
    """The package's attestation files as compliance reads them (in report order: their
    entries'), each with its trail's name."""
    attested = []
    for stem in _stems(files):
        path = f"attestations/{stem}.json"
        document = json.loads(files[path])
        entry = [n for n, leaf in leaves.get(path, []) if leaf.get("kind") == ATTESTATION]
        attested.append({"id": document.get("attestation_id"), "name": document.get("attestation_name"),
                         "type": document.get("attestation_type"),
                         "is_compliant": bool(document.get("is_compliant")),
                         "seq": entry[0] if entry else -1, "target": document.get("target_artifact"),
                         "overrides": document.get("overridden_attestation_id"),
                         "trail": document.get("trail_name")})
    return attested


def _judged_again(files: dict[str, bytes], in_force: dict[str, Any],
                  leaves: dict[str, list[Logged]]) -> str:
    """The trail's verdict made from the package alone: its template in force, its attestation
    files, the artifacts its logged reports name."""
    attested = _for_judging(files, leaves)
    reported = [{"id": fingerprint, "fingerprint": fingerprint,
                 "template_reference_name": event.get("template_reference_name")}
                for fingerprint, event in _reports(files).items()]
    try:
        _, compliance = trails.judged(in_force, 0.0, (attested, reported))
    except (KeyError, TypeError, ValueError) as error:
        return f"not judged ({error!r})"
    return str(compliance["status"])
