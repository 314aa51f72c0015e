"""Checks ``transform.sql`` without a JVM (the worker never starts one): it must parse as Spark SQL
and work row by row, so that every output row keeps its place in its file.

sqlglot parses Spark's dialect in pure Python; the application checks the query again with Spark's
own analyzer when it starts.
"""

from __future__ import annotations

#: Query shapes that reorder, merge or drop rows in ways that depend on other rows.
_NOT_ROW_WISE = {
    "Group": "GROUP BY",
    "Join": "a join",
    "Order": "ORDER BY",
    "Limit": "LIMIT",
    "Window": "a window function",
    "Distinct": "DISTINCT",
    "Union": "UNION",
    "Intersect": "INTERSECT",
    "Except": "EXCEPT",
    "AggFunc": "an aggregate function",
    "Having": "HAVING",
}


def check_transform_sql(sql: str) -> str | None:
    """None if ``sql`` is a row-wise query over ``source``; otherwise the problem, for the operator."""
    try:
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import ParseError
    except ImportError:  # the extra is missing: reported on spark.master
        return None
    try:
        statements = [s for s in sqlglot.parse(sql, read="spark") if s is not None]
    except ParseError as e:
        return f"transform.sql does not parse as Spark SQL: {e}"
    if len(statements) != 1 or not isinstance(statements[0], exp.Select):
        return "transform.sql must be one SELECT query over the view `source`"
    query = statements[0]
    for name, what in _NOT_ROW_WISE.items():
        kind = getattr(exp, name, None)
        if kind is not None and query.find(kind) is not None:
            return (f"transform.sql must work row by row (projections and filters over `source`); "
                    f"{what} breaks the per-file row positions that exactly-once delivery relies on")
    tables = {t.name.lower() for t in query.find_all(exp.Table)}
    if tables != {"source"}:
        return f"transform.sql must read the view `source` only (it reads {', '.join(sorted(tables)) or 'nothing'})"
    return None
