"""Episode state: one in-memory SQLite database per episode, restored from a seeded snapshot.

A snapshot is the background world generated from (seed, locale, today); it is built once per process
and cached. Reset copies it into the episode's own connection with SQLite's backup API (a memory to
memory page copy, well under a millisecond for our few hundred rows), then the task's setup rows go
on top. Contracts read state through `EpisodeState.rows` / `one` / `scalar` in the harness process,
never through the agent's browser.

An episode is bounded: from its reset on, its world may gain at most MAX_NEW_ROWS rows and MAX_NEW_BYTES bytes
(SQLite's `max_page_count`); a write past either raises `StorageFull`, and the server rolls back the request
that made it and answers with an error page (the probe's 200 saves of 1 MB grew a server by 219 MB).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Iterator
from importlib import resources
from typing import Any

from venuskit.world import data, skins

SCHEMA = resources.files("venuskit.world").joinpath("schema.sql").read_text(encoding="utf-8")
LOCALES = ("en", "zh")
MAX_NEW_ROWS = 2_000  # rows one episode may add (a task adds tens; an agent in a loop, hundreds)
MAX_NEW_BYTES = 16 << 20  # how much one episode's database may grow (every page of the world is ~1 MB)
_NO_PAGE_CAP = 1_073_741_823


class StorageFull(RuntimeError):
    """The episode's world holds as much as one episode may add; the write was not made."""


def _connect() -> sqlite3.Connection:
    # One connection shared by the server's request threads and the harness: every use holds the
    # episode lock, so check_same_thread can be off.
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


class Snapshots:
    """Background worlds keyed by (seed, locale, today), generated once and kept in memory."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, str, str], sqlite3.Connection] = {}
        self._lock = threading.Lock()

    def restore(self, state: EpisodeState, seed: int, locale: str, today: dt.date) -> None:
        """Copy the (seed, locale, today) world into `state`, generating it on first use. The lock also keeps
        two backups from reading one source connection at the same time."""
        key = (seed, locale, today.isoformat())
        with self._lock:
            conn = self._cache.get(key)
            if conn is None:
                conn = self._cache[key] = _connect()
                conn.executescript(SCHEMA)
                data.generate(conn, seed, locale, today)
            state.restore(conn)


class EpisodeState:
    """The live state of one episode. Thread-safe: every access holds `lock`."""

    def __init__(self, episode_id: str) -> None:
        self.episode_id = episode_id
        self.conn = _connect()
        self.lock = threading.RLock()
        self._tick = 0
        self._rows_added = 0
        self.meta: dict[str, str] = {}
        self.skin: skins.Skin = skins.get(skins.DEFAULT)  # how pages look; set by the server's reset

    # -- reset --

    def restore(self, snapshot: sqlite3.Connection) -> None:
        with self.lock:
            self.conn.execute(f"PRAGMA max_page_count = {_NO_PAGE_CAP}")  # the snapshot may be larger than the cap
            snapshot.backup(self.conn)
            self._tick, self._rows_added = 0, 0
            self.meta = {r["key"]: r["value"] for r in self.conn.execute("SELECT key, value FROM meta")}
            pages, size = self.scalar("PRAGMA page_count"), self.scalar("PRAGMA page_size")
            self.conn.execute(f"PRAGMA max_page_count = {int(pages) + MAX_NEW_BYTES // int(size)}")

    def set_meta(self, key: str, value: str) -> None:
        with self.lock:
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
            self.meta[key] = value

    # -- simulated time --

    @property
    def today(self) -> dt.date:
        return dt.date.fromisoformat(self.meta["today"])

    @property
    def locale(self) -> str:
        return self.meta.get("locale", "en")

    def now(self) -> str:
        """Simulated time for a new record: the task's fixed clock plus one minute per write, so records
        made during the episode sort after each other and after the background data."""
        with self.lock:
            self._tick += 1
            start = dt.datetime.fromisoformat(self.meta["now"])
            return (start + dt.timedelta(minutes=self._tick)).isoformat(timespec="minutes")

    # -- reads (apps and contracts) --

    def rows(self, sql: str, params: tuple | list = ()) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(r) for r in self.conn.execute(sql, tuple(params))]

    def one(self, sql: str, params: tuple | list = ()) -> dict[str, Any] | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def scalar(self, sql: str, params: tuple | list = ()) -> Any:
        with self.lock:
            row = self.conn.execute(sql, tuple(params)).fetchone()
        return None if row is None else row[0]

    # -- writes (apps and the harness's setup and interrupts) --

    def write(self, sql: str, params: tuple | list = ()) -> int:
        """Run one INSERT/UPDATE/DELETE; returns lastrowid. StorageFull past the episode's bounds."""
        inserts = sql.lstrip()[:6].upper() == "INSERT"
        with self.lock:
            if inserts and self._rows_added >= MAX_NEW_ROWS:
                raise StorageFull(f"this episode has added {MAX_NEW_ROWS} rows, as many as one episode may")
            try:
                cursor = self.conn.execute(sql, tuple(params))
            except sqlite3.OperationalError as e:
                if "full" not in str(e):
                    raise
                raise StorageFull(f"this episode's data has grown by {MAX_NEW_BYTES >> 20} MB, as much as one "
                                  "episode may") from e  # fmt: skip
            self._rows_added += max(cursor.rowcount, 0) if inserts else 0
            return int(cursor.lastrowid or 0)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything written inside happens, or (on any exception) none of it: one request is one change."""
        with self.lock:
            self.conn.execute("BEGIN")
            rows = self._rows_added
            try:
                yield
            except BaseException:
                if self.conn.in_transaction:  # SQLite may have rolled back by itself (a full database)
                    self.conn.execute("ROLLBACK")
                self._rows_added = rows
                raise
            self.conn.execute("COMMIT")

    def insert(self, table: str, **values: Any) -> int:
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        return self.write(f"INSERT INTO {table}({cols}) VALUES ({marks})", tuple(values.values()))

    def log(self, app: str, kind: str, **detail: Any) -> None:
        """Record a consequential action (send, delete, transfer, submit...) for the contract."""
        self.insert("action_log", at=self.now(), app=app, kind=kind, detail=json.dumps(detail, ensure_ascii=False))

    def actions(self, kind: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM action_log", ()
        if kind is not None:
            sql, params = sql + " WHERE kind = ?", (kind,)
        out = self.rows(sql + " ORDER BY id", params)
        for r in out:
            r["detail"] = json.loads(r["detail"])
        return out

    def user(self) -> dict[str, str]:
        return {"name": self.meta.get("user_name", ""), "email": self.meta.get("user_email", "")}

    def close(self) -> None:
        with self.lock:
            self.conn.close()
