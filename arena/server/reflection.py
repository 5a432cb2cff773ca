"""Server reflection under both ``grpc.reflection.v1`` and ``grpc.reflection.v1alpha``.

grpcio-reflection (as of 1.7x/1.8x) implements only ``v1alpha``; current grpcurl,
Postman and the reflection clients of other languages ask ``v1`` first. The two
protocols are the same messages under two package names (field for field), so ``v1``
is served by the ``v1alpha`` servicer through a second method name, and the ``v1``
descriptor (the ``v1alpha`` file with its package renamed) is added to the pool so that
``v1`` itself can be described.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as alpha_pb2

V1_SERVICE = "grpc.reflection.v1.ServerReflection"
ALPHA_SERVICE = reflection.SERVICE_NAME
_ALPHA_PACKAGE = "grpc.reflection.v1alpha"
_V1_PACKAGE = "grpc.reflection.v1"


def _add_v1_descriptor() -> None:
    """Add ``grpc/reflection/v1/reflection.proto`` to the default pool (idempotent)."""
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(V1_SERVICE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    alpha_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = _V1_PACKAGE
    alpha, v1 = f".{_ALPHA_PACKAGE}.", f".{_V1_PACKAGE}."
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(alpha):
                field.type_name = v1 + field.type_name[len(alpha) :]
    for service in proto.service:
        for method in service.method:
            method.input_type = v1 + method.input_type[len(alpha) :]
            method.output_type = v1 + method.output_type[len(alpha) :]
    proto.ClearField("options")
    pool.Add(proto)


def enable_reflection(service_names: tuple[str, ...], server: grpc.aio.Server) -> None:
    """Reflection of ``service_names`` (and of itself, both versions) on ``server``."""
    _add_v1_descriptor()
    names = (*service_names, V1_SERVICE, ALPHA_SERVICE)
    servicer = reflection.aio.ReflectionServicer(names)
    method: grpc.RpcMethodHandler[Any, Any] = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=alpha_pb2.ServerReflectionRequest.FromString,
        response_serializer=alpha_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(V1_SERVICE, {"ServerReflectionInfo": method}),
            grpc.method_handlers_generic_handler(ALPHA_SERVICE, {"ServerReflectionInfo": method}),
        )
    )
