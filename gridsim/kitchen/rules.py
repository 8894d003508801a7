"""The kitchen's rules as data: tiles, foods, components, items, recipes, and their compiled tables.

Everything the kernel needs is declared here and compiled to small integer tables; the
kernel itself knows no food or recipe by name.

Items:
    An item is a multiset of *components*. Each food (Tomato, Lettuce, Onion, and any food a
    user declares) gives two components, ``Fresh<Food>`` and ``Chopped<Food>``; ``Plate`` is the
    last component. The full name of an item sorts its components by kind name (``Lettuce <
    Onion < Plate < Tomato``) and joins them with ``-``: ``ChoppedLettuce-Plate-ChoppedTomato``.
    Two items are equal iff their component multisets, states included, are equal, so two items
    are equal iff their canonical full names are equal.

Extending:
    :class:`Rules` is immutable; :meth:`Rules.with_food` and :meth:`Rules.with_recipe` return
    extended copies. A level parsed with the extended rules may use the new food's map
    character and the new recipe's name, and the kernel runs it unchanged::

        rules = DEFAULT_RULES.with_food("Cucumber", char="c").with_recipe(
            Recipe("CucumberSalad", ("Cucumber", "Tomato")))
        level = load_kitchen_level("my_kitchen.txt", rules=rules)

    New foods are appended after the built-in ones, so their components come after
    ``ChoppedOnion`` and before ``Plate``; with the default rules the 7 components are exactly
    the observation channels 4-10.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from gridsim.errors import ArgumentTypeError, InvalidArgumentError, LevelError, NameNotFoundError

__all__ = [
    "COUNTER",
    "CUTBOARD",
    "DEFAULT_RULES",
    "DELIVERY",
    "EMPTY",
    "EMPTY_NAME",
    "FLOOR",
    "F_CONTAINER",
    "F_CUTS",
    "F_DELIVERY",
    "F_WALKABLE",
    "FOOD_STATES",
    "MAX_AGENTS",
    "MAX_COMPONENT_COUNT",
    "MAX_ITEM_KINDS",
    "NUM_TILE_KINDS",
    "PLATE",
    "TILES",
    "TILE_FLAGS",
    "Food",
    "KitchenTables",
    "Recipe",
    "Rules",
    "TileKind",
    "canonical",
    "check_inventory",
    "chop",
    "compile_tables",
    "deliverable",
    "item_name",
    "merge",
    "mergeable",
    "needs_chop",
    "same_item",
]

MAX_AGENTS = 4
# Item kinds a level may reach: the kernel's merge table is (kinds + 1)^2 int16 (32 MiB here).
MAX_ITEM_KINDS = 4096
MAX_COMPONENT_COUNT = 255  # the most of one component an item may hold (uint8 tables)

# ---------------------------------------------------------------------------------------------
# Tiles: id == position in TILES.

F_WALKABLE = 1 << 0  # agents stand and move here (floor)
F_CONTAINER = 1 << 1  # holds at most one item (counter, cutboard)
F_CUTS = 1 << 2  # a held fresh item facing it while it is empty is chopped (cutboard)
F_DELIVERY = 1 << 3  # keeps every deliverable item handed to it (delivery)


@dataclass(frozen=True)
class TileKind:
    """One kind of map tile.

    Attributes:
        name: lower-case name, also the observation channel's name.
        char: the canonical map character (other characters may map to it, see ``Rules.legend``).
        flags: ``F_*`` bits.
    """

    name: str
    char: str
    flags: int


TILES: tuple[TileKind, ...] = (
    TileKind("floor", " ", F_WALKABLE),
    TileKind("counter", "-", F_CONTAINER),
    TileKind("cutboard", "/", F_CONTAINER | F_CUTS),
    TileKind("delivery", "*", F_DELIVERY),
)
FLOOR, COUNTER, CUTBOARD, DELIVERY = range(len(TILES))
NUM_TILE_KINDS = len(TILES)
TILE_FLAGS = np.array([t.flags for t in TILES], dtype=np.uint32)  # (NUM_TILE_KINDS,)
TILE_FLAGS.setflags(write=False)
assert [t.name for t in TILES] == ["floor", "counter", "cutboard", "delivery"]
assert len({t.char for t in TILES}) == len(TILES)

# Characters that are tiles and nothing else; "|" is a counter, as the original's design doc says.
TILE_CHARS: Mapping[str, int] = MappingProxyType({**{t.char: i for i, t in enumerate(TILES)}, "|": COUNTER})

# ---------------------------------------------------------------------------------------------
# Foods, components, recipes.

FOOD_STATES = ("Fresh", "Chopped")  # a food starts in the first state; chopping moves it to the second
PLATE = "Plate"
PLATE_CHAR = "p"
MERGED_CHAR = "m"  # the ansi rendering of any item with several components
EMPTY = 0  # item id of "nothing"
EMPTY_NAME = "EMPTY"


@dataclass(frozen=True)
class Food:
    """A food: its kind name (``"Tomato"``) and the map character of a fresh one on a counter.

    Fresh and chopped ones are rendered as ``char`` and ``char.upper()`` in ``ansi`` mode.
    """

    name: str
    char: str

    @property
    def fresh(self) -> str:
        """The fresh component's name, e.g. ``"FreshTomato"``."""
        return FOOD_STATES[0] + self.name

    @property
    def chopped(self) -> str:
        """The chopped component's name, e.g. ``"ChoppedTomato"``."""
        return FOOD_STATES[1] + self.name


