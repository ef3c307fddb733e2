"""Every operation of the hosted service's catalog reaches an RPC of this server, and one of its
own: a literal segment of a catalog path is captured by a route variable only where the route
names a kind of thing (`kind`, `type`, `version`: an attestation kind, a report type, a schema),
never as an organization or a name (`/attestations/system-attestation-types` once landed in the
list of an organization named so)."""

from __future__ import annotations

import re

from werkzeug.routing import Map, Rule

from evidence_grpc.services import service_descriptors
from rest_shim.transcoder import routes_of
from tests.conftest import ROOT

CATALOG = ROOT / "tests" / "data" / "catalog_operations.tsv"
KIND_VARIABLES = {"kind", "type", "version"}
PLACEHOLDER = "x1"


def test_every_catalog_operation_reaches_its_own_rpc():
    routes = routes_of(service_descriptors())
    adapter = Map([Rule(r.rule.rule if hasattr(r.rule, "rule") else r.rule,
                        methods=[r.http_method], endpoint=r.method.full_name)
                   for r in routes]).bind("evidence.test")
    operations = [line.split("\t") for line in CATALOG.read_text().splitlines()
                  if line and not line.startswith("#")]
    assert len(operations) == 118
    wrong = []
    for operation, method, path in operations:
        concrete = "/api/v2" + re.sub(r"\{[^}]+\}", PLACEHOLDER, path)
        try:
            rpc, values = adapter.match(concrete, method=method)
        except Exception as exc:  # NotFound / MethodNotAllowed: not routed at all
            wrong.append(f"{operation}: {method} {path} is not routed ({type(exc).__name__})")
            continue
        captured = {name: value for name, value in values.items()
                    if value != PLACEHOLDER and name not in KIND_VARIABLES}
        if captured:
            wrong.append(f"{operation}: {method} {path} lands in {rpc} with {captured}")
    assert wrong == []
