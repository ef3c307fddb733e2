"""Read-only web pages at the paths every `html_url` names, rendered on the server.

Each page is made from the same gRPC calls as the API (through the shim's backend: no second
data path), with the caller's credentials: the server-side session the sign-in form opened
(the `evidence_session` cookie holds its random id only; see evidence_grpc.domain.identity.web_sessions),
or the request's own `Authorization` header. Pages of a private organization send an
anonymous visitor to the sign-in form; a public flow's pages answer without a key, as its API
reads do. Templates escape everything they print; forms carry a CSRF token."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit

import grpc
from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.sessions import SessionInterface
from google.protobuf import descriptor_pool
from google.protobuf.message import Message
from markupsafe import Markup, escape

from evidence_grpc.api.v2 import approval_service_pb2 as approval_pb
from evidence_grpc.api.v2 import artifact_service_pb2 as artifact_pb
from evidence_grpc.api.v2 import attestation_service_pb2 as attestation_pb
from evidence_grpc.api.v2 import control_service_pb2 as control_pb
from evidence_grpc.api.v2 import environment_service_pb2 as environment_pb
from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import policy_service_pb2 as policy_pb
from evidence_grpc.api.v2 import repo_service_pb2 as repo_pb
from evidence_grpc.api.v2 import snapshot_service_pb2 as snapshot_pb
from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
from evidence_grpc.api.v2 import transparency_service_pb2 as transparency_pb
from evidence_grpc.config import Settings
from evidence_grpc.domain.identity import web_sessions
from evidence_grpc.domain.kernel.numbers import as_whole_number
from evidence_grpc.domain.kernel.pages import page_asked
from evidence_grpc.domain.kernel.urls import parsed_url

from ..backend import Backend
from ..codec import message_to_json
from ..errors import HTTP_STATUS
from ..transcoder import file_response
from . import charts, control_pages
from .trail_page import compliance_rows, pretty, segment, shown, timeline, when

SESSION_COOKIE = "evidence_session"  # the session's random id, and nothing else
FORM_COOKIE = "evidence_form"  # before sign-in: a random id the sign-in form's CSRF token is bound to
ORG_COOKIE = "evidence_org"  # the signed-in organization, for the pages' links only (grants nothing)
LIST_PAGE = 100  # the API's largest page


class _Pages:
    """The pages of one app: its backend, and how to call it as the visitor."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def call(self, rpc: str, message: Message) -> Any:
        """`Service.Method` of evidence.v2 with the visitor's key (or none). The calls of one
        page share the authentication of that key (in-process; a gRPC server authenticates
        each call it receives)."""
        metadata = _request_id()
        session_id = _session_id()
        if session_id:
            metadata.append(("authorization", f"Session {session_id}"))
        elif "authorization" in request.headers:
            metadata.append(("authorization", request.headers["authorization"]))
        return self.backend.call(_method(rpc), message, metadata,
                                 g.setdefault("authenticated", {}))

    def open_session(self, key: str, org: str) -> str | None:
        """Check the key in the organization and open a session with it (in the same call,
        through the auth path): the id the server made for it (None if it made none)."""
        metadata = [*_request_id(), ("authorization", f"Bearer {key}"),
                    (web_sessions.OPEN_METADATA, "1")]
        _, session_id = self.backend.call_keyed(
            _method("FlowService.ListFlows"), flow_pb.ListFlowsRequest(org=org, per_page=1),
            metadata, trailer=web_sessions.ID_METADATA)
        return session_id

    def end_session(self, session_id: str) -> None:
        """Delete the session server-side (a call authenticated by it): every copy of its
        cookie stops working. One its key no longer opens is refused anyway."""
        metadata = [*_request_id(), ("authorization", f"Session {session_id}"),
                    (web_sessions.END_METADATA, "1")]
        try:
            self.backend.call(_method("FlowService.ListFlows"), flow_pb.ListFlowsRequest(),
                              metadata)
        except grpc.RpcError as error:
            if error.code() not in (grpc.StatusCode.UNAUTHENTICATED,
                                    grpc.StatusCode.PERMISSION_DENIED):
                raise

    def optional(self, rpc: str, message: Message) -> Any:
        """The answer, or None when the resource does not exist (yet)."""
        try:
            return self.call(rpc, message)
        except grpc.RpcError as error:
            if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                return None
            raise