@dataclass(frozen=True)
class Recipe:
    """A recipe: its name and the foods its dish holds, all chopped, on exactly one plate.

    A food may be listed twice (the dish then holds two of it).
    """

    name: str
    ingredients: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "ingredients", tuple(self.ingredients))


def _check_name(name: str, what: str) -> None:
    if not (isinstance(name, str) and name.isidentifier() and name[0].isupper()):
        raise InvalidArgumentError(f"{what} name must be a CamelCase identifier, got {name!r}")


@dataclass(frozen=True)
class Rules:
    """The foods and recipes a kitchen knows; immutable, hashable, extended by copy.

    Attributes:
        foods: the foods, in component order.
        recipes: the recipes a level may list by name.
    """

    foods: tuple[Food, ...]
    recipes: tuple[Recipe, ...]
    _component_ids: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        set_ = functools.partial(object.__setattr__, self)
        set_("foods", tuple(self.foods))
        set_("recipes", tuple(self.recipes))
        names = [f.name for f in self.foods]
        chars = [f.char for f in self.foods]
        for f in self.foods:
            _check_name(f.name, "food")
            if f.name in (PLATE, EMPTY_NAME) or f.name.startswith(FOOD_STATES):
                raise InvalidArgumentError(f"food name {f.name!r} is reserved")
            if not (isinstance(f.char, str) and len(f.char) == 1 and f.char.isalpha() and f.char.islower()):
                raise InvalidArgumentError(f"food {f.name}: char must be one lower-case letter, got {f.char!r}")
            if f.char in (PLATE_CHAR, MERGED_CHAR) or f.char in TILE_CHARS:
                raise InvalidArgumentError(f"food {f.name}: char {f.char!r} is reserved")
        recipe_names = [r.name for r in self.recipes]
        for what, values in (("food name", names), ("food char", chars), ("recipe name", recipe_names)):
            dupes = sorted({v for v in values if values.count(v) > 1})
            if dupes:
                raise InvalidArgumentError(f"duplicate {what}: {', '.join(map(repr, dupes))}")
        for r in self.recipes:
            _check_name(r.name, "recipe")
            if not r.ingredients:
                raise InvalidArgumentError(f"recipe {r.name} has no ingredients")
            unknown = [i for i in r.ingredients if i not in names]
            if unknown:
                raise InvalidArgumentError(f"recipe {r.name}: unknown food {unknown[0]!r}; foods: {', '.join(names)}")
        set_("_component_ids", MappingProxyType({c: i for i, c in enumerate(self.components)}))

    def __reduce__(self):
        # Mapping proxies do not pickle; rebuild from the declarations.
        return (Rules, (self.foods, self.recipes))

    # -- extension ------------------------------------------------------------------------------

    def with_food(self, name: str, char: str) -> Rules:
        """A copy with one more food (its Fresh and Chopped components come after the existing foods').

        Args:
            name: the food's kind name, a CamelCase identifier (``"Cucumber"``).
            char: the map character of a fresh one on a counter, one unused lower-case letter.
        """
        return Rules(self.foods + (Food(name, char),), self.recipes)

    def with_recipe(self, recipe: Recipe | str, ingredients: Iterable[str] | None = None) -> Rules:
        """A copy with one more recipe: ``with_recipe(Recipe(name, foods))`` or ``with_recipe(name, foods)``."""
        if not isinstance(recipe, Recipe):
            if ingredients is None:
                raise ArgumentTypeError("with_recipe(name, ingredients) needs the ingredients")
            recipe = Recipe(recipe, tuple(ingredients))
        return Rules(self.foods, self.recipes + (recipe,))

    # -- tables of names --------------------------------------------------------------------------

    @functools.cached_property
    def components(self) -> tuple[str, ...]:
        """Component names: ``Fresh<F>``, ``Chopped<F>`` for every food in order, then ``Plate``."""
        return tuple(c for f in self.foods for c in (f.fresh, f.chopped)) + (PLATE,)

    @property
    def num_components(self) -> int:
        """C, the number of components."""
        return len(self.components)

    @functools.cached_property
    def legend(self) -> Mapping[str, tuple[int, str | None]]:
        """Map character -> (tile id, name of the item lying on it at reset, or None)."""
        legend: dict[str, tuple[int, str | None]] = {c: (t, None) for c, t in TILE_CHARS.items()}
        for f in self.foods:
            legend[f.char] = (COUNTER, f.fresh)
        legend[PLATE_CHAR] = (COUNTER, PLATE)
        return MappingProxyType(legend)

    def food(self, name: str) -> Food:
        """The food called ``name``."""
        for f in self.foods:
            if f.name == name:
                return f
        raise NameNotFoundError(f"unknown food {name!r}; foods: {', '.join(f.name for f in self.foods)}")

    def recipe(self, name: str) -> Recipe:
        """The recipe called ``name`` (exact, case-sensitive)."""
        for r in self.recipes:
            if r.name == name:
                return r
        raise NameNotFoundError(f"unknown recipe {name!r}; recipes: {', '.join(r.name for r in self.recipes)}")

    # -- items ------------------------------------------------------------------------------------

    def _kind(self, component: str) -> str:
        return component if component == PLATE else component.removeprefix(FOOD_STATES[0]).removeprefix(
            FOOD_STATES[1])

    def vector(self, item: str) -> tuple[int, ...]:
        """The item's component counts, a tuple of length C (raises ValueError for a malformed name)."""
        counts = [0] * self.num_components
        if not isinstance(item, str) or not item:
            raise InvalidArgumentError(f"not an item name: {item!r}")
        for part in item.split("-"):
            c = self._component_ids.get(part)
            if c is None:
                raise InvalidArgumentError(f"unknown component {part!r} in item {item!r}; components: "
                                 f"{', '.join(self.components)}")
            counts[c] += 1
        return tuple(counts)

    def name_of(self, vector: Iterable[int]) -> str:
        """The canonical full name of the item with these component counts."""
        parts = [c for c, n in zip(self.components, vector, strict=True) for _ in range(n)]
        if not parts:
            raise InvalidArgumentError("an item has at least one component")
        return "-".join(sorted(parts, key=lambda c: (self._kind(c), c)))

    def item_name(self, components: Iterable[str]) -> str:
        """The canonical full name of an item made of these components (in any order)."""
        return self.name_of(self.vector("-".join(components)))

    def canonical(self, item: str) -> str:
        """The canonical spelling of a full name (``"ChoppedTomato-Plate"`` -> ``"Plate-ChoppedTomato"``)."""
        return self.name_of(self.vector(item))

    def same_item(self, a: str, b: str) -> bool:
        """Items are equal iff their component multisets, states included, are equal."""
        return self.vector(a) == self.vector(b)

    def _fresh(self, v: tuple[int, ...]) -> int:
        return sum(v[0:-1:2])

    def needs_chop(self, item: str) -> bool:
        """Exactly one component, and it is a fresh food."""
        v = self.vector(item)
        return sum(v) == 1 and self._fresh(v) == 1

    def chop(self, item: str) -> str:
        """The chopped item (its one fresh food becomes chopped); ValueError unless it needs chopping."""
        if not self.needs_chop(item):
            raise InvalidArgumentError(f"{item} cannot be chopped")
        v = list(self.vector(item))
        i = v.index(1)
        v[i], v[i + 1] = 0, 1
        return self.name_of(v)

    def mergeable(self, a: str, b: str) -> bool:
        """The union of a and b holds at most one plate, and every food in it is chopped."""
        v = [x + y for x, y in zip(self.vector(a), self.vector(b), strict=True)]
        return v[-1] <= 1 and self._fresh(tuple(v)) == 0

    def merge(self, a: str, b: str) -> str:
        """The union of a and b; ValueError unless they are mergeable."""
        if not self.mergeable(a, b):
            raise InvalidArgumentError(f"{a} and {b} cannot be merged")
        return self.name_of([x + y for x, y in zip(self.vector(a), self.vector(b), strict=True)])

    def deliverable(self, item: str) -> bool:
        """At least 2 components, and every food in it chopped (a plate is not required)."""
        v = self.vector(item)
        return sum(v) >= 2 and self._fresh(v) == 0

    def dish(self, recipe: Recipe | str) -> str:
        """The full name of a recipe's dish: its foods, chopped, on one plate."""
        r = recipe if isinstance(recipe, Recipe) else self.recipe(recipe)
        return self.item_name([self.food(f).chopped for f in r.ingredients] + [PLATE])

    def satisfies(self, item: str, recipe: Recipe | str) -> bool:
        """A delivered item satisfies a recipe iff it equals the recipe's dish exactly."""
        return self.same_item(item, self.dish(recipe))

    def kind_counts(self, items: Iterable[str]) -> Counter:
        """How many of each food kind (any state) and of plates the items hold together."""
        total: Counter = Counter()
        for item in items:
            for c, n in zip(self.components, self.vector(item), strict=True):
                if n:
                    total[self._kind(c)] += n
        return total

    def as_recipe(self, recipe: Recipe | str) -> Recipe:
        """A Recipe from a Recipe or a recipe name."""
        return recipe if isinstance(recipe, Recipe) else self.recipe(recipe)


