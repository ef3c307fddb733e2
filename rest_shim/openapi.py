"""The OpenAPI 3.1 document of the REST API, made from the same declarations as the routes: the
google.api.http rules and http_options of protos/, and the messages as the codec renders them
(json_key, json_inline, json_object_key, json_array, omit_unset, omit_when_unset, as_sent).

`python -m rest_shim.openapi PATH` writes it (scripts/gen_protos.py does, beside the stubs);
the shim serves that file at /api/v2/openapi.json and renders it at /api/v2/docs."""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

from google.api import annotations_pb2
from google.protobuf import descriptor

from evidence_grpc.api.v2 import options_pb2

from .transcoder import PATH_VARIABLE, UPLOADED_FILE, Route, routes_of

FD = descriptor.FieldDescriptor
DOCUMENT_PATH = pathlib.Path(__file__).resolve().parent.parent / "evidence_grpc" / "api" / "openapi.json"
_SCALARS: dict[int, dict[str, Any]] = {
    FD.TYPE_STRING: {"type": "string"},
    FD.TYPE_BOOL: {"type": "boolean"},
    FD.TYPE_INT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FD.TYPE_UINT32: {"type": "integer", "minimum": 0},
    FD.TYPE_FIXED32: {"type": "integer", "minimum": 0},
    FD.TYPE_INT64: {"type": "integer", "format": "int64"},
    FD.TYPE_SINT64: {"type": "integer", "format": "int64"},
    FD.TYPE_SFIXED64: {"type": "integer", "format": "int64"},
    FD.TYPE_UINT64: {"type": "integer", "minimum": 0},
    FD.TYPE_FIXED64: {"type": "integer", "minimum": 0},
    FD.TYPE_DOUBLE: {"type": "number"},
    FD.TYPE_FLOAT: {"type": "number"},
    FD.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}
_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.StringValue": {"type": ["string", "null"]},
    "google.protobuf.BoolValue": {"type": ["boolean", "null"]},
    "google.protobuf.Int32Value": {"type": ["integer", "null"]},
    "google.protobuf.Int64Value": {"type": ["integer", "null"]},
    "google.protobuf.DoubleValue": {"type": ["number", "null"]},
}
ERROR_SCHEMA = {
    "type": "object",
    "required": ["message"],
    "properties": {
        "message": {"type": "string"},
        "errors": {"type": "object", "additionalProperties": {"type": "string"},
                   "description": "What is wrong with each offending field"},
    },
}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return {"oneOf": [schema, {"type": "null"}]}
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    return schema  # any JSON value already admits null


_COMMENTS: dict[str, dict[str, str]] = {}


def _comments(file: descriptor.FileDescriptor) -> dict[str, str]:
    """{full name: leading comment} of a file's messages, fields, services and methods, read
    from the .proto source shipped with the stubs."""
    if file.name in _COMMENTS:
        return _COMMENTS[file.name]
    found: dict[str, str] = {}
    source = DOCUMENT_PATH.parent / "protos" / file.name
    if source.exists():
        found = _read_comments(source.read_text(), file.package)
    _COMMENTS[file.name] = found
    return found


def _read_comments(text: str, package: str) -> dict[str, str]:
    """A small reader of `//` comments directly above `message`, `service`, `rpc` and field
    lines, enough for documentation (nesting by braces)."""
    found: dict[str, str] = {}
    scope: list[str] = [package]
    pending: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("//"):
            pending.append(line[2:].strip())
            continue
        words = line.replace("{", " { ").split()
        name = None
        if words[:1] in (["message"], ["service"], ["enum"]) and len(words) > 1:
            name = words[1]
        elif words[:1] == ["rpc"] and len(words) > 1:
            name = words[1].split("(")[0]
        elif "=" in words and len(words) >= 3 and not line.startswith(("option", "reserved")):
            candidate = words[words.index("=") - 1]
            name = candidate if candidate.isidentifier() else None
        if name and pending:
            found[".".join([*scope, name])] = " ".join(pending)
        pending = []
        if words[:1] in (["message"], ["service"], ["enum"]) and "{" in words and "}" not in words:
            scope.append(words[1])
        elif line.startswith("rpc") and line.endswith("{"):
            scope.append(words[1].split("(")[0])
        elif line.startswith("oneof") and line.endswith("{"):
            scope.append("")  # fields of a oneof belong to the message
        closing = line.count("}") - line.count("{")
        for _ in range(max(closing, 0)):
            if len(scope) > 1:
                scope.pop()
    return {key.replace("..", "."): value for key, value in found.items()}