def _request_id() -> list[tuple[str, str]]:
    """The metadata that carries this request's id to the calls it makes."""
    return [("x-request-id", request.environ.get("evidence.request_id", ""))]


def _method(rpc: str) -> Any:
    return descriptor_pool.Default().FindMethodByName(f"evidence.v2.{rpc}")


class _NoFlaskSessions(SessionInterface):
    """Flask's own (client-side) session is not used: the pages' session lives in the database
    and its cookie is set by `_set_cookie`."""

    def open_session(self, app: Flask, request: Any) -> Any:
        return self.make_null_session(app)

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        return None


def _session_id() -> str | None:
    """The session id of the request's cookie (the server says whether it is still open)."""
    value = request.cookies.get(SESSION_COOKIE, "")
    fits = web_sessions.MIN_ID_LENGTH <= len(value) <= 128
    return value if fits and value.isascii() and value.isprintable() else None


def register(app: Flask, backend: Backend, settings: Settings) -> None:
    """Add the pages, the sign-in form and the session cookie's settings to the shim's app."""
    app.session_interface = _NoFlaskSessions()
    app.secret_key = settings.session_secret or secrets.token_hex(32)
    app.config["EVIDENCE_SECURE_COOKIES"] = settings.html_base.startswith("https://")
    pages = _Pages(backend)
    web = Blueprint("web", __name__, template_folder="templates")
    web.after_request(_set_cookies)
    web.after_request(_page_headers)
    _filters(web)
    _sign_in(web, pages)
    _routes(web, pages)

    @web.errorhandler(grpc.RpcError)
    def refused(error: grpc.RpcError) -> Any:
        code = error.code()
        if code == grpc.StatusCode.UNAUTHENTICATED:
            if "authorization" in request.headers and not _session_id():
                g.key_refused = True
                return _error_page(401, "The API key was not accepted.")
            _forget_session()
            return redirect(url_for("web.sign_in", next=request.full_path.rstrip("?")))
        status = HTTP_STATUS.get(code, 500)  # as the API answers the same refusal
        return _error_page(status, error.details() or code.name)

    app.register_blueprint(web)


# Every page: never framed (clickjacking), never sniffed into another type, never cached (pages
# show what the visitor's credentials allow). No inline style or script is restricted here.
PAGE_HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
                               "object-src 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "same-origin",
}


def _page_headers(response: Response) -> Response:
    response.headers.update(PAGE_HEADERS)
    return response


def _error_page(status: int, message: str) -> tuple[str, int]:
    return render_template("error.html", status=status, message=message), status


# ---- sign-in -------------------------------------------------------------------------------

def _cookies() -> dict[str, str | None]:
    """Cookies to set (a value) or delete (None) on this request's response."""
    return g.setdefault("cookies", {})


def _forget_session() -> None:
    _cookies().update({SESSION_COOKIE: None, ORG_COOKIE: None})


def _set_cookies(response: Response) -> Response:
    """HttpOnly, SameSite=Lax, Secure when the site is https; session cookies (no expiry: the
    server ends the session, see web_sessions)."""
    secure = bool(current_app.config.get("EVIDENCE_SECURE_COOKIES")) or request.is_secure
    for name, value in g.get("cookies", {}).items():
        if value is None:
            response.delete_cookie(name, httponly=True, samesite="Lax", secure=secure)
        else:
            response.set_cookie(name, value, httponly=True, samesite="Lax", secure=secure)
    return response


def _csrf_basis() -> str:
    """What the CSRF token is bound to: the session's id, or before sign-in a random id of
    the form's own cookie (made now when there is none)."""
    basis = _session_id() or g.get("form_id") or request.cookies.get(FORM_COOKIE, "")
    if len(basis) < 32:
        basis = g.form_id = secrets.token_urlsafe(32)
        _cookies()[FORM_COOKIE] = basis
    return basis


