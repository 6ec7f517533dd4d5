"""The one translation of build options to :class:`~pyfn.splits.builder.BuildOptions`, whatever their form:
``pyfn convert``'s flags (ids as text, ``--splits all``), :func:`pyfn.load`'s keywords (ids as integers), a
conversion manifest's record (``pyfn show --manifest``), an experiment recipe's ``[data]`` table; and back from
keywords to the flags an experiment's ``pyfn`` steps pass (:func:`build_flags`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyfn.errors import UsageError
from pyfn.splits.builder import SPLITS, BuildOptions

ALL = "all"
"""The split name that stands for every split."""
FLAGS = {
    "with_exemplars": "--with-exemplars", "exclude_frames": "--exclude-frames", "exclude_lus": "--exclude-lus",
    "exclude_sentences": "--exclude-sentences", "exclude_annosets": "--exclude-annosets", "filters": "--filter",
    "filter_scope": "--filter-scope", "strict": "--strict", "allow_incomplete": "--allow-incomplete", "jobs": "--jobs",
}
"""Each option's ``pyfn convert`` flag, in the order :func:`build_flags` writes them."""
ID_OPTIONS = ("exclude_frames", "exclude_lus", "exclude_sentences", "exclude_annosets")


def split_names(splits: str | Iterable[str]) -> tuple[str, ...]:
    """The splits named (one name or several; ``"all"`` among them: every split), in train, dev, test order."""
    wanted = [splits] if isinstance(splits, str) else list(splits)
    if ALL in wanted:
        return SPLITS
    unknown = [name for name in wanted if name not in SPLITS]
    if unknown or not wanted:
        raise UsageError(f"unknown split {', '.join(map(repr, unknown)) or '(none)'} (known: train, dev, test, all)")
    return tuple(name for name in SPLITS if name in wanted)


def ids(values: Iterable[int | str], name: str, *, text: bool = False) -> frozenset[int]:
    """Integer ids; with ``text`` (command-line values) each value may be comma-separated ids."""
    if isinstance(values, (str, bytes)):
        raise UsageError(f"{name} takes a list of integer ids")
    out = set()
    for value in values:
        if text:
            for part in str(value).split(","):
                if part.strip():
                    try:
                        out.add(int(part))
                    except ValueError:
                        raise UsageError(f"{name}: {part!r} is not an integer id") from None
        elif isinstance(value, int) and not isinstance(value, bool):
            out.add(value)
        else:
            raise UsageError(f"{name}: {value!r} is not an integer id")
    return frozenset(out)


def build_options(
    *,
    splits: str | Iterable[str] = ALL,
    with_exemplars: bool = False,
    exclude_frames: Iterable[int | str] = (),
    exclude_lus: Iterable[int | str] = (),
    exclude_sentences: Iterable[int | str] = (),
    exclude_annosets: Iterable[int | str] = (),
    filters: Iterable[str] = (),
    filter_scope: str = "train",
    strict: bool = False,
    allow_incomplete: bool = False,
    jobs: int = 0,
    flags: bool = False,
) -> BuildOptions:
    """Checked :class:`BuildOptions`. ``flags``: the values come from the command line (ids as text, which may
    be comma-separated), and errors name the flags (``--exclude-frames``) instead of the keywords."""
    named = {key: FLAGS[key] if flags else key for key in FLAGS}
    if isinstance(filters, str):
        raise UsageError(f"{named['filters']} takes a list of filter names, e.g. {named['filters']}=['overlap_fes']")
    if jobs < 0:
        raise UsageError(f"{named['jobs']} must be >= 0")
    given = {"exclude_frames": exclude_frames, "exclude_lus": exclude_lus, "exclude_sentences": exclude_sentences,
             "exclude_annosets": exclude_annosets}
    return BuildOptions(
        splits=split_names(splits), with_exemplars=with_exemplars,
        **{key: ids(given[key], named[key], text=flags) for key in ID_OPTIONS},
        filters=tuple(filters), filter_scope=filter_scope, strict=strict, allow_incomplete=allow_incomplete,
        jobs=jobs,
    )


def recorded_options(recorded: Mapping[str, Any], jobs: int = 0) -> BuildOptions:
    """The options a conversion's ``manifest.json`` records under ``options`` (KeyError, TypeError or
    UsageError when they are not a record this pyfn wrote)."""
    return build_options(
        splits=recorded["splits"], with_exemplars=recorded["with_exemplars"],
        **{key: recorded[key] for key in ID_OPTIONS}, filters=recorded["filters"],
        filter_scope=recorded.get("filter_scope", "train"), allow_incomplete=recorded["allow_incomplete"], jobs=jobs,
    )


def build_flags(**options: Any) -> list[str]:
    """The ``pyfn convert``/``generate`` flags of :func:`build_options`' keywords (``splits`` aside), those
    that differ from the defaults, in :data:`FLAGS` order; ids and filters in the order given."""
    unknown = set(options) - set(FLAGS)
    if unknown:
        raise TypeError(f"build_flags: unknown option {', '.join(sorted(unknown))}")
    build_options(**options)  # checked as the command will check them
    out: list[str] = []
    for key, flag in FLAGS.items():
        value = options.get(key)
        if value is True:
            out.append(flag)
        elif key == "filter_scope":
            out += [flag, value] if value not in (None, "train") else []
        elif key == "jobs":
            out += [flag, str(value)] if value else []
        elif value:
            out += [flag, *(str(v) for v in value)]
    return out
