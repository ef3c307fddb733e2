from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Privilege(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRIVILEGE_UNSPECIFIED: _ClassVar[Privilege]
    PRIVILEGE_READER: _ClassVar[Privilege]
    PRIVILEGE_SNAPSHOTTER: _ClassVar[Privilege]
    PRIVILEGE_MEMBER: _ClassVar[Privilege]
    PRIVILEGE_ADMIN: _ClassVar[Privilege]

class Transaction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRANSACTION_UNSPECIFIED: _ClassVar[Transaction]
    TRANSACTION_READ: _ClassVar[Transaction]
    TRANSACTION_WRITE: _ClassVar[Transaction]
PRIVILEGE_UNSPECIFIED: Privilege
PRIVILEGE_READER: Privilege
PRIVILEGE_SNAPSHOTTER: Privilege
PRIVILEGE_MEMBER: Privilege
PRIVILEGE_ADMIN: Privilege
TRANSACTION_UNSPECIFIED: Transaction
TRANSACTION_READ: Transaction
TRANSACTION_WRITE: Transaction
HTTP_OPTIONS_FIELD_NUMBER: _ClassVar[int]
http_options: _descriptor.FieldDescriptor
PRIVILEGE_FIELD_NUMBER: _ClassVar[int]
privilege: _descriptor.FieldDescriptor
PUBLIC_FLOW_READ_FIELD_NUMBER: _ClassVar[int]
public_flow_read: _descriptor.FieldDescriptor
UPDATE_PRIVILEGE_FIELD_NUMBER: _ClassVar[int]
update_privilege: _descriptor.FieldDescriptor
TRANSACTION_FIELD_NUMBER: _ClassVar[int]
transaction: _descriptor.FieldDescriptor
MAX_UPLOAD_BYTES_FIELD_NUMBER: _ClassVar[int]
max_upload_bytes: _descriptor.FieldDescriptor
JSON_KEY_FIELD_NUMBER: _ClassVar[int]
json_key: _descriptor.FieldDescriptor
JSON_OBJECT_KEY_FIELD_NUMBER: _ClassVar[int]
json_object_key: _descriptor.FieldDescriptor
JSON_INLINE_FIELD_NUMBER: _ClassVar[int]
json_inline: _descriptor.FieldDescriptor
OMIT_WHEN_UNSET_FIELD_NUMBER: _ClassVar[int]
omit_when_unset: _descriptor.FieldDescriptor
AS_SENT_FIELD_NUMBER: _ClassVar[int]
as_sent: _descriptor.FieldDescriptor
CHANGE_PRIVILEGE_FIELD_NUMBER: _ClassVar[int]
change_privilege: _descriptor.FieldDescriptor
OMIT_UNSET_FIELD_NUMBER: _ClassVar[int]
omit_unset: _descriptor.FieldDescriptor
JSON_ARRAY_FIELD_NUMBER: _ClassVar[int]
json_array: _descriptor.FieldDescriptor
RENDER_ONCE_FIELD_NUMBER: _ClassVar[int]
render_once: _descriptor.FieldDescriptor

class HttpOptions(_message.Message):
    __slots__ = ("success_code", "created_field", "envelope_field", "strict_body", "anonymous", "stream_unpaged")
    SUCCESS_CODE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_FIELD_FIELD_NUMBER: _ClassVar[int]
    STRICT_BODY_FIELD_NUMBER: _ClassVar[int]
    ANONYMOUS_FIELD_NUMBER: _ClassVar[int]
    STREAM_UNPAGED_FIELD_NUMBER: _ClassVar[int]
    success_code: int
    created_field: str
    envelope_field: str
    strict_body: bool
    anonymous: bool
    stream_unpaged: str
    def __init__(self, success_code: _Optional[int] = ..., created_field: _Optional[str] = ..., envelope_field: _Optional[str] = ..., strict_body: _Optional[bool] = ..., anonymous: _Optional[bool] = ..., stream_unpaged: _Optional[str] = ...) -> None: ...
