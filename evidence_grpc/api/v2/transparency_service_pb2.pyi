from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.api import httpbody_pb2 as _httpbody_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetLogPublicKeyRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class GetLogKeyHistoryRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class LogKeyHistory(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[LogKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[LogKey, _Mapping]]] = ...) -> None: ...

class LogKey(_message.Message):
    __slots__ = ("verifier_key", "first_size", "last_size", "rotation_checkpoint")
    VERIFIER_KEY_FIELD_NUMBER: _ClassVar[int]
    FIRST_SIZE_FIELD_NUMBER: _ClassVar[int]
    LAST_SIZE_FIELD_NUMBER: _ClassVar[int]
    ROTATION_CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    verifier_key: str
    first_size: int
    last_size: int
    rotation_checkpoint: str
    def __init__(self, verifier_key: _Optional[str] = ..., first_size: _Optional[int] = ..., last_size: _Optional[int] = ..., rotation_checkpoint: _Optional[str] = ...) -> None: ...

class GetLogCheckpointRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class GetLogEntryRequest(_message.Message):
    __slots__ = ("org", "index")
    ORG_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    org: str
    index: int
    def __init__(self, org: _Optional[str] = ..., index: _Optional[int] = ...) -> None: ...

class LogEntry(_message.Message):
    __slots__ = ("index", "leaf", "leaf_hash")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LEAF_FIELD_NUMBER: _ClassVar[int]
    LEAF_HASH_FIELD_NUMBER: _ClassVar[int]
    index: int
    leaf: bytes
    leaf_hash: str
    def __init__(self, index: _Optional[int] = ..., leaf: _Optional[bytes] = ..., leaf_hash: _Optional[str] = ...) -> None: ...

class GetLogInclusionProofRequest(_message.Message):
    __slots__ = ("org", "index", "tree_size")
    ORG_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TREE_SIZE_FIELD_NUMBER: _ClassVar[int]
    org: str
    index: int
    tree_size: int
    def __init__(self, org: _Optional[str] = ..., index: _Optional[int] = ..., tree_size: _Optional[int] = ...) -> None: ...

class GetLogTileRequest(_message.Message):
    __slots__ = ("org", "tile")
    ORG_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    org: str
    tile: str
    def __init__(self, org: _Optional[str] = ..., tile: _Optional[str] = ...) -> None: ...

class GetLogConsistencyProofRequest(_message.Message):
    __slots__ = ("org", "first", "second")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    org: str
    first: int
    second: int
    def __init__(self, org: _Optional[str] = ..., first: _Optional[int] = ..., second: _Optional[int] = ...) -> None: ...

class LogProof(_message.Message):
    __slots__ = ("hashes",)
    HASHES_FIELD_NUMBER: _ClassVar[int]
    hashes: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, hashes: _Optional[_Iterable[bytes]] = ...) -> None: ...

class GetLogWitnessesRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class LogWitnesses(_message.Message):
    __slots__ = ("size", "quorum", "served_size", "checkpoint", "witnesses")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    QUORUM_FIELD_NUMBER: _ClassVar[int]
    SERVED_SIZE_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    WITNESSES_FIELD_NUMBER: _ClassVar[int]
    size: int
    quorum: int
    served_size: int
    checkpoint: str
    witnesses: _containers.RepeatedCompositeFieldContainer[LogWitness]
    def __init__(self, size: _Optional[int] = ..., quorum: _Optional[int] = ..., served_size: _Optional[int] = ..., checkpoint: _Optional[str] = ..., witnesses: _Optional[_Iterable[_Union[LogWitness, _Mapping]]] = ...) -> None: ...

class LogWitness(_message.Message):
    __slots__ = ("name", "key", "cosigned_size", "cosigned_at", "behind", "failures", "refusals", "problem", "on_served_checkpoint")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    COSIGNED_SIZE_FIELD_NUMBER: _ClassVar[int]
    COSIGNED_AT_FIELD_NUMBER: _ClassVar[int]
    BEHIND_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    REFUSALS_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    ON_SERVED_CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    name: str
    key: str
    cosigned_size: int
    cosigned_at: int
    behind: int
    failures: int
    refusals: int
    problem: str
    on_served_checkpoint: bool
    def __init__(self, name: _Optional[str] = ..., key: _Optional[str] = ..., cosigned_size: _Optional[int] = ..., cosigned_at: _Optional[int] = ..., behind: _Optional[int] = ..., failures: _Optional[int] = ..., refusals: _Optional[int] = ..., problem: _Optional[str] = ..., on_served_checkpoint: _Optional[bool] = ...) -> None: ...
