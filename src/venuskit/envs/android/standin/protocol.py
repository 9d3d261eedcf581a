"""adbd's transport protocol, the device side: the 24-byte message header and its commands.

A message is six little-endian uint32 — command, arg0, arg1, payload length, payload checksum (the sum of its
bytes), magic (command ^ 0xFFFFFFFF) — then the payload (yume-chan/ya-webadb's book, `packet.md`). From version
0x01000001 (Android 9) on, payloads may reach 1 MiB and the checksum is not checked; this side always fills it in,
which both versions accept.
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass


def _cmd(name: bytes) -> int:
    return int.from_bytes(name, "little")


CNXN, AUTH, OPEN, OKAY, WRTE, CLSE, SYNC, STLS = (_cmd(n) for n in (b"CNXN", b"AUTH", b"OPEN", b"OKAY", b"WRTE",
                                                                      b"CLSE", b"SYNC", b"STLS"))  # fmt: skip
NAMES = {CNXN: "CNXN", AUTH: "AUTH", OPEN: "OPEN", OKAY: "OKAY", WRTE: "WRTE", CLSE: "CLSE", SYNC: "SYNC",
         STLS: "STLS"}  # fmt: skip
VERSION = 0x01000001  # skip-checksum version (Android 9+)
MAX_PAYLOAD = 1 << 20
AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3
HEADER = struct.Struct("<6I")


class ProtocolError(RuntimeError):
    """The peer sent something that is not an adb transport message."""


@dataclass(frozen=True)
class Message:
    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return NAMES.get(self.command, f"0x{self.command:08x}")

    def pack(self) -> bytes:
        check = sum(self.data) & 0xFFFFFFFF
        head = HEADER.pack(self.command, self.arg0, self.arg1, len(self.data), check, self.command ^ 0xFFFFFFFF)
        return head + self.data


def read_exact(sock: socket.socket, n: int) -> bytes | None:
    """n bytes, or None when the peer closed the connection first."""
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_message(sock: socket.socket, max_payload: int = MAX_PAYLOAD) -> Message | None:
    """The next message, or None at the end of the connection. Raises ProtocolError on a bad header."""
    head = read_exact(sock, HEADER.size)
    if head is None:
        return None
    command, arg0, arg1, length, _check, magic = HEADER.unpack(head)
    if magic != command ^ 0xFFFFFFFF or command not in NAMES:
        raise ProtocolError(f"Not an adb message (command 0x{command:08x}, magic 0x{magic:08x}).")
    if length > max_payload:
        raise ProtocolError(f"A {NAMES[command]} payload of {length} bytes is over the {max_payload}-byte limit.")
    data = read_exact(sock, length) if length else b""
    if data is None:
        return None
    return Message(command, arg0, arg1, data)
