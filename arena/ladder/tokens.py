"""Remote bots' lobby tokens: issued once, stored as hashes, revocable, several per bot.

A token is ``mnrb_`` followed by 32 random bytes (URL-safe base64): ``arena ladder token
BOT`` prints it once. The database keeps only its sha256 (table ``bot_tokens``), so a
leaked database does not leak a usable token, and looking a token up is one indexed
equality on the hash (a 256-bit random secret needs no slow hash: there is nothing to
brute-force). A bot may have several live tokens, so its author can rotate without
downtime: issue a new token, restart the bot with it, revoke the old one
(``arena ladder revoke BOT --token-id ID``). A token belongs to a bot (on its ladder),
not to a version: the bot's active **remote** versions play with it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.ladder.errors import LadderError, UnknownBot
from arena.ladder.models import Bot, BotToken, Ladder
from arena.ladder.store import LadderStore

PREFIX = "mnrb_"
"""Every token starts with this (it makes a leaked token recognisable to scanners)."""
TOKEN_BYTES = 32
MAX_TOKEN_CHARS = 200
"""Longer input is refused without hashing (no token is that long)."""


def hash_token(token: str) -> str:
    """The hex sha256 the database keeps of ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token."""
    return PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """A token as listed (never the token itself)."""

    id: int
    ladder: str
    bot: str
    created_at: datetime
    revoked_at: datetime | None

    @property
    def live(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True, slots=True)
class TokenOwner:
    """Who a valid token belongs to."""

    token_id: int
    bot_id: int
    bot: str
    ladder: str


class Tokens:
    """Issue, list, revoke and look up tokens in the ladder database of ``store``."""

    def __init__(self, store: LadderStore) -> None:
        self.store = store
        self._sessions = sessionmaker(store.engine, expire_on_commit=False)

    def _bot(self, session: Session, ladder: str, bot: str) -> Bot:
        row = session.scalars(
            select(Bot)
            .join(Ladder, Bot.ladder_id == Ladder.id)
            .where(Ladder.name == ladder, Bot.name == bot)
        ).one_or_none()
        if row is None:
            raise UnknownBot(f"no bot {bot!r} on ladder {ladder!r}")
        return row

    def issue(self, ladder: str, bot: str) -> tuple[TokenInfo, str]:
        """A new live token of ``bot``: its listing and the token (shown once)."""
        token = new_token()
        now = datetime.now(UTC)
        with self._sessions.begin() as session:
            row = BotToken(
                bot_id=self._bot(session, ladder, bot).id,
                sha256=hash_token(token),
                created_at=now,
                revoked_at=None,
            )
            session.add(row)
            session.flush()
            return TokenInfo(row.id, ladder, bot, now, None), token

    def listing(self, ladder: str, bot: str) -> list[TokenInfo]:
        """The bot's tokens, oldest first (revoked ones too)."""
        with self._sessions.begin() as session:
            rows = session.scalars(
                select(BotToken)
                .where(BotToken.bot_id == self._bot(session, ladder, bot).id)
                .order_by(BotToken.id)
            )
            return [TokenInfo(r.id, ladder, bot, r.created_at, r.revoked_at) for r in rows]

    def revoke(self, ladder: str, bot: str, token_id: int | None = None) -> list[int]:
        """Revoke one live token (``token_id``) or all of the bot's; returns the ids revoked.
        A token id that is not this bot's is an error (never a silent no-op)."""
        now = datetime.now(UTC)
        with self._sessions.begin() as session:
            bot_id = self._bot(session, ladder, bot).id
            query = select(BotToken.id).where(
                BotToken.bot_id == bot_id, BotToken.revoked_at.is_(None)
            )
            if token_id is not None:
                owned = session.scalar(
                    select(BotToken.id).where(BotToken.id == token_id, BotToken.bot_id == bot_id)
                )
                if owned is None:
                    raise LadderError(f"bot {bot!r} on ladder {ladder!r} has no token {token_id}")
                query = query.where(BotToken.id == token_id)
            ids = list(session.scalars(query))
            if ids:
                session.execute(update(BotToken).where(BotToken.id.in_(ids)).values(revoked_at=now))
            return ids

    def lookup(self, token: str) -> TokenOwner | None:
        """The owner of a live token, or None (unknown, revoked, malformed)."""
        if not token.startswith(PREFIX) or len(token) > MAX_TOKEN_CHARS:
            return None
        digest = hash_token(token)
        with self._sessions.begin() as session:
            row = session.execute(
                select(
                    BotToken.id, BotToken.sha256, BotToken.revoked_at, Bot.id, Bot.name, Ladder.name
                )
                .join(Bot, BotToken.bot_id == Bot.id)
                .join(Ladder, Bot.ladder_id == Ladder.id)
                .where(BotToken.sha256 == digest)
            ).one_or_none()
        if row is None or row[2] is not None or not hmac.compare_digest(row[1], digest):
            return None
        return TokenOwner(token_id=row[0], bot_id=row[3], bot=row[4], ladder=row[5])
