"""Audit packages and the trail PDF: everything recorded about a trail (or an artifact) in one
download an auditor can keep and check.

A package is a gzipped tar of `trail.json` (or `artifact.json`), every attestation as JSON,
their attachments as stored, the artifacts of the trail, the trail report as `report.pdf`, and
`manifest.json` plus `SHA256SUMS` listing the SHA-256 and size of every other file. Its bytes
depend only on what is recorded (fixed member times and order), so two downloads of an unchanged
trail are identical."""

from __future__ import annotations

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
from ...storage.models import Artifact, Organization, Trail
from ..evidence import artifacts, attestations, blobs, trails
from ..evidence.flows import find_flow
from ..kernel.errors import FailedPrecondition
from . import artifact_views

FORMAT = "evidence-audit-package/1"
MAX_PACKAGE_BYTES = 256 * 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _safe(name: str) -> str:
    """A file name that cannot leave its folder or surprise a shell."""
    cleaned = _UNSAFE.sub("_", name).strip("._") or "file"
    return cleaned[:120]


def _json(value: Any) -> bytes:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).encode()


class _Package:
    """Files in the order added; the manifest and checksums are written last."""

    def __init__(self, stamp: float) -> None:
        self.stamp = int(stamp)
        self.files: list[tuple[str, bytes]] = []
        self.size = 0

    def add(self, path: str, content: bytes) -> None:
        self.size += len(content)
        if self.size > MAX_PACKAGE_BYTES:
            raise FailedPrecondition(
                f"The audit package would be larger than {MAX_PACKAGE_BYTES // (1024 * 1024)} "
                "MiB; download the attachments one by one instead")
        self.files.append((path, content))

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
    for number, row in enumerate(rows, start=1):
        view = attestations.attestation_document(row, org.name, html_base)
        attested.append(view)
        stem = f"{number:04d}-{_safe(row.name)}"
        package.add(f"attestations/{stem}.json", _json(view))
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


def trail_package(org: Organization, flow_name: str, trail_name: str, html_base: str) -> bytes:
    trail = trails.find_trail(org, flow_name, trail_name)
    package = _Package(trail.last_modified_at)
    view = _trail_document(org, trail, html_base)
    package.add("trail.json", _json(view))
    rows = attestations.recorded_in(org, trail)
    attested = _add_evidence(package, org, rows, html_base)
    made = list(Artifact.select().where(Artifact.trail == trail).order_by(Artifact.id))
    made_views = artifact_views.artifact_views(org, made, html_base) if made else []
    for artifact in made_views:
        package.add(f"artifacts/{artifact['fingerprint']}.json", _json(artifact))
    package.add("report.pdf", _pdf(org, view, attested, made_views))
    return package.gzipped({"org": org.name, "flow": trail.flow.name, "trail": trail.name,
                            "recorded_until": trail.last_modified_at})


def artifact_package(org: Organization, flow_name: str, fingerprint: str, html_base: str
                     ) -> bytes:
    """An artifact of a flow (full fingerprint or 5-64 character prefix): its JSON, the
    attestations made about it and their attachments."""
    flow = find_flow(org, flow_name)
    artifact = artifacts.find_by_fingerprint(org, flow.name, fingerprint)
    view = artifact_views.artifact_views(org, [artifact], html_base)[0]
    package = _Package(artifact.last_modified_at or artifact.created_at)
    package.add("artifact.json", _json(view))
    rows = attestations.recorded_in(org, flow=flow, fingerprint=artifact.fingerprint)
    _add_evidence(package, org, rows, html_base)
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