DEFAULT_RULES = Rules(
    foods=(Food("Tomato", "t"), Food("Lettuce", "l"), Food("Onion", "o")),
    recipes=(
        Recipe("SimpleTomato", ("Tomato",)),
        Recipe("SimpleLettuce", ("Lettuce",)),
        Recipe("Salad", ("Tomato", "Lettuce")),
        Recipe("OnionSalad", ("Tomato", "Lettuce", "Onion")),
    ),
)
assert DEFAULT_RULES.components == ("FreshTomato", "ChoppedTomato", "FreshLettuce", "ChoppedLettuce", "FreshOnion",
                                    "ChoppedOnion", "Plate")

# The item predicates of the default rules, as plain functions.
item_name = DEFAULT_RULES.item_name
canonical = DEFAULT_RULES.canonical
same_item = DEFAULT_RULES.same_item
needs_chop = DEFAULT_RULES.needs_chop
chop = DEFAULT_RULES.chop
mergeable = DEFAULT_RULES.mergeable
merge = DEFAULT_RULES.merge
deliverable = DEFAULT_RULES.deliverable

# ---------------------------------------------------------------------------------------------
# Compiled tables.


@dataclass(frozen=True, eq=False)
class KitchenTables:
    """The item kinds a level can reach and the rules over them, as integer tables for the kernel.

    Item id 0 is ``EMPTY`` (no item); ids 1.. are the reachable kinds. Every table has a row
    (and for ``merge_to`` a column) for ``EMPTY`` that does nothing. All arrays are read-only.

    Attributes:
        rules: the rules the tables were compiled from.
        item_names: ``(I,)`` full names by id; ``item_names[0] == "EMPTY"``.
        component_names: ``(C,)`` component names (observation channel order).
        recipes: ``(R,)`` the level's recipes, in the level's order (repeats kept).
        chop_to: int16 ``(I,)``, the id of the chopped item, -1 if it cannot be chopped.
        merge_to: int16 ``(I, I)``, the id of the merged item (symmetric), -1 if not mergeable.
        deliverable: uint8 ``(I,)``, 1 if a Delivery tile accepts it.
        dish_of: uint32 ``(I,)``, bit r set iff the item is the dish of ``recipes[r]``.
        components: uint8 ``(I, C)``, how many of each component the item holds.
        recipe_dish: int16 ``(R,)``, the id of each recipe's dish.
    """

    rules: Rules
    item_names: tuple[str, ...]
    component_names: tuple[str, ...]
    recipes: tuple[Recipe, ...]
    chop_to: np.ndarray
    merge_to: np.ndarray
    deliverable: np.ndarray
    dish_of: np.ndarray
    components: np.ndarray
    recipe_dish: np.ndarray

    def __post_init__(self):
        for name in ("chop_to", "merge_to", "deliverable", "dish_of", "components", "recipe_dish"):
            getattr(self, name).setflags(write=False)

    def __reduce__(self):
        return (KitchenTables, (self.rules, self.item_names, self.component_names, self.recipes, self.chop_to,
                                self.merge_to, self.deliverable, self.dish_of, self.components, self.recipe_dish))

    @functools.cached_property
    def item_ids(self) -> Mapping[str, int]:
        """Canonical full name -> item id (``"EMPTY"`` -> 0)."""
        return MappingProxyType({n: i for i, n in enumerate(self.item_names)})

    def item_id(self, item: str | None) -> int:
        """The id of an item (any spelling of its full name), 0 for None; KeyError if it is not a kind here."""
        if item is None or item == EMPTY_NAME:
            return EMPTY
        return self.item_ids[self.rules.canonical(item)]

    @property
    def num_items(self) -> int:
        """I, the number of item ids, ``EMPTY`` included."""
        return len(self.item_names)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The reachable item kinds (``item_names`` without ``EMPTY``)."""
        return self.item_names[1:]

    @property
    def recipe_names(self) -> tuple[str, ...]:
        """The recipes' names."""
        return tuple(r.name for r in self.recipes)

    @property
    def goal_mask(self) -> int:
        """The ``dish_of`` bits that must all be delivered: ``(1 << R) - 1``."""
        return (1 << len(self.recipes)) - 1

    @property
    def obs_channels(self) -> int:
        """Channels of the joint grid observation: tiles, item components, held components, agent slots."""
        return NUM_TILE_KINDS + 2 * len(self.component_names) + MAX_AGENTS


