"""The arena: match runner, records, game server, Ray tournaments, ratings, tracking, CLI."""
