"""The device end of adb's transport: a loopback listener that an adb server reaches with `adb connect
127.0.0.1:PORT`, the CNXN handshake (or an AUTH exchange that never ends, for the unauthorized fault), and the
streams the server opens on it (OPEN / OKAY / WRTE / CLSE).

Flow control is adb's before delayed acks (adb 29 and older): one WRTE in flight per stream, the next sent when
the peer's OKAY for it has come. What a stream serves is up to the `Services` it was given (the stand-in device).
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
from collections.abc import Callable
from typing import Protocol

from venuskit.envs.android.standin.protocol import (
    AUTH,
    AUTH_SIGNATURE,
    AUTH_TOKEN,
    CLSE,
    CNXN,
    MAX_PAYLOAD,
    OKAY,
    OPEN,
    VERSION,
    WRTE,
    Message,
    ProtocolError,
    read_message,
)

WRITE_TIMEOUT_S = 30.0  # a host that stops acknowledging a stream for this long has gone


class StreamClosed(ConnectionError):
    """The host closed the stream (or the whole connection) before the service finished."""


class Services(Protocol):
    """What a transport asks of its device."""

    def banner(self) -> bytes: ...

    def handshake(self) -> str: ...  # "device" (answer CNXN), "unauthorized" (AUTH forever), "offline" (silence)

    def serve(self, service: str, stream: Stream) -> None: ...


class Stream:
    """One service stream: bytes out through `write` (chunked, one WRTE in flight), bytes in through `read`."""

    def __init__(self, conn: Connection, local_id: int, remote_id: int) -> None:
        self.conn, self.local_id, self.remote_id = conn, local_id, remote_id
        self._inbox: queue.Queue[bytes | None] = queue.Queue()
        self._acked = threading.Condition()
        self._in_flight = False
        self._closed = False
        self._sent_close = False

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, data: bytes) -> None:
        step = self.conn.max_payload
        for i in range(0, len(data), step):
            with self._acked:
                if not self._acked.wait_for(lambda: not self._in_flight or self._closed, WRITE_TIMEOUT_S):
                    raise StreamClosed("The host stopped acknowledging writes.")
                if self._closed:
                    raise StreamClosed("The host closed the stream.")
                self._in_flight = True
            self.conn.send(Message(WRTE, self.local_id, self.remote_id, data[i : i + step]))

    def read(self, timeout: float | None = None) -> bytes | None:
        """The next bytes the host wrote; None once it has closed the stream."""
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("The host sent nothing in time.") from None

    def close(self) -> None:
        if not self._sent_close:
            self._sent_close = True
            # Wait for the last WRTE's OKAY first: a CLSE that overtakes it makes the server drop the data.
            with self._acked:
                self._acked.wait_for(lambda: not self._in_flight or self._closed, WRITE_TIMEOUT_S)
            self.conn.send(Message(CLSE, self.local_id, self.remote_id))
        self._end()

    # -- from the connection's reader --

    def _okay(self) -> None:
        with self._acked:
            self._in_flight = False
            self._acked.notify_all()

    def _data(self, data: bytes) -> None:
        self._inbox.put(data)

    def _end(self) -> None:
        with self._acked:
            self._closed = True
            self._acked.notify_all()
        self._inbox.put(None)


class Connection:
    """One adb server's connection to this device (one transport)."""

    def __init__(self, sock: socket.socket, services: Services, on_close: Callable[[Connection], None]) -> None:
        self.sock, self.services, self._on_close = sock, services, on_close
        self.max_payload = 4096
        self._send_lock = threading.Lock()
        self._streams: dict[int, Stream] = {}
        self._next_id = 1
        self._online = False
        self.thread = threading.Thread(target=self._run, name="standin-adb-conn", daemon=True)

    def send(self, msg: Message) -> None:
        with self._send_lock:
            self.sock.sendall(msg.pack())

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()

    def _run(self) -> None:
        try:
            while True:
                msg = read_message(self.sock)
                if msg is None:
                    break
                self._handle(msg)
        except (OSError, ProtocolError):
            pass  # the server went away or spoke nonsense: the connection ends like an unplugged cable
        finally:
            for stream in list(self._streams.values()):
                stream._end()
            self._streams.clear()
            self.close()
            self._on_close(self)

    def _handle(self, msg: Message) -> None:
        if msg.command == CNXN:
            self._connect(msg)
        elif msg.command == AUTH:
            if msg.arg0 == AUTH_SIGNATURE:  # refuse every key: the device stays "unauthorized"
                self.send(Message(AUTH, AUTH_TOKEN, 0, os.urandom(20)))
        elif not self._online:
            return
        elif msg.command == OPEN:
            self._open(msg)
        elif msg.command == OKAY:
            stream = self._streams.get(msg.arg1)
            if stream is not None:
                stream._okay()
        elif msg.command == WRTE:
            stream = self._streams.get(msg.arg1)
            if stream is not None:
                self.send(Message(OKAY, stream.local_id, stream.remote_id))
                stream._data(msg.data)
        elif msg.command == CLSE:
            stream = self._streams.pop(msg.arg1, None)
            if stream is not None:
                stream._end()

    def _connect(self, msg: Message) -> None:
        mode = self.services.handshake()
        if mode == "offline":
            return  # never answer: the server shows the device as offline
        if mode == "unauthorized":
            self.send(Message(AUTH, AUTH_TOKEN, 0, os.urandom(20)))
            return
        self.max_payload = max(4096, min(MAX_PAYLOAD, msg.arg1))
        self._online = True
        self.send(Message(CNXN, VERSION, MAX_PAYLOAD, self.services.banner()))

    def _open(self, msg: Message) -> None:
        service = msg.data.rstrip(b"\0").decode("utf-8", "replace")
        local_id, self._next_id = self._next_id, self._next_id + 1
        stream = Stream(self, local_id, msg.arg0)
        self._streams[local_id] = stream
        self.send(Message(OKAY, local_id, msg.arg0))
        threading.Thread(target=self._serve, args=(service, stream), name="standin-adb-stream", daemon=True).start()

    def _serve(self, service: str, stream: Stream) -> None:
        try:
            self.services.serve(service, stream)
        except (StreamClosed, OSError):
            pass  # the host hung up on it
        finally:
            with contextlib.suppress(OSError):
                stream.close()
            self._streams.pop(stream.local_id, None)


