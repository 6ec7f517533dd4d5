"""What the ``pyfn`` verbs share: the parser classes, the epilog, the build and cache options and their
translation, the progress bar, the release cache, the Dask executor and the log of progress messages."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from pyfn.errors import UsageError
from pyfn.splits.builder import SPLITS, BuildOptions
from pyfn.splits.filters import FILTERS
from pyfn.splits.options import build_options as make_build_options

EPILOG = "FrameNet data: ICSI, Berkeley, under CC BY (https://framenet.icsi.berkeley.edu/)."
EXECUTOR_HELP = ("where the {} run: local (pyfn's process pool), dask (a Dask LocalCluster; pip install "
                 "\"pyfn[dask]\") or dask://HOST:PORT (a running Dask scheduler, e.g. a dask-jobqueue SLURMCluster's, "
                 "whose workers see this folder, the release and the caches at the same paths); results do not depend "
                 "on it")
SPLIT_CHOICES = [*SPLITS, "all"]
"""The choices of ``--splits`` where the three splits can be written (``all``: every one)."""
Log = Callable[[str], None]
Subparsers = argparse._SubParsersAction  # noqa: SLF001 - what ``add_subparsers`` returns has no public name


class HelpFormatter(argparse.HelpFormatter):
    """Help that shows every option's default unless its text already says it (flags are off by default)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("default" in text or action.required or default in (None, False, argparse.SUPPRESS)
                or not action.option_strings):
            return text
        shown = (" ".join(map(str, default)) or "none") if isinstance(default, (list, tuple)) else str(default)
        return f"{text} (default: {shown.replace('%', '%%')})"


class Parser(argparse.ArgumentParser):
    """An argument parser (and, through ``add_subparsers``, its sub-parsers) whose errors are one line and
    a hint, not the usage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\ntry '{self.prog} --help' for more\n")


def subparsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every sub-parser under ``parser``, depth first."""
    for action in parser._actions:  # noqa: SLF001 - argparse has no public walk of its sub-parsers
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for sub in action.choices.values():
                yield sub
                yield from subparsers(sub)


def refusing(refused: Mapping[str, str]) -> Callable[[str], str]:
    """An argparse ``type`` that refuses, saying why, a value pyfn cannot handle there (e.g. a format)."""

    def check(value: str) -> str:
        if value in refused:
            raise argparse.ArgumentTypeError(refused[value])
        return value

    return check


def log(quiet: bool, prefix: str = "pyfn: ") -> Log:
    """Progress messages on stderr, each line after ``prefix``; nothing when ``quiet``."""
    return (lambda line: None) if quiet else (lambda line: print(f"{prefix}{line}", file=sys.stderr))


def checkout(given: str | None, variable: str, missing: str) -> Path:
    """A parser's checkout: ``--home`` (``given``), else ``$variable``; a usage error saying ``missing`` without."""
    home = given or os.environ.get(variable)
    if not home:
        raise UsageError(missing)
    return Path(home)


def progress_bar(quiet: bool, desc: str = "reading", unit: str = "file"):
    """A tqdm progress bar on stderr, off when quiet or when stderr is not a terminal."""

    def wrap(items, total):
        if quiet or not sys.stderr.isatty():
            return items
        from tqdm import tqdm  # noqa: PLC0415 - only when drawing

        return tqdm(items, total=total, unit=unit, desc=desc, leave=False)

    return wrap


def add_force(p: argparse.ArgumentParser) -> None:
    """``--force``: write over files pyfn did not write."""
    p.add_argument("--force", action="store_true",
                   help="write into a folder holding files no earlier pyfn manifest there lists, or that changed "
                   "since pyfn wrote them (files of an output's name are overwritten, the others left alone)")


def add_quiet(p: argparse.ArgumentParser | argparse._ArgumentGroup, what: str = "no progress bar, no summary") -> None:
    """``--quiet``: no progress on stderr."""
    p.add_argument("--quiet", action="store_true", help=what)


def add_actions(p: argparse.ArgumentParser, run: Callable[[argparse.Namespace], int]) -> Any:
    """The required ACTION subparsers of an external parser's verb (setup, prepare, train, ...), ``run`` its
    function."""
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    p.set_defaults(func=run)
    return actions


def add_installation_options(p: argparse.ArgumentParser, patch: str) -> None:
    """Where an external parser's patched copy is installed, its patches (pyfn's ``patch`` by default), and
    ``--quiet``."""
    p.add_argument("--install-dir", help="where installations go (default: $PYFN_CACHE/parsers or "
                   "~/.cache/pyfn/parsers)")
    p.add_argument("--patch", nargs="*", metavar="FILE",
                   help=f"patches applied to the copy (default: pyfn's resources/parsers/{patch}; no FILE: none)")
    p.add_argument("--quiet", action="store_true", help="no progress messages")