def csrf_token() -> str:
    """HMAC of the session's (or form cookie's) id with the app's secret: nothing to store."""
    return hmac.new(str(current_app.secret_key).encode(), b"csrf\0" + _csrf_basis().encode(),
                    hashlib.sha256).hexdigest()


def _check_csrf() -> None:
    sent = request.form.get("csrf", "")
    if not sent or not hmac.compare_digest(sent, csrf_token()):
        abort(Response(render_template("error.html", status=400,
                                       message="The form expired: load it again."), 400))


def _safe_next(target: str | None, org: str | None) -> str | None:
    """Where to go after sign-in: `target` when it is a path of this site (no scheme, no host,
    no '//', no backslash, no control character), the organization's page when there is none,
    None when it is something else (the form answers 400)."""
    if not target:
        return f"/{quote(org)}" if org else "/sign-in"
    if target.startswith("/") and not target.startswith("//") and "\\" not in target and \
            target.isprintable() and not urlsplit(target).scheme and \
            not urlsplit(target).netloc:
        return target
    return None


def _sign_in(web: Blueprint, pages: _Pages) -> None:
    @web.route("/sign-in", methods=["GET", "POST"])
    def sign_in() -> Any:
        target = request.values.get("next")
        org = request.form.get("org", "").strip() or _org_of(target)
        if request.method == "GET":
            return render_template("sign_in.html", org=org, next=target, problem=None)
        _check_csrf()
        destination = _safe_next(target, org)
        if destination is None:  # before any session is opened: no cookie is set
            return _error_page(400, "The page to go to after sign-in (next) must be a path of "
                                    "this site.")
        key = request.form.get("key", "").strip()
        problem, session_id = None, None
        if not org or not key:
            problem = "Give the organization and an API key."
        else:
            try:
                session_id = pages.open_session(key, org)
                if not session_id:
                    problem = "The evidence service opened no session."
            except grpc.RpcError as error:
                problem = ("That key is not valid for this organization."
                           if error.code() in (grpc.StatusCode.UNAUTHENTICATED,
                                               grpc.StatusCode.PERMISSION_DENIED,
                                               grpc.StatusCode.NOT_FOUND,
                                               grpc.StatusCode.INVALID_ARGUMENT)
                           else "The evidence service is unavailable.")
        if problem:
            return render_template("sign_in.html", org=org, next=target, problem=problem), 401
        previous = _session_id()
        if previous:  # a new session: the one before ends
            pages.end_session(previous)
        _cookies().update({SESSION_COOKIE: session_id, ORG_COOKIE: org, FORM_COOKIE: None})
        return redirect(destination)

    @web.post("/sign-out")
    def sign_out() -> Any:
        _check_csrf()
        session_id = _session_id()
        if session_id:
            pages.end_session(session_id)
        _forget_session()
        return redirect(url_for("web.sign_in"))


def _signed_in_by_key() -> bool:
    """Whether the page is read with an API key of the request's Authorization header (a script,
    a proxy adding it) rather than a session: the header says so, not "Sign in"."""
    return "authorization" in request.headers and not _session_id() and not g.get("key_refused")


def _org_of(path: str | None) -> str:
    parts = (path or "").split("?")[0].strip("/").split("/")
    return parts[0] if parts and parts[0] not in ("", "sign-in", "sign-out", "api") else ""


# ---- pages ---------------------------------------------------------------------------------

def _attestations_of_trail(pages: _Pages, org: str, flow: str, trail: str) -> list[Any]:
    """Every attestation of the trail, newest first: the flow's list (a public flow's read),
    page after page, each as its row on the page."""
    base = f"/{segment(org)}/flows/{segment(flow)}/trails/{segment(trail)}/attestations"
    found: list[Any] = []
    page = 1
    while True:
        answer = pages.call("AttestationService.ListFlowAttestations",
                            attestation_pb.ListFlowAttestationsRequest(
                                org=org, flow_name=flow, trail_name=trail, page=page,
                                per_page=LIST_PAGE))
        found += [shown(a, org, base) for a in answer.data]
        if page >= answer.pagination.page_count:
            return found
        page += 1


