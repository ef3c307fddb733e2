"""How answers name an artifact (one report of a fingerprint to a flow): its html and api URLs,
the same in every answer that shows them. Its id is the artifact's `uid` (kernel.ids: random
since issue 44; artifacts reported before keep the id they were answered with, their row id in
the same 8-4-4-4-8 shape). The hosted service's html URL of an artifact names the report it
means (`…/artifacts/<fingerprint>?artifact_id=<id>`, as the published snapshot answers show)."""

from __future__ import annotations


def artifact_html_url(html_base: str, org_name: str, flow_name: str, fingerprint: str,
                      uid: str) -> str:
    """The web page of that report of the fingerprint to the flow."""
    return (f"{html_base}/{org_name}/flows/{flow_name}/artifacts/{fingerprint}"
            f"?artifact_id={uid}")


def artifact_api_url(html_base: str, org_name: str, flow_name: str, fingerprint: str) -> str:
    """Where the API answers the flow's artifact of the fingerprint."""
    return f"{html_base}/api/v2/artifacts/{org_name}/{flow_name}/fingerprint/{fingerprint}"
