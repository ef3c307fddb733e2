"""Audit packages and the trail PDF: everything recorded about a trail (or an artifact) in one
download an auditor can keep and check.

A package is a gzipped tar of `trail.json` (or `artifact.json`), every attestation as JSON,
their attachments as stored, the artifacts of the trail, the trail report as `report.pdf`, and
`manifest.json` plus `SHA256SUMS` listing the SHA-256 and size of every other file. Its bytes
depend only on what is recorded (fixed member times and order), so two downloads of an unchanged
trail are identical."""

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
from typing import Any

from fpdf import FPDF

from ...api.v2 import views
from ...storage.models import Artifact, Organization, Trail, TrailEvent
from ..evidence import artifacts, attestations, blobs, trails
from ..evidence.flows import find_flow
from ..evidence.leaves import (
    ATTESTATION,
    ATTESTATION_BOUND,
    LOGGED_EVENTS,
    TRAIL_EVENT,
    binding_log_indexes,
)
from ..kernel.errors import FailedPrecondition
from ..transparency import log, merkle, notes
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

    def add_transparency(self, org: Organization, signer: notes.Signer) -> None:
        """The log's checkpoint now, its verifier key, and for each covered file the entries of
        its records with their inclusion proofs against that checkpoint (transparency/)."""
        size = log.size_of(org)
        entries = [{"path": path, "index": number, "leaf": _b64(log.entry(org, number).leaf),
                    "inclusion_proof": [_b64(h) for h in log.inclusion_proof(org, number, size)]}
                   for path, number in self.covered]
        self.add("transparency/checkpoint", log.checkpoint(org, signer, signer.name).encode())
        self.add("transparency/public-key", f"{signer.vkey}\n".encode())
        self.add("transparency/entries.json", _json({"format": TRANSPARENCY_FORMAT,
                                                     "tree_size": size, "entries": entries}))

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
                  signer: notes.Signer) -> bytes:
    trail = trails.find_trail(org, flow_name, trail_name)
    package = _Package(trail.last_modified_at)
    view = _trail_document(org, trail, html_base)
    package.add("trail.json", _json(view))
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
    package.add("report.pdf", _pdf(org, view, attested, made_views))
    package.add_transparency(org, signer)
    return package.gzipped({"org": org.name, "flow": trail.flow.name, "trail": trail.name,
                            "recorded_until": trail.last_modified_at})


def artifact_package(org: Organization, flow_name: str, fingerprint: str, html_base: str,
                     signer: notes.Signer) -> bytes:
    """An artifact of a flow (full fingerprint or 5-64 character prefix): its JSON, the
    attestations made about it and their attachments."""
    flow = find_flow(org, flow_name)
    artifact = artifacts.find_by_fingerprint(org, flow.name, fingerprint)
    view = artifact_views.artifact_views(org, [artifact], html_base)[0]
    package = _Package(artifact.last_modified_at or artifact.created_at)
    package.add("artifact.json", _json(view))
    rows = attestations.recorded_in(org, flow=flow, fingerprint=artifact.fingerprint)
    _add_evidence(package, org, rows, html_base)
    package.add_transparency(org, signer)
    return package.gzipped({"org": org.name, "flow": flow.name,
                            "fingerprint": artifact.fingerprint})