def _log_of(pages: _Pages, org: str) -> dict[str, Any]:
    """The organization's transparency log as its pages show it: its size, the checkpoint
    served and its witnesses, the log's verifier key, and the address the commands use."""
    witnesses = pages.call("TransparencyService.GetLogWitnesses",
                           transparency_pb.GetLogWitnessesRequest(org=org))
    key = pages.call("TransparencyService.GetLogPublicKey",
                     transparency_pb.GetLogPublicKeyRequest(org=org))
    return {"log": witnesses, "log_key": key.data.decode().strip(),
            "api": f"{request.host_url.rstrip('/')}/api/v2/transparency/{segment(org)}"}


def _artifacts_of(trail: Any) -> list[dict[str, Any]]:
    """A trail's artifacts from its own answer: each one reported (its events), its status in
    the trail's compliance (keyed by template name, or by fingerprint without one), and the
    environments it runs in, with the snapshot it has run since, by the starts and stops
    recorded since. A stop and a start in one snapshot (the build re-reported under another
    name) leave it running since it first started."""
    found: dict[str, dict[str, Any]] = {}
    # (fingerprint, environment) -> the snapshot of its last start; of its last stop, and the
    # snapshot it had run since
    started: dict[tuple[str, str], int] = {}
    stopped: dict[tuple[str, str], tuple[int, int]] = {}
    for event in trail.events:
        kind = event.WhichOneof("detail")
        if kind == "artifact":
            reported = event.artifact
            found[reported.fingerprint] = {
                "filename": reported.artifact_name, "fingerprint": reported.fingerprint,
                "template_reference_name": reported.template_reference_name, "running": {}}
        elif kind == "running" and event.running.artifact_fingerprint in found:
            running = found[event.running.artifact_fingerprint]["running"]
            env, index = event.running.environment_name, event.running.snapshot_index
            key = (event.running.artifact_fingerprint, env)
            if event.type == "artifact_started_running":
                was = stopped.pop(key, None)
                running[env] = was[1] if was and was[0] == index else running.get(env, index)
                started[key] = index
            elif started.get(key) != index and env in running:
                stopped[key] = (index, running.pop(env))
    statuses = trail.compliance_status.artifacts_statuses
    for artifact in found.values():
        status = statuses.get(artifact["template_reference_name"]) or statuses.get(
            artifact["fingerprint"])
        artifact["status"] = status.status if status is not None else ""
        artifact["compliant"] = (status.is_compliant if status is not None
                                 and status.HasField("is_compliant") else None)
    return list(found.values())


