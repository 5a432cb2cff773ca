"""Remote bots' lobby tokens (stored as hashes): the ``bot_tokens`` table.

Revision ID: 0002_bot_tokens
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_bot_tokens"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bot_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["bot_id"], ["bots.id"], name=op.f("fk_bot_tokens_bot_id_bots"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_tokens")),
        sa.UniqueConstraint("sha256", name=op.f("uq_bot_tokens_sha256")),
    )
    op.create_index("ix_bot_tokens_bot", "bot_tokens", ["bot_id"])


def downgrade() -> None:
    op.drop_index("ix_bot_tokens_bot", table_name="bot_tokens")
    op.drop_table("bot_tokens")
