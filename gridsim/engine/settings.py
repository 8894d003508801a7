"""Level settings: string key -> string value tables, parsed against typed declarations.

Lab2D passes every level a flat ``str -> str`` table; gridsim keeps that form at the
boundary (``settings=`` at construction, ``settings.<key>`` properties) and parses each
value with the type the family or the level declares. A family constructor's keyword
arguments are the same settings under their Python names, so ``max_episode_steps=50``
and ``settings={"max_steps": "50"}`` say the same thing.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gridsim.engine.rng import SEED_BOUND
from gridsim.errors import ArgumentTypeError, GridSimError, InvalidArgumentError, close_matches, did_you_mean

__all__ = [
    "COMMON_SETTINGS",
    "MAX_SETTINGS_DEPTH",
    "MAX_STEPS_LIMIT",
    "check_max_steps",
    "settings_table",
    "RESERVED_ALIASES",
    "Setting",
    "SettingsError",
    "accepts_settings",
    "as_flag",
    "check_choice",
    "flatten_args",
    "format_value",
    "internal_arguments",
    "merge_settings",
    "parse_seed_setting",
    "refuse_private_arguments",
]

# Lab2D's reserved setting names -> gridsim's keyword arguments.
RESERVED_ALIASES = {"levelName": "level", "levelDirectory": "level_directory", "mixerSeed": "mixer_seed"}


class SettingsError(GridSimError, ValueError):
    """A setting is unknown, cannot be parsed, is out of range, or contradicts a keyword argument.

    Attributes:
        key: the setting's name.
    """

    def __init__(self, key: str, message: str):
        self.key = key
        super().__init__(f"invalid setting {key!r}: {message}")


@dataclass(frozen=True)
class Setting:
    """The declaration of one setting.

    Attributes:
        type: ``int``, ``float``, ``bool``, ``str``, or a tuple of allowed strings (an enum).
        default: the value when nobody sets it (a Python value of ``type``, or None).
        writable: ``write_property`` may change it after construction (``max_steps`` applies
            at each env's next reset, ``num_threads`` from the next call); otherwise the
            setting is fixed at construction (for example because it decides array shapes).
        doc: one line for people.
        kwarg: the constructor keyword argument it sets, when named differently.
        optional: ``"none"`` parses to None.
        words: strings accepted as themselves beside values of ``type`` (``num_threads``' ``"auto"``).
        rules: the setting changes the rules a saved state plays on (nav's ``actions``), not only
            what is shown or how fast: ``state_dict()`` records its value (the env's attribute of
            the keyword's name) in its ``rules``, and a state of another value is refused. Only a
            setting fixed at construction: a writable one is the env's to change at any time.
    """

    type: Any
    default: Any = None
    writable: bool = False
    doc: str = ""
    kwarg: str | None = None
    optional: bool = False
    words: tuple[str, ...] = ()
    rules: bool = False

    def __post_init__(self):
        if self.rules and self.writable:
            raise ValueError("a setting of the rules is fixed at construction: it cannot be writable")

    def parse(self, key: str, text: str) -> Any:
        """The typed value of ``text``; raises :class:`SettingsError`."""
        if not isinstance(text, str):
            raise SettingsError(key, f"values are strings, got {type(text).__name__}")
        t = text.strip()
        if self.optional and t.lower() == "none":
            return None
        if t.lower() in self.words:
            return t.lower()
        try:
            if self.type is bool:
                low = t.lower()
                if low in ("true", "1", "yes"):
                    return True
                if low in ("false", "0", "no"):
                    return False
                raise ValueError  # reported below, with the key
            if self.type is int:
                return int(t, 10)
            if self.type is float:
                value = float(t)
                if math.isnan(value):
                    raise ValueError
                return value
            if isinstance(self.type, tuple):
                if t not in self.type:
                    raise SettingsError(key, f"{text!r} is not one of {list(self.type)}")
                return t
            return text
        except SettingsError:
            raise
        except ValueError:
            kind = "true or false" if self.type is bool else f"a {self.type.__name__}"
            alternatives = "".join(f" or {w}" for w in self.words) + (" or none" if self.optional else "")
            raise SettingsError(key, f"{text!r} is not {kind}{alternatives}") from None


def format_value(value: Any) -> str:
    """A Python value as a setting string (``flatten_args``' conventions)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "value") and isinstance(value.value, str):  # an Enum such as AutoresetMode
        return value.value
    return str(value)


# How deep settings may nest (a dict in a list in a dict ... counts each level); Lab2D's are a few deep.
MAX_SETTINGS_DEPTH = 32


def flatten_args(args: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Flatten nested settings into ``str -> str`` (Lab2D's ``settings_helper.flatten_args``).

    Nested dict keys are joined with ``.``; list items are numbered from 1 (``a.b.1``);
    ``True``/``False`` become ``"true"``/``"false"``, None ``"none"``, numbers ``str()``.

    Raises:
        ArgumentTypeError: ``args`` is not a mapping.
        SettingsError: a value contains itself, or the settings nest deeper than
            :data:`MAX_SETTINGS_DEPTH` levels; ``error.key`` is the dotted key where.

    Example:
        >>> flatten_args({"a": {"b": [1, 2]}, "c": True, "d": None})
        {'a.b.1': '1', 'a.b.2': '2', 'c': 'true', 'd': 'none'}
    """
    if not isinstance(args, Mapping):
        raise ArgumentTypeError(f"settings must be a mapping of str to str, got {type(args).__name__}")
    out: dict[str, str] = {}
    _flatten_into(out, args, prefix, [id(args)])
    return out


def _flatten_into(out: dict[str, str], args: Mapping[str, Any] | list | tuple, prefix: str, path: list[int]) -> None:
    """Add ``args``' items to ``out``; ``path``: the ids of the containers from the top down to ``args``."""
    items = args.items() if isinstance(args, Mapping) else ((str(i + 1), v) for i, v in enumerate(args))
    for key, value in items:
        full = f"{prefix}{key}"
        if not isinstance(value, (Mapping, list, tuple)):
            out[full] = format_value(value)
            continue
        # Checked here, not left to Python's recursion limit: a cycle or a deep nest is the caller's mistake.
        if id(value) in path:
            raise SettingsError(full, "the value contains itself (nested settings must not form a cycle)")
        if len(path) >= MAX_SETTINGS_DEPTH:
            raise SettingsError(full[:200], f"settings nest at most {MAX_SETTINGS_DEPTH} levels deep")
        path.append(id(value))
        _flatten_into(out, value, full + ".", path)
        path.pop()


def parse_seed_setting(key: str, text: str) -> int:
    """A seed setting's value (``mixerSeed``): decimal digits of an integer in 0..2**128-1.

    The digits are counted before ``int()`` sees them, so a value of thousands of digits is
    refused here, not by Python's limit on converting long strings.

    Raises:
        SettingsError: anything else (a sign, a float, letters, 2**128 or more).
    """
    digits = text.strip() if isinstance(text, str) else ""
    significant = digits.lstrip("0") or "0"
    if not (digits.isascii() and digits.isdecimal()) or len(significant) > len(str(SEED_BOUND)) or \
            int(significant) >= SEED_BOUND:
        raise SettingsError(key, f"{key} must be an integer in 0..2**128-1, got {text!r:.80}")
    return int(significant)


def _collect_lists(flat: dict[str, str], declared: Mapping[str, Setting]) -> dict[str, Any]:
    """Join ``key.1``, ``key.2``, ... of list-typed settings (``type=list``) back into lists."""
    out: dict[str, Any] = {}
    lists: dict[str, dict[int, str]] = {}
    for key, value in flat.items():
        head, _, tail = key.rpartition(".")
        if head and tail.isdecimal() and head in declared and declared[head].type is list:
            lists.setdefault(head, {})[int(tail)] = value
        else:
            out[key] = value
    for key, items in lists.items():
        if sorted(items) != list(range(1, len(items) + 1)):
            raise SettingsError(key, "list items must be numbered 1, 2, ... without gaps")
        out[key] = [items[i] for i in range(1, len(items) + 1)]
    return out


def merge_settings(declared: Mapping[str, Setting], settings: Mapping[str, Any] | None,
                   kwargs: dict[str, Any]) -> dict[str, Any]:
    """Fold ``settings`` into constructor ``kwargs``; raises :class:`SettingsError`.

    Each setting is parsed with its declaration and stored under its keyword argument.
    A keyword argument given explicitly with a different value is a conflict. Lab2D's
    reserved names (``levelName``, ``levelDirectory``, ``mixerSeed``) are aliases of the
    keyword arguments ``level``, ``level_directory`` and ``mixer_seed``.
    """
    if settings is None:
        return kwargs
    flat = flatten_args(settings)
    out = dict(kwargs)
    for key, value in _collect_lists(flat, declared).items():
        if key in RESERVED_ALIASES:
            name = RESERVED_ALIASES[key]
            parsed: Any = parse_seed_setting(key, value) if name == "mixer_seed" else value
        elif key in declared:
            decl = declared[key]
            name = decl.kwarg or key
            if decl.type is list:  # numbered items, or one comma-separated string
                parsed = list(value) if isinstance(value, list) else [v.strip() for v in value.split(",")]
            else:
                parsed = decl.parse(key, value)
        else:
            known = sorted(declared) + sorted(RESERVED_ALIASES)
            raise SettingsError(key, f"unknown setting; this level knows {known}")
        if name in out and _differs(out[name], parsed):
            raise SettingsError(key, f"the setting says {value!r} but {name}={out[name]!r} was also given")
        out[name] = parsed
    return out


def _differs(a: Any, b: Any) -> bool:
    if hasattr(a, "value") and isinstance(a.value, str):
        a = a.value
    try:
        return bool(a != b)
    except Exception:  # noqa: BLE001 - arrays and odd objects: compare their text
        return format_value(a) != format_value(b)


# True while gridsim itself constructs an env with private ("_") keyword arguments.
_internal_call: contextvars.ContextVar[bool] = contextvars.ContextVar("gridsim_internal_call", default=False)


@contextlib.contextmanager
def internal_arguments() -> Iterator[None]:
    """Let the next family constructor called in this block take private (``_``) keyword arguments.

    gridsim's own paths (the one-env view, the PettingZoo kitchen, unpickling) pass
    ``_continue_past_end`` this way; each checks its caller's arguments with
    :func:`refuse_private_arguments` first. Only the outermost constructor in the block gets
    the permission, not envs that it builds in turn.
    """
    token = _internal_call.set(True)
    try:
        yield
    finally:
        _internal_call.reset(token)


def refuse_private_arguments(kwargs: Mapping[str, Any], where: str) -> None:
    """Refuse keyword arguments whose names start with ``_``: they are gridsim's own, not a user's.

    Raises:
        InvalidArgumentError: one of ``kwargs`` is private; the message names it.
    """
    private = sorted(k for k in kwargs if isinstance(k, str) and k.startswith("_"))
    if private:
        raise InvalidArgumentError(f"{where}() does not take the private keyword argument {private[0]!r:.80}: "
                                   "arguments starting with '_' are gridsim's own")


def accepts_settings(init: Callable) -> Callable:
    """Decorate a family constructor so that it takes ``settings=`` (merged into its kwargs).

    The constructor's class declares ``SETTINGS``. The effective arguments (explicit ones
    over the signature's defaults) are recorded in ``self.init_args`` so that every
    setting can be read back as a property.
    """
    sig = inspect.signature(init)
    var_keyword = next((p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD), None)

    own = {p.name for p in sig.parameters.values()
           if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)} - {"self"}

    @functools.wraps(init)
    def wrapper(self, *args, settings: Mapping[str, Any] | None = None, **kwargs):
        if not _internal_call.get():
            refuse_private_arguments(kwargs, type(self).__name__)
        kwargs = merge_settings(type(self).SETTINGS, settings, kwargs)
        _check_keywords(self, wrapper, own | {"settings"}, var_keyword is not None, kwargs)
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        # The common keyword arguments a family passes on (**common) count as its own.
        extra = bound.arguments.pop(var_keyword, {}) if var_keyword else {}
        self.init_args = {**{k: v for k, v in bound.arguments.items() if k != "self"}, **extra}
        token = _internal_call.set(False)  # the permission is this constructor's, not its callees'
        try:
            init(self, *args, **kwargs)
        finally:
            _internal_call.reset(token)

    params = list(sig.parameters.values())
    params.insert(-1 if params[-1].kind is inspect.Parameter.VAR_KEYWORD else len(params),
                  inspect.Parameter("settings", inspect.Parameter.KEYWORD_ONLY, default=None))
    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper


def _check_keywords(env: object, wrapper: Callable, own: set[str], forwards: bool, kwargs: Mapping[str, Any]) -> None:
    """Raise a TypeError naming the valid keyword arguments and the closest one for an unknown name.

    Every family constructor (hence :func:`gridsim.make` and ``gymnasium.make_vec``) passes
    through here. A constructor with ``**kwargs`` forwards them to its base class, whose
    keyword arguments count as its own.
    """
    valid = set(own)
    if forwards:
        mro = type(env).__mro__
        owner = next(k for k, c in enumerate(mro) if c.__dict__.get("__init__") is wrapper)
        try:
            # The next __init__ after the wrapper's class, bound as super() would bind it.
            base_init = next(c.__dict__["__init__"] for c in mro[owner + 1 :] if "__init__" in c.__dict__)
            base = list(inspect.signature(base_init).parameters.values())[1:]
        except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
            return
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in base):
            return  # the base takes anything: nothing to check here
        valid |= {p.name for p in base if p.kind is not inspect.Parameter.VAR_POSITIONAL}
    unknown = [k for k in kwargs if k not in valid]
    if not unknown:
        return
    public = sorted(k for k in valid if not k.startswith("_"))
    key = unknown[0]
    raise ArgumentTypeError(f"{type(env).__name__}() got an unexpected keyword argument {key!r}"
                    f"{did_you_mean(close_matches(key, public))}; its keyword arguments are {', '.join(public)}")


def as_flag(value: Any, name: str) -> bool:
    """A yes/no argument: True or False (numpy's too), or the ints 0 and 1.

    Raises:
        InvalidArgumentError: anything else (an array, a string, None, ...).
    """
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    raise InvalidArgumentError(f"{name} must be True or False, got {value!r:.80}")


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """``value`` if it is one of the strings ``choices``.

    Raises:
        InvalidArgumentError: anything else, the choices listed.
    """
    if not isinstance(value, str) or value not in choices:
        raise InvalidArgumentError(f"unknown {name} {value!r:.80}; use one of {sorted(choices)}")
    return value


# The kernels count an episode's steps in int32.
MAX_STEPS_LIMIT = 2**31 - 1


def check_max_steps(value: Any, name: str = "max_episode_steps", optional: bool = True) -> int | None:
    """``value`` as a step limit: an int in 1..:data:`MAX_STEPS_LIMIT` (or None when ``optional``).

    Raises:
        InvalidArgumentError: anything else (a bool, a float, 0, 2**31, ...).
    """
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= int(value) <= MAX_STEPS_LIMIT:
        allowed = " or None" if optional else ""
        raise InvalidArgumentError(f"{name} must be a positive integer up to {MAX_STEPS_LIMIT}{allowed}, got {value!r}")
    return int(value)


# The settings every family's vector env takes (``gridsim.engine.vector.GridVectorEnv``).
COMMON_SETTINGS = {
    "max_steps": Setting(int, None, writable=True, kwarg="max_episode_steps", optional=True,
                         doc="truncation limit (none: never); a write applies at each env's next reset"),
    "autoreset_mode": Setting(("NextStep", "SameStep", "Disabled"), "NextStep", doc="Gymnasium autoreset mode"),
    "render_mode": Setting(("rgb_array", "ansi", "human"), None, optional=True, doc="render() output"),
    "copy": Setting(bool, True, doc="return fresh arrays from reset and step"),
    "num_threads": Setting(int, 1, writable=True, words=("auto",),
                           doc="kernel threads, or auto (the CPUs this process may use); a write applies "
                               "from the next call"),
    "obs_dtype": Setting(str, None, optional=True, doc="cast observations to this dtype"),
    "episode_stats": Setting(bool, True, doc="infos['episode_stats'] where episodes end"),
    "events": Setting(bool, False, doc="the kernel writes events"),
    "max_events_per_step": Setting(int, 16, doc="event slots per env and step; more are dropped and counted"),
    "info_events": Setting(bool, False, doc="infos['events'] holds events_batch() (length E, not N)"),
    "allow_code": Setting(bool, True, doc="a level name may load a Python level module (code that runs when "
                                          "loaded); false: text levels only"),
}


def settings_table(declared: Mapping[str, Setting], indent: str = "", code: str = "``") -> str:
    """The settings as a table (setting, keyword argument, type, default, meaning).

    Family docstrings show it in their ``## Arguments`` section, and ``gridsim list --settings``
    prints it, so a family's parameters are written down once, in its ``SETTINGS``.

    Args:
        declared: the settings, by name.
        indent: text put before every line.
        code: the quotes of names and values: ``"``"`` for the docstrings' reStructuredText,
            ``"`"`` for markdown.
    """
    rows = ["| setting | keyword argument | type | default | meaning |", "|---|---|---|---|---|"]
    for key, decl in declared.items():
        kind = " / ".join(decl.type) if isinstance(decl.type, tuple) else decl.type.__name__
        kind += "".join(f" or {w}" for w in decl.words)
        default = "None" if decl.default is None else format_value(decl.default)
        ro = " (read-only; a rule: a saved state records it)" if decl.rules else "" if decl.writable else " (read-only)"
        q = code
        rows.append(f"| {q}{key}{q} | {q}{decl.kwarg or key}{q} | {kind} | {q}{default}{q} | {decl.doc}{ro} |")
    return "\n".join(indent + r for r in rows)