def _routes(web: Blueprint, pages: _Pages) -> None:
    call = pages.call

    @web.get("/<org>")
    def organization(org: str) -> str:
        flows = call("FlowService.ListFlows", flow_pb.ListFlowsRequest(org=org, per_page=100))
        envs = call("EnvironmentService.ListEnvironments",
                    environment_pb.ListEnvironmentsRequest(org=org, per_page=50))
        recent = call("AttestationService.ListAttestations",
                      attestation_pb.ListAttestationsRequest(org=org, per_page=20))
        repos = pages.optional("RepoService.ListRepos", repo_pb.ListReposRequest(org=org, per_page=50))
        return render_template("organization.html", org=org, flows=flows.data,
                               environments=envs.environments, recent=recent.data,
                               repos=repos.repos if repos is not None else [],
                               **_log_of(pages, org))

    @web.get("/<org>/log/entries/<index>")
    def log_entry(org: str, index: str) -> str:
        number = as_whole_number(index)
        if number is None:
            abort(404)
        return _log_entry(org, number)

    def _log_entry(org: str, index: int) -> str:
        found = call("TransparencyService.GetLogEntry",
                     transparency_pb.GetLogEntryRequest(org=org, index=index))
        shown = _log_of(pages, org)
        size = shown["log"].served_size or shown["log"].size
        proof = call("TransparencyService.GetLogInclusionProof",
                     transparency_pb.GetLogInclusionProofRequest(
                         org=org, index=index, tree_size=size)) if index < size else None
        return render_template("log_entry.html", org=org, entry=found, tree_size=size,
                               proof=[each.hex() for each in proof.hashes] if proof else None,
                               leaf=found.leaf.decode(errors="replace"), **shown)

    @web.get("/<org>/flows/<flow>")
    def flow(org: str, flow: str) -> str:
        page = page_asked(request.args.get("page"))
        found = call("FlowService.GetFlow", flow_pb.GetFlowRequest(org=org, flow_name=flow))
        trails = call("TrailService.ListFlowTrails", trail_pb.ListFlowTrailsRequest(
            org=org, flow_name=flow, page=page, per_page=50))
        artifacts = call("ArtifactService.ListFlowArtifacts", artifact_pb.ListFlowArtifactsRequest(
            org=org, flow_name=flow, page=1, per_page=20))
        template = message_to_json(found)["template"]
        return render_template("flow.html", org=org, flow=found, trails=trails.data,
                               pagination=trails.pagination, page=page,
                               artifacts=artifacts.data, template=template)

    @web.get("/<org>/flows/<flow>/trails/<trail>")
    def trail(org: str, flow: str, trail: str) -> str:
        found = call("TrailService.GetTrail", trail_pb.GetTrailRequest(
            org=org, flow_name=flow, trail_name=trail))
        attested = _attestations_of_trail(pages, org, flow, trail)
        return render_template(
            "trail.html", org=org, flow=flow, trail=found, attestations=attested,
            artifacts=_artifacts_of(found), selected=request.args.get("attestation_id"),
            statuses=compliance_rows(found.compliance_status) if found.HasField(
                "compliance_status") else None, timeline=timeline(found.events))

    @web.get("/<org>/flows/<flow>/trails/<trail>/attestations/<attestation_id>/attachment")
    def attachment(org: str, flow: str, trail: str, attestation_id: str) -> Response:
        return file_response(call("AttestationService.GetAttestationEvidence",
                                  attestation_pb.GetAttestationEvidenceRequest(
                                      org=org, flow_name=flow, trail_name=trail,
                                      attestation_id=attestation_id)))

    @web.get("/<org>/flows/<flow>/artifacts/<fingerprint>")
    def artifact(org: str, flow: str, fingerprint: str) -> str:
        # `?artifact_id=`: the report an artifact's html_url names
        found = call("ArtifactService.GetArtifactByFingerprint",
                     artifact_pb.GetArtifactByFingerprintRequest(
                         org=org, flow_name=flow, fingerprint=fingerprint,
                         artifact_id=request.args.get("artifact_id")))
        # its own trail (a public read); not ListTrails, which answers the flow's trails
        # whatever fingerprint it is given
        own = pages.optional("TrailService.GetTrail", trail_pb.GetTrailRequest(
            org=org, flow_name=flow, trail_name=found.trail_name)) if found.trail_name else None
        if _session_id() or "authorization" in request.headers:
            approvals = pages.optional("ApprovalService.ListArtifactApprovals",
                                       approval_pb.ListArtifactApprovalsRequest(
                                           org=org, flow_name=flow, fingerprint=found.fingerprint))
            approvals = approvals.approvals if approvals else []
        else:  # an anonymous visitor of a public flow: its public reads only (no approvals)
            approvals = None
        return render_template("artifact.html", org=org, flow=flow, artifact=found,
                               trails=[own] if own is not None else [], approvals=approvals,
                               evidence=found.evidence)

    @web.get("/<org>/environments/<env>")
    def environment(org: str, env: str) -> str:
        return _environment(org, env, None)

    @web.get("/<org>/environments/<env>/snapshots/<int:index>")
    @web.get("/<org>/environments/<env>/<int:index>")  # the links `kosli get trail -o markdown` makes
    def snapshot(org: str, env: str, index: int) -> str:
        return _environment(org, env, index)

    def _environment(org: str, env: str, index: int | None) -> str:
        found = call("EnvironmentService.GetEnvironment",
                     environment_pb.GetEnvironmentRequest(org=org, env_name=env))
        shown = pages.optional("SnapshotService.GetSnapshot", snapshot_pb.GetSnapshotRequest(
            org=org, env_name=env, snapshot_expression="-1" if index is None else str(index)))
        if shown is None and index is not None:
            abort(404)
        history = call("SnapshotService.ListSnapshots", snapshot_pb.ListSnapshotsRequest(
            org=org, env_name=env, page=1, per_page=30))
        return render_template("environment.html", org=org, environment=found, snapshot=shown,
                               history=history.snapshots)

    @web.get("/<org>/environments/<env>/diff")
    def diff(org: str, env: str) -> str:
        first = as_whole_number(request.args.get("from", ""))
        second = as_whole_number(request.args.get("to", ""))
        if first is None or second is None:
            abort(Response(render_template("error.html", status=400, message=(
                "Name two snapshots by number: ?from=N&to=M")), 400))
        found = call("SnapshotService.DiffSnapshots", snapshot_pb.DiffSnapshotsRequest(
            org=org, snappish1=f"{env}#{first}", snappish2=f"{env}#{second}"))
        return render_template("diff.html", org=org, env=env, first=first, second=second,
                               diff=found)

    @web.get("/<org>/repos/<path:repo>")
    def repo(org: str, repo: str) -> str:
        found = call("RepoService.GetRepo", repo_pb.GetRepoRequest(org=org, repo_name=repo))
        stats = call("RepoService.GetDeploymentStatistics", repo_pb.GetDeploymentStatisticsRequest(
            org=org, repo=found.id))
        drawn = [(e.env_name, len(e.deployment_frequency),
                  charts.deployments_per_day(list(e.deployment_frequency), stats.start_ts,
                                             stats.end_ts, f"Deployments to {e.env_name}"),
                  charts.lead_times(list(e.deployment_frequency)[-len(e.lead_times):]
                                    if e.lead_times else [], list(e.lead_times),
                                    f"Lead times to {e.env_name}"),
                  _median(list(e.lead_times)))
                 for e in stats.environments]
        return render_template("repo.html", org=org, repo=found, stats=stats, charts=drawn)

    @web.get("/<org>/policies")
    def policies(org: str) -> str:
        found = call("PolicyService.ListPolicies", policy_pb.ListPoliciesRequest(org=org))
        return render_template("policies.html", org=org, policies=found.data)

    _control_routes(web, pages)


