"""More than one process: ``bbspoker gateway`` (sessions, the door and the screens) and
``bbspoker worker`` (the tables, each served by the one worker holding its lease), joined
by NATS and sharing one PostgreSQL ledger (docs/architecture.md, "The split deployment").
"""
