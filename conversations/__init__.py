"""Per-tenant conversation store: port and adapters (SQL lives only in the adapters).

Import from the modules: ``port`` and ``models`` (the port), ``factory`` (the composition
root's entry), ``sql_store`` and ``sql_egress`` (the algorithms, written once over
``unit_of_work``'s seam), ``statements`` (every tenant-scoped statement), and the adapters
``sqlite`` and ``postgres``. Nothing is re-exported here, so importing the models does not
import a database driver.
"""

__all__: list[str] = []