def _closure(rules: Rules, initial: list[tuple[int, ...]]) -> set[tuple[int, ...]]:
    """Item vectors reachable from the initial ones by chopping and merging, within the initial inventory.

    Chopping applies only to a lone fresh food and merging only to items without fresh food, so
    every reachable item is an initial item, a chopped initial one, or a sum of *parts* (the
    initial and chopped items without fresh food). Adding one part at a time reaches every sum
    whose partial sums all fit the inventory and hold at most one plate, which is every sum that
    does (the parts are non-negative): the same set as merging any two reachable items, found in
    ``O(kinds x parts)`` steps instead of ``O(kinds^2)``.

    Raises:
        LevelError: more than ``MAX_ITEM_KINDS`` kinds are reachable.
    """
    fresh_cols = list(range(0, rules.num_components - 1, 2))
    # Kind of each component column: food f's fresh and chopped columns count against food f.
    budget = np.zeros(rules.num_components, np.int64)
    for v in initial:
        budget += v
    food_budget = budget[0:-1:2] + budget[1:-1:2]
    plate_budget = min(int(budget[-1]), 1)  # a merge holds at most one plate
    seen = set(initial)
    for v in initial:
        if sum(v) == 1 and any(v[c] for c in fresh_cols):  # a lone fresh food: its chopped form
            c = v.index(1)
            seen.add(v[:c] + (0, 1) + v[c + 2:])
    parts = sorted(v for v in seen if not any(v[c] for c in fresh_cols))
    chopped_limit = [int(b) for b in food_budget]

    def fits(v: tuple[int, ...]) -> bool:
        # v holds no fresh food: its chopped counts and its plate are what it uses.
        return v[-1] <= plate_budget and all(n <= b for n, b in zip(v[1:-1:2], chopped_limit, strict=True))

    todo = list(parts)
    while todo:
        v = todo.pop()
        for p in parts:
            m = tuple(x + y for x, y in zip(v, p, strict=True))
            if m not in seen and fits(m):
                seen.add(m)
                todo.append(m)
                if len(seen) > MAX_ITEM_KINDS:
                    raise LevelError(f"the initial items can be combined into more than {MAX_ITEM_KINDS} item "
                                     f"kinds; a level allows at most {MAX_ITEM_KINDS} (fewer foods or plates)")
    return seen


