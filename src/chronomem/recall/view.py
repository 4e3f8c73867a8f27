"""Which items a recall may see: owner, kind, category, metadata and the two times.

The default view is "valid now, as believed now": an item whose validity has not started yet
(a supersede dated next month) or has already ended (an imported fact with a past
``valid_until``) is not current, so recall does not return it. ``as_of`` moves the valid-time
coordinate, ``known_at`` the system-time one; ``active_only=False`` widens the default view to
every item not forgotten, superseded or not.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "View"]

KINDS = ("fact", "episode")


@dataclass(frozen=True)
class View:
    """A WHERE fragment over alias ``f`` for one recall."""

    owner: str
    now: int
    kinds: tuple[str, ...] = KINDS
    category: str | None = None
    active_only: bool = True
    as_of: int | None = None
    known_at: int | None = None
    where: str = ""
    """A fragment testing metadata (:mod:`chronomem.recall.where`), with its parameters."""
    where_params: tuple[object, ...] = ()
    ceiling: int | None = None
    """The newest rowid a walk of a common word's postings starts from (None: the newest of
    all). Set for a view at a past valid time or a past moment of belief (see
    ``fusion.at_its_time``), so that walk does not pass every item written after that time,
    none of which it could see."""

    def sql(self) -> tuple[str, list[object]]:
        """The fragment and its parameters."""
        clauses: list[str] = ["f.owner = ?"]
        params: list[object] = [self.owner]
        if set(self.kinds) != set(KINDS):
            clauses.append(f"f.kind IN ({','.join('?' * len(self.kinds))})")
            params += self.kinds
        if self.category is not None:
            clauses.append("f.category = ?")
            params.append(self.category)
        if self.where:
            clauses.append(self.where)
            params += self.where_params
        s, t = self.known_at, self.as_of
        if s is None and t is None:
            if not self.active_only:
                clauses.append("f.forgotten = 0")
                return " AND ".join(clauses), params
            t = self.now
        if s is None:
            clauses.append("f.forgotten = 0")
            open_end, open_params = "f.valid_until IS NULL", list[object]()
        else:
            # Believed at S: recorded by S and not retracted by S; a supersede recorded after S
            # had not yet closed the validity interval, so it counts as open.
            clauses.append("f.system_time <= ? AND NOT (f.forgotten = 1 AND f.invalidated_at <= ?)")
            params += [s, s]
            open_end, open_params = "(f.valid_until IS NULL OR f.invalidated_at > ?)", [s]
        if t is None:
            clauses.append(open_end)
            params += open_params
        else:
            clauses.append(f"f.valid_from <= ? AND ({open_end} OR f.valid_until > ?)")
            params += [t, *open_params, t]
        return " AND ".join(clauses), params