def trail_pdf(org: Organization, flow_name: str, trail_name: str, html_base: str) -> bytes:
    trail = trails.find_trail(org, flow_name, trail_name)
    rows = attestations.recorded_in(org, trail)
    attested = [attestations.attestation_document(r, org.name, html_base) for r in rows]
    made = list(Artifact.select().where(Artifact.trail == trail).order_by(Artifact.id))
    return _pdf(org, _trail_document(org, trail, html_base), attested,
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


def _pdf(org: Organization, trail: dict[str, Any], attested: list[dict[str, Any]],
         made: list[views.Artifact]) -> bytes:
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
    for label, value in (("Organization", org.name), ("Flow", (trail.get("flow") or {}).get("name", "")),
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
             ("created_at", "created_at"), ("actor", "created_by"))
MAX_VERIFIED_BYTES = 2 * MAX_PACKAGE_BYTES


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
    """What does not hold in an audit package, checked with nothing but the package and the
    log's verifier key: the manifest's sums; the checkpoint's signature; each entry's leaf in
    the checkpoint's tree (its inclusion proof); each attestation file, attachment and trail
    event the same as its leaf says (an attestation bound to its artifact later, as its leaf and
    its binding's say); and every attestation and trail event covered by an entry.
    [] when the package holds."""
    try:
        files = _unpacked(content)
    except (tarfile.TarError, OSError, EOFError, ValueError) as error:
        return [f"not an audit package: {error}"]
    problems: list[str] = []
    try:
        manifest = json.loads(files["manifest.json"])
        listed = {entry["path"]: entry["sha256"] for entry in manifest["files"]}
        transparency = json.loads(files["transparency/entries.json"])
        origin, size, root, *_ = notes.open_checkpoint(files["transparency/checkpoint"], verifier)
    except KeyError as missing:
        return [f"the package lacks {missing}"]
    except (ValueError, TypeError) as error:
        return [f"the package's manifest or checkpoint does not verify: {error}"]
    for path in sorted(set(files) - {"manifest.json", "SHA256SUMS"} | set(listed)):
        if path not in files or listed.get(path) != hashlib.sha256(files[path]).hexdigest():
            problems.append(f"{path}: not as the manifest lists it")
    if transparency.get("tree_size") != size:
        problems.append(f"the entries are proved against {transparency.get('tree_size')} entries, "
                        f"the checkpoint has {size}")
    leaves: dict[str, list[dict[str, Any]]] = {}
    for entry in transparency.get("entries", []):
        try:
            leaf = base64.b64decode(entry["leaf"])
            merkle.verify_inclusion(entry["index"], size, merkle.leaf_hash(leaf),
                                    [base64.b64decode(h) for h in entry["inclusion_proof"]], root)
            leaves.setdefault(entry["path"], []).append(json.loads(leaf))
        except (KeyError, TypeError, ValueError, binascii.Error) as error:
            problems.append(f"{entry.get('path')}: entry {entry.get('index')} is not in the "
                            f"log of {origin} ({error})")
    problems += _attested(files, leaves) + _trail_events(files, leaves)
    return problems


def _attested(files: dict[str, bytes], leaves: dict[str, list[dict[str, Any]]]) -> list[str]:
    problems = []
    for path in sorted(p for p in files if p.startswith("attestations/")):
        logged = [leaf for leaf in leaves.get(path, []) if leaf.get("kind") == ATTESTATION]
        if len(logged) != 1:
            problems.append(f"{path}: not in the transparency log")
            continue
        document, leaf = json.loads(files[path]), _as_bound(logged[0], [
            bound for bound in leaves[path] if bound.get("kind") == ATTESTATION_BOUND])
        held = log.text if "v" in leaf else log.whole  # a version-1 leaf holds texts whole
        differ = [key for leaf_key, key in _ATTESTED
                  if held(document.get(key)) != leaf.get(leaf_key)]
        if (document.get("evidence") or {}).get("sha256") != leaf.get("attachment_sha256"):
            differ.append("evidence.sha256")
        if differ:
            problems.append(f"{path}: differs from its log entry ({', '.join(differ)})")
        stem = path[len("attestations/"):-len(".json")]
        for attached in (p for p in files if p.startswith(f"attachments/{stem}/")):
            if hashlib.sha256(files[attached]).hexdigest() != leaf.get("attachment_sha256"):
                problems.append(f"{attached}: not the attachment its log entry names")
    return problems


def _as_bound(leaf: dict[str, Any], bindings: list[dict[str, Any]]) -> dict[str, Any]:
    """An attestation's leaf as its binding entry (one made without a fingerprint, bound to
    its artifact later) completes it; as it is without one, or with a binding that is not its
    own to take (of another attestation, a second one, or of one made with a fingerprint)."""
    if len(bindings) != 1 or bindings[0].get("id") != leaf.get("id") \
            or leaf.get("artifact_fingerprint") is not None:
        return leaf
    return {**leaf, "artifact_fingerprint": bindings[0].get("artifact_fingerprint")}


def _trail_events(files: dict[str, bytes], leaves: dict[str, list[dict[str, Any]]]) -> list[str]:
    if "trail.json" not in files:
        return []
    events = [e for e in json.loads(files["trail.json"]).get("events", [])
              if e.get("type") in LOGGED_EVENTS]
    logged = {(leaf.get("type"), leaf.get("timestamp"), leaf.get("payload_sha256"))
              for leaf in leaves.get("trail.json", []) if leaf.get("kind") == TRAIL_EVENT}
    problems = []
    for event in events:
        payload = {k: v for k, v in event.items() if k not in ("timestamp", "type")}
        if (event.get("type"), event.get("timestamp"), log.digest(payload)) not in logged:
            problems.append(f"trail.json: its {event.get('type')} event of {event.get('timestamp')} "
                            "is not in the transparency log as it reads")
    if len(logged) != len(events):
        problems.append("trail.json: the log holds events of the trail the file does not")
    return problems