def _merge_table(counts: np.ndarray, unfresh: np.ndarray) -> np.ndarray:
    """``merge_to``: the id of the sum of items i and j where it is a kind, -1 elsewhere.

    Only items without fresh food merge, into at most one plate; their sum is mergeable exactly
    when it is one of the kinds (``counts`` rows). Each item gets a mixed-radix key with radix
    ``2 * max + 1`` per component, so the key of a sum is the sum of the keys, and a sum is
    found among the kinds by binary search on the sorted keys.
    """
    n_items = len(counts)
    merge_to = np.full((n_items, n_items), -1, np.int16)
    members = np.flatnonzero(unfresh)
    members = members[members > 0]  # id 0 (EMPTY) merges with nothing
    if len(members) == 0:
        return merge_to
    part = counts[members]
    radix = 2 * part.max(0) + 1
    # Python ints where the keys would overflow int64: exact either way, only slower.
    dtype = np.int64 if math.prod(int(r) for r in radix) < 2**62 else object
    strides = np.ones(len(radix), dtype)
    for c in range(len(radix) - 2, -1, -1):
        strides[c] = strides[c + 1] * int(radix[c + 1])
    keys = (part.astype(dtype) * strides).sum(1)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    plates = part[:, -1]
    for row, i in enumerate(members):
        sums = keys[row] + keys
        pos = np.minimum(np.searchsorted(sorted_keys, sums), len(sorted_keys) - 1)
        hit = (sorted_keys[pos] == sums) & (plates[row] + plates <= 1)
        merge_to[i, members[hit]] = members[order[pos[hit]]]
    return merge_to


