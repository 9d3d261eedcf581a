"""TFRecord files and `tf.train.Example` messages, without TensorFlow.

A TFRecord file is a sequence of records, each framed as

    uint64 length (little endian) | uint32 masked CRC32C of the length | data | uint32 masked CRC32C of the data

with TensorFlow's mask `((crc >> 15) | (crc << 17)) + 0xa282ead8` (mod 2**32). Files may be gzip-compressed
whole (AndroidControl's are: `compression_type='GZIP'`). A record here holds a serialized `tf.train.Example`:
a map from feature names to a list of bytes, float or int64 values. The message classes are built at import
from a hand-written descriptor of tensorflow/core/example/{feature,example}.proto in a private descriptor pool
(wire-compatible with TensorFlow's, and never clashing with it if TensorFlow is imported too).

Reading is hostile-input safe: a bad length, a CRC mismatch or a truncated record raises `TFRecordError` naming
the file and the record's offset; a record larger than `max_record_bytes` is refused before it is read.
"""

from __future__ import annotations

import gzip
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import google_crc32c
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

MASK_DELTA = 0xA282EAD8
MAX_RECORD_BYTES = 1 << 30  # 1 GiB: an AndroidControl episode with dozens of full-size PNGs stays far below
GZIP_MAGIC = b"\x1f\x8b"
Feature = list[bytes] | list[int] | list[float]


class TFRecordError(ValueError):
    """A TFRecord file or an Example that cannot be read: the message says which file, where and why."""


def masked_crc(data: bytes) -> int:
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & 0xFFFFFFFF


# ---- framing -------------------------------------------------------------------------------------------


def _open(path: Path) -> BinaryIO:
    with open(path, "rb") as f:
        magic = f.read(2)
    return gzip.open(path, "rb") if magic == GZIP_MAGIC else open(path, "rb")  # type: ignore[return-value]


def read_records(path: str | Path, max_record_bytes: int = MAX_RECORD_BYTES) -> Iterator[bytes]:
    """The records of one TFRecord file (plain or gzip), CRCs checked."""
    path = Path(path)
    with _open(path) as f:
        offset = 0
        while True:
            head = f.read(12)
            if not head:
                return
            if len(head) < 12:
                raise TFRecordError(f"{path}: truncated record header at byte {offset}.")
            length, length_crc = struct.unpack("<QI", head)
            if masked_crc(head[:8]) != length_crc:
                raise TFRecordError(f"{path}: the length CRC of the record at byte {offset} does not match; "
                                    "this is not a TFRecord file, or it is corrupt.")  # fmt: skip
            if length > max_record_bytes:
                raise TFRecordError(f"{path}: the record at byte {offset} claims {length} bytes, over the "
                                    f"{max_record_bytes}-byte limit.")  # fmt: skip
            data, tail = f.read(length), f.read(4)
            if len(data) < length or len(tail) < 4:
                raise TFRecordError(f"{path}: the record at byte {offset} is truncated.")
            if masked_crc(data) != struct.unpack("<I", tail)[0]:
                raise TFRecordError(f"{path}: the data CRC of the record at byte {offset} does not match.")
            yield data
            offset += 16 + length


def write_records(path: str | Path, records: Iterable[bytes], *, compress: bool = False) -> int:
    """Write records to a TFRecord file (gzip-compressed when `compress`); returns how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with gzip.open(path, "wb") if compress else open(path, "wb") as f:
        for data in records:
            head = struct.pack("<Q", len(data))
            f.write(head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data)))
            n += 1
    return n


# ---- tf.train.Example -------------------------------------------------------------------------------------


def _descriptor() -> descriptor_pb2.FileDescriptorProto:
    """tensorflow/core/example/{feature,example}.proto, the fields TFRecord datasets use."""
    fd = descriptor_pb2.FileDescriptorProto(name="venuskit_tf_example.proto", package="tensorflow", syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto
    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL

    def message(name: str, *fields: tuple[str, int, int, int, str | None], oneof: str | None = None) -> Any:
        m = fd.message_type.add(name=name)
        if oneof:
            m.oneof_decl.add(name=oneof)
        for fname, number, ftype, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
            if oneof:
                f.oneof_index = 0
        return m

    message("BytesList", ("value", 1, F.TYPE_BYTES, rep, None))
    message("FloatList", ("value", 1, F.TYPE_FLOAT, rep, None))
    message("Int64List", ("value", 1, F.TYPE_INT64, rep, None))
    message("Feature", ("bytes_list", 1, F.TYPE_MESSAGE, opt, ".tensorflow.BytesList"),
            ("float_list", 2, F.TYPE_MESSAGE, opt, ".tensorflow.FloatList"),
            ("int64_list", 3, F.TYPE_MESSAGE, opt, ".tensorflow.Int64List"), oneof="kind")  # fmt: skip
    features = message("Features", ("feature", 1, F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry"))
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.Feature")
    message("Example", ("features", 1, F.TYPE_MESSAGE, opt, ".tensorflow.Features"))
    return fd


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_descriptor())
Example = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("tensorflow.Example"))


def encode_example(features: dict[str, Feature | bytes | str | int | float]) -> bytes:
    """A serialized Example. Values: a list of bytes / str (as UTF-8) / int / float, or one such value."""
    ex = Example()
    for name, value in features.items():
        values = value if isinstance(value, list | tuple) else [value]
        feat = ex.features.feature[name]
        if all(isinstance(v, bytes | str) for v in values) and (values or isinstance(value, list)):
            feat.bytes_list.SetInParent()  # an empty list is still a bytes feature
            feat.bytes_list.value.extend(v.encode("utf-8") if isinstance(v, str) else v for v in values)
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            feat.int64_list.value.extend(values)
        elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            feat.float_list.value.extend(float(v) for v in values)
        else:
            raise TypeError(f"Feature {name!r} mixes value types or holds something not bytes/int/float.")
    return ex.SerializeToString(deterministic=True)


def decode_example(data: bytes, where: str = "record") -> dict[str, Feature]:
    """A serialized Example as {name: list of values}. Raises TFRecordError for bytes that are not one."""
    ex = Example()
    try:
        ex.ParseFromString(data)
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and friends: all mean "not an Example"
        raise TFRecordError(f"{where}: not a tf.train.Example ({type(e).__name__}: {e}).") from e
    out: dict[str, Feature] = {}
    for name, feat in ex.features.feature.items():
        kind = feat.WhichOneof("kind")
        out[name] = list(getattr(feat, kind).value) if kind else []
    return out