def add_build_options(p: argparse.ArgumentParser) -> None:
    """Options that decide which annotation sets the splits hold (convert, generate, show)."""
    p.add_argument("--with-exemplars", "--with_exemplars", action="store_true", help="add lu/*.xml exemplars to train")
    p.add_argument(
        "--exclude-frames", "--excluded_frames", nargs="+", metavar="ID",
        help="frame ids to drop everywhere (the published FN 1.5 counts exclude 398)",
    )
    p.add_argument("--exclude-lus", "--excluded_lus", nargs="+", metavar="ID", help="lexical unit ids to drop")
    p.add_argument("--exclude-sentences", "--excluded_sentences", nargs="+", metavar="ID", help="sentence ids to drop")
    p.add_argument("--exclude-annosets", "--excluded_annosets", nargs="+", metavar="ID", help="annotation-set ids to drop")
    p.add_argument(
        "--filter", "--filters", nargs="+", default=[], metavar="NAME",
        help=f"train filters: {', '.join(FILTERS)}",
    )
    p.add_argument("--filter-scope", choices=["train", "all"], default="train",
                   help="splits the filters remove sets from: train (default; dev and test are never filtered) or all "
                        "(pyfn 1.3's behaviour: dev and test lose sets too; for comparison with earlier studies)")
    p.add_argument("--split", default="standard", choices=["standard", "random", "kfold"], help="split definition")
    p.add_argument("--seed", type=int, default=0, help="seed of --split random/kfold (default 0)")
    p.add_argument("--folds", type=int, default=5, help="number of folds of --split kfold (default 5)")
    p.add_argument("--fold", type=int, default=0, help="which fold is test with --split kfold (default 0)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="build even when split documents are missing (recorded; never called standard)")
    p.add_argument("--jobs", type=int, default=0, help="worker processes for reading and writing (default: one per core)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad item instead of skipping and counting")
    add_quiet(p)
    add_cache_options(p)


def add_cache_options(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--cache-dir`` and ``--no-cache``: where pyfn's caches are, or none."""
    p.add_argument("--cache-dir", metavar="DIR",
                   help="root of pyfn's caches: parsed FrameNet releases in DIR/releases, preprocessing results in "
                   "DIR/preprocess (default: $PYFN_CACHE, else ~/.cache/pyfn)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write pyfn's caches (default: use them; outputs are the same either way)")


def build_options(args: argparse.Namespace, splits: str | Iterable[str] = "all") -> BuildOptions:
    """The :class:`BuildOptions` of :func:`add_build_options`' options (``splits``: names or ``"all"``)."""
    return make_build_options(
        splits=splits, with_exemplars=args.with_exemplars, exclude_frames=args.exclude_frames or (),
        exclude_lus=args.exclude_lus or (), exclude_sentences=args.exclude_sentences or (),
        exclude_annosets=args.exclude_annosets or (), filters=args.filter, filter_scope=args.filter_scope,
        strict=args.strict, allow_incomplete=args.allow_incomplete, jobs=args.jobs, flags=True,
    )


def release_cache(cache_dir: str | None, no_cache: bool):
    """The parsed-release cache ``--cache-dir``/``--no-cache`` ask for (None with --no-cache)."""
    from pyfn.framenet.cache import ReleaseCache  # noqa: PLC0415

    return None if no_cache else ReleaseCache.under(Path(cache_dir) if cache_dir else None)


def cache_hint(cache, quiet: bool) -> None:
    """After a run that stored a parsed release (a new release, or a new pyfn version): say how much of the
    cache was made by other pyfn versions, and how to remove it."""
    if cache is None or not cache.written or quiet:
        return
    from pyfn.cache_admin import stale_hint  # noqa: PLC0415

    hint = stale_hint(cache.directory.parent)
    if hint:
        print(f"pyfn: {hint}", file=sys.stderr)


@contextmanager
def executor(spec: str, workers: int, quiet: bool) -> Iterator[None]:
    """One Dask client for the whole command when ``spec`` names one (its dashboard address printed)."""
    from pyfn.executors import LOCAL, check_spec, dask_client  # noqa: PLC0415

    if check_spec(spec) == LOCAL:
        yield
        return
    with dask_client(spec, workers, log=(lambda line: None) if quiet else (lambda line: print(line, file=sys.stderr))):
        yield


def warn(warnings: list[str]) -> None:
    """Each warning of a run on stderr."""
    for warning in warnings:
        print(f"pyfn: warning: {warning}", file=sys.stderr)


def given(args: argparse.Namespace) -> list[str]:
    """The options of ``args.parser`` (the sub-command's parser) set away from their defaults, by first name."""
    return [action.option_strings[0] for action in args.parser._actions  # noqa: SLF001 - no public list
            if action.option_strings and action.default != argparse.SUPPRESS
            and getattr(args, action.dest, action.default) != action.default]


def _listed(flags: list[str] | tuple[str, ...]) -> str:
    return flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"


class Modes:
    """The one place where a verb with several modes (``pyfn score``, ``pyfn compare``) says which options each
    mode takes: ``takes`` maps a mode's name (as the user selects it, e.g. ``--breakdown``) to its options;
    ``why`` maps groups of options to the sentence that says where they belong; ``notes`` adds a sentence to a
    mode's refusals. :meth:`check` refuses, in one usage error, every option set that the mode does not take, so
    an option added to the parser is refused everywhere until a mode lists it."""

    def __init__(self, takes: Mapping[str, tuple[str, ...]], why: Mapping[tuple[str, ...], str],
                 notes: Mapping[str, str] | None = None) -> None:
        self.takes, self.why, self.notes = takes, why, notes or {}

    def check(self, args: argparse.Namespace, mode: str) -> None:
        """A usage error naming every option set that ``mode`` does not take, and why."""
        refused = [flag for flag in given(args) if flag not in self.takes[mode]]
        if not refused:
            return
        reasons = [text for group, text in self.why.items() if any(flag in group for flag in refused)]
        note = self.notes.get(mode)
        raise UsageError(f"{mode} does not take {_listed(refused)}: {'; '.join([*reasons, *([note] if note else [])])}")

    def unexplained(self, parser: argparse.ArgumentParser) -> list[str]:
        """The parser's options that no mode takes, or that a mode refuses without a reason (a test keeps this
        empty: a new option must be placed in the table)."""
        out = []
        for action in parser._actions:  # noqa: SLF001 - no public list
            if not action.option_strings or action.default == argparse.SUPPRESS:
                continue
            flag = action.option_strings[0]
            takers = [mode for mode, flags in self.takes.items() if flag in flags]
            if not takers or (len(takers) < len(self.takes) and not any(flag in group for group in self.why)):
                out.append(flag)
        return out
