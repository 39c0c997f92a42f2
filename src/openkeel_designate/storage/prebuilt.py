"""Prebuilt statements compiled once for a dialect, for the runners that execute them without
SQLAlchemy's execution (``asyncpg_statements`` on PostgreSQL, ``sqlite_statements`` on SQLite).

SQLAlchemy's execution of a statement it has compiled before still costs a cache lookup, an
execution context, an adapted cursor and a result object on every run, several times what the
driver itself spends on a short statement. A runner instead keeps, per statement object, what
SQLAlchemy would send: the SQL, the order of its parameters with each one's conversion on the
way in (a DateTime's to SQLite's text, a Boolean's), and each returned column's conversion on
the way out. What SQLAlchemy would do differently is refused when first compiled
(``Unsupported``), so a wrong statement or row never comes back quietly, and the caller runs it
through SQLAlchemy instead: an expanding IN-list (a different SQL at each run), an INSERT whose
columns SQLAlchemy would fill itself, a parameter whose value comes from a callable.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Executable
from sqlalchemy.engine import Dialect

Converter = Callable[[Any], Any]
# Of each parameter in order: its name, its fixed value (``NO_VALUE``: the caller gives it) and
# its type's conversion on the way in (None for most).
Parameter = tuple[str, Any, Converter | None]
# Statements are module-level constants; an unbounded stream of ad-hoc ones cannot pile up.
MAX_COMPILED = 256
NO_VALUE = object()


class Unsupported(ValueError):
    """A statement a runner cannot run as SQLAlchemy would: run it the general way."""


@dataclass(frozen=True, slots=True)
class Compiled:
    """What SQLAlchemy would send for one statement, and how its rows come back."""

    sql: str
    parameters: tuple[Parameter, ...]
    # The conversion of each returned column, in order; empty when none converts.
    results: tuple[Converter | None, ...]

    def arguments(self, params: dict[str, Any]) -> list[Any]:
        """The statement's arguments, in order, from the caller's ``params``."""
        args = []
        for name, value, process in self.parameters:
            given = params[name] if value is NO_VALUE else params.get(name, value)
            args.append(given if process is None else process(given))
        return args

    def rows(self, names: Sequence[str], values: Sequence[Sequence[Any]]) -> list[Any]:
        """The driver's rows as rows that also answer ``row.column``, as SQLAlchemy's do,
        with each column converted as SQLAlchemy would."""
        if not values:
            return []
        row = row_class(tuple(names))
        if not self.results:
            return [row._make(value) for value in values]
        if len(self.results) != len(names):
            raise ValueError(f"{len(names)} columns came back for {len(self.results)} expected")
        processors = self.results
        return [row._make([value if process is None or value is None else process(value)
                           for process, value in zip(processors, one)]) for one in values]

    def described_rows(self, description: Any, values: Sequence[Sequence[Any]]) -> list[Any]:
        """``rows`` of a DB-API cursor (sqlite3's): its columns named by its ``description``,
        none when the statement returns none."""
        if not description:
            return []
        return self.rows([column[0] for column in description], values)


class Statements:
    """The compiled form of each statement for one dialect, compiled at its first run."""

    def __init__(self, dialect: Dialect, *, convert_results: bool):
        # ``convert_results`` False: a statement with a column that converts on its way out
        # is refused (asyncpg's own types already are what SQLAlchemy returns).
        self._dialect = dialect
        self._convert_results = convert_results
        self._compiled: dict[Any, Compiled | Unsupported] = {}

    def prepare(self, statement: Executable, keys: tuple[str, ...] | None = None) -> Compiled:
        """The compiled form, or ``Unsupported`` (remembered too: a refused statement is not
        compiled again at every call). ``keys``: the columns an INSERT's rows give."""
        cache_key = statement if keys is None else (statement, keys)
        known = self._compiled.get(cache_key)
        if known is None:
            if len(self._compiled) >= MAX_COMPILED:
                self._compiled.clear()
            try:
                known = self._compile(statement, keys)
            except Unsupported as exc:
                known = exc
            self._compiled[cache_key] = known
        if isinstance(known, Unsupported):
            raise known
        return known

    def _compile(self, statement: Executable, keys: tuple[str, ...] | None) -> Compiled:
        dialect = self._dialect
        compiled = statement.compile(dialect=dialect,  # type: ignore[attr-defined]
                                     column_keys=list(keys) if keys is not None else None)
        if compiled.post_compile_params or compiled.literal_execute_params:
            raise Unsupported("expanding or literal-execute parameters: not a prepared statement")
        if getattr(compiled, "insert_prefetch", None) or getattr(compiled, "update_prefetch", None):
            raise Unsupported("SQLAlchemy computes a column's default for this statement")
        if not compiled.positional:
            raise Unsupported(f"{dialect.paramstyle} parameters: not positional")
        parameters = []
        for name in compiled.positiontup or ():
            bind = compiled.binds[name]
            if bind.callable is not None:
                raise Unsupported(f"parameter {name!r} takes its value from a callable")
            parameters.append((name, NO_VALUE if bind.required else bind.value,
                               bind.type.dialect_impl(dialect).bind_processor(dialect)))
        columns = list(getattr(statement, "exported_columns", ()))
        returned = getattr(compiled, "_result_columns", None)
        if columns and returned is not None and len(returned) != len(columns):
            # (an ORM option adding columns of its own, say): the conversions would not line up.
            # With none exported, what comes back is the INSERT's primary key that SQLAlchemy
            # asks for itself (RETURNING id on PostgreSQL), which nobody converts or reads.
            raise Unsupported(f"{len(returned)} columns returned for {len(columns)} exported")
        results = []
        for column in columns:
            process = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if process is not None and not self._convert_results:
                raise Unsupported(f"column {column.key!r} needs SQLAlchemy's conversion")
            results.append(process)
        return Compiled(str(compiled), tuple(parameters),
                        tuple(results) if any(results) else ())


@functools.lru_cache(maxsize=MAX_COMPILED)
def row_class(keys: tuple[str, ...]) -> Any:
    """A named tuple of these column names (renamed where not an identifier)."""
    return collections.namedtuple("Row", keys, rename=True)  # type: ignore[misc]
