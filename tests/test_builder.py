"""The split builder on small crafted releases: ledger, overlap, dedup rule, filters on train only."""

import json
import time
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfn.errors import PyfnError
from pyfn.formats import jsonl
from pyfn.framenet import open_release
from pyfn.splits.builder import BuildOptions, Record, build_splits, sentence_count, sort_records
from pyfn import workers
from pyfn.workers import chunk_size
from pyfn.splits.definitions import SplitDefinition

from conftest import fulltext_xml, make_release, set_spec

DEF = SplitDefinition("t", dev=("dev.xml",), test=("test.xml",))
GIVE = "Kim gave Sandy a book ."


@pytest.fixture
def release(tmp_path: Path):
    docs = {
        "test.xml": fulltext_xml([
            {"id": 1, "text": GIVE, "sets": [set_spec(11), set_spec(12, fes=[("Donor", 0, 2), ("Theme", 15, 20)])]},
            {"id": 2, "text": "Bad offsets here .", "sets": [set_spec(13, fes=[("X", 0, 40)], target=[(0, 2)])]},
        ]),
        "dev.xml": fulltext_xml([
            {"id": 3, "text": "kim  GAVE sandy a book.", "sets": [set_spec(21, target=[(5, 8)])]},
            {"id": 4, "text": "Dev only sentence .", "sets": [set_spec(22, target=[(0, 2)], fes=[])]},
        ]),
        "train.xml": fulltext_xml([
            {"id": 5, "text": "Dev only sentence .", "sets": [set_spec(31, target=[(0, 2)])]},
            {"id": 6, "text": "Train one , two .", "sets": [
                set_spec(43, target=[(0, 4)], fes=[("A", 6, 8)]),
                set_spec(41, target=[(0, 4)], fes=[("B", 6, 8)]),
                set_spec(42, target=[(0, 4)], fes=[("A", 6, 8), ("Z", 12, 14)], frame="Other"),
                set_spec(44, target=[(0, 4)], fes=[("A", 6, 8)]),
            ]},
        ]),
    }
    return open_release(make_release(tmp_path / "fn", docs))


def _ids(data):
    return [jsonl.loads(line).id for line in data.lines]


def test_ledger_overlap_and_dedup(release):
    result = build_splits(release, DEF, BuildOptions())
    test, dev, train = result.splits["test"], result.splits["dev"], result.splits["train"]
    # set 12 duplicates 11 (same sentence, target, LU, frame) and differs in FEs: 11 is kept
    assert _ids(test) == [11]
    assert result.ledger["test"] == {"duplicate": 1, "invalid:offset_past_end": 1}
    assert result.duplicates["test"] == [
        {"hash": "kimgavesandyabook. | 4#7 | give.v | Giving", "kept": 11, "dropped": [12],
         "rule": "lowest annotation-set ID kept"}
    ]
    # dev sentence 3 is test sentence 1 up to case and whitespace
    assert _ids(dev) == [22]
    assert result.ledger["dev"] == {"overlap:test": 1}
    # train: 31 shares a sentence with dev; 41 < 43 < 44 in one dedup group
    assert _ids(train) == [41, 42]
    assert result.ledger["train"] == {"duplicate": 2, "overlap:dev": 1}
    assert (test.sentences, dev.sentences, train.sentences) == (1, 1, 1)


def test_dedup_rule_does_not_depend_on_file_order(release, tmp_path):
    a = build_splits(release, DEF, BuildOptions(jobs=1))
    b = build_splits(release, DEF, BuildOptions(jobs=2))
    assert a.splits["train"].lines == b.splits["train"].lines
    assert a.ledger == b.ledger


def test_filters_apply_to_train_only(release):
    result = build_splits(release, DEF, BuildOptions(filters=("no_fes",)))
    assert _ids(result.splits["dev"]) == [22]  # dev set without FEs survives
    assert result.ledger["dev"] == {"overlap:test": 1}


