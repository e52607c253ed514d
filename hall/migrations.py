"""Versioned schema migrations of the hall's database (SQLite and PostgreSQL alike).

``schema_version`` holds one row: the version the database is at. Each entry of
:data:`MIGRATIONS` takes the database one version up, inside one transaction (both databases
have transactional DDL), under a lock so that two halls starting at once migrate only once.
Never edit a released migration; append a new one. The store reads the tables back from the
database (:func:`hall.db.reflect`), so the migrations are the only description of the schema.
"""

from __future__ import annotations

from sqlalchemy import (Boolean, Column, ForeignKey, Index, Integer, MetaData, String, Table, Text,
                        UniqueConstraint, text)
from sqlalchemy.engine import Connection, Engine

from hall.errors import DatabaseError


def _v1(conn: Connection) -> None:
    """Events, players, rounds, tables, results (revisions), stations, pairing codes, organisers."""
    m = MetaData()
    Table("settings", m, Column("key", String(64), primary_key=True), Column("value", Text, nullable=False))
    Table("organisers", m, Column("id", Integer, primary_key=True), Column("username", String(80), unique=True,
          nullable=False), Column("password_hash", Text, nullable=False), Column("created_at", String(40), nullable=False))
    Table("events", m, Column("id", Integer, primary_key=True), Column("name", String(200), nullable=False),
          Column("game", String(40), nullable=False), Column("config_json", Text, nullable=False),
          Column("created_at", String(40), nullable=False),
          Column("version", Integer, nullable=False, server_default="0"))  # bumped by every change: caches key on it
    Table("players", m, Column("id", Integer, primary_key=True),
          Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
          Column("pid", String(80), nullable=False), Column("name", String(200), nullable=False),
          Column("club", String(200)), Column("dropped", Boolean, nullable=False, server_default=text("false")),
          Column("position", Integer, nullable=False), UniqueConstraint("event_id", "pid"))
    Table("rounds", m, Column("id", Integer, primary_key=True),
          Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
          Column("number", Integer, nullable=False), Column("status", String(10), nullable=False),
          Column("byes_json", Text, nullable=False, server_default="[]"),
          Column("created_at", String(40), nullable=False), Column("closed_at", String(40)),
          UniqueConstraint("event_id", "number"))
    Table("event_tables", m, Column("id", Integer, primary_key=True),
          Column("round_id", Integer, ForeignKey("rounds.id"), nullable=False),
          Column("table_no", Integer, nullable=False), Column("players_json", Text, nullable=False),
          UniqueConstraint("round_id", "table_no"))
    Table("stations", m, Column("id", Integer, primary_key=True),
          Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
          Column("table_no", Integer, nullable=False), Column("name", String(120), nullable=False),
          Column("token_sha256", String(64), nullable=False, unique=True),
          Column("created_at", String(40), nullable=False), Column("revoked_at", String(40)))
    Table("pairing_codes", m, Column("id", Integer, primary_key=True),
          Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
          Column("table_no", Integer, nullable=False), Column("code_sha256", String(64), nullable=False, unique=True),
          Column("created_at", String(40), nullable=False), Column("expires_at", String(40), nullable=False),
          Column("used_at", String(40)))
    Table("results", m, Column("id", Integer, primary_key=True),
          Column("round_id", Integer, ForeignKey("rounds.id"), nullable=False),
          Column("table_no", Integer, nullable=False),
          Column("source", String(12), nullable=False),       # station | organiser
          Column("kind", String(12), nullable=False),         # report | accept | correct | entry
          Column("game_points_json", Text),                   # null: a report whose players are not matched yet
          Column("ranks_json", Text),
          Column("station_id", Integer, ForeignKey("stations.id")),
          Column("scan_id", Integer), Column("scan_revision", Integer),
          Column("photo_sha256", String(64)), Column("explanation", Text),
          Column("report_json", Text),                        # what the station sent (score, names, state)
          Column("problem", Text),                            # why a report gave no result by itself
          Column("note", Text, nullable=False, server_default=""),
          Column("created_by", String(80)), Column("created_at", String(40), nullable=False),
          UniqueConstraint("station_id", "scan_id", "scan_revision", name="results_idempotent"))
    m.create_all(conn)


def _v2(conn: Connection) -> None:
    """Results are looked up per round and table: index them."""
    results = Table("results", MetaData(), autoload_with=conn)
    Index("results_by_table", results.c.round_id, results.c.table_no).create(conn)


def _v3(conn: Connection) -> None:
    """Organiser sessions kept server-side (a logout ends a copied cookie too)."""
    m = MetaData()
    Table("organiser_sessions", m, Column("id", Integer, primary_key=True),
          Column("token_sha256", String(64), nullable=False, unique=True),
          Column("username", String(80), nullable=False, index=True),
          Column("created_at", String(40), nullable=False), Column("expires_at", String(40), nullable=False),
          Column("ended_at", String(40)))
    m.create_all(conn)


def _v4(conn: Connection) -> None:
    """A result's no-shows by player id (JSON list; null: none recorded, as in older revisions)."""
    conn.execute(text("ALTER TABLE results ADD COLUMN no_shows_json TEXT"))


MIGRATIONS = [_v1, _v2, _v3, _v4]
#: The schema version this code writes and reads.
VERSION = len(MIGRATIONS)


def current_version(conn: Connection) -> int:
    """The database's schema version (0 for an empty database)."""
    if not conn.dialect.has_table(conn, "schema_version"):
        return 0
    return conn.execute(text("SELECT version FROM schema_version")).scalar_one()


def migrate(engine: Engine, target: int = VERSION) -> int:
    """Bring the database up to ``target``, one transaction per version; returns the version reached.

    Raises:
        hall.errors.DatabaseError: ``db-version`` when the database is newer than this code.
    """
    with engine.connect() as conn:
        conn = conn.execution_options(hall_write=True)
        while True:
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(424242)"))
                if not conn.dialect.has_table(conn, "schema_version"):
                    conn.execute(text("CREATE TABLE schema_version (version INTEGER NOT NULL)"))
                    conn.execute(text("INSERT INTO schema_version (version) VALUES (0)"))
                version = current_version(conn)
                if version > VERSION:
                    raise DatabaseError("db-version", f"the database is at schema version {version}, newer than "
                                        f"this beachscore understands ({VERSION}): upgrade beachscore")
                if version >= target:
                    return version
                MIGRATIONS[version](conn)
                conn.execute(text("UPDATE schema_version SET version = :v"), {"v": version + 1})