def _control_routes(web: Blueprint, pages: _Pages) -> None:
    """The controls catalog and a control's views (decisions, coverage, versions): filters
    are query parameters, so every view is a link to share."""
    call = pages.call

    @web.get("/<org>/controls")
    def controls(org: str) -> str:
        asked = control_pages.Asked()
        search, tags = asked.text("search"), asked.texts("tag")
        archived = asked.choice("archived", ("", "true")) == "true"
        sort = asked.choice("sort", ("asc", "desc"))
        page = asked.page()
        found = call("ControlService.ListControls", control_pb.ListControlsRequest(
            org=org, page=page, per_page=control_pages.PER_PAGE, sort_direction=sort,
            search=search or None, tag=tags, archived=archived))
        other = call("ControlService.ListControls", control_pb.ListControlsRequest(
            org=org, per_page=1, archived=not archived))  # the other tab's count
        choices = call("ControlService.ListControlTagChoices",
                       control_pb.ListControlTagChoicesRequest(org=org))
        return render_template(
            "controls.html", org=org, listed=found, archived=archived, search=search,
            tags=tags, sort=sort, notes=asked.notes, tag_choices=choices.tags,
            counts={archived: found.total_count, not archived: other.total_count})

    def _control(org: str, identifier: str, view: str, **shown: Any) -> str:
        found = call("ControlService.GetControl",
                     control_pb.GetControlRequest(org=org, identifier=identifier))
        here = f"/{segment(org)}/controls/{segment(found.identifier)}"
        return render_template(f"control_{view}.html", org=org, control=found, view=view,
                               here=here, **shown)

    @web.get("/<org>/controls/<identifier>")
    def control_decisions(org: str, identifier: str) -> str:
        asked = control_pages.Asked()
        outcome = asked.choice("outcome", ("", "compliant", "non-compliant"))
        sort = asked.choice("sort", ("desc", "asc"))
        flows = asked.texts("flow")
        found = call("ControlService.ListControlDecisions", control_pb.ListControlDecisionsRequest(
            org=org, identifier=identifier, page=asked.page(), per_page=control_pages.PER_PAGE,
            is_compliant=None if not outcome else outcome == "compliant", flow_id=flows,
            sort_direction=sort))
        known = call("FlowService.ListFlows", flow_pb.ListFlowsRequest(
            org=org, page=1, per_page=LIST_PAGE)).data
        return _control(org, identifier, "decisions", listed=found, outcome=outcome, sort=sort,
                        flows=flows, flow_choices=sorted({f.name for f in known} | set(flows)),
                        notes=asked.notes)

    @web.get("/<org>/controls/<identifier>/coverage")
    def control_coverage(org: str, identifier: str) -> str:
        asked = control_pages.Asked()
        search = asked.text("search")
        status = asked.choice("status", ("", "covered", "not-covered"))
        found = call("ControlService.GetControlCoverage", control_pb.GetControlCoverageRequest(
            org=org, identifier=identifier, page=asked.page(), per_page=control_pages.PER_PAGE,
            search=search or None, covered=None if not status else status == "covered"))
        return _control(org, identifier, "coverage", listed=found, search=search,
                        status=status, notes=asked.notes, covered=found.covered,
                        total=found.total, percent=round(found.coverage_percent))

    @web.get("/<org>/controls/<identifier>/versions")
    def control_versions(org: str, identifier: str) -> str:
        asked = control_pages.Asked()
        found = call("ControlService.ListControlVersions", control_pb.ListControlVersionsRequest(
            org=org, identifier=identifier, page=asked.page(),
            per_page=control_pages.PER_PAGE))
        versions = list(found.versions)
        # each version's predecessor: the next row, or for the page's last row the one
        # before it (on the next page)
        oldest = versions[-1].version if versions else 1
        before = call("ControlService.GetControlVersion", control_pb.GetControlVersionRequest(
            org=org, identifier=identifier, version_number=oldest - 1)) if oldest > 1 else None
        previous = [*versions[1:], before] if versions else []
        rows = [(v, control_pages.changes(v, p)) for v, p in zip(versions, previous, strict=True)]
        return _control(org, identifier, "versions", listed=found, rows=rows, notes=asked.notes)


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


