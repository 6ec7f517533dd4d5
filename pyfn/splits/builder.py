"""The split builder: SPLITS.md steps 1-7, with a removal ledger.

Files are read in parallel worker processes (steps 1-4 are local to a set);
each kept set crosses the process boundary as its JSON line (the lossless
pivot), with the hashes that steps 5-6 need. Output order never depends on
file order, directory order or the number of processes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from pyfn.errors import Problem, PyfnError, UsageError
from pyfn.formats import jsonl
from pyfn.framenet.annotations import read_annotations
from pyfn.framenet.release import Release
from pyfn.splits.definitions import SplitDefinition
from pyfn.splits.filters import Filter, get_filters
from pyfn.splits.hashing import fe_signature, hash_and_order, sentence_hash
from pyfn.splits.validity import invalid_reason
from pyfn.workers import job_count, process_pool

SPLITS = ("train", "dev", "test")
DEDUP_RULE = "lowest annotation-set ID kept"
FILTER_SCOPES = ("train", "all")


@dataclass(frozen=True)
class BuildOptions:
    """Everything that changes which annotation sets a split holds."""

    splits: tuple[str, ...] = SPLITS
    with_exemplars: bool = False
    exclude_frames: frozenset[int] = frozenset()
    exclude_lus: frozenset[int] = frozenset()
    exclude_sentences: frozenset[int] = frozenset()
    exclude_annosets: frozenset[int] = frozenset()
    filters: tuple[str, ...] = ()
    filter_scope: str = "train"
    """Which splits the filters apply to: ``train`` (pyfn's rule) or ``all`` (pyfn 1.3 also filtered dev and test)."""
    strict: bool = False
    allow_incomplete: bool = False
    jobs: int = 0

    def __post_init__(self) -> None:
        unknown = set(self.splits) - set(SPLITS)
        if unknown:
            raise UsageError(f"unknown split {', '.join(sorted(unknown))} (known: train, dev, test, all)")
        get_filters(self.filters)
        if self.filter_scope not in FILTER_SCOPES:
            raise UsageError(f"unknown filter scope {self.filter_scope!r} (known: {', '.join(FILTER_SCOPES)})")


@dataclass(frozen=True)
class Record:
    """A kept annotation set as it crosses from a worker: hashes, order and JSON line.

    ``text`` is the sentence string (trailing whitespace removed) and ``order``
    pyfn 1.3's within-sentence key: together with ``id`` they give the output
    order of :func:`pyfn.formats.base.ordered`.
    """

    id: int
    sent_hash: str
    set_hash: str
    text: str
    order: str
    line: str


@dataclass
class FileOutcome:
    """What a worker made of one file."""

    path: str
    split: str
    sha256: str = ""
    sentences: int = 0
    records: list[Record] = field(default_factory=list)
    removed: Counter = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    matched: set[tuple[str, int]] = field(default_factory=set)


@dataclass
class SplitData:
    """One built split: its JSON lines in output order and its counts.

    ``starts`` holds the index of each sentence string's first line (the
    lines of a sentence are adjacent): a split cut there is cut between
    sentences, and the k-th start begins sentence number k.
    """

    name: str
    lines: list[str]
    sentences: int
    annotation_sets: int = -1
    starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.annotation_sets < 0:
            self.annotation_sets = len(self.lines)


@dataclass
class BuildResult:
    """The built splits with their ledger and everything the manifest records."""

    definition: SplitDefinition
    options: BuildOptions
    splits: dict[str, SplitData]
    ledger: dict[str, dict[str, int]]
    duplicates: dict[str, list[dict]]
    files: dict[str, str]
    problems: list[Problem]
    warnings: list[str]
    missing_documents: list[str]


_WORKER: dict = {}


def _init_worker(release: Release, options: BuildOptions, forked: bool = False) -> None:
    if forked:
        release.detach()
    _WORKER["release"] = release
    _WORKER["options"] = options
    _WORKER["filters"] = get_filters(options.filters)


def _exclusion(aset, options: BuildOptions) -> tuple[str, str, int] | None:
    if aset.frame_id in options.exclude_frames:
        return ("excluded:frame", "frame", aset.frame_id)
    if aset.lu_id in options.exclude_lus:
        return ("excluded:lu", "lu", aset.lu_id)
    if aset.sentence.id in options.exclude_sentences:
        return ("excluded:sentence", "sentence", aset.sentence.id)
    if aset.id in options.exclude_annosets:
        return ("excluded:annotation_set", "annotation_set", aset.id)
    return None


def process_file(task: tuple[str, str]) -> FileOutcome:
    """Steps 1-4 for one file: read, drop invalid and excluded sets, apply the filters (train's, or every
    split's with ``filter_scope="all"``)."""
    relpath, split = task
    release: Release = _WORKER["release"]
    options: BuildOptions = _WORKER["options"]
    filtered = split == "train" or options.filter_scope == "all"
    filters: tuple[Filter, ...] = _WORKER["filters"] if filtered else ()
    outcome = FileOutcome(relpath, split)
    try:
        result = read_annotations(release.read(relpath), relpath)
    except PyfnError as exc:
        outcome.problems.append(Problem("malformed_file", relpath, str(exc)))
        outcome.removed["malformed_file"] += 1
        return outcome
    outcome.sha256, outcome.sentences = result.sha256, result.sentences
    outcome.problems = result.problems
    for problem in result.problems:
        outcome.removed[problem.reason] += 1
    outcome.removed.update(result.not_annotation_sets)
    for aset in result.sets:
        reason = invalid_reason(aset)
        if reason is None:
            excl = _exclusion(aset, options)
            if excl is not None:
                reason = excl[0]
                outcome.matched.add(excl[1:])
        if reason is None:
            for flt in filters:
                if flt.removes(aset):
                    reason = f"filter:{flt.name}"
                    break
        if reason is not None:
            outcome.removed[reason] += 1
            continue
        set_hash, order = hash_and_order(aset)
        outcome.records.append(
            Record(
                aset.id,
                sentence_hash(aset.sentence.text),
                set_hash,
                aset.sentence.text.rstrip(),
                order,
                jsonl.dumps(aset),
            )
        )
    return outcome


def _tasks(release: Release, definition: SplitDefinition, options: BuildOptions) -> tuple[list[tuple[str, str]], list[str]]:
    fulltext = release.list("fulltext")
    present = {p.rsplit("/", 1)[-1] for p in fulltext}
    missing = sorted((set(definition.dev) | set(definition.test)) - present)
    if missing and not options.allow_incomplete:
        raise PyfnError(
            f"{release.label}: split {definition.name} names documents the release lacks: {', '.join(missing)}"
            " (use --allow-incomplete to build a non-standard split without them)"
        )
    tasks = [(p, definition.split_of(p.rsplit("/", 1)[-1])) for p in fulltext]
    order = {"test": 0, "dev": 1, "train": 2}
    tasks = [t for t in tasks if t[1] != "train" or "train" in options.splits]
    tasks.sort(key=lambda t: (order[t[1]], t[0]))
    if options.with_exemplars and "train" in options.splits:
        tasks.extend((p, "train") for p in release.list("lu"))
    return tasks, missing


def _run(tasks: Sequence[tuple[str, str]], release: Release, options: BuildOptions, progress: Callable) -> Iterator[FileOutcome]:
    jobs = job_count(options.jobs, len(tasks), per_job=4)
    if jobs == 1:
        _init_worker(release, options)
        yield from progress(map(process_file, tasks), len(tasks))
        return
    with process_pool(jobs, _init_worker, (release, options, True)) as pool:
        yield from progress(pool.imap(process_file, tasks, chunksize=32), len(tasks))


def _no_progress(items, total):
    return items


def build_splits(
    release: Release,
    definition: SplitDefinition,
    options: BuildOptions,
    progress: Callable = _no_progress,
) -> BuildResult:
    """Build the requested splits of ``release`` under ``definition`` (SPLITS.md)."""
    tasks, missing = _tasks(release, definition, options)
    ledger: dict[str, Counter] = {s: Counter() for s in SPLITS}
    records: dict[str, list[Record]] = {s: [] for s in SPLITS}
    files: dict[str, str] = {}
    problems: list[Problem] = []
    matched: set[tuple[str, int]] = set()
    for outcome in _run(tasks, release, options, progress):
        if options.strict and outcome.problems:
            first = outcome.problems[0]
            raise PyfnError(f"{first.message} (--strict)")
        files[outcome.path] = outcome.sha256
        problems.extend(outcome.problems)
        ledger[outcome.split].update(outcome.removed)
        records[outcome.split].extend(outcome.records)
        matched |= outcome.matched

    # Step 5: no sentence of test in dev, none of dev or test in train.
    test_hashes = {r.sent_hash for r in records["test"]}
    records["dev"] = _drop(records["dev"], lambda r: "overlap:test" if r.sent_hash in test_hashes else None, ledger["dev"])
    dev_hashes = {r.sent_hash for r in records["dev"]}
    records["train"] = _drop(
        records["train"],
        lambda r: "overlap:test" if r.sent_hash in test_hashes else ("overlap:dev" if r.sent_hash in dev_hashes else None),
        ledger["train"],
    )
    # Step 6: no duplicates within a split.
    duplicates: dict[str, list[dict]] = {}
    splits: dict[str, SplitData] = {}
    for name in SPLITS:
        kept, duplicates[name] = _dedup(records[name], ledger[name])
        kept.sort(key=lambda r: (r.text, r.order, r.id))
        if name in options.splits:
            starts = [i for i, r in enumerate(kept) if i == 0 or r.text != kept[i - 1].text]
            splits[name] = SplitData(name, [r.line for r in kept], len({r.text.strip() for r in kept}), starts=starts)
    warnings = [
        f"{flag} {ident} matches no annotation set read"
        for kind, flag, idents in (
            ("frame", "--exclude-frames", options.exclude_frames),
            ("lu", "--exclude-lus", options.exclude_lus),
            ("sentence", "--exclude-sentences", options.exclude_sentences),
            ("annotation_set", "--exclude-annosets", options.exclude_annosets),
        )
        for ident in sorted(idents)
        if (kind, ident) not in matched
    ]
    if missing:
        warnings.append(f"split documents missing from the release: {', '.join(missing)}; this is NOT the standard split")
    return BuildResult(
        definition=definition,
        options=options,
        splits=splits,
        ledger={s: dict(sorted(ledger[s].items())) for s in SPLITS if s in options.splits or s != "train"},
        duplicates={s: duplicates[s] for s in splits},
        files=dict(sorted(files.items())),
        problems=problems,
        warnings=warnings,
        missing_documents=missing,
    )


def _drop(records: list[Record], why: Callable[[Record], str | None], ledger: Counter) -> list[Record]:
    kept = []
    for record in records:
        reason = why(record)
        if reason is None:
            kept.append(record)
        else:
            ledger[reason] += 1
    return kept


def _dedup(records: list[Record], ledger: Counter) -> tuple[list[Record], list[dict]]:
    """Keep the lowest annotation-set ID per hash; list groups whose FE labels differ."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        groups[record.set_hash].append(record)
    kept: list[Record] = []
    differing: list[dict] = []
    for set_hash, group in groups.items():
        group.sort(key=lambda r: r.id)
        kept.append(group[0])
        if len(group) > 1:
            ledger["duplicate"] += len(group) - 1
            if len({fe_signature(jsonl.loads(r.line)) for r in group}) > 1:
                differing.append(
                    {
                        "hash": set_hash.replace("\t", " | "),
                        "kept": group[0].id,
                        "dropped": [r.id for r in group[1:]],
                        "rule": DEDUP_RULE,
                    }
                )
    differing.sort(key=lambda d: d["kept"])
    return kept, differing