class _Builder:
    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}

    # ---- messages as the codec renders them ----

    def ref(self, message: descriptor.Descriptor, sent: bool = False) -> dict[str, Any]:
        if message.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[message.full_name])
        name = message.full_name + (".AsSent" if sent else "")
        if name not in self.schemas:
            self.schemas[name] = {}  # placeholder: recursive messages refer to themselves
            self.schemas[name] = self.message_schema(message, sent)
        return {"$ref": f"#/components/schemas/{name}"}

    def message_schema(self, message: descriptor.Descriptor, sent: bool) -> dict[str, Any]:
        options = message.GetOptions()
        if options.Extensions[options_pb2.json_array]:
            (listed,) = message.fields
            return self.field_schema(listed, sent)
        properties: dict[str, Any] = {}
        required: list[str] = []
        omit_unset = options.Extensions[options_pb2.omit_unset]
        for field in message.fields:
            field_options = field.GetOptions()
            if field_options.Extensions[options_pb2.json_inline]:
                inline = self.ref(field.message_type, sent)
                target = self.schemas.get(inline.get("$ref", "").rsplit("/", 1)[-1], inline)
                properties.update(target.get("properties", {}))
                continue
            key = field_options.Extensions[options_pb2.json_key] or field.name
            field_schema = self.field_schema(field, sent or field_options.Extensions[options_pb2.as_sent])
            comment = _comments(field.file).get(f"{message.full_name}.{field.name}")
            if comment:
                field_schema = {**field_schema, "description": comment} if "$ref" not in field_schema \
                    else {"allOf": [field_schema], "description": comment}
            properties[key] = field_schema
            omitted = field_options.Extensions[options_pb2.omit_when_unset] or (
                field.has_presence and (sent or (omit_unset and field.message_type is None)))
            if not omitted and not sent:
                required.append(key)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        comment = _comments(message.file).get(message.full_name)
        if comment:
            schema["description"] = comment
        return schema

    def field_schema(self, field: descriptor.FieldDescriptor, sent: bool) -> dict[str, Any]:
        options = field.GetOptions()
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = field.message_type.fields_by_name["value"]
            return {"type": "object", "additionalProperties": self.value_schema(value, sent)}
        object_key = options.Extensions[options_pb2.json_object_key]
        if object_key:
            return {"type": "array", "items": {
                "type": "object", "required": [object_key],
                "properties": {object_key: self.value_schema(field, sent)}}}
        item = self.value_schema(field, sent)
        if field.is_repeated:
            return {"type": "array", "items": item}
        if field.has_presence:
            return _nullable(item)
        return item

    def value_schema(self, field: descriptor.FieldDescriptor, sent: bool) -> dict[str, Any]:
        if field.message_type is not None:
            return self.ref(field.message_type, sent)
        if field.enum_type is not None:
            return {"type": "string", "enum": [v.name for v in field.enum_type.values]}
        return dict(_SCALARS[field.type])

    # ---- requests: path, query, body ----

    def input_schema(self, message: descriptor.Descriptor, leave_out: frozenset[str]
                     ) -> dict[str, Any]:
        """A request message (or part) as protobuf's JSON parser reads it: every field
        optional; free-form and nested messages as the codec would render them."""
        properties = {}
        for field in message.fields:
            if field.name in leave_out:
                continue
            if field.message_type is not None and field.message_type.full_name == UPLOADED_FILE:
                properties[field.name] = {"type": "string", "contentMediaType":
                                          "application/octet-stream"}
            else:
                properties[field.name] = self.field_schema(field, sent=True)
        return {"type": "object", "properties": properties}

    def parameters(self, route: Route) -> list[dict[str, Any]]:
        message = route.method.input_type
        found = []
        for name in sorted(route.path_fields, key=route.rule.index):
            field = message.fields_by_name[name]
            found.append({"name": name, "in": "path", "required": True,
                          "schema": self.value_schema(field, sent=True)})
        if not route.body:
            for field in message.fields:
                if field.name in route.path_fields or field.message_type is not None:
                    continue
                schema = self.value_schema(field, sent=True)
                parameter = {"name": field.name, "in": "query", "required": False,
                             "schema": {"type": "array", "items": schema}
                             if field.is_repeated else schema}
                if field.is_repeated:
                    parameter.update(style="form", explode=True)
                comment = _comments(field.file).get(f"{message.full_name}.{field.name}")
                if comment:
                    parameter["description"] = comment
                found.append(parameter)
        return found

    def request_body(self, route: Route) -> dict[str, Any] | None:
        if not route.body:
            return None
        message = route.method.input_type
        if route.body == "*":
            schema = self.input_schema(message, route.path_fields)
        else:
            schema = self.field_schema(message.fields_by_name[route.body], sent=True)
        content = {"application/json": {"schema": schema}}
        has_file = any(f.message_type is not None and f.message_type.full_name == UPLOADED_FILE
                       for f in message.fields)
        if has_file and route.body == "*":
            parts = dict(schema["properties"])
            for name, part in parts.items():
                field = message.fields_by_name[name]
                if field.message_type is not None and field.message_type.full_name not in \
                        (UPLOADED_FILE,):
                    parts[name] = {"type": "string", "contentMediaType": "application/json",
                                   "contentSchema": part}
            content = {"multipart/form-data": {"schema": {"type": "object",
                                                          "properties": parts}}}
        return {"required": False, "content": content}

    # ---- responses ----

    def responses(self, route: Route) -> dict[str, Any]:
        output = route.method.output_type
        if output.full_name == "google.api.HttpBody" or output.full_name == UPLOADED_FILE:
            success: dict[str, Any] = {"description": "The file", "content": {
                "application/octet-stream": {"schema": {"type": "string",
                                                        "contentMediaType": "application/octet-stream"}}}}
            codes = ["200"]
        else:
            whole = self.ref(output)
            schema = whole
            if route.response_body:
                schema = self.field_schema(output.fields_by_name[route.response_body], sent=False)
                if route.options.envelope_field:
                    schema = {"oneOf": [schema, whole]}
            success = {"description": "Success",
                       "content": {"application/json": {"schema": schema}}}
            if route.options.created_field:
                codes = ["200", "201"]
            else:
                codes = [str(route.options.success_code or 200)]
        error = {"description": "Refused: the message says why, `errors` names each "
                                "offending field",
                 "content": {"application/json": {"schema": {
                     "$ref": "#/components/schemas/Error"}}}}
        answers = {code: success for code in codes}
        answers.update({"4XX": error, "5XX": error})
        return answers