class Listener:
    """The loopback port adb servers connect to. `unplug()` drops every connection and refuses new ones (a
    cable pulled out); `plug()` accepts again."""

    def __init__(self, services: Services, port: int = 0, host: str = "127.0.0.1") -> None:
        if host not in ("127.0.0.1", "::1", "localhost"):
            raise ValueError(f"The stand-in device listens on loopback only; {host!r} is not a loopback address.")
        self.services, self.host = services, host
        self._port = port
        self._sock: socket.socket | None = None
        self._conns: set[Connection] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._port

    @property
    def serial(self) -> str:
        return f"{self.host}:{self._port}"

    def start(self) -> Listener:
        self.plug()
        return self

    def plug(self) -> None:
        if self._sock is not None:
            return
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._port))
        sock.listen(8)
        self._port = sock.getsockname()[1]
        self._sock = sock
        self._thread = threading.Thread(target=self._accept, args=(sock,), name="standin-adb-listen", daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            conn.close()

    def connections(self) -> int:
        with self._lock:
            return len(self._conns)

    def _accept(self, sock: socket.socket) -> None:
        while True:
            try:
                client, _ = sock.accept()
            except OSError:
                return  # unplugged
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(client, self.services, self._forget)
            with self._lock:
                self._conns.add(conn)
            conn.thread.start()

    def _forget(self, conn: Connection) -> None:
        with self._lock:
            self._conns.discard(conn)
