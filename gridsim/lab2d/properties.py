"""The dotted property namespace of a vector env (Lab2D's read/write/list property)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gridsim.lab2d.specs import PropertyAttribute, PropertyResult, property_error

__all__ = ["Property", "PropertyTable"]


@dataclass(frozen=True)
class Property:
    """One key: a reader, an optional writer, and whether it is per env.

    ``get(index)`` returns the value as a string; ``set(index, text)`` applies a
    written string (raising ValueError for a bad one). ``index`` is the env's row for
    per-env keys and None for global keys.
    """

    get: Callable[[int | None], str]
    set: Callable[[int | None, str], None] | None = None
    per_env: bool = False
    doc: str = ""


class PropertyTable:
    """Keys -> :class:`Property`, with the listing rules of Lab2D's property API.

    A key is listable when other keys extend it (``settings`` lists ``settings.max_steps``);
    a key that only groups others is neither readable nor writable.
    """

    def __init__(self):
        self.entries: dict[str, Property] = {}
        self._children: dict[str, list[str]] = {}

    def add(self, key: str, prop: Property):
        """Register a key (replacing an earlier one of the same name)."""
        if key not in self.entries:
            parts = key.split(".")
            for k in range(len(parts)):
                parent, child = ".".join(parts[:k]), ".".join(parts[: k + 1])
                siblings = self._children.setdefault(parent, [])
                if child not in siblings:
                    siblings.append(child)
        self.entries[key] = prop

    def exists(self, key: str) -> bool:
        """The key is a property or a group of properties."""
        return key in self.entries or key in self._children

    def attributes(self, key: str) -> PropertyAttribute:
        """What the key allows."""
        attr = PropertyAttribute.NONE
        prop = self.entries.get(key)
        if prop is not None:
            attr |= PropertyAttribute.READABLE
            if prop.set is not None:
                attr |= PropertyAttribute.WRITABLE
        if self._children.get(key):
            attr |= PropertyAttribute.LISTABLE
        return attr

    def lookup(self, key: str, need: PropertyAttribute) -> Property | None:
        """The property of ``key`` if it allows ``need``; raises with the Lab2D code otherwise.

        None only for a key that groups others and is asked for LISTABLE.
        """
        if not isinstance(key, str):
            raise property_error(PropertyResult.INVALID_ARGUMENT, f"property keys are str, got {type(key).__name__}")
        if not self.exists(key):
            raise property_error(PropertyResult.NOT_FOUND, f"no property {key!r}")
        if not self.attributes(key) & need:
            verb = {PropertyAttribute.READABLE: "readable", PropertyAttribute.WRITABLE: "writable",
                    PropertyAttribute.LISTABLE: "listable"}[need]
            raise property_error(PropertyResult.PERMISSION_DENIED, f"property {key!r} is not {verb}")
        return self.entries.get(key)

    def entry(self, key: str, need: PropertyAttribute) -> Property:
        """The readable or writable property of ``key``: :meth:`lookup` for ``need`` READABLE or WRITABLE."""
        prop = self.lookup(key, need)
        assert prop is not None  # attributes() grants READABLE and WRITABLE only to entries
        return prop

    def children(self, key: str) -> list[tuple[str, PropertyAttribute]]:
        """The keys directly under ``key`` (full keys) with their attributes."""
        return [(child, self.attributes(child)) for child in self._children.get(key, [])]