def document(services: list[descriptor.ServiceDescriptor], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every route of `services`."""
    builder = _Builder()
    paths: dict[str, dict[str, Any]] = {}
    tags: list[dict[str, Any]] = []
    for route in routes_of(services):
        method = route.method
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        template = getattr(rule, rule.WhichOneof("pattern"))
        path = _openapi_path(template)
        options = method.GetOptions()
        operation: dict[str, Any] = {
            "operationId": f"{method.containing_service.name}_{method.name}",
            "tags": [method.containing_service.name],
            "summary": _comments(method.containing_service.file).get(method.full_name, method.name),
            "x-grpc-method": f"/{method.containing_service.full_name}/{method.name}",
            "parameters": builder.parameters(route),
            "responses": builder.responses(route),
        }
        body = builder.request_body(route)
        if body is not None:
            operation["requestBody"] = body
        if route.options.anonymous:
            operation["security"] = []
        elif options.Extensions[options_pb2.public_flow_read]:
            operation["security"] = [{}, {"apiKey": []}]  # a public flow's reads need no key
        privilege = options.Extensions[options_pb2.privilege]
        if privilege:
            operation["x-privilege"] = options_pb2.Privilege.Name(privilege)
        paths.setdefault(path, {})[route.http_method.lower()] = operation
        service = method.containing_service
        if not any(t["name"] == service.name for t in tags):
            tags.append({"name": service.name,
                         "description": _comments(service.file).get(service.full_name, "")})
    builder.schemas["Error"] = ERROR_SCHEMA
    return {
        "openapi": "3.1.0",
        "info": {"title": "Evidence Service REST API", "version": version,
                 "description": "The /api/v2 contract of the self-hostable evidence service, "
                                "generated from its protos. Every operation is also a gRPC "
                                "method (x-grpc-method)."},
        "servers": [{"url": "/"}],
        "security": [{"apiKey": []}],
        "tags": tags,
        "paths": dict(sorted(paths.items())),
        "components": {
            "securitySchemes": {"apiKey": {"type": "http", "scheme": "bearer",
                                           "description": "An API key: Authorization: Bearer <key>"}},
            "schemas": dict(sorted(builder.schemas.items())),
        },
    }


def _openapi_path(template: str) -> str:
    """google.api.http's `{name=**}` and `{name}` as OpenAPI's `{name}`."""
    return PATH_VARIABLE.sub(lambda match: "{" + match.group(1) + "}", template)


def main(argv: list[str]) -> int:
    from importlib.metadata import PackageNotFoundError, version

    from evidence_grpc.services import service_descriptors

    try:
        release = version("evidence-service")
    except PackageNotFoundError:
        release = "0"
    target = pathlib.Path(argv[1]) if len(argv) > 1 else DOCUMENT_PATH
    target.write_text(json.dumps(document(service_descriptors(), release), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
