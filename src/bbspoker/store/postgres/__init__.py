"""The PostgreSQL side of the CUBES ledger: its writer (``writer``: the connection, the
advisory write lock, the commit counter) and its schema (``schema``). The ledger itself,
and everything it does with the CUBES, is the shared :class:`bbspoker.store.sql.Ledger`;
open one with a ``postgresql://`` URL (:func:`bbspoker.store.open_ledger`). Only this
package imports psycopg."""