def test_filter_scope_all_filters_dev_and_test_as_pyfn_13_did(release, tmp_path):
    from pyfn.cli import main
    from pyfn.errors import UsageError

    result = build_splits(release, DEF, BuildOptions(filters=("no_fes",), filter_scope="all"))
    assert _ids(result.splits["dev"]) == []  # set 22 has no FE: removed from dev too
    assert result.ledger["dev"] == {"overlap:test": 1, "filter:no_fes": 1}
    with pytest.raises(UsageError, match="unknown filter scope 'dev'"):
        BuildOptions(filter_scope="dev")
    manifests = {}
    for scope in ("train", "all"):
        out = tmp_path / scope
        assert main(["convert", "--source", "sample", "--to", "jsonl", "--target", str(out), "--quiet",
                     "--filter", "disc_fes", "--filter-scope", scope]) == 0
        manifests[scope] = json.loads((out / "manifest.json").read_text())
    assert manifests["all"]["signature"].split("|")[3] == "filters:disc_fes@all"
    assert manifests["train"]["signature"].split("|")[3] == "filters:disc_fes"
    assert manifests["all"]["options"]["filter_scope"] == "all" and "filter_scope" not in manifests["train"]["options"]
    assert manifests["all"]["splits"]["test"]["annotation_sets"] < manifests["train"]["splits"]["test"]["annotation_sets"]


def test_exclusions_and_warning(release):
    result = build_splits(release, DEF, BuildOptions(exclude_annosets=frozenset({41, 999}), exclude_frames=frozenset({398})))
    assert _ids(result.splits["train"]) == [43, 42]
    assert result.ledger["train"]["excluded:annotation_set"] == 1
    assert "--exclude-annosets 999 matches no annotation set read" in result.warnings
    assert "--exclude-frames 398 matches no annotation set read" in result.warnings


def test_missing_split_document(release):
    bad = SplitDefinition("t", dev=("dev.xml",), test=("test.xml", "gone.xml"), standard=True)
    with pytest.raises(PyfnError, match="names documents the release lacks: gone.xml"):
        build_splits(release, bad, BuildOptions())
    result = build_splits(release, bad, BuildOptions(allow_incomplete=True))
    assert result.missing_documents == ["gone.xml"]
    assert any("NOT the standard split" in w for w in result.warnings)


def test_truncated_file_is_skipped_and_counted_or_strict(tmp_path):
    good = fulltext_xml([{"id": 1, "text": GIVE, "sets": [set_spec(11)]}])
    root = make_release(tmp_path / "fn", {"test.xml": good, "dev.xml": good[:-40], "train.xml": good})
    release = open_release(root)
    result = build_splits(release, DEF, BuildOptions())
    assert result.ledger["dev"] == {"malformed_file": 1}
    assert "dev.xml: malformed XML at line" in result.problems[0].message
    with pytest.raises(PyfnError, match=r"fulltext/dev.xml: malformed XML.*--strict"):
        build_splits(release, DEF, BuildOptions(strict=True))


def test_non_integer_offset_skips_the_set(tmp_path):
    sets = [set_spec(11), set_spec(12, target=[(4, 7)], fes=[("X", "a", 2)])]
    doc = fulltext_xml([{"id": 1, "text": GIVE, "sets": sets}])
    release = open_release(make_release(tmp_path / "fn", {"test.xml": doc, "dev.xml": doc.replace(b"Kim", b"Lee")}))
    result = build_splits(release, DEF, BuildOptions())
    assert result.ledger["test"] == {"malformed_annotation_set": 1}
    assert "annotationSet 12: label 'X' has a non-integer offset" in result.problems[0].message


def test_parse_tasks_are_few_but_balanced():
    """Each task sent to a parsing process costs the parent CPU: FN 1.5 FT+EX's 11,907 files go as
    tasks of 64, a full-text-only build's 78 as tasks of 4, a handful one by one."""
    assert chunk_size(11_907, 2) == 64
    assert chunk_size(78, 2) == 4
    assert chunk_size(78, 8) == 1
    assert chunk_size(3, 2) == 1


def test_parse_workers_turn_glibc_fastbins_off(monkeypatch):
    """Where glibc's mallopt exists it is called with M_MXFAST 0; elsewhere nothing is changed."""
    calls = []

    class Libc:
        def __init__(self, name):
            self.mallopt = Mallopt()

    class Mallopt:
        argtypes = None

        def __call__(self, param, value):
            calls.append((param, value))
            return 1

    monkeypatch.setattr(workers.ctypes, "CDLL", Libc)
    assert workers.without_fastbins() is True and calls == [(1, 0)]
    monkeypatch.setattr(workers.ctypes, "CDLL", lambda name: object())  # no mallopt (not glibc)
    assert workers.without_fastbins() is False and calls == [(1, 0)]


