"""Typed settings files: nested dataclasses read from YAML with every key checked.

``from_mapping(cls, data)`` builds a dataclass from plain data. Unknown keys, wrong types and out-of-range values
raise :class:`SettingsError` naming the dotted key (``ppo.n_epochs``) and, for unknown keys, listing the allowed
keys at that level. Ranges and choices live next to the field as ``field(metadata=dict(min=..., max=...,
choices=...))``; ``--set a.b=value`` overrides go through :func:`apply_override` before validation.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Mapping

import yaml


class SettingsError(ValueError):
    """A training setting is unknown, of the wrong type or out of range; the message names the key."""


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _convert(value: Any, tp: Any, key: str) -> Any:
    """Check (and lightly coerce: int -> float, list -> tuple) one value against a type hint."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None:
            if type(None) in args:
                return None
            raise SettingsError(f"{key}: null is not allowed; expected {_type_name(tp)}")
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(value, arg, key)
            except SettingsError:
                pass
        raise SettingsError(f"{key}={value!r}: expected {_type_name(tp)}")
    if dataclasses.is_dataclass(tp):
        return from_mapping(tp, value, key)
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise SettingsError(f"{key}={value!r}: expected a list")
        args = typing.get_args(tp)
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(value) != len(args):
                raise SettingsError(f"{key}={value!r}: expected {len(args)} values")
            return tuple(_convert(v, a, f"{key}.{i}") for i, (v, a) in enumerate(zip(value, args)))
        item = args[0] if args else Any
        items = [_convert(v, item, f"{key}.{i}") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict or tp is dict:
        if not isinstance(value, Mapping):
            raise SettingsError(f"{key}={value!r}: expected a mapping")
        return dict(value)
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise SettingsError(f"{key}={value!r}: expected true or false")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
                return int(value)  # 1e6 in YAML is a float
            raise SettingsError(f"{key}={value!r}: expected an integer")
        return value
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads 3e-3 (no dot) as a string: a number written that way is meant
            try:
                return float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SettingsError(f"{key}={value!r}: expected a number")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise SettingsError(f"{key}={value!r}: expected a string")
        return value
    raise TypeError(f"{key}: unsupported settings type {tp!r}")


def _check_range(value: Any, meta: Mapping[str, Any], key: str) -> None:
    if value is None:
        return
    values = value if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if "choices" in meta and v not in meta["choices"]:
            raise SettingsError(f"{key}={v!r} is not allowed: choose one of {list(meta['choices'])}")
        if "min" in meta and isinstance(v, (int, float)) and v < meta["min"]:
            raise SettingsError(f"{key}={v!r} is out of range: must be >= {meta['min']}")
        if "max" in meta and isinstance(v, (int, float)) and v > meta["max"]:
            raise SettingsError(f"{key}={v!r} is out of range: must be <= {meta['max']}")


def from_mapping(cls: type, data: Any, prefix: str = "") -> Any:
    """Build dataclass ``cls`` from a mapping; every key is checked (see the module docstring)."""
    where = prefix or "the top level"
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise SettingsError(f"{where}: expected a mapping of settings, got {type(data).__name__} {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(str(k) for k in data if k not in fields)
    if unknown:
        raise SettingsError(f"unknown key(s) {[_join(prefix, k) for k in unknown]}; allowed keys in {where}: "
                            f"{sorted(fields)}")
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for name, value in data.items():
        key = _join(prefix, name)
        kwargs[name] = _convert(value, hints[name], key)
        _check_range(kwargs[name], fields[name].metadata, key)
    obj = cls(**kwargs)
    check = getattr(obj, "validate", None)
    if check is not None:
        check(prefix)
    return obj


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else str(name)


def to_plain(obj: Any) -> Any:
    """A dataclass tree as plain YAML-able data (tuples become lists)."""
    if dataclasses.is_dataclass(obj):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, Mapping):
        return {str(k): to_plain(v) for k, v in obj.items()}
    return obj


def apply_override(data: dict, assignment: str) -> None:
    """Apply ``a.b.c=value`` (value parsed as YAML) to nested plain data in place. List items by index:
    ``curriculum.1.advance_after_steps=5000``."""
    if "=" not in assignment:
        raise SettingsError(f"--set {assignment!r}: expected key=value, e.g. ppo.learning_rate=1e-4")
    path, raw = assignment.split("=", 1)
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError as e:
        raise SettingsError(f"--set {assignment!r}: the value is not valid YAML: {e}") from e
    parts = path.strip().split(".")
    node: Any = data
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise SettingsError(f"--set {path}: {'.'.join(parts[:i + 1])} is not an index of the list "
                                    f"(0..{len(node) - 1})")
            node = node[int(part)]
        else:
            if node.get(part) is None:
                node[part] = {}
            node = node[part]
    last = parts[-1]
    if isinstance(node, list):
        if not last.isdigit() or int(last) >= len(node):
            raise SettingsError(f"--set {path}: not an index of the list (0..{len(node) - 1})")
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise SettingsError(f"--set {path}: {'.'.join(parts[:-1])} is not a section")