def check_inventory(rules: Rules, initial_items: Iterable[str], recipes: Iterable[Recipe | str]) -> None:
    """The static check: the initial items hold a plate and every food each recipe needs.

    A food counts in any state; a recipe that lists a food twice needs two of it.

    Raises:
        ValueError: naming the recipe and the missing food, or the missing plate.
    """
    have = rules.kind_counts(initial_items)
    if have[PLATE] < 1:
        raise InvalidArgumentError("the kitchen has no plate; every recipe needs one")
    for r in recipes:
        r = rules.as_recipe(r)
        for food, n in Counter(r.ingredients).items():
            if have[food] < n:
                raise InvalidArgumentError(f"recipe {r.name} needs {n} {food}, the kitchen has {have[food]}")


def compile_tables(rules: Rules, initial_items: Iterable[str] | Mapping, recipes: Iterable[Recipe | str]
                   ) -> KitchenTables:
    """Enumerate a level's reachable item kinds and compile the rule tables.

    Closure: start from the initial items and apply chop and merge until no new kind appears,
    keeping only kinds whose food and plate counts fit in the initial inventory. Ids are
    assigned in a canonical order, independent of the search: by number of components, then
    by component index (so with the default rules the single components come in channel order).

    Args:
        rules: the foods and recipes.
        initial_items: the full names of the items lying in the kitchen at reset (a mapping's
            values are used), with repeats.
        recipes: the level's recipes (Recipe objects or names known to ``rules``), in order.

    Returns:
        The tables.

    Raises:
        ValueError: a recipe needs a food (or, with repeats, more of it) that the initial items
            lack, there is no plate, a dish cannot be reached, or there are more than 32 recipes.
        LevelError: (also a ValueError) the items can be combined into more than ``MAX_ITEM_KINDS``
            kinds, or into an item holding more than ``MAX_COMPONENT_COUNT`` of one component.
    """
    items = list(initial_items.values()) if isinstance(initial_items, Mapping) else list(initial_items)
    level_recipes = tuple(rules.as_recipe(r) for r in recipes)
    if len(level_recipes) > 32:
        raise InvalidArgumentError(f"at most 32 recipes per level, got {len(level_recipes)}")
    check_inventory(rules, items, level_recipes)
    vectors = sorted(_closure(rules, [rules.vector(i) for i in items]),
                     key=lambda v: (sum(v), [c for c, n in enumerate(v) for _ in range(n)]))
    names = (EMPTY_NAME,) + tuple(rules.name_of(v) for v in vectors)
    ids = {v: i for i, v in enumerate(vectors, start=1)}
    n_items, n_comp = len(names), rules.num_components
    counts = np.zeros((n_items, n_comp), np.int64)
    counts[1:] = vectors
    if counts.max() > MAX_COMPONENT_COUNT:
        c = int(counts.max(0).argmax())
        raise LevelError(f"an item could hold {counts[:, c].max()} {rules.components[c]}; an item holds at most "
                         f"{MAX_COMPONENT_COUNT} of a component")
    fresh = counts[:, 0:-1:2].sum(1)
    size = counts.sum(1)
    chop_to = np.full(n_items, -1, np.int16)
    for i in np.flatnonzero((size == 1) & (fresh == 1)):
        v = list(vectors[i - 1])
        c = v.index(1)
        v[c], v[c + 1] = 0, 1
        chop_to[i] = ids[tuple(v)]
    deliverable = ((size >= 2) & (fresh == 0)).astype(np.uint8)
    dish_vectors = [rules.vector(rules.dish(r)) for r in level_recipes]
    dish_of = np.zeros(n_items, np.uint32)
    for r, d in enumerate(dish_vectors):
        if d in ids:
            dish_of[ids[d]] |= np.uint32(1 << r)
    for recipe, d in zip(level_recipes, dish_vectors, strict=True):
        if d not in ids:
            raise InvalidArgumentError(
                f"recipe {recipe.name}: its dish {rules.name_of(d)} cannot be made from the initial items")
    recipe_dish = np.array([ids[d] for d in dish_vectors], dtype=np.int16)
    merge_to = _merge_table(counts, fresh == 0)
    components = counts.astype(np.uint8)
    return KitchenTables(rules, names, rules.components, level_recipes, chop_to, merge_to, deliverable, dish_of,
                         components, recipe_dish)