def _slow_task(item: tuple[str, int]) -> bytes:
    """Marks its start, takes a while, marks its end; a result larger than a pipe holds."""
    folder, number = item
    (Path(folder) / f"{number}.start").touch()
    time.sleep(0.2)
    (Path(folder) / f"{number}.end").touch()
    return b"x" * (1 << 20)


@pytest.mark.parametrize("chunksize", [1, 3])
def test_leaving_a_pool_early_waits_for_the_tasks_in_hand(tmp_path, chunksize):
    """A reader that stops (here an error after the first result) hands no more tasks and reads what the
    workers are doing before the pool is terminated: terminating a worker that is still on a task can
    hang for ever (it blocks sending its large result, holding the queue's lock that terminate needs)."""
    with pytest.raises(RuntimeError, match="stop"):
        with workers.process_pool(2, lambda: None, ()) as pool:
            for _ in workers.imap(pool, _slow_task, [(str(tmp_path), n) for n in range(60)], chunksize):
                raise RuntimeError("stop")
    started = {p.stem for p in tmp_path.glob("*.start")}
    assert started == {p.stem for p in tmp_path.glob("*.end")}  # none cut short
    assert 2 <= len(started) < 30  # those begun before the reader stopped; the others returned at once


def test_a_reader_that_takes_every_result_then_stops_does_not_wait():
    """The builder reads exactly as many results as files (islice), then leaves the generator."""
    with workers.process_pool(2, lambda: None, ()) as pool:
        results = workers.imap(pool, abs, range(-50, 0), 4)
        assert list(islice(results, 50)) == list(range(50, 0, -1))
        start = time.monotonic()
        results.close()
        assert time.monotonic() - start < 5


_WHITESPACE_TEXTS = st.lists(st.text(alphabet=st.sampled_from(["a", "b", " ", "\t", "\x1f", "\x85", "\xa0", "\u2003", "é"]),
                                     max_size=5), max_size=40)


@given(_WHITESPACE_TEXTS)
@settings(max_examples=400, deadline=None)
def test_sentence_count_is_the_number_of_distinct_stripped_texts(raw):
    """Whitespace as ``str.strip`` sees it, ASCII or not (``\x1f`` and U+0085 are whitespace to ``str`` only)."""
    texts = sorted(text.rstrip().encode() for text in raw)  # as the builder holds them: sorted, in UTF-8, no trailing whitespace
    starts = [i for i, text in enumerate(texts) if i == 0 or text != texts[i - 1]]
    assert sentence_count(texts, starts) == len({text.decode().strip() for text in texts})


@given(st.lists(st.text(max_size=4), max_size=30))
@settings(max_examples=400, deadline=None)
def test_utf8_bytes_sort_in_the_code_point_order_of_their_strings(texts):
    """What the builder relies on when it sorts the records' UTF-8 texts instead of the strings."""
    assert sorted(text.encode() for text in texts) == [text.encode() for text in sorted(texts)]


_RECORDS = st.lists(st.builds(
    Record, text=st.text(alphabet="ab \xe9\u2003", max_size=3).map(str.encode), order=st.text(alphabet="#1v", max_size=2),
    id=st.integers(-2, 2), sent_hash=st.text(alphabet="ab", max_size=1), set_hash=st.text(alphabet="ab", max_size=1),
    line=st.binary(max_size=2)), max_size=30)


@given(_RECORDS)
@settings(max_examples=400, deadline=None)
def test_sort_records_sorts_as_tuples_and_tells_where_each_text_starts(records):
    """Sorted by text, then each run of one text as tuples: the order of sorting the tuples throughout
    (ties on text and order included, which a split's records never have)."""
    ordered = list(records)
    texts, starts = sort_records(ordered)
    assert ordered == sorted(records)
    assert texts == [r.text for r in ordered]
    assert starts == [i for i, text in enumerate(texts) if i == 0 or text != texts[i - 1]]


def test_sentence_count_of_texts_that_differ_in_leading_whitespace_only():
    texts = sorted(text.encode() for text in [" a b", "a b", "\xa0a b", " c", " c", "d"])
    starts = [i for i, text in enumerate(texts) if i == 0 or text != texts[i - 1]]
    assert sentence_count(texts, starts) == 3  # "a b", "c", "d"
