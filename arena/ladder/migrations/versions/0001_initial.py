"""The initial ladder schema: ladders, bots, versions, matches, ratings, history, leases.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("move_ms", sa.Integer(), nullable=True),
        sa.Column("failure_policy", sa.String(length=16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("tau", sa.Float(), nullable=False),
        sa.Column("provisional_sigma", sa.Float(), nullable=False),
        sa.Column("broken_after", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("placement_games", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "failure_policy IN ('forfeit', 'random')", name=op.f("ck_ladders_failure_policy")
        ),
        sa.CheckConstraint("broken_after >= 1", name=op.f("ck_ladders_broken_after")),
        sa.CheckConstraint("max_attempts >= 1", name=op.f("ck_ladders_max_attempts")),
        sa.CheckConstraint("placement_games >= 0", name=op.f("ck_ladders_placement_games")),
        sa.CheckConstraint("players >= 1", name=op.f("ck_ladders_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladders")),
        sa.UniqueConstraint("name", name=op.f("uq_ladders_name")),
    )
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("owner", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_bots_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("ladder_id", "name", name=op.f("uq_bots_ladder_id")),
    )
    op.create_table(
        "leases",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("holder", sa.String(length=200), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("acquired_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_leases_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ladder_id", name=op.f("pk_leases")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("set_key", sa.String(length=32), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("record_location", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_token", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'void')", name=op.f("ck_matches_status")
        ),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_matches_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index("ix_matches_ladder_status", "matches", ["ladder_id", "status"])
    op.create_index("ix_matches_set_key", "matches", ["set_key"])

    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("spec", sa.Text(), nullable=True),
        sa.Column("archive_sha256", sa.String(length=64), nullable=True),
        sa.Column("entry", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("replaces_previous", sa.Boolean(), nullable=False),
        sa.Column("failures_in_row", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind = 'remote' OR spec IS NOT NULL OR archive_sha256 IS NOT NULL",
            name=op.f("ck_bot_versions_program"),
        ),
        sa.CheckConstraint("kind IN ('hosted', 'remote')", name=op.f("ck_bot_versions_kind")),
        sa.CheckConstraint(
            "status IN ('validating', 'active', 'retired', 'broken')",
            name=op.f("ck_bot_versions_status"),
        ),
        sa.CheckConstraint(
            "archive_sha256 IS NULL OR entry IS NOT NULL", name=op.f("ck_bot_versions_entry")
        ),
        sa.ForeignKeyConstraint(
            ["bot_id"], ["bots.id"], name=op.f("fk_bot_versions_bot_id_bots"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_versions")),
        sa.UniqueConstraint("bot_id", "version", name=op.f("uq_bot_versions_bot_id")),
    )
    op.create_index("ix_bot_versions_status", "bot_versions", ["status"])

    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_rating_history_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_rating_history_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
        sa.UniqueConstraint("match_id", "version_id", name=op.f("uq_rating_history_match_id")),
    )
    op.create_index("ix_rating_history_version", "rating_history", ["version_id", "id"])

    op.create_table(
        "ratings",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("games_base", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"],
            ["ladders.id"],
            name=op.f("fk_ratings_ladder_id_ladders"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_ratings_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ladder_id", "version_id", name=op.f("pk_ratings")),
    )


def downgrade() -> None:
    op.drop_table("ratings")
    op.drop_index("ix_rating_history_version", table_name="rating_history")

    op.drop_table("rating_history")
    op.drop_index("ix_bot_versions_status", table_name="bot_versions")

    op.drop_table("bot_versions")
    op.drop_index("ix_matches_set_key", table_name="matches")
    op.drop_index("ix_matches_ladder_status", table_name="matches")

    op.drop_table("matches")
    op.drop_table("leases")
    op.drop_table("bots")
    op.drop_table("ladders")
