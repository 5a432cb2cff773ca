"""Hidden information: what a seat can reach and what its views show."""
