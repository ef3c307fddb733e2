"""How answers name an artifact (one report of a fingerprint to a flow): its id and its html and
api URLs, the same in every answer that shows them. The hosted service's ids are UUID-shaped
(`c6ff1415-5cd1-48d0-a0df-cbcbcc5e`: 8-4-4-4-8 hex digits) and its html URL of an artifact
names the report it means (`…/artifacts/<fingerprint>?artifact_id=<id>`, as the published
snapshot answers show); ours spells the report's row id in that shape."""

from __future__ import annotations


def artifact_id(row_id: int) -> str:
    """The artifact's id in answers: its row id as 28 hex digits grouped 8-4-4-4-8."""
    digits = f"{row_id:028x}"
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def artifact_html_url(html_base: str, org_name: str, flow_name: str, fingerprint: str,
                      row_id: int) -> str:
    """The web page of that report of the fingerprint to the flow."""
    return (f"{html_base}/{org_name}/flows/{flow_name}/artifacts/{fingerprint}"
            f"?artifact_id={artifact_id(row_id)}")


def artifact_api_url(html_base: str, org_name: str, flow_name: str, fingerprint: str) -> str:
    """Where the API answers the flow's artifact of the fingerprint."""
    return f"{html_base}/api/v2/artifacts/{org_name}/{flow_name}/fingerprint/{fingerprint}"