# ---- template helpers ----------------------------------------------------------------------

def _duration(seconds: Any) -> str:
    try:
        left = int(float(seconds))
    except (TypeError, ValueError):
        return ""
    days, left = divmod(left, 86400)
    hours, left = divmod(left, 3600)
    minutes, left = divmod(left, 60)
    parts = [f"{days}d"] * bool(days) + [f"{hours}h"] * bool(hours) + [f"{minutes}m"] * bool(minutes)
    return " ".join(parts[:2]) or f"{left}s"


def _link_target(value: Any) -> str | None:
    """A reported URL as a link target only when it is http(s) and urllib.parse reads it: never
    `javascript:` or `data:`, nor a URL stored before the door refused what it cannot read."""
    text = str(value or "").strip()
    parts = parsed_url(text)
    return text if parts is not None and parts.scheme in ("http", "https") else None


def _safe_url(value: Any) -> str:
    """A link target for a URL the service made (html_url): '#' when it is none."""
    return _link_target(value) or "#"


def _link(value: Any, label: str | None = None) -> Markup:
    """A reported URL as a link (named `label`, else itself), or as plain text (after its label)
    when it is no link target."""
    target = _link_target(value)
    if target is None:
        return escape(" ".join(filter(None, (label, str(value or "")))))
    return Markup('<a href="{}" rel="noopener">{}</a>').format(target, label or target)


def _filters(web: Blueprint) -> None:
    helpers: dict[str, Callable[..., Any]] = {
        "when": when, "duration": _duration, "pretty": pretty, "short": lambda s: (s or "")[:12],
        "seg": segment, "safe_url": _safe_url, "link": _link,
        "page_url": control_pages.page_url}
    for name, helper in helpers.items():
        web.add_app_template_filter(helper, name)
    web.add_app_template_global(csrf_token, "csrf_token")
    web.add_app_template_global(
        lambda: request.cookies.get(ORG_COOKIE) if _session_id() else None, "signed_in_org")
    web.add_app_template_global(_signed_in_by_key, "signed_in_by_key")
