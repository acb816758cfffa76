"""Per-tenant conversation store: port and adapters (SQL lives only in the adapters)."""
