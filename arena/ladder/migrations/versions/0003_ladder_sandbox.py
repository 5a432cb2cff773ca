"""Per-ladder sandbox limits: the nullable ``ladders.sandbox`` JSON column.

NULL (every ladder created before this revision) means the safe defaults
(``arena.sandbox.limits.DEFAULT_LIMITS``), so existing ladders need no data migration.

Revision ID: 0003_ladder_sandbox
Revises: 0002_bot_tokens
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_ladder_sandbox"
down_revision: str | Sequence[str] | None = "0002_bot_tokens"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("ladders", sa.Column("sandbox", sa.JSON(), nullable=True))


def downgrade() -> None:
    # batch mode: SQLite drops a column by copying the table (PostgreSQL drops it in place)
    with op.batch_alter_table("ladders") as batch:
        batch.drop_column("sandbox")
